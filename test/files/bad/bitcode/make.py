#!/usr/bin/env python3
"""Write the damaged-bitcode corpus from a good file (clang-22's bitcode of
test/ar/src/syms.c, committed as a fuzz seed): each must get one clear
error from formats/bitcode (test/ar.test holds the messages).  Run from
this directory; the files are committed.

The good file is taken apart into its top-level blocks, and its symbol and
string tables rebuilt with the small bitstream writer below; that the
rebuilt file equals the original is checked first, so the damage in each
file is exactly the one its name says."""
import struct

SEED = "../../../fuzz/corpus/bitcode/syms-host.bc"


class Bits:
    """A bitstream being written: fields go in least significant bit
    first, as LLVM's BitstreamWriter puts them."""

    def __init__(self):
        self.bits = []

    def fixed(self, v, n):
        self.bits += [(v >> i) & 1 for i in range(n)]

    def vbr(self, v, n):
        hi = 1 << (n - 1)
        while True:
            piece, v = v & (hi - 1), v >> (n - 1)
            self.fixed(piece | (hi if v else 0), n)
            if not v:
                return

    def align(self):
        while len(self.bits) % 32:
            self.bits.append(0)

    def raw(self, data):
        assert len(self.bits) % 8 == 0
        for b in data:
            self.fixed(b, 8)

    def bytes(self):
        assert len(self.bits) % 8 == 0
        return bytes(sum(self.bits[i + k] << k for k in range(8))
                     for i in range(0, len(self.bits), 8))


class Reader:
    def __init__(self, data):
        self.d, self.pos = data, 0

    def fixed(self, n):
        v = 0
        for i in range(n):
            v |= ((self.d[self.pos >> 3] >> (self.pos & 7)) & 1) << i
            self.pos += 1
        return v

    def vbr(self, n):
        v = shift = 0
        while True:
            x = self.fixed(n)
            v |= (x & ((1 << (n - 1)) - 1)) << shift
            shift += n - 1
            if not x >> (n - 1):
                return v


def top_blocks(data):
    """(block id, bytes of the whole block) for each top-level block."""
    r, out = Reader(data), []
    r.pos = 32
    while r.pos < len(data) * 8:
        start = r.pos
        assert r.fixed(2) == 1
        ident = r.vbr(8)
        r.vbr(4)
        r.pos = (r.pos + 31) & ~31
        words = r.fixed(32)
        r.pos += words * 32
        out.append((ident, data[start // 8:r.pos // 8]))
    return out


def blob_of(block):
    """The blob of a SYMTAB/STRTAB block as LLVM writes it: an abbreviation
    [literal 1, blob], then one record using it."""
    r = Reader(block)
    r.fixed(2), r.vbr(8), r.vbr(4)
    r.pos = 32 + 32
    assert r.fixed(3) == 2 and r.vbr(5) == 2
    assert r.fixed(1) == 1 and r.vbr(8) == 1
    assert r.fixed(1) == 0 and r.fixed(3) == 5
    assert r.fixed(3) == 4
    n = r.vbr(6)
    r.pos = (r.pos + 31) & ~31
    return block[r.pos // 8:r.pos // 8 + n]


def block(ident, body, width=3):
    """A top-level block around body(Bits), which writes the contents."""
    inner = Bits()
    body(inner)
    inner.fixed(0, width)           # END_BLOCK
    inner.align()
    out = Bits()
    out.fixed(1, 2)
    out.vbr(ident, 8)
    out.vbr(width, 4)
    out.align()
    out.fixed(len(inner.bits) // 32, 32)
    out.bits += inner.bits
    return out.bytes()


def blob_block(ident, blob, length=None):
    def body(w):
        w.fixed(2, 3)               # DEFINE_ABBREV [literal 1, blob]
        w.vbr(2, 5)
        w.fixed(1, 1)
        w.vbr(1, 8)
        w.fixed(0, 1)
        w.fixed(5, 3)
        w.fixed(4, 3)               # the record
        w.vbr(len(blob) if length is None else length, 6)
        w.align()
        w.raw(blob)
        w.align()
    return block(ident, body)


def write(name, data):
    with open(name, "wb") as f:
        f.write(data)


seed = open(SEED, "rb").read()
blocks = top_blocks(seed)
ids = [b[0] for b in blocks]
assert ids == [13, 8, 25, 23], ids
ident, module = blocks[0][1], blocks[1][1]
symtab, strtab = blob_of(blocks[2][1]), blob_of(blocks[3][1])
MAGIC = b"BC\xc0\xde"


def bitcode(sym=symtab, st=strtab, front=None):
    front = ident + module if front is None else front
    return MAGIC + front + blob_block(25, sym) + blob_block(23, st)


assert bitcode() == seed, "the rebuilt seed differs from the seed"


def patched(blob, offset, fmt, *values):
    b = bytearray(blob)
    struct.pack_into(fmt, b, offset, *values)
    return bytes(b)


write("size-not-multiple-of-4.bc", seed + b"\0")
write("wrapper-past-end.bc", struct.pack("<5I", 0x0B17C0DE, 0, 20,
                                         len(seed) + 4, 7) + seed)
write("wrapper-too-short.bc", struct.pack("<3I", 0x0B17C0DE, 0, 12))
write("wrapper-not-bitcode.bc", struct.pack("<5I", 0x0B17C0DE, 0, 20, 4, 7) +
      b"XXXX")
write("not-bitcode.bc", b"BC\xc0\xdf" + seed[4:])
# Cut inside the module: its length word points past the end.
write("truncated-module.bc", seed[:len(ident) + 4 + 400])
write("no-symtab.bc", MAGIC + ident + module + blob_block(23, strtab))
write("no-strtab.bc", MAGIC + ident + module + blob_block(25, symtab))
write("symtab-version-5.bc", bitcode(patched(symtab, 0, "<I", 5)))
write("symtab-too-small.bc", bitcode(symtab[:64]))
write("symbols-past-end.bc", bitcode(patched(symtab, 28, "<II", 88,
                                             0x10000000)))
# The first symbol's name runs past the string table.
write("name-past-strtab.bc", bitcode(patched(symtab, 88, "<II",
                                             len(strtab) - 2, 5)))
write("producer-past-strtab.bc", bitcode(patched(symtab, 4, "<II",
                                                 0xFFFFFFF0, 0x20)))
# Two modules (as llvm-cat -b makes) under a table for one.
write("module-count-mismatch.bc", bitcode(front=ident + module + ident +
                                          module))
# Zeros after the last block: an END_BLOCK at the top level.
write("top-level-end-block.bc", seed + b"\0" * 12)
write("blob-ends-too-soon.bc", MAGIC + ident + module +
      blob_block(25, symtab, length=len(symtab) + 64))
write("identification-without-module.bc", MAGIC + ident + blob_block(25, symtab)
      + blob_block(23, strtab))
# A block ID whose VBR never ends within 64 bits.
w = Bits()
w.fixed(1, 2)
for _ in range(12):
    w.fixed(0xFF, 8)
w.align()
write("unterminated-vbr.bc", MAGIC + w.bytes() + b"\0" * 8)


def abbrev_block(ops):
    """A SYMTAB block defining one abbreviation from (literal?, value,
    encoding, width) tuples."""
    def body(w):
        w.fixed(2, 3)
        w.vbr(len(ops), 5)
        for lit, enc, width in ops:
            w.fixed(lit, 1)
            if lit:
                w.vbr(enc, 8)
            else:
                w.fixed(enc, 3)
                if enc in (1, 2):
                    w.vbr(width, 5)
    return block(25, body)


write("abbrev-too-many-operands.bc", MAGIC + ident + module +
      abbrev_block([(1, 1, 0)] * 17) + blob_block(23, strtab))
write("abbrev-bad-encoding.bc", MAGIC + ident + module +
      abbrev_block([(0, 6, 0)]) + blob_block(23, strtab))
write("abbrev-wide-fixed.bc", MAGIC + ident + module +
      abbrev_block([(0, 1, 33)]) + blob_block(23, strtab))


def unabbreviated_blob(w):
    w.fixed(3, 3)                   # UNABBREV_RECORD: code 1, no operands
    w.vbr(1, 6)
    w.vbr(0, 6)


# An unabbreviated record leaves the blob empty, as in LLVM: no table.
write("empty-symtab-blob.bc", MAGIC + ident + module +
      block(25, unabbreviated_blob) + blob_block(23, strtab))
