#!/bin/sh
# Regenerate test/golden/ar-coff: COFF objects (x86-64, i386 and AArch64,
# MSVC and MinGW, and HIP -fgpu-rdc object bundles) compiled by clang-22,
# archives of them written by LLVM 22's llvm-ar (its COFF format, which it
# picks for a COFF first member, and --format=gnu), what llvm-ar t and
# llvm-nm --print-armap print for each, and what clang-offload-bundler
# -unbundle -type=a writes from the HIP ones.  test/ar.test and
# test/archive.test hold formats/ar against these.  Needs LLVM 22 in
# $LLVM_BIN (with clang).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
llvm=${LLVM_BIN:-/usr/lib/llvm-22/bin}
"$llvm/llvm-ar" --version | grep -q 'version 22\.' || {
	echo "regen_coff: $llvm/llvm-ar is not LLVM 22" >&2; exit 1; }
out=$top/test/golden/ar-coff
rm -rf "$out"
mkdir -p "$out"
cd "$out"
# No timestamps in the objects: a regeneration changes nothing.
CC="$llvm/clang -mno-incremental-linker-compatible"
cp "$here/src/syms.c" "$here/src-coff/dup.c" .
$CC --target=x86_64-pc-windows-msvc -fcommon -c syms.c -o msvc.obj
$CC --target=x86_64-w64-windows-gnu -fcommon -c syms.c -o mingw.obj
$CC --target=i686-pc-windows-msvc -fcommon -c syms.c -o i386.obj
$CC --target=aarch64-pc-windows-msvc -fcommon -c syms.c -o arm64.obj
$CC --target=x86_64-pc-windows-msvc -c dup.c -o dup.obj
# HIP -fgpu-rdc objects, bundled by the driver (Windows' size_t).
sed 's/unsigned long/__SIZE_TYPE__/g' "$top/test/objects/hip/nohip.h" > nohip.h
cp "$top/test/objects/hip/kernel.hip" "$top/test/objects/hip/main.hip" .
HIP="-x hip --offload-arch=gfx90a --offload-arch=gfx1100 -nogpulib -nogpuinc
	--no-offload-new-driver -fgpu-rdc -I. -c"
$CC --target=x86_64-pc-windows-msvc $HIP -cuid=k kernel.hip -o kernel.obj
$CC --target=x86_64-pc-windows-msvc $HIP -cuid=m main.hip -o main.obj
$CC --target=x86_64-w64-windows-gnu $HIP -cuid=k kernel.hip -o kernel-mingw.obj
# The weak reference made one that does not search its alias (LLVM then
# counts it undefined): the Characteristics of its auxiliary record, 1.
python3 - <<'PY'
import struct
d = bytearray(open("dup.obj", "rb").read())
symtab, nsym = struct.unpack_from("<II", d, 8)
i = 0
while i < nsym:
    s = symtab + 18 * i
    if d[s:s + 8] == b"maybe\0\0\0" and d[s + 16] == 105:
        struct.pack_into("<I", d, s + 18 + 4, 1)
    i += 1 + d[s + 17]
open("dup-nolib.obj", "wb").write(d)
PY
rm -f ./*.c ./*.hip nohip.h
printf 'not an object\n' > opaque.txt

AR="$llvm/llvm-ar"
OBJ="msvc.obj mingw.obj i386.obj arm64.obj dup.obj"
$AR rcD coff.a $OBJ opaque.txt
$AR rcD --format=gnu gnu.a $OBJ opaque.txt
$AR rcSD coff-nosymtab.a msvc.obj opaque.txt
$AR rcD coff-opaque-first.a opaque.txt msvc.obj
$AR rcD weak.a dup-nolib.obj
$AR rcD hip.a kernel.obj main.obj
$AR rcD --format=gnu hip-gnu.a kernel-mingw.obj main.obj
B="$llvm/clang-offload-bundler"
for a in hip hip-gnu; do
	"$B" -unbundle -type=a -input=$a.a \
		-targets=host-x86_64-pc-windows-msvc,hip-amdgcn-amd-amdhsa--gfx90a \
		-output=$a-host.a -output=$a-gfx90a.a
done
# What offload prune --keep gfx90a makes of the HIP ones: the gfx1100
# bundle sections removed by llvm-objcopy, the archive written again by
# llvm-ar in its format (COFF for hip.a, GNU for hip-gnu.a).
mkdir -p pruned
G1100=__CLANG_OFFLOAD_BUNDLE__hip-amdgcn-amd-amdhsa--gfx1100
for o in kernel main kernel-mingw; do
	"$llvm/llvm-objcopy" --remove-section=$G1100 $o.obj pruned/$o.obj
done
cp pruned/kernel.obj kernel-pruned.obj
(cd pruned && "$AR" rcD ../hip-pruned.a kernel.obj main.obj &&
	"$AR" rcD --format=gnu ../hip-gnu-pruned.a kernel-mingw.obj main.obj)
rm -rf pruned
for a in *.a; do
	"$AR" t "$a" > "${a%.a}.t"
	"$llvm/llvm-nm" --print-armap "$a" 2>/dev/null |
		sed -n '/^Archive map$/,/^$/p' | sed '$d' > "${a%.a}.armap" || true
done
echo "regen_coff: wrote $out"
