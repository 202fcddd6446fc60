"""Edit one field of one section of a COFF object (plain, not bigobj):
coffmut.py IN OUT SECTION-NAME size|offset VALUE.  Long names are looked
up through the string table.  For tests of sections whose bytes run past
the end of the file."""
import struct
import sys

src, dst, want, field, value = sys.argv[1:6]
d = bytearray(open(src, "rb").read())
nsec, = struct.unpack_from("<H", d, 2)
symtab, nsym = struct.unpack_from("<II", d, 8)
opt, = struct.unpack_from("<H", d, 16)
strtab = symtab + 18 * nsym
for i in range(nsec):
    at = 20 + opt + 40 * i
    name = bytes(d[at:at + 8]).rstrip(b"\0")
    if name.startswith(b"/"):
        off = strtab + int(name[1:])
        name = bytes(d[off:d.index(b"\0", off)])
    if name.decode() == want:
        struct.pack_into("<I", d, at + {"size": 16, "offset": 20}[field],
                         int(value, 0))
        break
else:
    sys.exit("coffmut.py: no section " + want)
open(dst, "wb").write(d)
