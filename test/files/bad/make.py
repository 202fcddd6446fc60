#!/usr/bin/env python3
"""Write the bad-input corpus: damaged bundles, each of which must get one
clear error line (LLVM 22 crashes, leaks memory or misreads most of them).
Run from this directory; the files are committed.  Two files are not made
here but kept as found: list-loops-in-llvm.hipi, a damaged text bundle the
differential suite found (LLVM 22 lists it forever), and
elf-exec-phdr-table-moves.so, a shared library the elf fuzzer found (its
program header table would move over the ELF header)."""
import struct

MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
HIP = b"hip-amdgcn-amd-amdhsa--gfx90a"
HOST = b"host-x86_64-unknown-linux-gnu-"


def entry(off, size, ident):
    return struct.pack("<QQQ", off, size, len(ident)) + ident


def bundle(entries, data=b""):
    return MAGIC + struct.pack("<Q", len(entries)) + b"".join(entries) + data


def write(name, data):
    with open(name, "wb") as f:
        f.write(data)


good = bundle([entry(139, 9, HOST), entry(148, 25, HIP)],
              b"HOSTDATA\nContent of device file 1\n")
assert len(good) == 173
# Cut inside the second header entry, the first entry good (its data points
# into the header): LLVM 22 segfaults.
write("truncated-second-entry.bc",
      bundle([entry(24, 4, HOST), entry(148, 25, HIP)])[:100])
# Second entry's data runs past the end of the file.
write("second-entry-past-end.bc",
      bundle([entry(139, 9, HOST), entry(148, 2500, HIP)],
             b"HOSTDATA\nContent of device file 1\n"))
# A count far larger than the file can hold, one good entry.
write("huge-count.bc",
      MAGIC + struct.pack("<Q", 1 << 62) + entry(85, 4, HIP) + b"DATA")
# Second entry claims an ID of 2^63 bytes.
write("id-length-2-63.bc",
      MAGIC + struct.pack("<Q", 2) + entry(200, 1, HIP) +
      struct.pack("<QQQ", 200, 1, 1 << 63) + b"x" * 200)
# The only entry claims an ID of 2^64-1 bytes, its data sound: LLVM's test
# of the ID wraps, and it reads the ID past the end (a crash).
write("id-length-wraps.bc",
      MAGIC + struct.pack("<Q", 1) +
      struct.pack("<QQQ", 66, 4, (1 << 64) - 1) + b"x" * 10 + b"DATA")
# Offset + size wraps around 2^64 in the second entry: LLVM lists it (so do
# we) and crashes reading it (we stop with an error).
write("offset-wraps.bc",
      bundle([entry(139, 9, HOST),
              entry(0xFFFFFFFFFFFFFFF0, 0x20, HIP)],
             b"HOSTDATA\nContent of device file 1\n"))
# Second entry has offset 0.
write("second-offset-zero.bc",
      bundle([entry(139, 9, HOST), entry(0, 1, HIP)],
             b"HOSTDATA\nContent of device file 1\n"))
# A text bundle whose entry has no END marker: LLVM copies heap memory into
# the output until the write fails.
write("missing-end.ll",
      b"\n; __CLANG_OFFLOAD_BUNDLE____START__ " + HIP + b"\nsome IR\n")


# --- damaged ELF objects.  A minimal relocatable ELF64 (header, .shstrtab,
# a host bundle section and a device one, section table last), then one
# defect each: every one must be a clear error naming the file, never a
# crash, a read past the end, or a silent binary bundle (what LLVM 22 makes
# of an object it cannot parse).
def elf64(sections, shstrndx=1, shoff=None, shnum=None):
    """sections: (name, type, flags, data, align[, size[, offset[, link[,
    entsize]]]]),
    None for size or offset meaning the real one; returns the file bytes."""
    names = b"\0" + b"".join(s[0] + b"\0" for s in sections)
    name_off, at = [], 1
    for s in sections:
        name_off.append(at)
        at += len(s[0]) + 1
    body, offsets = b"", []
    for s in sections:
        data = names if s[0] == b".shstrtab" else s[3]
        offsets.append(64 + len(body))
        body += data
    body += b"\0" * (-len(body) % 8)
    table_at = 64 + len(body) if shoff is None else shoff
    count = len(sections) + 1 if shnum is None else shnum
    ehdr = (b"\x7fELF\x02\x01\x01" + b"\0" * 9 +
            struct.pack("<HHIQQQIHHHHHH", 1, 62, 1, 0, 0, table_at, 0, 64,
                        0, 0, 64, count, shstrndx))
    table = b"\0" * 64
    for i, s in enumerate(sections):
        data = names if s[0] == b".shstrtab" else s[3]
        size = s[5] if len(s) > 5 and s[5] is not None else len(data)
        offset = s[6] if len(s) > 6 and s[6] is not None else offsets[i]
        link = s[7] if len(s) > 7 else 0
        entsize = s[8] if len(s) > 8 else 0
        table += struct.pack("<IIQQQQIIQQ", name_off[i], s[1], s[2], 0,
                             offset, size, link, 0, s[4], entsize)
    return ehdr + body + table


SHT_PROGBITS, SHT_STRTAB, SHF_EXCLUDE = 1, 3, 0x80000000
HOST_SEC = (MAGIC + HOST, SHT_PROGBITS, SHF_EXCLUDE, b"\0", 1)
DEV_SEC = (MAGIC + HIP, SHT_PROGBITS, SHF_EXCLUDE, b"device code\n", 1)
STRTAB = (b".shstrtab", SHT_STRTAB, 0, b"", 1)
good_elf = elf64([STRTAB, HOST_SEC, DEV_SEC])
write("elf-good.o", good_elf)
write("elf-truncated-header.o", good_elf[:40])
write("elf-bad-class.o", good_elf[:4] + b"\x05" + good_elf[5:])
write("elf-section-table-past-end.o", elf64([STRTAB, HOST_SEC, DEV_SEC],
                                           shoff=1 << 20))
write("elf-section-past-end.o",
      elf64([STRTAB, HOST_SEC, DEV_SEC[:4] + (1, 1 << 30)]))
write("elf-offset-past-end.o",
      elf64([STRTAB, HOST_SEC, DEV_SEC[:4] + (1, 12, 1 << 40)]))
write("elf-bad-shstrndx.o", elf64([STRTAB, HOST_SEC, DEV_SEC], shstrndx=77))
write("elf-no-sections.o", elf64([STRTAB, HOST_SEC, DEV_SEC], shoff=0,
                                 shnum=0, shstrndx=0))
bad_name = bytearray(good_elf)
struct.pack_into("<I", bad_name, len(good_elf) - 64, 0x7fffffff)
write("elf-bad-name.o", bytes(bad_name))
write("elf-huge-align.o",
      elf64([STRTAB, HOST_SEC, DEV_SEC, (b".big", SHT_PROGBITS, 0, b"x",
                                         1 << 60)]))
write("elf-padding-align.o",
      elf64([STRTAB, HOST_SEC, DEV_SEC, (b".big", SHT_PROGBITS, 0, b"x",
                                         1 << 31)]))

# Symbol tables and groups that llvm-objcopy's rewrite cannot take (the
# symbol tables link to section 2, the .strtab).  Each holds only its null
# symbol, so only the defect named stops the rewrite.
SHT_SYMTAB, SHT_GROUP, SHT_SYMTAB_SHNDX = 2, 17, 18
SYMSTR = (b".strtab", SHT_STRTAB, 0, b"\0", 1)


def symtab(name=b".symtab", data=b"\0" * 24):
    return (name, SHT_SYMTAB, 0, data, 8, None, None, 2, 24)


write("elf-two-symtabs.o",
      elf64([STRTAB, SYMSTR, symtab(), symtab(b".symtab2"), HOST_SEC,
             DEV_SEC]))
write("elf-symtab-size.o",
      elf64([STRTAB, SYMSTR, symtab(data=b"\0" * 25), HOST_SEC, DEV_SEC]))
# No entry at all, not even the null symbol (llvm-objcopy 22 crashes).
write("elf-empty-symtab.o",
      elf64([STRTAB, SYMSTR, symtab(data=b""), HOST_SEC, DEV_SEC]))
write("elf-group-size.o",
      elf64([STRTAB, SYMSTR, symtab(),
             (b".group", SHT_GROUP, 0, b"\1\0\0\0\0\0", 4, None, None, 3,
              4),
             HOST_SEC, DEV_SEC]))
# Not damaged: a table of extended section indices, which llvm-objcopy
# drops, and a global symbol "x" whose index (section 5, .data) the table
# holds.  LLVM 22 takes it; we must write the same bytes.
write("elf-shndx.o",
      elf64([STRTAB, (b".strtab", SHT_STRTAB, 0, b"\0x\0", 1),
             symtab(data=b"\0" * 24 + struct.pack("<IBBHQQ", 1, 0x11, 0,
                                                   0xffff, 0, 4)),
             (b".symtab_shndx", SHT_SYMTAB_SHNDX, 0,
              struct.pack("<II", 0, 5), 4, None, None, 3, 4),
             (b".data", SHT_PROGBITS, 3, b"data", 4), HOST_SEC, DEV_SEC]))


# Two tables of extended section indices for one symbol table (LLVM 22
# accepts it, keeping the first emptied; so do we), and a symbol
# whose section index is in such a table when there is none.
write("elf-two-shndx.o",
      elf64([STRTAB, SYMSTR, symtab(),
             (b".symtab_shndx", SHT_SYMTAB_SHNDX, 0, b"\0" * 4, 4, None,
              None, 3, 4),
             (b".symtab_shndx2", SHT_SYMTAB_SHNDX, 0, b"\0" * 4, 4, None,
              None, 3, 4), HOST_SEC, DEV_SEC]))
write("elf-xindex-no-table.o",
      elf64([STRTAB, (b".strtab", SHT_STRTAB, 0, b"\0x\0", 1),
             symtab(data=b"\0" * 24 + struct.pack("<IBBHQQ", 1, 0x11, 0,
                                                   0xffff, 0, 4)),
             HOST_SEC, DEV_SEC]))


# --- executables whose program headers llvm-objcopy's layout cannot take:
# good_elf made ET_EXEC, its program headers appended at the end.
def with_phdrs(phdrs, phoff=None):
    body = bytearray(good_elf)
    at = len(body) if phoff is None else phoff
    table = b"".join(struct.pack("<IIQQQQQQ", *p) for p in phdrs)
    if phoff is None:
        body += table
    else:
        body[at:at + len(table)] = table
    struct.pack_into("<H", body, 16, 2)                    # e_type
    struct.pack_into("<Q", body, 32, at)                   # e_phoff
    struct.pack_into("<HH", body, 54, 56, len(phdrs))      # e_phentsize, e_phnum
    return bytes(body)


PT_LOAD = 1
write("elf-exec-segment-past-end.o",
      with_phdrs([(PT_LOAD, 5, 0, 0, 0, 1 << 20, 1 << 20, 4096)]))
write("elf-exec-phdrs-in-header.o",
      with_phdrs([(PT_LOAD, 5, 0, 0, 0, 64, 64, 4096)], phoff=8))
write("elf-exec-far-segment.o",
      with_phdrs([(PT_LOAD, 5, 0, 0, 0, 100, 100, 1),
                  (PT_LOAD, 6, 200, 0, 0, 10, 10, 1 << 40)]))
# A segment over the whole file: its sections cannot be removed or
# rewritten where they lie.
write("elf-exec-segment-over-all.o",
      with_phdrs([(PT_LOAD, 5, 0, 0, 0, len(good_elf) + 56, len(good_elf) + 56,
                   1)]))
big_phoff = bytearray(with_phdrs([(PT_LOAD, 5, 0, 0, 0, 64, 64, 1)]))
struct.pack_into("<Q", big_phoff, 32, len(big_phoff) - 20)
write("elf-exec-phdrs-past-end.o", bytes(big_phoff))
# A segment over the bundle sections only: they cannot be removed.
dev_at = good_elf.index(b"device code\n")
write("elf-exec-segment-over-bundles.o",
      with_phdrs([(PT_LOAD, 5, dev_at - 1, dev_at - 1, 0, 13, 13, 4096)]))
