#!/usr/bin/env python3
"""Write the offload binaries LLVM 22 cannot make but the packager reads:
versions 2 and 3 (plain, zstd, zlib), a section mixing versions, images
from LLVM 15-20 (HIP numbered 3), and minimal ELF and COFF objects
carrying them.
Run from this directory (zstd must be installed); the files are committed."""
from offbin import OFFLOADING, coff, elf, multi, v1, v3_compressed

GFX = (1, 1, [(b"triple", b"amdgcn-amd-amdhsa"), (b"arch", b"gfx90a")],
       b"AMDGPU image, 40 bytes of it.........\n")
SM = (5, 2, [(b"triple", b"nvptx64-nvidia-cuda"), (b"arch", b"sm_90")],
      b"ptx text")
SPV = (6, 8, [(b"triple", b"spirv64-intel"), (b"arch", b"")], b"SPIR-V")
# A value with a NUL inside, as version 2 allows (its size is stored).
NUL = (2, 4, [(b"triple", b"amdgcn-amd-amdhsa"), (b"arch", b"gfx942"),
              (b"note", b"a\0b")], b"BC\xc0\xde bitcode")
ENTRIES = [GFX, SM, SPV, NUL]


def write(name, data):
    with open(name, "wb") as f:
        f.write(data)


write("v2.bin", multi(2, ENTRIES))
write("v3.bin", multi(3, ENTRIES))
write("v3-zstd.bin", v3_compressed(ENTRIES, "zstd"))
write("v3-zlib.bin", v3_compressed(ENTRIES, "zlib"))
# A zstd frame by hand that claims a 2 GiB window for a few hundred bytes
# (one raw block): read without allocating that window.
body = multi(3, ENTRIES)[40:]
frame = (b"\x28\xb5\x2f\xfd" + b"\x00" + b"\xa8" +
         (1 | len(body) << 3).to_bytes(3, "little") + body)
write("v3-zstd-window-2g.bin", v3_compressed(ENTRIES, body=frame))
# One section as LLVM 23+ may leave it after `ld -r`: binaries of several
# versions end to end (the compressed one padded to 8).
write("mixed.bin", v1(GFX[2], GFX[3], GFX[0], GFX[1]) +
      v3_compressed([SM], "zstd") + multi(2, [SPV]) +
      v1(NUL[2][:2], NUL[3], NUL[0], NUL[1]))
# LLVM 15-20 numbered HIP 3 (LLVM 21+: 4, and 3 reads as no kind).
write("hip-llvm20.bin",
      v1([(b"triple", b"amdgcn-amd-amdhsa"), (b"arch", b"gfx90a")],
         b"old hip", 1, 3) +
      v1([(b"triple", b"amdgcn-amd-amdhsa"), (b"arch", b"gfx90a")],
         b"new hip", 1, 4))
# ELF: the type makes the section, not the name: a PROGBITS section named
# .llvm.offloading is not one, a typed one named otherwise is.
two = v1(GFX[2], GFX[3], GFX[0], GFX[1]) + v1(SM[2], SM[3], SM[0], SM[1])
write("offload.o", elf([(b".text", 1, b"\xc3" * 5),
                        (b".llvm.offloading", 1, v1(SPV[2], b"not me", 6, 8)),
                        (b".llvm.offloading", OFFLOADING, two),
                        (b".other", OFFLOADING, multi(2, [NUL]))]))
write("offload-be.o", elf([(b".llvm.offloading", OFFLOADING, two)],
                          big=True))
# COFF: the name makes the section, any name that starts with
# .llvm.offloading, short names and decoys aside.
SPV1 = v1(SPV[2], SPV[3], SPV[0], SPV[1])
write("coff.obj", coff([(b".text", b"\xc3"), (b".llvm.o", b"decoy"),
                        (b".llvm.offloading", two),
                        (b".llvm.rodata.offloading", b"decoy too"),
                        (b".bss", None),
                        (b".llvm.offloading$x", SPV1)]))
# A bigobj with base-64 long names and symbols before the string table.
write("coff-bigobj.obj", coff([(b".llvm.offloading", two)], machine=0xaa64,
                              bigobj=True, nsyms=3, base64=True))
# Machine 0 (unknown) and ARM: COFF objects to LLVM too.
write("coff-machine-0.obj", coff([(b".llvm.offloading", SPV1)], machine=0))
write("coff-armnt.obj", coff([(b".llvm.offloading", SPV1)], machine=0x1c4))
# 0xffff sections in a plain header: an import library, read as holding
# no sections.
write("coff-import.obj", coff([(b".llvm.offloading", SPV1)], nsec=0xffff))
