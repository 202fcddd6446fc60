#!/bin/sh
# make.sh: regenerate the committed fixtures of kernels.test with clang-22,
# for machines without it: small.o, a HIP object whose .hip_fatbin bundle
# holds src/small.hip for gfx906, gfx90a:xnack+, gfx942 and gfx1100, and
# smallz.o, the same compressed (a CCOB); small.remarks, what clang-22
# reported on them (-Rpass-analysis=kernel-resource-usage), the ground
# truth the expected output in kernels.test was checked against; n.fatbin
# and n.ptxas, the same for NVIDIA (nvcc, sm_75 to sm_120).  After
# regenerating, update kernels.test.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
CLANG=${CLANG:-clang-22}
H="-x hip --offload-arch=gfx906 --offload-arch=gfx90a:xnack+ --offload-arch=gfx942 --offload-arch=gfx1100 -nogpulib -nogpuinc -I$here/src -I$here/../../objects/hip -O2"
cd "$here"
$CLANG $H -cuid=k -c src/small.hip -o small.o
$CLANG $H -cuid=k --offload-compress -c src/small.hip -o smallz.o
# The remarks, processor by processor (the same code as in small.o).
for a in gfx906 gfx90a:xnack+ gfx942 gfx1100; do
	echo "== $a"
	$CLANG -x hip --offload-arch=$a -nogpulib -nogpuinc -Isrc -I../../objects/hip -O2 -cuid=k \
		--cuda-device-only -c src/small.hip -o /dev/null \
		-Rpass-analysis=kernel-resource-usage 2>&1 |
		sed -n 's/.*remark: \(.*\) \[-Rpass-analysis=kernel-resource-usage\]/\1/p'
done > small.remarks
# NVIDIA: src/n.cu for sm_75 to sm_120 (cubins) and compute_120 (PTX) in
# one fatbin, and ptxas's report on it (nvcc -Xptxas -v), the ground truth
# of its kernels' figures.
NVCC=${NVCC:-nvcc}
G=
for a in 75 80 86 89 90 100 120; do
	G="$G -gencode arch=compute_$a,code=sm_$a"
done
$NVCC -fatbin $G -gencode arch=compute_120,code=compute_120 -Xptxas -v \
	src/n.cu -o n.fatbin 2> n.ptxas
