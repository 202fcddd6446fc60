#!/bin/sh
# make.sh: regenerate the committed kpack fixtures of ls.test and
# extract.test by running AMD's reference splitter (ROCm/rocm-kpack,
# python/rocm_kpack) on a small HIP program from clang-22.  Never commits
# their code: only what their splitter writes for our inputs.
#   KPACK_SRC=DIR   a checkout of ROCm/rocm-kpack (its python/ is used)
#   KPACK_OUT=DIR   where to write (default: here), for kpack.test to
#                   check that the committed files are what it makes
# Needs clang-22, LLVM 22's tools, GNU binutils, and python3 with msgpack
# and zstandard (Debian 12: python3-msgpack python3-zstandard).  Python
# 3.11 lacks TemporaryDirectory(delete=...), which the splitter uses: the
# wrapper below gives it that one argument.
#
# Out:
#   app                 the fat original (two TUs: two wrappers, #0 and #1)
#   split/bin/app       the host binary after splitting (HIPK wrappers,
#                       .rocm_kpack_ref), split/.kpack/t_gfx90a.kpack and
#                       split/.kpack/t_gfx1100.kpack (stored as they are:
#                       "none", the splitter's default)
#   zstd.kpack          both archives' code objects in one archive of two
#                       targets, "zstd-per-kernel"
#   tree/libk.so        a HIP shared library (lib.hip, one TU) of the same
#                       targets: with app the fat install tree stage/bin/app,
#                       stage/lib/libk.so (the tests put it together)
#   tree/split/         that tree split in one run, as installed: bin/app,
#                       lib/libk.so, .kpack/t_gfx90a.kpack and
#                       .kpack/t_gfx1100.kpack holding both binaries' code
#   libk.so             a shared library, one TU, its bundle compressed (a
#                       CCOB), for gfx90a:xnack+ and gfx1100
#   golden/*.kpack      what the splitter writes for the tree stage/ of
#                       bin/app and lib/libk.so, its artifact prefix and its
#                       one prefix both "stage" (kpack_split.test: offload
#                       kpack split --prefix stage must write these bytes);
#                       the splitter walks directories in the order
#                       os.scandir gives, which run_ref.py makes name order
#   golden/zstd/*.kpack the same archives written again by rocm-kpack with
#                       its ZstdCompressor (level 3), the code objects in
#                       the same order, their metadata kept (offload kpack
#                       split --compress=zstd)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../inspect/src
hip=$here/../../objects/hip
mkdir -p "${KPACK_OUT:-$here}"
out=$(cd "${KPACK_OUT:-$here}" && pwd)
CLANG=${CLANG:-clang-22}
LLVM=${LLVM_BIN:-/usr/lib/llvm-22/bin}
PY=${PYTHON:-/usr/bin/python3}
: "${KPACK_SRC:?set KPACK_SRC to a checkout of ROCm/rocm-kpack}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

H="-x hip --offload-arch=gfx90a --offload-arch=gfx1100 -nogpulib -nogpuinc -I$hip"
$CLANG $H -cuid=a -c "$src/a.hip" -o a.o
$CLANG $H -cuid=b -c "$src/b.hip" -o b.o
$CLANG -I"$hip" -c "$hip/runtime.cpp" -o rt.o
$CLANG --hip-link -no-hip-rt -Wl,-z,noseparate-code -s a.o b.o rt.o -o "$out/app"
mkdir -p "$out/tree"
$CLANG $H -fPIC -cuid=l -c "$here/lib.hip" -o l.o
$CLANG --hip-link -no-hip-rt -shared -Wl,-z,noseparate-code -s l.o \
	-o "$out/tree/libk.so"

# One artifact, prefix "stage", the program in stage/bin.
mkdir -p art/t_lib_gfx90a/stage/bin parts
cp "$out/app" art/t_lib_gfx90a/stage/bin/app
echo stage > art/t_lib_gfx90a/artifact_manifest.txt
cp "$here/run_ref.py" run.py
"$PY" run.py "$KPACK_SRC/python" rocm_kpack.tools.split_artifacts \
	--artifact-dir art/t_lib_gfx90a --output-dir parts --artifact-prefix t \
	--tmp-dir "$tmp" --clang-offload-bundler "$LLVM/clang-offload-bundler" \
	>split.log 2>&1 || { cat split.log >&2; exit 1; }
rm -rf "$out/split"
mkdir -p "$out/split"
cp -R parts/t_generic/stage/. "$out/split/"
for d in parts/t_gfx*; do cp -R "$d/stage/.kpack" "$out/split/"; done

# The install tree: app and libk.so split together, in one artifact.
mkdir -p tree/t_lib_gfx90a/stage/bin tree/t_lib_gfx90a/stage/lib tree/parts
cp "$out/app" tree/t_lib_gfx90a/stage/bin/app
cp "$out/tree/libk.so" tree/t_lib_gfx90a/stage/lib/libk.so
echo stage > tree/t_lib_gfx90a/artifact_manifest.txt
"$PY" run.py "$KPACK_SRC/python" rocm_kpack.tools.split_artifacts \
	--artifact-dir tree/t_lib_gfx90a --output-dir tree/parts \
	--artifact-prefix t --tmp-dir "$tmp" \
	--clang-offload-bundler "$LLVM/clang-offload-bundler" \
	>split.log 2>&1 || { cat split.log >&2; exit 1; }
rm -rf "$out/tree/split"
mkdir -p "$out/tree/split"
cp -R tree/parts/t_generic/stage/. "$out/tree/split/"
for d in tree/parts/t_gfx*; do cp -R "$d/stage/.kpack" "$out/tree/split/"; done

# The two archives' code objects again, in one archive of both targets,
# each compressed on its own (zstd-per-kernel, level 3).
cat > zstd.py <<'PYEOF'
import sys
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from rocm_kpack.kpack import PackedKernelArchive
from rocm_kpack.compression import ZstdCompressor
out = PackedKernelArchive("t", "gfx90a", ["gfx90a", "gfx1100"],
                          compressor=ZstdCompressor())
for a in sys.argv[3:]:
    src = PackedKernelArchive.read(Path(a))
    for key, arches in src.toc.items():
        for arch in arches:
            out.add_kernel(out.prepare_kernel(key, arch, src.get_kernel(key, arch)))
out.finalize_archive()
out.write(Path(sys.argv[2]))
PYEOF
"$PY" zstd.py "$KPACK_SRC/python" "$out/zstd.kpack" \
	"$out/split/.kpack/t_gfx90a.kpack" "$out/split/.kpack/t_gfx1100.kpack"

# kpack split's goldens: the tree stage/ (bin/app, lib/libk.so) split with
# "stage" as the artifact prefix and as its one prefix.
H2="-x hip --offload-arch=gfx90a:xnack+ --offload-arch=gfx1100 -nogpulib -nogpuinc -I$hip"
$CLANG $H2 -fPIC --offload-compress -cuid=k -c "$src/a.hip" -o k.o
$CLANG -fPIC -I"$hip" -c "$hip/runtime.cpp" -o rtp.o
$CLANG -shared --hip-link -no-hip-rt -Wl,-z,noseparate-code -s k.o rtp.o \
	-o "$out/libk.so"
mkdir -p art2/stage/stage/bin art2/stage/stage/lib parts2
cp "$out/app" art2/stage/stage/bin/app
cp "$out/libk.so" art2/stage/stage/lib/libk.so
echo stage > art2/stage/artifact_manifest.txt
"$PY" run.py "$KPACK_SRC/python" rocm_kpack.tools.split_artifacts \
	--artifact-dir art2/stage --output-dir parts2 --artifact-prefix stage \
	--tmp-dir "$tmp" --clang-offload-bundler "$LLVM/clang-offload-bundler" \
	>split2.log 2>&1 || { cat split2.log >&2; exit 1; }
rm -rf "$out/golden"
mkdir -p "$out/golden/zstd"
cp parts2/stage_gfx*/stage/.kpack/*.kpack "$out/golden/"
for f in "$out"/golden/*.kpack; do
	"$PY" "$here/rezstd.py" "$KPACK_SRC/python" "$f" "$out/golden/zstd/${f##*/}"
done
