#!/bin/sh
# make.sh [OUTDIR]: the committed archives of HIP device code for the
# -type=a cases in test/bundler.cases (LLVM 22's goldens) and
# test/archive.test (OUTDIR: this directory), and more made fresh there.
# Needs clang-22, llvm-ar 22 and build/bin (for a compressed bundle).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
src=$top/test/objects/hip
llvm=${LLVM_BIN:-/usr/lib/llvm-22/bin}
out=$(mkdir -p "${1:-$here}" && cd "${1:-$here}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
H="-x hip --offload-arch=gfx90a --offload-arch=gfx1100 -nogpulib -nogpuinc --no-offload-new-driver -I$src"
clang-22 $H -cuid=k -fgpu-rdc -c "$src/kernel.hip" -o kernel.o
clang-22 $H -cuid=m -fgpu-rdc -c "$src/main.hip" -o main.o
clang-22 -x hip --offload-arch=gfx90a -nogpulib -nogpuinc --no-offload-new-driver -I"$src" \
	-cuid=b -fgpu-rdc -c -emit-llvm "$src/kernel.hip" -o kernel.bc
printf 'not a bundle\n' > readme.txt
"$top/build/bin/clang-offload-bundler" -type=bc -compress \
	-targets=hip-amdgcn-amd-amdhsa--gfx90a,host-x86_64-pc-linux-gnu \
	-input=kernel.bc -input=readme.txt -output=packed.bc
# One member whose entries conflict by target ID (no bundler writes one).
python3 - <<'PY'
import struct
ids = [b"hip-amdgcn-amd-amdhsa--gfx906", b"hip-amdgcn-amd-amdhsa--gfx906:xnack+"]
data = [b"code for gfx906\n", b"code for gfx906:xnack+\n"]
head = 24 + 8 + sum(24 + len(i) for i in ids)
out, at = b"__CLANG_OFFLOAD_BUNDLE__" + struct.pack("<Q", len(ids)), head
for i, d in zip(ids, data):
    out += struct.pack("<QQQ", at, len(d), len(i)) + i
    at += len(d)
open("conflict.bc", "wb").write(out + b"".join(data))
PY
"$llvm/llvm-ar" cr "$out/hip.a" kernel.o main.o readme.txt kernel.bc packed.bc
"$llvm/llvm-ar" cr "$out/conflict.a" kernel.bc conflict.bc
if [ "$out" != "$here" ]; then
	# Fresh only: an OpenMP object (no bundles: skipped), -fgpu-rdc
	# objects compressed and not, a thin archive, and many members.
	clang-22 -fopenmp --offload-arch=gfx90a -nogpulib -c -x c /dev/null -o omp.o
	"$top/build/bin/clang-offload-bundler" -type=o -compress \
		-targets=host-x86_64-pc-linux-gnu,hip-amdgcn-amd-amdhsa--gfx1100 \
		-input=main.o -input=kernel.bc -output=mixed.o
	"$llvm/llvm-ar" cr "$out/mixed.a" omp.o kernel.o mixed.o packed.bc readme.txt main.o
	cp kernel.o main.o packed.bc "$out/"
	(cd "$out" && "$llvm/llvm-ar" crT thin.a kernel.o main.o packed.bc)
fi
ls -l "$out"
