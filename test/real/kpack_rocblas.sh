#!/bin/sh
# kpack_rocblas.sh: offload kpack split of a real artifact (issue 38):
# Debian trixie's rocBLAS (librocblas0: librocblas.so.0.1, 450 MB, its
# .hip_fatbin for ten GPUs; rocblas/2.47.0/library, 1.8 GB of Tensile
# kernel databases) laid out as an artifact of ROCm's build
# (rocblas_lib_gfxall/artifact_manifest.txt: the prefix "stage";
# stage/lib/librocblas.so.0*, stage/lib/rocblas/library/ as TheRock
# installs it, stage/share/doc), split per target with --split-databases
# rocblas by offload kpack split and by AMD's reference splitter
# (ROCm/rocm-kpack split_artifacts, the cached checkout).  Checks: diff -r
# of the two output trees is empty (the fat host binary rewritten as the
# splitter rewrites it, byte for byte); kpack join of our generic artifact
# and every GPU artifact gives the original code objects and files.
# Prints each tool's time and each artifact's size (for BENCHMARKS.md).
#
# Opt-in (make check-real).  The package is fetched once, when it is not
# in $DEBS (default /var/cache/offload-test/debs), from Debian trixie with
# a private apt configuration (apt-get download: nothing installed, the
# system's lists untouched); FETCH=0 leaves it to you:
#     echo 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main' > L
#     A="-o Dir::Etc::sourcelist=$PWD/L -o Dir::Etc::sourceparts=/dev/null -o Dir::State::Lists=$PWD/lists -o Dir::Cache=$PWD/cache"
#     apt-get $A update && cd $DEBS && apt-get $A download librocblas0
# Without it, or without the reference (KPACK_SRC, LLVM 22's
# clang-offload-bundler, /usr/bin/python3 with msgpack and zstandard), it
# says SKIP and succeeds.  About 7 GB of scratch space.
. "$(dirname "$0")/../lib.sh"
TOP=$(cd "$TOP/.." && pwd)
PATH=$TOP/build/bin:$PATH
export TOP PATH
DEBS=${DEBS:-/var/cache/offload-test/debs}
KPACK_SRC=${KPACK_SRC:-/var/cache/offload-test/rocm-kpack}
DEB=$(ls "$DEBS"/librocblas0_*_amd64.deb 2>/dev/null | tail -1)
if [ -z "$DEB" ] && [ "${FETCH:-1}" != 0 ] && command -v apt-get >/dev/null &&
   [ -f /usr/share/keyrings/debian-archive-keyring.gpg ]; then
	apt=$(mktemp -d) && mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$DEBS" &&
	echo 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main' >"$apt/L" &&
	A="-o Dir::Etc::sourcelist=$apt/L -o Dir::Etc::sourceparts=/dev/null -o Dir::State::Lists=$apt/lists -o Dir::Cache=$apt/cache" &&
	apt-get $A update >"$apt/log" 2>&1 && (cd "$apt" && apt-get $A download librocblas0 >>log 2>&1) &&
	f=$(cd "$apt" && ls librocblas0_*_amd64.deb) &&
	cp "$apt/$f" "$DEBS/.$f.tmp" && mv "$DEBS/.$f.tmp" "$DEBS/$f" ||
		echo "fetching librocblas0 from Debian trixie failed" >&2
	rm -rf "$apt"
	DEB=$(ls "$DEBS"/librocblas0_*_amd64.deb 2>/dev/null | tail -1)
fi
if [ -z "$DEB" ]; then
	echo "SKIP: no $DEBS/librocblas0_*_amd64.deb (see test/real/kpack_rocblas.sh)"
	finish
	exit
fi
if [ ! -d "$KPACK_SRC/python/rocm_kpack" ] || [ ! -x /usr/lib/llvm-22/bin/clang-offload-bundler ] ||
   ! /usr/bin/python3 -c 'import msgpack, zstandard' 2>/dev/null; then
	echo "SKIP: the reference splitter ($KPACK_SRC, LLVM 22, python3-msgpack/-zstandard) missing"
	finish
	exit
fi
scratch
secs() { date +%s.%N; }
took() { echo "$2 $1" | awk '{ printf "%.1f", $1 - $2 }'; }
dpkg -x "$DEB" pkg || exit 1
L=pkg/usr/lib/x86_64-linux-gnu
A=art/rocblas_lib_gfxall
mkdir -p $A/stage/lib/rocblas $A/stage/share
mv $L/librocblas.so.0* $A/stage/lib/
mv $L/rocblas/*/library $A/stage/lib/rocblas/library
mv pkg/usr/share/doc $A/stage/share/
echo stage > $A/artifact_manifest.txt
rm -rf pkg

t0=$(secs)
/usr/bin/time -f %M -o rss offload kpack split --split-databases rocblas -o ours $A
rc=$?
t1=$(secs)
ours_time=$(took "$t0" "$t1")
mkdir theirs tmp
t0=$(secs)
/usr/bin/python3 "$TOP/test/files/kpack/run_ref.py" "$KPACK_SRC/python" \
	rocm_kpack.tools.split_artifacts --artifact-dir $A --artifact-prefix rocblas_lib \
	--output-dir theirs --tmp-dir "$PWD/tmp" --split-databases rocblas \
	--clang-offload-bundler /usr/lib/llvm-22/bin/clang-offload-bundler >ref.log 2>&1
rrc=$?
t1=$(secs)
ref_time=$(took "$t0" "$t1")
echo "offload kpack split: ${ours_time}s, peak RSS $(cat rss) KB; rocm-kpack split_artifacts: ${ref_time}s"
echo "artifact                 files      bytes"
for d in ours/*; do
	printf '%-22s %7d %10d\n' "${d#ours/}" "$(find $d -type f | wc -l)" \
		"$(find $d -type f -printf '%s\n' | awk '{ s += $1 } END { print s }')"
done
testing "offload kpack split succeeds" "echo $rc" "0" "" 0
testing "split_artifacts succeeds" "echo $rrc" "0" "" 0
testing "the two output trees: identical, the rewritten host binary too (diff -r empty)" \
	"diff -r --no-dereference ours theirs" "" "" 0
testing "every GPU's database files moved: none left in the generic artifact" \
	"find ours/rocblas_lib_generic -name '*gfx*' | wc -l" "0" "" 0
rm -rf theirs tmp
# The host entry's ID is no archive's: join names it from the ELF machine
# (host-x86_64-unknown-linux-gnu-), where ROCm 5.5's clang wrote
# host-x86_64-unknown-linux--; every code object is the original's.
testing "kpack join of the generic artifact and every GPU's: the original code objects and files" \
	"offload kpack join -o joined ours/rocblas_lib_generic ours/rocblas_lib_gfx* &&
	 diff -r --no-dereference joined $A | sed 's|^Binary files joined/\\([^ ]*\\) and .* differ\$|\\1|';
	 f=stage/lib/librocblas.so.0.1 &&
	 offload extract -t 'amdgcn*' -o xa joined/\$f && offload extract -t 'amdgcn*' -o xb $A/\$f &&
	 diff -r xa xb && ls xa | wc -l" \
	"stage/lib/librocblas.so.0.1
650" "" 0
finish
