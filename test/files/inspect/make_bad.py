#!/usr/bin/env python3
"""Write the damaged inputs of ls.test and extract.test into test/files/bad/
(inspect-*), each one thing wrong with a committed fixture of this directory
or a small file made here.  Deterministic: run again, same bytes."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
BAD = os.path.normpath(os.path.join(HERE, "..", "bad"))
MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"


def read(name):
    with open(os.path.join(HERE, name), "rb") as f:
        return f.read()


def write(name, data):
    with open(os.path.join(BAD, "inspect-" + name), "wb") as f:
        f.write(data)


def bundle(entries, count=None):
    """A binary bundle: entries are (id, data), placed after the header."""
    head = len(MAGIC) + 8 + sum(24 + len(i) for i, _ in entries)
    out, body, pos = b"", b"", head
    for ident, data in entries:
        out += struct.pack("<QQQ", pos, len(data), len(ident)) + ident
        body += data
        pos += len(data)
    n = len(entries) if count is None else count
    return MAGIC + struct.pack("<Q", n) + out + body


def main():
    ok = bundle([(b"hip-amdgcn-amd-amdhsa--gfx90a", b"code")])
    write("empty", b"")
    write("text.txt", b"just some text\n")
    write("elf-cut.so", read("app")[:20000])
    write("bundle-count.bin", bundle([(b"hip-amdgcn-amd-amdhsa--gfx90a", b"x")],
                                     count=1 << 40))
    # The entry claims 100 bytes where 4 follow.
    b = bytearray(ok)
    struct.pack_into("<Q", b, len(MAGIC) + 8 + 8, 100)
    write("bundle-entry-past-end.bin", bytes(b))
    b = bytearray(ok)
    struct.pack_into("<Q", b, len(MAGIC) + 8 + 16, 1 << 20)
    write("bundle-id-past-end.bin", bytes(b))
    # Three entries declared, the header stops inside the second.
    write("bundle-cut.bin", bundle([(b"a-b-c-d-e", b""), (b"f-g-h-i-j", b"")],
                                   count=3)[:len(MAGIC) + 8 + 24 + 9 + 10])
    z = read("fatbin-z.bin")
    total = struct.unpack_from("<Q", z, 8)[0]
    ccob = z[:total]
    write("ccob-short.bin", b"CCOB\x03\x00")
    b = bytearray(ccob)
    struct.pack_into("<H", b, 6, 7)
    write("ccob-method.bin", bytes(b))
    b = bytearray(ccob)
    struct.pack_into("<Q", b, 8, total + 1000)
    write("ccob-total.bin", bytes(b))
    # The zstd stream cut to 40 bytes (and the total size with it).
    b = bytearray(ccob[:72])
    struct.pack_into("<Q", b, 8, 72)
    write("ccob-cut.bin", bytes(b))
    b = bytearray(ccob)
    struct.pack_into("<Q", b, 24, struct.unpack_from("<Q", b, 24)[0] ^ 1)
    write("ccob-hash.bin", bytes(b))
    # A byte that is neither padding nor a bundle between two bundles.
    app = bytearray(read("app"))
    app[4096 + 17704 + 100] = 0x41
    write("junk.so", bytes(app))
    k = read("k.fatbin")
    write("nv-cut.fatbin", k[:-100])
    b = bytearray(k)
    struct.pack_into("<Q", b, 16 + 8, 1 << 40)
    write("nv-payload.fatbin", bytes(b))
    b = bytearray(k)
    struct.pack_into("<I", b, 16 + 4, 8)
    write("nv-header.fatbin", bytes(b))
    # The compressed PTX entries marked as LZ4 instead of zstd: zstd frames
    # that do not decode as LZ4 blocks.
    b = bytearray(k)
    pos = 16
    while pos < len(b):
        hs, size = struct.unpack_from("<IQ", b, pos + 4)
        flags = struct.unpack_from("<Q", b, pos + 40)[0]
        if flags & 0x8000:
            struct.pack_into("<Q", b, pos + 40, flags ^ 0x8000 ^ 0x2000)
        pos += hs + size
    write("nv-lz4.fatbin", bytes(b))
    # nvcc's LZ4 (--compress-mode=speed -Xfatbin -compress-all): the cubin
    # entry declaring one byte more than its block holds, fewer bytes than
    # it holds, and its block cut short.
    s = read(os.path.join("..", "nv", "all-speed.fatbin"))
    for name, at, fmt, value in (("nv-lz4-long.fatbin", 56, "<Q", 3369),
                                 ("nv-lz4-short.fatbin", 56, "<Q", 3000),
                                 ("nv-lz4-cut.fatbin", 16, "<I", 600)):
        b = bytearray(s)
        struct.pack_into(fmt, b, 16 + at, value)
        write(name, bytes(b))
    p = bytearray(read("pkg.bin"))
    struct.pack_into("<Q", p, 8, 4096)
    write("pkg-size.bin", bytes(p))
    write("ar-cut.a", read("lib.a")[:6000])


if __name__ == "__main__":
    main()
