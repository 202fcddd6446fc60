#!/usr/bin/env python3
"""pecsum.py IMAGE...: check each PE image's CheckSum field: 0 (not set)
or the sum Windows' loader checks (16-bit words with end-around carries,
the field left out, plus the file's length).  Prints "IMAGE: ok, set" or
"IMAGE: ok, not set"; exits 1 on a mismatch."""
import struct
import sys


def checksum(d, at):
    b = d + (b"\0" if len(d) % 2 else b"")
    s = 0
    for i in range(0, len(b), 2):
        if at <= i < at + 4:
            continue
        s += b[i] | b[i + 1] << 8
        s = (s & 0xffff) + (s >> 16)
    s = (s & 0xffff) + (s >> 16)
    return (s + len(d)) & 0xffffffff


def main():
    bad = 0
    for f in sys.argv[1:]:
        d = open(f, "rb").read()
        pe, = struct.unpack_from("<I", d, 60)
        at = pe + 4 + 20 + 64
        stored, = struct.unpack_from("<I", d, at)
        if stored == 0:
            print("%s: ok, not set" % f)
        elif stored == checksum(d, at):
            print("%s: ok, set" % f)
        else:
            print("%s: CheckSum %#x, the sum is %#x" % (f, stored,
                                                       checksum(d, at)))
            bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main())
