"""ELF host mutations for the differential suites (issue 19 item 15).

mutate(data, rng) returns an ELF file changed in one header field or in
its symbol order, the ways that found differences with llvm-objcopy 22:
an odd sh_entsize, an odd or huge sh_addralign, symbols out of order
(a local one after a global one), a symbol's binding flipped, the symbol
table's sh_info.  Anything that is not an ELF file comes back unchanged.
"""
import struct

ENTSIZES = [0, 1, 2, 3, 4, 7, 8, 12, 16, 24, 32, 0x1000]
ALIGNS = [0, 1, 2, 3, 4, 8, 16, 0x40, 0x1000, 0x10000, 0x1000008,
          1 << 24]


def _layout(d):
    if len(d) < 52 or d[:4] != b"\x7fELF" or d[4] not in (1, 2):
        return None
    e64 = d[4] == 2
    en = "<" if d[5] == 1 else ">"
    if e64:
        if len(d) < 64:
            return None
        shoff, = struct.unpack_from(en + "Q", d, 0x28)
        shentsize, shnum = struct.unpack_from(en + "HH", d, 0x3a)
        fmt = en + "IIQQQQIIQQ"
    else:
        shoff, = struct.unpack_from(en + "I", d, 0x20)
        shentsize, shnum = struct.unpack_from(en + "HH", d, 0x2e)
        fmt = en + "IIIIIIIIII"
    if shentsize != struct.calcsize(fmt) or shoff + shnum * shentsize > len(d):
        return None
    # [header offset, name, type, flags, addr, offset, size, link, info,
    #  addralign, entsize]
    secs = [[shoff + i * shentsize] +
            list(struct.unpack_from(fmt, d, shoff + i * shentsize))
            for i in range(shnum)]
    return e64, en, fmt, secs


def mutate(data, rng):
    lay = _layout(data)
    if not lay or len(lay[3]) < 2:
        return data
    e64, en, fmt, secs = lay
    d = bytearray(data)
    symtab = [s for s in secs if s[2] == 2 and s[6] + s[7] <= len(d)]
    what = rng.choice(["entsize", "align", "align", "symswap", "symswap",
                       "bind", "info"] if symtab else ["entsize", "align"])
    if what in ("entsize", "align"):
        s = rng.choice(secs[1:])
        # Mostly the sections llvm-objcopy rewrites itself.
        special = [x for x in secs[1:] if x[2] in (2, 4, 9, 17, 18)]
        if special and rng.random() < 0.6:
            s = rng.choice(special)
        if what == "entsize":
            s[10] = rng.choice(ENTSIZES)
        else:
            s[9] = rng.choice(ALIGNS)
        struct.pack_into(fmt, d, s[0], *s[1:])
        return bytes(d)
    st = symtab[0]
    es = 24 if e64 else 16
    n = st[6] // es
    if n < 2:
        return data
    if what == "info":
        st[8] = rng.choice([0, 1, n // 2, n, n + 1])
        struct.pack_into(fmt, d, st[0], *st[1:])
        return bytes(d)
    if what == "bind":
        k = rng.randrange(1, n)
        at = st[5] + k * es + (4 if e64 else 12)
        d[at] = (d[at] & 0xf) | (rng.choice([0, 1, 2]) << 4)
        return bytes(d)
    i, j = rng.randrange(1, n), rng.randrange(1, n)
    a, b = st[5] + i * es, st[5] + j * es
    x, y = bytes(d[a:a + es]), bytes(d[b:b + es])
    d[a:a + es], d[b:b + es] = y, x
    return bytes(d)


def edit(data, op, a, b):
    """One named edit: ("align"|"entsize"|"type"|"link"|"offset"|"size",
    section name,
    value), ("swap", symbol i, symbol j) or ("relsym", relocation section
    name, symbol index written into its first entry)."""
    lay = _layout(data)
    e64, en, fmt, secs = lay
    d = bytearray(data)
    if op == "relsym":
        strsec = secs[struct.unpack_from(en + "H", d, 0x3e if e64 else 0x32)[0]]
        s = [s for s in secs if d[strsec[5] + s[1]:
                                  d.index(b"\0", strsec[5] + s[1])].decode() == a][0]
        if e64:
            info, = struct.unpack_from(en + "Q", d, s[5] + 8)
            struct.pack_into(en + "Q", d, s[5] + 8,
                             int(b, 0) << 32 | info & 0xffffffff)
        else:
            info, = struct.unpack_from(en + "I", d, s[5] + 4)
            struct.pack_into(en + "I", d, s[5] + 4, int(b, 0) << 8 | info & 0xff)
        return bytes(d)
    if op == "swap":
        st = [s for s in secs if s[2] == 2][0]
        es = 24 if e64 else 16
        i, j = st[5] + int(a) * es, st[5] + int(b) * es
        x, y = bytes(d[i:i + es]), bytes(d[j:j + es])
        d[i:i + es], d[j:j + es] = y, x
        return bytes(d)
    strsec = secs[struct.unpack_from(en + "H", d, 0x3e if e64 else 0x32)[0]]
    for s in secs:
        at = strsec[5] + s[1]
        if d[at:d.index(b"\0", at)].decode() != a:
            continue
        s[{"entsize": 10, "align": 9, "type": 2, "link": 7, "offset": 5,
           "size": 6}[op]] = int(b, 0)
        struct.pack_into(fmt, d, s[0], *s[1:])
    return bytes(d)


if __name__ == "__main__":
    # elfmut.py IN OUT OP A B: OP align|entsize|type|link|offset|size
    # SECTION VALUE,
    # swap I J, relsym SECTION INDEX;
    import sys
    # or: elfmut.py IN OUT random SEED (one mutation chosen by SEED)
    src, dst, op, a = sys.argv[1:5]
    data = open(src, "rb").read()
    if op == "random":
        import random
        data = mutate(data, random.Random(int(a)))
    else:
        data = edit(data, op, a, sys.argv[5])
    open(dst, "wb").write(data)
