#!/usr/bin/env python3
"""Compare two zip archives member by member: zipcmp.py OLD NEW.  Members
must come in the same order with the same names, times, attributes,
methods, extra fields and comments; a member whose local header and data
are not the old ones byte for byte is printed as "NAME: SIZE -> SIZE"
(what prune may change), any other difference as "NAME: FIELD
differs".  Of a ZIP64 extra field (ID 1, whose offsets and sizes move)
only its place and length are compared."""
import struct
import sys
import zipfile

FIELDS = ("filename", "date_time", "compress_type", "comment", "extra",
          "create_system", "create_version", "extract_version",
          "external_attr", "internal_attr")


def shape(extra):
    """The extra fields with each ZIP64 field's values left out."""
    out, at = b"", 0
    while at + 4 <= len(extra):
        tag, size = struct.unpack_from("<HH", extra, at)
        out += extra[at:at + 4] + (b"" if tag == 1 else
                                   extra[at + 4:at + 4 + size])
        at += 4 + size
    return out + extra[at:]


def raw_member(raw, info, nxt):
    return raw[info.header_offset:nxt]


old, new = (zipfile.ZipFile(p) for p in sys.argv[1:3])
raw_old, raw_new = (open(p, "rb").read() for p in sys.argv[1:3])
a, b = old.infolist(), new.infolist()
if [i.filename for i in a] != [i.filename for i in b]:
    print("members differ")
    sys.exit(1)


def ends(infos, z):
    offs = sorted(i.header_offset for i in infos)
    return {o: (offs + [z.start_dir])[k + 1] for k, o in enumerate(offs)}


ea, eb = ends(a, old), ends(b, new)
for x, y in zip(a, b):
    for f in FIELDS:
        u, v = getattr(x, f), getattr(y, f)
        if (shape(u) != shape(v)) if f == "extra" else (u != v):
            print("%s: %s differs" % (x.filename, f))
    if raw_old[x.header_offset:ea[x.header_offset]] != \
            raw_new[y.header_offset:eb[y.header_offset]]:
        print("%s: %d -> %d" % (x.filename, x.file_size, y.file_size))
