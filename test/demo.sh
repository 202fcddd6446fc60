#!/bin/sh
# demo.sh: the Quick start's main job on the shipped example: bundle a host
# and two GPU builds of examples/vector_add, list the bundle, unbundle it and
# check the round trip, printing each command; then list, extract and
# prune a linked HIP program, list and extract a HIP shared library (its
# code compressed), and package a code object.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
ex=examples/vector_add
out=${DEMO_DIR:-build/demo}
b=build/bin/clang-offload-bundler
targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a,hip-amdgcn-amd-amdhsa--gfx1100
mkdir -p "$out"
run() { echo "\$ $*" | sed "s|$top/||g"; "$@"; }

run "$b" -type=ll -targets=$targets \
	-input="$ex/host.ll" -input="$ex/gfx90a.ll" -input="$ex/gfx1100.ll" \
	-output="$out/vector_add.ll"
echo "bundled 3 targets into $(wc -c < "$out/vector_add.ll") bytes: build/demo/vector_add.ll"
run "$b" -type=ll -list -input="$out/vector_add.ll"
run "$b" -type=ll -unbundle -input="$out/vector_add.ll" -targets=$targets \
	-output="$out/host.ll" -output="$out/gfx90a.ll" -output="$out/gfx1100.ll"
for f in host gfx90a gfx1100; do
	cmp "$ex/$f.ll" "$out/$f.ll"
done
echo "unbundled 3 files in build/demo/, each identical to its input"

# A linked HIP program, made here with clang-22 when it is installed (the
# Quick start installs it), else the committed one: what is inside, one
# target's code objects out, and the program slimmed to one GPU.
bin=build/bin
hip=test/objects/hip
src=test/files/inspect/src
app=test/files/inspect/app
lib=test/files/inspect/libz.so
if command -v clang-22 >/dev/null 2>&1; then
	for f in a b; do
		clang-22 -x hip --offload-arch=gfx90a --offload-arch=gfx942 \
			--offload-arch=gfx1100 -nogpulib -nogpuinc -I"$hip" \
			-cuid=$f -c "$src/$f.hip" -o "$out/$f.o"
	done
	clang-22 -I"$hip" -c "$hip/runtime.cpp" -o "$out/rt.o"
	clang-22 --hip-link -no-hip-rt "$out/a.o" "$out/b.o" "$out/rt.o" \
		-o "$out/app"
	app=$out/app
	echo "built a HIP program of two translation units for gfx90a, gfx942 and gfx1100: build/demo/app"
	for f in a b; do
		clang-22 -x hip --offload-arch=gfx90a --offload-arch=gfx1100 \
			-nogpulib -nogpuinc -I"$hip" -fPIC --offload-compress \
			-cuid=$f -c "$src/$f.hip" -o "$out/${f}z.o"
	done
	clang-22 -fPIC -I"$hip" -c "$hip/runtime.cpp" -o "$out/rtpic.o"
	clang-22 -shared --hip-link -no-hip-rt "$out/az.o" "$out/bz.o" \
		"$out/rtpic.o" -o "$out/libz.so"
	lib=$out/libz.so
	echo "built a HIP shared library, its device code compressed, for gfx90a and gfx1100: build/demo/libz.so"
fi
run "$bin/offload" ls "$app"
rm -rf "$out/code"
mkdir -p "$out/code"
run "$bin/offload" extract -o "$out/code" --target gfx942 "$app"
run "$bin/offload" prune --keep gfx942 "$app" -o "$out/app-gfx942"
run "$bin/offload" ls "$out/app-gfx942"
rm -rf "$out/libcode"
run "$bin/offload" extract -v -o "$out/libcode" --target gfx1100 "$lib"
run "$bin/offload" ls "$out"/libcode/*
# Package two of the code objects as OpenMP's driver would.
set -- "$out"/code/*
run "$bin/llvm-offload-binary" -o "$out/images.bin" \
	--image=file="$1",triple=amdgcn-amd-amdhsa,arch=gfx942,kind=hip
run "$bin/offload" ls "$out/images.bin"
