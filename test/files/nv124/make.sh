#!/bin/sh
# make.sh: regenerate the goldens of CUDA 12.4's fatbinary that prune.test
# compares offload prune --compress with, so machines without the toolkit
# check it too.  The inputs are ours: nv118's a.cubin (sm_80) and the
# compute_80 PTX of nv118's a.fatbin (offload extract).  Needs fatbinary
# 12.4 (Debian's nvidia-cuda-toolkit 12.4: FATBINARY, else the first of
# 12.4 on PATH or extracted under /var/cache/offload-test/debs) and a built
# offload (OFFLOAD, default build/bin/offload).
#   plain.fatbin  the cubin and the PTX, nothing compressed
#                 (fatbinary --compress=false)
#   lz4.fatbin    the same, every entry compressed (fatbinary
#                 --compress-all: LZ4)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
OFFLOAD=${OFFLOAD:-$top/build/bin/offload}
if [ -z "${FATBINARY:-}" ]; then
	for f in $(command -v fatbinary) $(find /var/cache/offload-test/debs \
			-path '*/usr/bin/fatbinary' 2>/dev/null); do
		"$f" --version | grep -q 'release 12\.4' && FATBINARY=$f && break
	done
fi
"${FATBINARY:-false}" --version 2>/dev/null | grep -q 'release 12\.4' || {
	echo "make.sh: needs fatbinary 12.4 (FATBINARY=)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$OFFLOAD" extract -o "$tmp" -t compute_80 "$here/../nv118/a.fatbin"
img="--image=profile=sm_80,file=$here/../nv118/a.cubin"
img="$img --image=profile=compute_80,file=$tmp/a.fatbin.0.sm_80.ptx"
"$FATBINARY" --64 --create="$here/plain.fatbin" --compress=false $img
"$FATBINARY" --64 --create="$here/lz4.fatbin" --compress-all $img
