#!/usr/bin/env python3
"""Compare two zip archives member by member: zipcmp.py OLD NEW.  Members
must come in the same order with the same names, times, attributes,
methods, extra fields and comments; a member whose local header and data
are not the old ones byte for byte is printed as "NAME: SIZE -> SIZE"
(what prune may change), any other difference as "NAME: FIELD
differs"."""
import sys
import zipfile

FIELDS = ("filename", "date_time", "compress_type", "comment", "extra",
          "create_system", "create_version", "extract_version",
          "external_attr", "internal_attr")


def raw_member(raw, info, nxt):
    return raw[info.header_offset:nxt]


old, new = (zipfile.ZipFile(p) for p in sys.argv[1:3])
raw_old, raw_new = (open(p, "rb").read() for p in sys.argv[1:3])
a, b = old.infolist(), new.infolist()
if [i.filename for i in a] != [i.filename for i in b]:
    print("members differ")
    sys.exit(1)


def ends(infos, raw):
    offs = sorted(i.header_offset for i in infos)
    cd = raw.rindex(b"PK\x05\x06")
    cd = int.from_bytes(raw[cd + 16:cd + 20], "little")
    return {o: (offs + [cd])[k + 1] for k, o in enumerate(offs)}


ea, eb = ends(a, raw_old), ends(b, raw_new)
for x, y in zip(a, b):
    for f in FIELDS:
        if getattr(x, f) != getattr(y, f):
            print("%s: %s differs" % (x.filename, f))
    if raw_old[x.header_offset:ea[x.header_offset]] != \
            raw_new[y.header_offset:eb[y.header_offset]]:
        print("%s: %d -> %d" % (x.filename, x.file_size, y.file_size))
