#!/bin/sh
# make.sh: regenerate the committed fixtures of ls.test and extract.test,
# real artefacts from clang-22 (HIP, OpenMP), lld-22 and nvcc, for machines
# that have none of them.  Run from anywhere; needs clang-22, LLVM 22's
# tools in /usr/lib/llvm-22/bin, and nvcc (/usr/local/cuda/bin).  The
# expected outputs in ls.test and extract.test follow these bytes: after
# regenerating, update them.  The damaged inputs come from make_bad.py.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$here/src
hip=$here/../../objects/hip
CLANG=${CLANG:-clang-22}
LLVM=${LLVM_BIN:-/usr/lib/llvm-22/bin}
NVCC=${NVCC:-nvcc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

H="-x hip --offload-arch=gfx90a:xnack+ --offload-arch=gfx1100 -nogpulib -nogpuinc -I$hip"
L="--hip-link -no-hip-rt -Wl,-z,noseparate-code -s"
# Two translation units: .hip_fatbin holds two bundles (or CCOBs), each at
# the section's 4096 alignment.
$CLANG $H -cuid=a -c "$src/a.hip" -o a.o
$CLANG $H -cuid=b -c "$src/b.hip" -o b.o
$CLANG -I"$hip" -c "$hip/runtime.cpp" -o rt.o
$CLANG $L a.o b.o rt.o -o "$here/app"
$CLANG $H -fPIC --offload-compress -cuid=a -c "$src/a.hip" -o az.o
$CLANG $H -fPIC --offload-compress -cuid=b -c "$src/b.hip" -o bz.o
$CLANG -fPIC -I"$hip" -c "$hip/runtime.cpp" -o rtpic.o
$CLANG -shared $L az.o bz.o rtpic.o -o "$here/libz.so"
# -fgpu-rdc: an object bundle (one section per entry).
$CLANG -x hip --offload-arch=gfx90a -nogpulib -nogpuinc -I"$hip" -cuid=r \
	-fgpu-rdc -c "$src/a.hip" -o "$here/rdc.o"
# The .hip_fatbin of libz.so alone: two CCOBs back to back.
"$LLVM/llvm-objcopy" --dump-section .hip_fatbin="$here/fatbin-z.bin" "$here/libz.so"

# OpenMP: packages in .llvm.offloading; ld -r concatenates them.
O="-fopenmp --offload-arch=gfx90a --offload-arch=gfx1100 -nogpulib"
$CLANG $O -c "$src/omp.c" -o "$here/omp.o"
$CLANG $O -c "$src/omp2.c" -o omp2.o
"$LLVM/ld.lld" -r "$here/omp.o" omp2.o -o "$here/omp-r.o"
$CLANG -c "$src/omprt.c" -o omprt.o
"$LLVM/llvm-ar" rc libomp.a omprt.o
cp libomp.a libomptarget.a
$CLANG $O -L. -Wl,-z,noseparate-code -s "$here/omp.o" -o "$here/ompapp"
# Images of 11 KiB (an 8 KiB table): pruning frees whole pages.
$CLANG $O -DTABLE=A9 -L. -s "$src/ompbig.c" -o "$here/ompbig"
# A package file of its own, from llvm-offload-binary.
printf 'device code for gfx90a\n' > dev1
printf 'sm_80 code\n' > dev2
"$LLVM/llvm-offload-binary" -o "$here/pkg.bin" \
	--image=file=dev1,triple=amdgcn-amd-amdhsa,arch=gfx90a:sramecc+,kind=hip \
	--image=file=dev2,triple=nvptx64-nvidia-cuda,arch=sm_80,kind=openmp

# An archive: a HIP object with its fat binary, and one without device code.
$CLANG -c "$src/omprt.c" -o plain.o
cp a.o hipobj.o
"$LLVM/llvm-ar" rcD "$here/lib.a" hipobj.o plain.o

# NVIDIA: a fatbin (an sm_80 cubin, PTX for compute_80 and compute_90,
# compressed with zstd), and an executable whose .nv_fatbin holds the
# fatbins of two translation units, one built uncompressed.
G="-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=compute_90"
$NVCC -fatbin -gencode arch=compute_80,code=[sm_80,compute_80] \
	-gencode arch=compute_90,code=compute_90 "$src/k1.cu" -o "$here/k.fatbin"
$NVCC $G -c "$src/k1.cu" -o k1.o
$NVCC $G -compress-mode=none -c "$src/k2.cu" -o k2.o
$NVCC $G -cudart shared -Xlinker -s k1.o k2.o -o "$here/cuapp"
$NVCC $G -rdc=true -c "$src/k2.cu" -o "$here/cu-rdc.o"
