#!/usr/bin/env python3
# spread.py SMALL.O: for kernels.test, from the bundle in its .hip_fatbin:
# in-order.b, its code objects
# 1.5 MiB apart (more than a piece of the stream apart), and reversed.b,
# the same with its header listing them from the last to the first.
import struct, sys
d = open(sys.argv[1], "rb").read()
at = d.find(b"__CLANG_OFFLOAD_BUNDLE__")
n = struct.unpack_from("<Q", d, at + 24)[0]
pos, ents = at + 32, []
for _ in range(n):
    off, size, idl = struct.unpack_from("<QQQ", d, pos)
    ents.append((d[at + off:at + off + size], d[pos + 24:pos + 24 + idl]))
    pos += 24 + idl
head = 32 + sum(24 + len(i) for _, i in ents)
laid, at2 = [], 4096
for code, i in ents:
    laid.append((at2, code, i))
    at2 += len(code) + (3 << 19)
def write(name, order):
    h = bytearray(d[at:at + 32])
    for off, code, i in order:
        h += struct.pack("<QQQ", off, len(code), len(i)) + i
    body = bytearray(at2)
    body[:len(h)] = h
    for off, code, i in order:
        body[off:off + len(code)] = code
    open(name, "wb").write(bytes(body))
write("in-order.b", laid)
write("reversed.b", laid[::-1])
