#!/bin/sh
# make.sh OUTDIR: host objects of many shapes for the object-bundle tests,
# made with whatever of clang-22, gcc, as and ld is installed (each maker
# that is missing is skipped; the tests compare against LLVM 22 per file).
set -u
out=$1
src=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
cd "$out" || exit 1
CLANG=${CLANG:-clang-22}
try() { "$@" >/dev/null 2>&1 || rm -f "$name"; }
if command -v "$CLANG" >/dev/null 2>&1; then
	for t in x86_64-linux-gnu i686-linux-gnu aarch64-linux-gnu \
		 aarch64_be-linux-gnu powerpc64-linux-gnu powerpc64le-linux-gnu \
		 s390x-linux-gnu mips-linux-gnu mipsel-linux-gnu \
		 riscv64-linux-gnu riscv32-linux-gnu armv7-linux-gnueabihf \
		 sparcv9-linux-gnu; do
		name=clang-$t.o; try "$CLANG" --target=$t -O1 -c "$src/host.c" -o "$name"
		name=clang-g-$t.o; try "$CLANG" --target=$t -g -c "$src/host.c" -o "$name"
	done
	name=clang-cxx.o; try "$CLANG" -O0 -c "$src/templates.cpp" -o "$name"
	name=clang-cxx-g.o; try "$CLANG" -g -O2 -ffunction-sections -fdata-sections -c "$src/templates.cpp" -o "$name"
	name=clang-gz.o; try "$CLANG" -g -gz=zlib -c "$src/host.c" -o "$name"
	name=clang-pic.o; try "$CLANG" -fPIC -g -c "$src/host.c" -o "$name"
	name=clang-split.o; try "$CLANG" -g -gsplit-dwarf -c "$src/host.c" -o "$name"
	name=clang-noaddrsig.o; try "$CLANG" -fno-addrsig -c "$src/host.c" -o "$name"
	name=clang-amdgcn.o; try "$CLANG" --target=amdgcn-amd-amdhsa -mcpu=gfx90a -nogpulib -O1 -c "$src/host.c" -o "$name"
	name=clang-cxx-i686.o; try "$CLANG" --target=i686-linux-gnu -c "$src/templates.cpp" -o "$name"
fi
if command -v gcc >/dev/null 2>&1; then
	name=gcc.o; try gcc -O2 -c "$src/host.c" -o "$name"
	name=gcc-g.o; try gcc -g -c "$src/host.c" -o "$name"
	name=gcc-m32.o; try gcc -m32 -c "$src/host.c" -o "$name"
	name=gcc-cxx.o; try g++ -g -c "$src/templates.cpp" -o "$name"
	name=gcc-cxx-O2.o; try g++ -O2 -ffunction-sections -c "$src/templates.cpp" -o "$name"
	name=gcc-lto.o; try gcc -flto -ffat-lto-objects -c "$src/host.c" -o "$name"
fi
if command -v as >/dev/null 2>&1; then
	name=as-stabs.o; try as "$src/stabs.s" -o "$name"
	name=as-empty.o; try as /dev/null -o "$name"
	name=as-32.o; try as --32 /dev/null -o "$name"
fi
if command -v ld >/dev/null 2>&1 && [ -f gcc.o ] && [ -f gcc-cxx.o ]; then
	name=ld-r.o; try ld -r gcc.o gcc-cxx.o -o "$name"
fi
if command -v ld.lld >/dev/null 2>&1 && [ -f clang-x86_64-linux-gnu.o ] && [ -f clang-cxx.o ]; then
	name=lld-r.o; try ld.lld -r clang-x86_64-linux-gnu.o clang-cxx.o -o "$name"
fi
ls
