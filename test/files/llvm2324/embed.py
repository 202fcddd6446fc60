#!/usr/bin/env python3
# embed.py IN.o OUT.o PACKAGE...: a clang -flto module (IN.o) whose embedded
# array of offload packages (@llvm.embedded.object, a STRING record of 8-bit
# fields at any bit) holds instead the packages named, back to back, the
# last one's size field grown over the zeros up to the array's length (as
# prune leaves it).  For make.sh: modules whose kept packages, written
# again, are longer than the array.
import struct, sys

src, dst, pkgs = sys.argv[1], sys.argv[2], sys.argv[3:]
b = bytearray(open(src, 'rb').read())


def byte_at(bit):
    w = b[bit >> 3] | (b[(bit >> 3) + 1] << 8 if (bit >> 3) + 1 < len(b) else 0)
    return (w >> (bit & 7)) & 0xff


magic = b'\x10\xff\x10\xad'
at = next(bit for bit in range(0, 8 * (len(b) - 5))
          if bytes(byte_at(bit + 8 * i) for i in range(4)) == magic)
n = sum(byte_at(at + 64 + 8 * i) << (8 * i) for i in range(8))
data = [bytearray(open(p, 'rb').read()) for p in pkgs]
for d in data[:-1]:
    d.extend(bytes(-len(d) % 8))
used = sum(len(d) for d in data)
assert used <= n, (used, n)
struct.pack_into('<Q', data[-1], 8, n - sum(len(d) for d in data[:-1]))
arr = b''.join(data) + bytes(n - used)
for i, x in enumerate(arr):
    p = at + 8 * i
    w = b[p >> 3] | b[(p >> 3) + 1] << 8
    w = (w & ~(0xff << (p & 7))) | (x << (p & 7))
    b[p >> 3], b[(p >> 3) + 1] = w & 0xff, w >> 8
open(dst, 'wb').write(b)
