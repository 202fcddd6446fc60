#!/usr/bin/env python3
"""layout.py FLOOR SHRUNK: check that a shrunk linked file (offload prune)
is its floor (offload prune --keep-layout: freed bytes zeroed, layout kept)
as a loader sees it.  Prints "same memory" or each difference found.

- Every section of FLOOR has, at its index in SHRUNK, the same name, type,
  flags, address, link, info and entry size; the same size too, unless it
  is split: then the headers of its name that SHRUNK appends at the end of
  its table cover pieces of it, and whatever of it no header covers is
  zeros in FLOOR; a last nameless header may cover SHRUNK's program
  headers.
- Every address FLOOR's PT_LOADs map is mapped by SHRUNK with the same
  flags (less PF_X where no executable section is) and the same bytes, or
  lies in a split section or in no section (a packed .llvm.offloading's
  freed tail) and is zeros in FLOOR (left unmapped); SHRUNK maps nothing
  FLOOR does not.
- The other program headers are the same but for p_offset (and PT_PHDR,
  which is where e_phoff says, inside a PT_LOAD).
- The ELF headers agree but for e_phoff, e_phnum, e_shoff and e_shnum.
"""
import struct
import sys


def parse(path):
    b = open(path, "rb").read()
    (phoff, shoff) = struct.unpack_from("<QQ", b, 32)
    phnum, shentsize, shnum, shstrndx = struct.unpack_from("<HHHH", b, 56)
    ph = [struct.unpack_from("<IIQQQQQQ", b, phoff + i * 56) for i in range(phnum)]
    sh = [struct.unpack_from("<IIQQQQIIQQ", b, shoff + i * 64) for i in range(shnum)]
    stroff = sh[shstrndx][4]

    def name(i):
        o = stroff + sh[i][0]
        return b[o:b.index(b"\0", o)].decode()
    return {"b": b, "ph": ph, "sh": sh, "name": name, "phoff": phoff, "phnum": phnum}


def mapped(f):
    """(vaddr, memsz, filesz, offset, flags) of each PT_LOAD."""
    return [(p[3], p[6], p[5], p[2], p[1]) for p in f["ph"] if p[0] == 1]


def ranges(f):
    return [(va, va + mem) for va, mem, _, _, _ in mapped(f)]


def main():
    F, S = parse(sys.argv[1]), parse(sys.argv[2])
    bad = []
    fb, sb = F["b"], S["b"]
    if fb[:32] != sb[:32] or fb[48:54] != sb[48:54] or fb[58:60] != sb[58:60] or fb[62:64] != sb[62:64]:
        bad.append("ELF headers differ beyond e_phoff, e_phnum, e_shoff, e_shnum")
    nf = len(F["sh"])
    split = {}
    for i in range(1, nf):
        a, c = F["sh"][i], S["sh"][i]
        if F["name"](i) != S["name"](i) or a[1:4] != c[1:4] or a[6:8] != c[6:8] or a[9] != c[9]:
            bad.append("section [%d] %s differs" % (i, F["name"](i)))
        elif a[5] != c[5]:
            split[i] = [(c[3], c[5])]
    for j in range(nf, len(S["sh"])):
        c = S["sh"][j]
        # The nameless header last that covers SHRUNK's program headers
        # when they are in freed bytes (kept so by eu-strip).
        if j == len(S["sh"]) - 1 and not S["name"](j) and c[1:3] == (1, 2) and \
                [(c[3], c[3] + c[5])] == phdr_span(S):
            continue
        owner = [i for i in split if S["name"](i) == S["name"](j) and F["sh"][i][3] <= c[3]
                 and c[3] + c[5] <= F["sh"][i][3] + F["sh"][i][5]]
        if not owner:
            bad.append("appended section [%d] is no piece of a split section" % j)
        else:
            split[owner[-1]].append((c[3], c[5]))
    holes = []  # what of a split section no header covers
    for i, pieces in split.items():
        a = F["sh"][i]
        pos = a[3]
        for va, size in sorted(pieces) + [(a[3] + a[5], 0)]:
            if va < pos:
                bad.append("pieces of section [%d] overlap" % i)
            holes.append((pos, va))
            pos = va + size
    # Every address FLOOR maps: the same in SHRUNK, or a zero left out of a
    # split section.  Compared a range at a time, cut where SHRUNK's
    # PT_LOADs start and end; the ELF header and both program header
    # tables (by e_phoff: a library may have no PT_PHDR) are masked.
    first = mapped(F)[0]
    masks = [(first[0] - first[3], first[0] - first[3] + 64)] + phdr_span(F) + phdr_span(S)
    for va, mem, fsz, off, fl in mapped(F):
        cuts = {va, va + mem}
        for sva, smem, _, _, _ in mapped(S):
            cuts |= {x for x in (sva, sva + smem) if va < x < va + mem}
        cuts = sorted(cuts)
        for lo, hi in zip(cuts, cuts[1:]):
            want = masked(read(F, lo, hi), lo, masks)
            seg = [m for m in mapped(S) if m[0] <= lo < m[0] + m[1]]
            if not seg:
                if any(want) or not (any(h0 <= lo and hi <= h1 for h0, h1 in holes)
                                     or not in_section(F, lo, hi)):
                    bad.append("%#x-%#x is no longer mapped" % (lo, hi))
                continue
            if seg[0][4] != fl and not (seg[0][4] == fl & ~1 and not in_code(F, lo, hi)):
                bad.append("%#x-%#x has other flags" % (lo, hi))
            if masked(read(S, lo, hi), lo, masks) != want:
                bad.append("%#x-%#x holds other bytes" % (lo, hi))
    for lo, hi in ranges(S):
        if not any(a <= lo and hi <= b for a, b in ranges(F)):
            bad.append("SHRUNK maps %#x-%#x that FLOOR does not" % (lo, hi))
    # Other program headers: the same but for p_offset.
    other = lambda f: [p[:2] + p[3:] for p in f["ph"] if p[0] not in (1, 6)]
    if other(F) != other(S):
        bad.append("non-PT_LOAD program headers differ beyond p_offset")
    print("\n".join(bad) if bad else "same memory")


def in_section(F, lo, hi):
    """An allocated section is in [lo, hi)."""
    return any(s[2] & 2 and s[3] < hi and lo < s[3] + s[5] for s in F["sh"])


def in_code(F, lo, hi):
    """An executable section is in [lo, hi) (its pages keep PF_X)."""
    return any(s[2] & 4 and s[3] < hi and lo < s[3] + s[5] for s in F["sh"])


def read(f, lo, hi):
    """The bytes a PT_LOAD of f maps at [lo, hi) (one PT_LOAD holds it)."""
    for va, mem, fsz, off, fl in mapped(f):
        if va <= lo and hi <= va + mem:
            got = f["b"][off + lo - va:off + min(hi, va + fsz) - va] if lo < va + fsz else b""
            return got + bytes(hi - lo - len(got))
    raise SystemExit("no PT_LOAD maps %#x-%#x" % (lo, hi))


def phdr_span(f):
    """The addresses of f's program header table."""
    for va, mem, fsz, off, fl in mapped(f):
        if off <= f["phoff"] < off + fsz:
            lo = va + f["phoff"] - off
            return [(lo, lo + f["phnum"] * 56)]
    return []


def masked(data, lo, masks):
    data = bytearray(data)
    for m0, m1 in masks:
        a, b = max(m0, lo) - lo, min(m1, lo + len(data)) - lo
        if a < b:
            data[a:b] = bytes(b - a)
    return bytes(data)


main()
