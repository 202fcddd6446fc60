#!/bin/sh
# make.sh: regenerate the fixtures of nvres.test and the goldens of
# NVIDIA's own tools on them: kernels that use local memory (per-thread
# arrays indexed at run time, register spills, a callee's frame, printf,
# recursion, calls through a pointer), shared memory and constant banks,
# so that machines without the toolkits compare every figure offload ls
# --kernels prints with cuobjdump -res-usage's.  Everything is built from
# src/, ours.
#
# CUDA 11.8 (Debian's nvidia-cuda-toolkit, /usr/bin: run with
# PATH=/usr/bin:/bin, else nvcc 11.8 picks a newer toolkit's fatbinary;
# it wants a host compiler it knows, CCBIN, default clang-14):
#   res.fatbin     src/res.cu for sm_75, sm_80, sm_86, sm_89 and sm_90
#                  (-Xfatbin -compress-all, as the others: LZ4 entries, and
#                  zstd in CUDA 13's)
#   spill.fatbin   src/spill.cu, the same, -maxrregcount=24 (spills)
# CUDA 13 (NVCC13, default /usr/local/cuda/bin/nvcc):
#   res13.fatbin, spill13.fatbin   the same for sm_75 to sm_120
#
#   golden/X.res     cuobjdump -res-usage (11.8) of X.fatbin; for CUDA 13's
#                    fatbins, which cuobjdump 11.8 cannot read, of each
#                    cubin nvcc 13 -cubin makes for sm_75 to sm_89 with its
#                    ELF header put in CUDA 11.8's layout (OS/ABI 51, ABI
#                    version 7, e_flags sm | 0x500 | sm << 16), each after
#                    an "arch = sm_XY" line as cuobjdump prints for a
#                    fatbin's entries (on sm_90 and later cubins of CUDA 13
#                    cuobjdump 11.8 -res-usage crashes)
#   golden/nv118/F.res  cuobjdump -res-usage (11.8) of ../nv118/F
#   golden/X13.ptxas nvcc 13 -Xptxas -v's report when it built X13.fatbin
#                    (ptxas 11.8's is no ground truth for the stack: it
#                    gives each function's own frame, not with its callees)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
export PATH=/usr/bin:/bin
CCBIN=${CCBIN:-clang-14}
NVCC13=${NVCC13:-/usr/local/cuda/bin/nvcc}
cd "$here"
nvcc --version | grep -q 'release 11\.8' || {
	echo "make.sh: needs nvcc 11.8 in /usr/bin" >&2; exit 1; }
"$NVCC13" --version | grep -q 'release 13\.' || {
	echo "make.sh: needs CUDA 13's nvcc ($NVCC13)" >&2; exit 1; }
mkdir -p golden
G=
for a in 75 80 86 89 90; do
	G="$G -gencode arch=compute_$a,code=sm_$a"
done
G13="$G"
for a in 100 120; do
	G13="$G13 -gencode arch=compute_$a,code=sm_$a"
done
# "arch = sm_XY" and cuobjdump's report of a CUDA 13 cubin, its header
# put in CUDA 11.8's layout.
patched_report() {
	python3 - "$1" "$2" <<'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
sm = int(sys.argv[2])
d[7], d[8] = 51, 7
struct.pack_into("<I", d, 0x30, sm | 0x500 | sm << 16)
open("patched.cubin", "wb").write(d)
EOF
	echo "arch = sm_$2"
	cuobjdump -res-usage patched.cubin
	rm -f patched.cubin
}
for src in res spill; do
	opt=
	[ $src = spill ] && opt=-maxrregcount=24
	# shellcheck disable=SC2086
	nvcc -ccbin "$CCBIN" -fatbin -Xfatbin -compress-all $G $opt \
		src/$src.cu -o $src.fatbin
	cuobjdump -res-usage $src.fatbin >golden/$src.res
	# shellcheck disable=SC2086
	"$NVCC13" -fatbin -Xfatbin -compress-all $G13 $opt -Xptxas -v \
		src/$src.cu -o ${src}13.fatbin 2>golden/${src}13.ptxas
	for a in 75 80 86 89; do
		# shellcheck disable=SC2086
		"$NVCC13" -cubin -arch=sm_$a $opt src/$src.cu -o cubin.$a 2>/dev/null
		patched_report cubin.$a $a
		rm -f cubin.$a
	done >golden/${src}13.res
done
# cuobjdump -res-usage of the CUDA 11.8 fixtures of cuobjdump.test
# (../nv118, made by its make.sh): objects, an archive, a shared library,
# programs, nvcc -G's device functions.
mkdir -p golden/nv118
for f in a.o b.o g.o rdc.o libab.a libab.so app rapp a.fatbin a.cubin; do
	cuobjdump -res-usage ../nv118/$f >golden/nv118/$f.res
done
