#!/bin/sh
# kpack_runtime.sh: build AMD's kpack runtime library (librocm_kpack.a, the
# code behind the HIP runtime's kpack_load_code_object; MIT) from the
# cached checkout of ROCm/rocm-kpack (runtime/, the same library as
# ROCm/rocm-systems shared/kpack/runtime), never from the network, with
# CMake and Debian's libmsgpack-cxx-dev and libzstd-dev (names mapped by
# test/kpack_runtime/CMakeLists.txt).  Built once into
# /var/cache/offload-test/kpack-runtime (KPACK_RT), reused after.
# Prints that directory (librocm_kpack.a in runtime/, the headers in
# $KPACK_SRC/runtime/include); exit 1 with why on stderr when it cannot.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=${KPACK_SRC:-/var/cache/offload-test/rocm-kpack}
out=${KPACK_RT:-/var/cache/offload-test/kpack-runtime}
if [ ! -f "$src/runtime/src/loader.cpp" ]; then
	echo "no kpack runtime source in $src/runtime" >&2
	exit 1
fi
command -v cmake >/dev/null || { echo "cmake missing" >&2; exit 1; }
if [ -f "$out/runtime/librocm_kpack.a" ] && [ "$out/runtime/librocm_kpack.a" -nt "$src/runtime/src/loader.cpp" ]; then
	echo "$out"
	exit 0
fi
mkdir -p "$out"
if ! { cmake -S "$here/kpack_runtime" -B "$out" -DKPACK_SRC="$src" \
	-DCMAKE_BUILD_TYPE=Release && nice make -C "$out" -j2 rocm_kpack; } \
	>"$out/build.log" 2>&1; then
	tail -n 20 "$out/build.log" >&2
	exit 1
fi
echo "$out"
