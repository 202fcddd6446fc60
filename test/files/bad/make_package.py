#!/usr/bin/env python3
"""Write the bad-input corpus for offload binaries (package-*): each must get
one clear error and leave no output.  LLVM 22 rejects the first few itself
(we print its words); it crashes on, or writes garbage from, most of the
rest.  Run from this directory (zstd must be installed); the files are
committed.  Builders: ../package/offbin.py."""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "package"))
from offbin import MAGIC, OFFLOADING, coff, compress, elf, multi, v1, v3_compressed  # noqa: E402

S = [(b"triple", b"amdgcn-amd-amdhsa"), (b"arch", b"gfx90a")]
IMG = b"ABCDEFGHIJ"
GOOD = v1(S, IMG)
ENTRY = (1, 1, S, IMG)


def write(name, data):
    with open("package-" + name, "wb") as f:
        f.write(data)


# --- LLVM 22 rejects these itself.
write("short.bin", GOOD[:71])
write("version-4.bin", v1(S, IMG, version=4))
write("size-past-end.bin", v1(S, IMG, size=len(GOOD) + 8))
write("entry-past-end.bin", v1(S, IMG, eoff=len(GOOD) - 39))
write("trailing-zeros.bin", GOOD + b"\0" * 8)
# --- LLVM 22 crashes (strlen far outside the binary).
write("strings-past-end.bin", v1(S, IMG, nstr=3))
write("strings-count-huge.bin", v1(S, IMG, nstr=1 << 60))
# --- LLVM 22 writes what follows the binary in its memory as the image.
write("image-past-end.bin", v1(S, IMG, isize=100))
write("image-size-wraps.bin", v1(S, IMG, isize=(1 << 64) - 8))
# A key offset past the binary but inside the file (the next binary).
bad_key = bytearray(v1(S, IMG))
struct.pack_into("<Q", bad_key, 72, len(GOOD) + 4)
write("key-past-end.bin", bytes(bad_key) + GOOD)
# --- LLVM 22 reads these, silently.
# The last string runs to the end of the binary without its NUL (LLVM
# reads the NUL it adds after its copy): no image, table unpadded.
nonul = bytearray(v1([(b"arch", b"gfx90a123")], b""))
assert len(nonul) == 72 + 16 + 1 + 5 + 10 and nonul[-1] == 0
nonul[-1] = ord(b"x")
write("no-nul.bin", bytes(nonul))
# A size that is not a multiple of 8 (the image ends the binary).
odd = v1(S, IMG)
odd = odd[:len(odd) - 6]
write("size-not-8.bin", odd[:8] + struct.pack("<Q", len(odd)) + odd[16:])
# --- Versions LLVM 22 does not read at all, damaged.
write("v2-entries-past-end.bin", multi(2, [ENTRY], count=1 << 59))
v2 = bytearray(multi(2, [ENTRY]))
struct.pack_into("<Q", v2, 32 + 40 + 24 + 16, 1 << 40)   # value size
write("v2-value-past-end.bin", bytes(v2))
zstd_body = compress("zstd", multi(3, [ENTRY])[40:])
write("v3-cut-short.bin", v3_compressed([ENTRY], body=zstd_body[:-9]))
write("v3-corrupt.bin", v3_compressed([ENTRY], body=b"\x78\x9c" + b"\xff" * 30))
write("v3-inflates-larger.bin",
      v3_compressed([ENTRY], body=zstd_body,
                    inflated=len(multi(3, [ENTRY])) - 8))
write("v3-inflates-smaller.bin",
      v3_compressed([ENTRY], body=zstd_body,
                    inflated=len(multi(3, [ENTRY])) + 64))
write("v3-beyond-ratio.bin",
      v3_compressed([ENTRY], body=zstd_body, inflated=1 << 30))
write("v3-beyond-limit.bin",
      v3_compressed([ENTRY], body=zstd_body, inflated=1 << 40))
# --- The same problems inside an ELF object's offload section.
write("in-elf.o", elf([(b".llvm.offloading", OFFLOADING,
                        GOOD + v1(S, IMG, nstr=3))]))
cut = elf([(b".llvm.offloading", OFFLOADING, GOOD)])
write("elf-cut-short.o", cut[:200])


# --- COFF objects LLVM 22 rejects too (its words name no file; ours do).
def write_coff(name, data):
    with open("coff-" + name, "wb") as f:
        f.write(data)


COFF = coff([(b".text", b"\xc3"), (b".llvm.offloading", GOOD)])
write_coff("cut.obj", COFF[:12])
write_coff("table-past-end.obj", coff([(b".llvm.offloading", GOOD)],
                                       nsec=50))
section_past_end = bytearray(COFF)
struct.pack_into("<I", section_past_end, 20 + 40 + 16, 1 << 20)
write_coff("section-past-end.obj", bytes(section_past_end))
write_coff("bad-name.obj", coff([(b"/4x", b"x"), (b".llvm.offloading", GOOD)]))
write_coff("name-outside.obj", coff([(b"/9999", b"x"),
                                     (b".llvm.offloading", GOOD)]))
# A string table without its closing NUL is no string table to LLVM.
write_coff("strtab-no-nul.obj", coff([(b".llvm.offloading", GOOD)],
                                     strtab_tail=b"x"))
