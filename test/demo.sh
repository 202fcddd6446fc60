#!/bin/sh
# demo.sh: the Quick start's main job on the shipped example: bundle a host
# and two GPU builds of examples/vector_add, list the bundle, unbundle it and
# check the round trip, printing each command.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
ex=$top/examples/vector_add
out=${DEMO_DIR:-$top/build/demo}
b=$top/build/bin/clang-offload-bundler
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
