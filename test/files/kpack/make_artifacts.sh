#!/bin/sh
# make_artifacts.sh: the artifact directories of kpack_artifacts.test, and
# the goldens: what AMD's reference splitter (ROCm/rocm-kpack's
# split_artifacts) writes for them.  Never commits their code: only what
# their splitter writes for our inputs.
#   make_artifacts.sh inputs DIR     lay the inputs out in DIR (from app
#                                    and libk.so here), as the test does
#   make_artifacts.sh reference DIR  the inputs in DIR/in, the splitter's
#                                    outputs in DIR/none/CASE (its own) and
#                                    DIR/zstd/CASE (each archive written
#                                    again with ZstdCompressor, rezstd.py)
#   make_artifacts.sh golden         reference into artifacts/ here (the
#                                    committed goldens: none/ whole, of
#                                    zstd/ its archives alone, the rest
#                                    being none/'s)
# The cases:
#   o_lib       o_lib_gfx90a: one prefix "stage" (bin/app, lib/libk.so, a
#               link, a text file), the artifact prefix from the name
#   blas_lib    blas_lib_gfx110X: two nested prefixes, rocBLAS's (listed
#               first) and hipBLASLt's, and one that does not exist; fat
#               binaries in both, rocBLAS- and hipBLASLt-like kernel
#               databases for gfx90a and gfx1100 (--split-databases
#               rocblas hipblaslt)
#   ml_lib      ml_lib_gfx942: no device code, aotriton and MIOpen
#               databases in two prefixes (--split-databases aotriton
#               miopen)
#   batch       a parent of two artifacts (o_lib_gfx90a, ml_lib_gfx942), a
#               generic one, a directory without a manifest and a file
#               (--split-databases aotriton miopen rocblas hipblaslt)
# KPACK_SRC (a checkout of ROCm/rocm-kpack), LLVM_BIN (clang-offload-bundler,
# default LLVM 22's), PYTHON (with msgpack and zstandard: /usr/bin/python3).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
PY=${PYTHON:-/usr/bin/python3}
LLVM=${LLVM_BIN:-/usr/lib/llvm-22/bin}

db() {	# FILE...: small files named as a kernel database's, their names inside
	for f; do mkdir -p "$(dirname "$f")" && printf '%s\n' "${f##*/}" > "$f"; done
}

inputs() {
	d=$1
	mkdir -p "$d"
	a=$d/o_lib_gfx90a
	mkdir -p "$a/stage/bin" "$a/stage/lib" "$a/stage/share/doc"
	cp "$here/app" "$a/stage/bin/app"
	cp "$here/libk.so" "$a/stage/lib/libk.so"
	ln -s libk.so "$a/stage/lib/libk.so.1"
	printf 'readme\n' > "$a/stage/share/doc/README"
	echo stage > "$a/artifact_manifest.txt"

	b=$d/blas_lib_gfx110X
	r=$b/math-libs/BLAS/rocBLAS/stage
	h=$b/math-libs/BLAS/hipBLASLt/stage
	mkdir -p "$r/lib" "$h/lib"
	cp "$here/app" "$r/lib/librocblas.so"
	cp "$here/libk.so" "$h/lib/libhipblaslt.so"
	db "$r/lib/rocblas/library/TensileLibrary_Type_HH_Contraction_gfx90a.co" \
	   "$r/lib/rocblas/library/TensileLibrary_Type_HH_Contraction_gfx90a.dat" \
	   "$r/lib/rocblas/library/Kernels.so-000-gfx1100.hsaco" \
	   "$r/lib/rocblas/library/TensileLibrary_lazy_gfx1100.dat" \
	   "$r/lib/rocblas/library/TensileLibrary_fallback.dat" \
	   "$r/lib/rocblas/library/TensileManifest_gfx90a.txt" \
	   "$h/lib/hipblaslt/library/extop_gfx90a.co" \
	   "$h/lib/hipblaslt/library/TensileLibrary_gfx1100.dat" \
	   "$h/lib/hipblaslt/library/hipblasltTransform.hsaco"
	printf 'math-libs/BLAS/rocBLAS/stage\n\n  math-libs/BLAS/hipBLASLt/stage  \r\nmissing/stage\n' \
		> "$b/artifact_manifest.txt"

	m=$d/ml_lib_gfx942
	db "$m/zeta/stage/lib/aotriton/kernels/gfx942/flash/attn.aks2" \
	   "$m/zeta/stage/lib/aotriton/kernels/gfx90a/attn.aks2" \
	   "$m/zeta/stage/lib/aotriton/kernels/gfx90a_mi.aks2" \
	   "$m/zeta/stage/lib/aotriton/kernels/other/x.aks2" \
	   "$m/alpha/stage/share/miopen/db/gfx942.tn.model" \
	   "$m/alpha/stage/share/miopen/db/gfx90a_ConvAsm1x1U.ktn.model" \
	   "$m/alpha/stage/share/miopen/db/gfx942.db" \
	   "$m/alpha/stage/share/miopen/db/README.model"
	printf 'zeta/stage\nalpha/stage\n' > "$m/artifact_manifest.txt"

	s=$d/shard
	mkdir -p "$s/d_dev_generic/stage" "$s/notes"
	cp -R "$a" "$m" "$s/"
	echo generic > "$s/d_dev_generic/stage/f"
	echo stage > "$s/d_dev_generic/artifact_manifest.txt"
	echo notes > "$s/notes/f"
	echo file > "$s/file.txt"
}

split() {	# OUT ARGS...: the splitter run
	out=$1
	shift
	mkdir -p "$out"
	"$PY" "$here/run_ref.py" "$KPACK_SRC/python" \
		rocm_kpack.tools.split_artifacts --output-dir "$out" \
		--tmp-dir "$tmp" --clang-offload-bundler "$LLVM/clang-offload-bundler" \
		"$@" >"$tmp/split.log" 2>&1 || { cat "$tmp/split.log" >&2; exit 1; }
}

reference() {
	r0=$1
	rm -rf "$r0/in" "$r0/none" "$r0/zstd"
	inputs "$r0/in"
	split "$r0/none/o_lib" --artifact-dir "$r0/in/o_lib_gfx90a" --artifact-prefix o_lib
	split "$r0/none/blas_lib" --artifact-dir "$r0/in/blas_lib_gfx110X" \
		--artifact-prefix blas_lib --split-databases rocblas hipblaslt
	split "$r0/none/ml_lib" --artifact-dir "$r0/in/ml_lib_gfx942" \
		--artifact-prefix ml_lib --split-databases aotriton miopen
	split "$r0/none/batch" --batch-artifact-parent-dir "$r0/in/shard" \
		--split-databases aotriton miopen rocblas hipblaslt
	cp -R "$r0/none" "$r0/zstd"
	find "$r0/zstd" -type f -name '*.kpack' | while read -r f; do
		"$PY" "$here/rezstd.py" "$KPACK_SRC/python" "$f" "$f.z" && mv "$f.z" "$f"
	done
}

: "${KPACK_SRC:=/var/cache/offload-test/rocm-kpack}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
case ${1:-} in
inputs) inputs "$2" ;;
reference) mkdir -p "$2" && reference "$(cd "$2" && pwd)" ;;
golden)
	reference "$tmp/g"
	rm -rf "$here/artifacts"
	mkdir -p "$here/artifacts"
	cp -R "$tmp/g/none" "$here/artifacts/"
	(cd "$tmp/g" && find zstd -type f -name '*.kpack' | while read -r f; do
		mkdir -p "$here/artifacts/${f%/*}" && cp "$f" "$here/artifacts/$f"
	done)
	;;
*) echo "usage: $0 inputs DIR | reference DIR | golden" >&2; exit 2 ;;
esac
