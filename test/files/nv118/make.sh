#!/bin/sh
# make.sh: regenerate the CUDA 11.8 fixtures of cuobjdump.test and the
# goldens of NVIDIA's own tools on them, so machines without the toolkit
# compare offload against cuobjdump and nvprune too.  Needs CUDA 11.8's
# nvcc, cuobjdump and nvprune (Debian's nvidia-cuda-toolkit: /usr/bin),
# run with PATH=/usr/bin:/bin, else nvcc 11.8 picks a newer toolkit's
# fatbinary from /usr/local/cuda/bin; it wants a host compiler it knows
# (CCBIN, default clang-14).  Everything is built from src/, ours.
#
#   a.o       sm_80 and sm_75 SASS, compute_70 and compute_80 PTX (PTX
#             first: nvcc's order)
#   b.o       sm_52 SASS and compute_52 PTX
#   g.o       nvcc -G: entries with an identifier (src/a.cu) and ptxas
#             options, which cuobjdump names differently
#   rdc.o     -rdc=true (src/c.cu): __nv_relfatbin only
#   host.o    no device code
#   libab.a   a.o, host.o, b.o, rdc.o (cuobjdump lists every member)
#   libab.so  a shared library of a.cu and b.cu (one fatbin each)
#   app       an executable of a.o, b.o and main.cu
#   rapp      an -rdc executable of rdc.o, a.cu, b.cu and main.cu:
#             .nv_fatbin and __nv_relfatbin
#   a.fatbin  nvcc -fatbin of a.cu;  a.cubin  nvcc -cubin -arch=sm_80
#
#   golden/cuobjdump     for each fixture, "== FILE status" (0, or
#                        "fail") and what cuobjdump -lelf -lptx prints
#   golden/nvprune       for each nvprune run on a.o, rdc.o and libab.a,
#                        "== ARGS FILE status" and cuobjdump -lelf -lptx
#                        of its output, named pruned.o / pruned.a
set -eu
here=$(cd "$(dirname "$0")" && pwd)
export PATH=/usr/bin:/bin
CCBIN=${CCBIN:-clang-14}
NVCC="nvcc -ccbin $CCBIN"
G="-gencode arch=compute_80,code=sm_80 -gencode arch=compute_75,code=sm_75
   -gencode arch=compute_70,code=compute_70
   -gencode arch=compute_80,code=compute_80"
cd "$here"
nvcc --version | grep -q 'release 11\.8' || {
	echo "make.sh: needs nvcc 11.8 in /usr/bin" >&2; exit 1; }
$NVCC -c $G src/a.cu -o a.o
$NVCC -c -gencode arch=compute_52,code=[sm_52,compute_52] src/b.cu -o b.o
$NVCC -c -G -gencode arch=compute_80,code=[sm_80,compute_80] src/a.cu -o g.o
$NVCC -c -rdc=true -gencode arch=compute_80,code=[sm_80,compute_80] \
	-gencode arch=compute_75,code=sm_75 src/c.cu -o rdc.o
$CCBIN -c -O2 src/host.c -o host.o
rm -f libab.a
ar rcs libab.a a.o host.o b.o rdc.o
$NVCC -shared -Xcompiler -fPIC -cudart shared $G src/a.cu src/b.cu \
	-o libab.so
$NVCC -cudart shared $G a.o b.o src/main.cu -o app
$NVCC -cudart shared -rdc=true -gencode arch=compute_80,code=sm_80 \
	rdc.o src/a.cu src/b.cu src/main.cu -o rapp
$NVCC -fatbin $G src/a.cu -o a.fatbin
$NVCC -cubin -arch=sm_80 src/a.cu -o a.cubin
strip --strip-debug app rapp libab.so

# "== WHAT status" and the listing; cuobjdump's info lines on stderr are
# left out (offload does not print them).
listing() {
	if cuobjdump -lelf -lptx "$1" >list.out 2>/dev/null; then
		st=0
	else
		st=fail
	fi
	echo "== $2 $st"
	cat list.out
	rm -f list.out
}
mkdir -p golden
for f in a.o b.o g.o rdc.o host.o libab.a libab.so app rapp a.fatbin a.cubin
do
	listing "$f" "$f"
done >golden/cuobjdump
for f in a.o rdc.o libab.a; do
	case $f in *.a) out=pruned.a ;; *) out=pruned.o ;; esac
	for args in "-arch sm_80" "-arch sm_75" "-arch compute_80" \
		    "-arch compute_70" "-arch sm_52" \
		    "-gencode arch=compute_80,code=[sm_80,compute_80]"; do
		rm -f $out
		nvprune $args $f -o $out 2>/dev/null
		listing $out "$args $f"
		rm -f $out
	done
done >golden/nvprune
