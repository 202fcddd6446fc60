#!/bin/sh
# Regenerate the archive goldens in test/golden/ar and the fuzz seeds in
# test/fuzz/corpus/{ar,bitcode}: objects and bitcode compiled by clang-22
# and gcc from test/ar/src, archives written by LLVM 22's llvm-ar and
# clang-offload-bundler from them, and what llvm-ar t and llvm-nm
# --print-armap print for each.  test/ar.test holds formats/ar against
# these.  Needs LLVM 22 in $LLVM_BIN (with clang), ld.lld, gcc and
# binutils' ar.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
llvm=${LLVM_BIN:-/usr/lib/llvm-22/bin}
"$llvm/llvm-ar" --version | grep -q 'version 22\.' || {
	echo "regen: $llvm/llvm-ar is not LLVM 22" >&2; exit 1; }
out=$top/test/golden/ar
rm -rf "$out"
mkdir -p "$out"
cd "$out"
src=$here/src
CC="$llvm/clang"
GPU="--target=amdgcn-amd-amdhsa -nogpulib"

# Inputs.  Relative source paths keep the build directory out of them.
cp "$src"/*.c "$src"/*.cpp .
$CC -fcommon -c -emit-llvm syms.c -o syms-host.bc
$CC -fcommon -c syms.c -o syms-clang.o
gcc -fcommon -c syms.c -o syms-gcc.o
$CC $GPU -mcpu=gfx90a -fcommon -c -emit-llvm gpu.c -o gpu-gfx90a.bc
$CC $GPU -mcpu=gfx90a -fcommon -c gpu.c -o gpu-gfx90a.o
# A linked code object (ET_DYN); version 4 links with older lld too.
$CC $GPU -mcpu=gfx90a -mcode-object-version=4 codeobject.c -o gpu-gfx90a.so
$CC -c -emit-llvm asm.c -o asm-host.bc
$CC -c -emit-llvm nosym.c -o nosym.bc
$CC -c nosym.c -o nosym.o
$CC --target=x86_64-apple-macosx11 -c -emit-llvm darwin.c -o darwin.bc
# ThinLTO with a split LTO unit: two modules under one symbol table.
$CC -c -flto=thin -fsplit-lto-unit -fwhole-program-vtables \
	-fvisibility=hidden vtable.cpp -o vtable.bc
for k in k1 k2; do
	for a in gfx90a gfx906; do
		$CC $GPU -mcpu=$a -c -emit-llvm $k.c -o $k-$a.bc
	done
	$CC -c $k.c -o $k-host.o
done
rm -f ./*.c ./*.cpp
printf 'not an object\n' > opaque.txt
printf 'odd' > a_member_name_longer_than_15.txt
: > empty
mkdir -p sub
printf 'in a directory\n' > sub/nested.txt

# Archives by llvm-ar.  Member names are base names (thin: the paths).
OBJ="syms-host.bc syms-clang.o syms-gcc.o gpu-gfx90a.bc gpu-gfx90a.o
	gpu-gfx90a.so asm-host.bc nosym.bc darwin.bc vtable.bc"
AR="$llvm/llvm-ar"
$AR rcD --format=gnu objects.a $OBJ opaque.txt
$AR rcD --format=gnu names.a opaque.txt a_member_name_longer_than_15.txt \
	empty sub/nested.txt a_member_name_longer_than_15.txt opaque.txt
$AR rcD --format=gnu nosymbols.a nosym.o opaque.txt
$AR rcD --format=gnu nosymbols-bc.a nosym.bc
$AR rcSD --format=gnu nosymtab.a syms-host.bc syms-clang.o \
	a_member_name_longer_than_15.txt
$AR rcDT --format=gnu thin.a syms-host.bc opaque.txt \
	a_member_name_longer_than_15.txt sub/nested.txt
SYM64_THRESHOLD=100 $AR rcD --format=gnu sym64.a syms-host.bc opaque.txt \
	syms-clang.o
$AR rcD --format=gnu empty.a
$AR rcD --format=bsd bsd.a syms-host.bc opaque.txt \
	a_member_name_longer_than_15.txt
$AR rcD --format=darwin darwin.a syms-host.bc opaque.txt
$AR rcD --format=coff coff.a syms-host.bc opaque.txt \
	a_member_name_longer_than_15.txt
# And by binutils, whose symbol table and long names differ in detail.
ar rcsD binutils.a syms-gcc.o opaque.txt a_member_name_longer_than_15.txt
ar rcsDT binutils-thin.a syms-gcc.o sub/nested.txt

# Device archives as clang-offload-bundler -unbundle -type=a writes them.
B="$llvm/clang-offload-bundler"
T=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a,hip-amdgcn-amd-amdhsa--gfx906
for k in k1 k2; do
	"$B" -type=bc -targets=$T -input=$k-host.o -input=$k-gfx90a.bc \
		-input=$k-gfx906.bc -output=$k.bundle.o
done
$AR rcD --format=gnu bundles.a k1.bundle.o opaque.txt k2.bundle.o
"$B" -unbundle -type=a -input=bundles.a \
	-targets=hip-amdgcn-amd-amdhsa--gfx90a,hip-amdgcn-amd-amdhsa--gfx906 \
	-output=unbundled-gfx90a.a -output=unbundled-gfx906.a
rm -f k1-* k2-* k1.bundle.o k2.bundle.o

for a in *.a; do
	"$AR" t "$a" > "${a%.a}.t"
	"$llvm/llvm-nm" --print-armap "$a" 2>/dev/null |
		sed -n '/^Archive map$/,/^$/p' | sed '$d' > "${a%.a}.armap" || true
done
echo "regen: wrote $out"

# Fuzz seeds: small archives of every flavour, and bitcode of every shape.
seeds=$top/test/fuzz/corpus
rm -rf "$seeds/ar" "$seeds/bitcode"
mkdir -p "$seeds/ar" "$seeds/bitcode"
for a in names thin sym64 bsd darwin coff binutils-thin nosymbols-bc; do
	cp "$a.a" "$seeds/ar/"
done
cp syms-host.bc gpu-gfx90a.bc darwin.bc vtable.bc nosym.bc "$seeds/bitcode/"
echo "regen: wrote $seeds/ar and $seeds/bitcode"
