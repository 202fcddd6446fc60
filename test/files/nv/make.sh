#!/bin/sh
# make.sh: regenerate the NVIDIA fixtures of extract.test and ls.test: one
# kernel (src/scale.cu, an sm_80 cubin and compute_80 PTX) built by nvcc 13
# with each --compress-mode and with fatbinary's -compress-all, so machines
# without nvcc test every compression nvcc writes:
#   mode-none.fatbin      nothing compressed
#   mode-default.fatbin   PTX zstd (the default mode: balance, same bytes)
#   mode-balance.fatbin   PTX zstd
#   mode-size.fatbin      cubin and PTX zstd (size compresses everything)
#   mode-speed.fatbin     PTX LZ4
#   all-default.fatbin    cubin and PTX zstd (-Xfatbin -compress-all)
#   all-speed.fatbin      cubin and PTX LZ4 (speed, -compress-all)
#   speed.o               an object whose .nv_fatbin holds mode-speed's (its
#                         host code differs from build to build)
#   variants.fatbin       arch variants (a, f), zstd; see the end
# The expected outputs in the tests follow these bytes: after regenerating,
# update them.  Needs nvcc (NVCC, default nvcc on PATH, else
# /usr/local/cuda/bin/nvcc).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
G="-gencode arch=compute_80,code=[sm_80,compute_80]"
cd "$here"
for m in none default balance size speed; do
	"$NVCC" -fatbin $G --compress-mode=$m src/scale.cu -o mode-$m.fatbin
done
"$NVCC" -fatbin $G -Xfatbin -compress-all src/scale.cu -o all-default.fatbin
"$NVCC" -fatbin $G --compress-mode=speed -Xfatbin -compress-all \
	src/scale.cu -o all-speed.fatbin
"$NVCC" -c $G --compress-mode=speed src/scale.cu -o speed.o
# Arch variants, each compressed (size): sm_90 and sm_90a cubins,
# compute_90a PTX, sm_100a and sm_103f cubins, compute_120a and compute_120f
# PTX.
"$NVCC" -fatbin --compress-mode=size -gencode arch=compute_90,code=sm_90 \
	-gencode arch=compute_90a,code=[sm_90a,compute_90a] \
	-gencode arch=compute_100a,code=sm_100a \
	-gencode arch=compute_103f,code=sm_103f \
	-gencode arch=compute_120a,code=compute_120a \
	-gencode arch=compute_120f,code=compute_120f \
	src/scale.cu -o variants.fatbin
