#!/bin/sh
# make.sh: regenerate the committed fixtures of newllvm.test, artefacts of
# LLVM 23.1 (Debian sid) and of the LLVM 24 snapshot (Debian experimental),
# for machines without those roots.  Needs both roots (test/refroot.sh 23
# and 24) and root to chroot into them.  The expected outputs in
# newllvm.test follow these bytes: after regenerating, update them.
#
#   23: version-2 offload packages (several images in one)
#     rdc23.o     HIP -fgpu-rdc, gfx90a and gfx1100: one package, 2 images
#     omp23.o     OpenMP, gfx90a and gfx1100: one package, 2 images
#     ompw23.obj  the same for Windows (MSVC): a COFF object
#     ompl23.o    the same with -flto: bitcode embedding the package
#     ompw23.exe  a linked Windows OpenMP program for gfx942, gfx90a and
#                 gfx1100 (MSVC: packages in .llvm.of), linked against
#                 stand-ins (test/prune/stubwin.c), with its symbol table
#                 (-debug:symtab) and a checksum (-release)
#     ompg23.exe  the same for MinGW (packages in .llvm)
#     ompapp23    a linked OpenMP program for gfx942, gfx90a and gfx1100
#                 (one package an image), linked against a stand-in
#                 libomptarget (test/prune/stubomptarget.c)
#     pkg23.bin   llvm-offload-binary-23 of two small images
#     pkg23-sm80.bin  llvm-offload-binary-23 of the second alone: what
#                 prune --keep sm_80 must make of pkg23.bin
#     co23.co     a HIP code object for gfx90a:xnack+ (its metadata's
#                 target: amdgcn-amd-amdhsa-unknown-gfx90a:xnack+)
#   24: version-3 packages, amdgpu triples with sub-architectures
#     rdc24.o     HIP -fgpu-rdc, gfx90a and gfx1100 (amdgpu9.0a-amd-amdhsa,
#                 amdgpu11.00-amd-amdhsa)
#     ompapp24    as ompapp23
#     pkz24.bin   llvm-offload-binary-24 --compress of two images (zstd)
#     pkzl24.bin  the same with --compression-format=zlib
#     pkz24-1100.bin, pkzl24-1100.bin  the same of the second image alone:
#                 what prune --keep gfx1100 must make of them
#     b24.bin     clang-offload-bundler-24 of a host and three device
#                 entries with amdgpu triples in their IDs
#     co24.co     a HIP code object for gfx1100 (its metadata's target:
#                 amdgpu11.00-amd-amdhsa-unknown-gfx1100)
#     pkk24.bin   llvm-offload-binary-24 --compress of co23.co and co24.co
#     lfit23.o, lbig23.o  ompl23.o with its module's array holding instead
#                 (embed.py) llvm-offload-binary-24 --compress-level=19 of
#                 one 16000-byte text twice (gfx90a, gfx1100), then an
#                 uncompressed package of one sm_80 image (11 bytes in
#                 lfit23.o, 1600 in lbig23.o) whose size covers the rest:
#                 keeping gfx90a and sm_80, the first package written again
#                 (at another level) outgrows the array
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
R23=$(sh "$top/test/refroot.sh" --path 23)
R24=$(sh "$top/test/refroot.sh" --path 24)
for r in "$R23" "$R24"; do
	[ -d "$r/usr/lib" ] || { echo "make.sh: no root at $r (test/refroot.sh)" >&2; exit 1; }
done

# One work directory inside each root, /tmp/fixtures in there.
for r in "$R23" "$R24"; do
	rm -rf "$r/tmp/fixtures"
	mkdir -p "$r/tmp/fixtures/rt"
	cp "$top/test/files/inspect/src/a.hip" "$top/test/files/inspect/src/omp.c" \
		"$top/test/files/inspect/src/omp2.c" "$top/test/objects/hip/nohip.h" \
		"$top/test/prune/stubomptarget.c" "$top/test/prune/stubwin.c" "$r/tmp/fixtures/"
	printf 'device code for gfx90a, device code for gfx90a\n' > "$r/tmp/fixtures/dev1"
	printf 'device code for gfx1100, device code for gfx1100\n' > "$r/tmp/fixtures/dev2"
	printf 'sm_80 code\n' > "$r/tmp/fixtures/dev3"
	printf 'host\n' > "$r/tmp/fixtures/host"
done
trap 'rm -rf "$R23/tmp/fixtures" "$R24/tmp/fixtures"' EXIT

# run VERSION COMMAND: COMMAND in /tmp/fixtures of that root, LLVM's
# tools first on PATH.
run() {
	r=$R23
	[ "$1" = 24 ] && r=$R24
	chroot "$r" env PATH="/usr/lib/llvm-$1/bin:/usr/bin:/bin" sh -c "cd /tmp/fixtures && $2"
}

for v in 23 24; do
	H="-x hip --offload-arch=gfx90a,gfx1100 -nogpulib -nogpuinc -I. -cuid=r"
	O="-fopenmp --offload-arch=gfx942 --offload-arch=gfx90a --offload-arch=gfx1100 -nogpulib -nogpuinc"
	run $v "clang-$v $H -fgpu-rdc -c a.hip -o rdc$v.o"
	run $v "clang-$v -shared -fPIC -O1 -o rt/libomptarget.so stubomptarget.c &&
		clang-$v -shared -fPIC -o rt/libomp.so -x c /dev/null &&
		clang-$v $O -c omp.c -o t1.o && clang-$v $O -c omp2.c -o t2.o &&
		clang-$v $O -Lrt -Wl,-rpath,/tmp/fixtures/rt -Wl,-z,noseparate-code -s \
			t1.o t2.o -o ompapp$v -Xoffload-linker --unresolved-symbols=ignore-all"
done
run 23 "clang-23 -fopenmp --offload-arch=gfx90a,gfx1100 -nogpulib -c omp.c -o omp23.o"
run 23 "clang-23 -fopenmp --offload-arch=gfx90a,gfx1100 -nogpulib -nogpuinc --target=x86_64-pc-windows-msvc -c omp.c -o ompw23.obj"
run 23 "clang-23 -flto -fopenmp --offload-arch=gfx90a,gfx1100 -nogpulib -nogpuinc -c omp.c -o ompl23.o"
O="-fopenmp --offload-arch=gfx942 --offload-arch=gfx90a --offload-arch=gfx1100 -nogpulib -nogpuinc"
run 23 "mkdir -p win && clang-23 --target=x86_64-pc-windows-msvc -c stubwin.c -o win/sw.obj &&
	llvm-lib /out:win/libomp.lib win/sw.obj && llvm-lib /out:win/libomptarget.lib win/sw.obj &&
	clang-23 --target=x86_64-pc-windows-msvc $O -fuse-ld=lld -nostdlib omp.c -Lwin -o ompw23.exe \
		-Xoffload-linker --unresolved-symbols=ignore-all -Wl,-entry:mainCRTStartup \
		-Wl,-debug:symtab -Wl,-release"
run 23 "clang-23 --target=x86_64-w64-windows-gnu -c stubwin.c -o win/sw.o &&
	llvm-ar rcs win/libomp.a win/sw.o && llvm-ar rcs win/libomptarget.a win/sw.o &&
	clang-23 --target=x86_64-w64-windows-gnu $O -fuse-ld=lld -nostdlib omp.c -Lwin -lomp -lomptarget -o ompg23.exe \
		-Xoffload-linker --unresolved-symbols=ignore-all -Wl,--entry=mainCRTStartup"
run 23 "llvm-offload-binary -o pkg23.bin \
	--image=file=dev1,triple=amdgcn-amd-amdhsa,arch=gfx90a:sramecc+,kind=hip \
	--image=file=dev3,triple=nvptx64-nvidia-cuda,arch=sm_80,kind=openmp"
run 23 "clang-23 -x hip --offload-arch=gfx90a:xnack+ -nogpulib -nogpuinc -I. \
	--cuda-device-only --no-gpu-bundle-output -c a.hip -o co23.co"
run 23 "llvm-offload-binary -o pkg23-sm80.bin \
	--image=file=dev3,triple=nvptx64-nvidia-cuda,arch=sm_80,kind=openmp"
I2="--image=file=dev2,triple=amdgpu11.00-amd-amdhsa,arch=gfx1100,kind=hip"
I="--image=file=dev1,triple=amdgpu9.0a-amd-amdhsa,arch=gfx90a,kind=hip $I2"
run 24 "llvm-offload-binary -o pkz24.bin --compress $I"
run 24 "llvm-offload-binary -o pkzl24.bin --compress --compression-format=zlib $I"
run 24 "llvm-offload-binary -o pkz24-1100.bin --compress $I2"
run 24 "llvm-offload-binary -o pkzl24-1100.bin --compress --compression-format=zlib $I2"
run 24 "clang-offload-bundler -type=o \
	-targets=host-x86_64-unknown-linux-gnu,hip-amdgpu9.0a-amd-amdhsa--gfx90a:xnack+,hip-amdgpu11-amd-amdhsa--gfx11-generic,hip-amdgpu9.42-amd-amdhsa--gfx942:sramecc+:xnack- \
	-input=host -input=dev1 -input=dev2 -input=dev3 -output=b24.bin"
run 24 "clang-24 -x hip --offload-arch=gfx1100 -nogpulib -nogpuinc -I. \
	--cuda-device-only --no-gpu-bundle-output -c a.hip -o co24.co"
cp "$R23/tmp/fixtures/co23.co" "$R24/tmp/fixtures/"
run 24 "llvm-offload-binary -o pkk24.bin --compress \
	--image=file=co23.co,triple=amdgcn-amd-amdhsa,arch=gfx90a:xnack+,kind=hip \
	--image=file=co24.co,triple=amdgpu11.00-amd-amdhsa,arch=gfx1100,kind=hip"

python3 -c "
import random
r = random.Random(7)
w = [''.join(r.choice('abcdefghij') for _ in range(r.randint(3, 9))) for _ in range(300)]
open('$R24/tmp/fixtures/words', 'w').write(' '.join(r.choice(w) for _ in range(2600))[:16000])
r = random.Random(8)
open('$R24/tmp/fixtures/tail', 'w').write(''.join(r.choice('klmnopqrstuvwxyz') for _ in range(1600)))
"
W="--image=file=words,triple=amdgcn-amd-amdhsa,kind=openmp"
run 24 "llvm-offload-binary -o twice.bin --compress --compression-level=19 $W,arch=gfx90a $W,arch=gfx1100 &&
	llvm-offload-binary -o small.bin --image=file=dev3,triple=nvptx64-nvidia-cuda,arch=sm_80,kind=openmp &&
	llvm-offload-binary -o tail.bin --image=file=tail,triple=nvptx64-nvidia-cuda,arch=sm_80,kind=openmp"
python3 "$here/embed.py" "$R23/tmp/fixtures/ompl23.o" "$here/lfit23.o" \
	"$R24/tmp/fixtures/twice.bin" "$R24/tmp/fixtures/small.bin"
python3 "$here/embed.py" "$R23/tmp/fixtures/ompl23.o" "$here/lbig23.o" \
	"$R24/tmp/fixtures/twice.bin" "$R24/tmp/fixtures/tail.bin"

for f in rdc23.o omp23.o ompw23.obj ompl23.o ompw23.exe ompg23.exe ompapp23 pkg23.bin pkg23-sm80.bin co23.co; do
	cp "$R23/tmp/fixtures/$f" "$here/$f"
done
for f in rdc24.o ompapp24 pkz24.bin pkzl24.bin pkz24-1100.bin pkzl24-1100.bin \
	b24.bin co24.co pkk24.bin; do
	cp "$R24/tmp/fixtures/$f" "$here/$f"
done
