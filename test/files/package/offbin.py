"""Builders for offload binaries (versions 1-3) and minimal ELF objects that
carry them, for the fixtures made by make.py and ../bad/make_package.py.
Layouts as in formats/package.h; the string table here is plain (no tail
merging): these files test reading, not LLVM's exact writer."""
import struct
import subprocess
import zlib

MAGIC = b"\x10\xff\x10\xad"
OFFLOADING = 0x6fff4c0b


def align8(n):
    return (n + 7) // 8 * 8


def strtab(strings):
    tab, offs = b"\0", {b"": 0}
    for s in strings:
        if s not in offs:
            offs[s] = len(tab)
            tab += s + b"\0"
    return tab, offs


def v1(strings=(), image=b"", ik=1, ok=1, **over):
    """One version-1 binary; `over` replaces header or entry fields."""
    strings = list(strings)
    tab, offs = strtab([s for kv in strings for s in kv])
    n = len(strings)
    sto = 72 + 16 * n
    ioff = align8(sto + len(tab))
    size = align8(ioff + len(image))
    f = dict(magic=MAGIC, version=1, size=size, eoff=32, esize=40, ik=ik,
             ok=ok, flags=0, soff=72, nstr=n, ioff=ioff, isize=len(image))
    f.update(over)
    out = f["magic"] + struct.pack("<IQQQ", f["version"], f["size"],
                                   f["eoff"], f["esize"])
    out += struct.pack("<HHIQQQQ", f["ik"], f["ok"], f["flags"], f["soff"],
                       f["nstr"], f["ioff"], f["isize"])
    out += b"".join(struct.pack("<QQ", sto + offs[k], sto + offs[v])
                    for k, v in strings)
    out += tab
    out += b"\0" * (ioff - len(out)) + image
    return out + b"\0" * (size - len(out))


def multi(version, entries, **over):
    """A version 2 or 3 binary (uncompressed) of entries
    [(image kind, offload kind, [(key, value)...], image)...]."""
    hdr = 32 if version == 2 else 40
    nrec = sum(len(e[2]) for e in entries)
    tab, offs = strtab([s for e in entries for kv in e[2] for s in kv])
    sto = hdr + 40 * len(entries) + 24 * nrec
    data = align8(sto + len(tab))
    size = align8(data + sum(len(e[3]) for e in entries))
    f = dict(version=version, size=size, eoff=hdr, count=len(entries),
             inflated=0)
    f.update(over)
    out = MAGIC + struct.pack("<IQQQ", f["version"], f["size"], f["eoff"],
                              f["count"])
    if version == 3:
        out += struct.pack("<Q", f["inflated"])
    rec, img = hdr + 40 * len(entries), data
    for ik, ok, strings, image in entries:
        out += struct.pack("<HHIQQQQ", ik, ok, 0, rec, len(strings), img,
                           len(image))
        rec += 24 * len(strings)
        img += len(image)
    for _, _, strings, _ in entries:
        for k, v in strings:
            out += struct.pack("<QQQ", sto + offs[k], sto + offs[v], len(v))
    out += tab
    out += b"\0" * (data - len(out))
    for e in entries:
        out += e[3]
    return out + b"\0" * (size - len(out))


def compress(method, data):
    if method == "zlib":
        return zlib.compress(data, 6)
    return subprocess.run(["zstd", "-q", "-c", "-3"], input=data,
                          stdout=subprocess.PIPE, check=True).stdout


def v3_compressed(entries, method="zstd", body=None, inflated=None):
    """A compressed version 3 binary: the header, then everything after it
    compressed; its size counts the compressed bytes; zeros pad it to 8."""
    plain = multi(3, entries)
    packed = compress(method, plain[40:]) if body is None else body
    size = 40 + len(packed)
    head = MAGIC + struct.pack("<IQQQQ", 3, size, 40, len(entries),
                               len(plain) if inflated is None else inflated)
    out = head + packed
    return out + b"\0" * (align8(size) - size)


def elf(sections, big=False):
    """A minimal ELF64 relocatable: sections [(name, type, data)...] after
    the null section, then .shstrtab."""
    e = ">" if big else "<"
    names = b"\0"
    name_off = []
    for name, _, _ in sections + [(b".shstrtab", 3, None)]:
        name_off.append(len(names))
        names += name + b"\0"
    body = b""
    placed = []
    for _, _, data in sections:
        pad = align8(64 + len(body)) - (64 + len(body))
        body += b"\0" * pad
        placed.append((64 + len(body), len(data)))
        body += data
    placed.append((64 + len(body), len(names)))
    body += names
    shoff = align8(64 + len(body))
    body += b"\0" * (shoff - 64 - len(body))
    nsec = len(sections) + 2
    ident = b"\x7fELF" + bytes([2, 2 if big else 1, 1, 0]) + b"\0" * 8
    ehdr = ident + struct.pack(e + "HHIQQQIHHHHHH", 1, 62, 1, 0, 0, shoff, 0,
                               64, 0, 0, 64, nsec, nsec - 1)
    shdrs = b"\0" * 64
    for i, (name, typ, _) in enumerate(sections + [(b".shstrtab", 3, None)]):
        off, size = placed[i]
        flags = 0x80000000 if typ == OFFLOADING else 0
        shdrs += struct.pack(e + "IIQQQQIIQQ", name_off[i], typ, flags, 0,
                             off, size, 0, 0, 8 if typ != 3 else 1, 0)
    return ehdr + body + shdrs


BIGOBJ_UUID = bytes([0xc7, 0xa1, 0xba, 0xd1, 0xee, 0xba, 0xa9, 0x4b,
                     0xaf, 0x20, 0xfa, 0xf6, 0x6a, 0xa4, 0xdc, 0xb8])


def b64_offset(n):
    digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    out = ""
    for _ in range(6):
        out = digits[n % 64] + out
        n //= 64
    return b"//" + out.encode()


def coff(sections, machine=0x8664, bigobj=False, nsyms=0, base64=False,
         strtab_tail=b"", nsec=None):
    """A COFF object: sections [(name, data)], data None for one without
    file contents; a name longer than 8 goes through the string table
    ("/N", or "//" base 64), a name starting with "/" is written as is.
    nsyms zero symbols sit between the section data and the string table;
    strtab_tail is appended to the string table (its size counts it)."""
    strtab, raw = b"", []
    for name, _ in sections:
        if len(name) <= 8:
            raw.append(name.ljust(8, b"\0"))
            continue
        off = 4 + len(strtab)
        raw.append((b64_offset(off) if base64 else
                    ("/%d" % off).encode()).ljust(8, b"\0"))
        strtab += name + b"\0"
    strtab += strtab_tail
    head = 56 if bigobj else 20
    at = head + 40 * len(sections)
    body, where = b"", []
    for _, data in sections:
        where.append(at + len(body) if data is not None else 0)
        body += data or b""
    symtab = at + len(body)
    count = len(sections) if nsec is None else nsec
    if bigobj:
        hdr = struct.pack("<HHHHI", 0, 0xffff, 2, machine, 0) + \
            BIGOBJ_UUID + b"\0" * 16 + struct.pack("<III", count, symtab,
                                                   nsyms)
    else:
        hdr = struct.pack("<HHIIIHH", machine, count, 0, symtab, nsyms, 0, 0)
    table = b""
    for (_, data), name, w in zip(sections, raw, where):
        table += name + struct.pack("<IIIIIIHHI", 0, 0, len(data or b""), w,
                                    0, 0, 0, 0, 0x40000040)
    symbols = b"\0" * (nsyms * (20 if bigobj else 18))
    return hdr + table + body + symbols + \
        struct.pack("<I", 4 + len(strtab)) + strtab
