#!/bin/sh
# rocblas.sh: offload du and prune -r on a whole install, Debian trixie's
# rocBLAS (librocblas0: a fat librocblas.so.0.1 and rocblas/2.47.0/library
# with one TensileLibrary_gfxNNN.co and Kernels.so-000-gfxNNN.hsaco per
# GPU, and the index TensileLibrary.dat), pruned to gfx90a with
# --remove-files.  Checks: no file of another GPU is left, every gfx90a
# file and the index are the same bytes, the library registers exactly its
# host and gfx90a code objects with the stand-in HIP runtime
# (test/prune/stubhip.c; loaded in the sid root of test/refroot.sh, whose
# glibc is new enough), and the tree takes at most 30% of its blocks.
# Prints the times of du, prune -r and cp -a of the tree, with its pages
# in the page cache and out of it.
#
# Opt-in (make check-real): it needs the package, which it does not
# download.  Fetch it once, with a private apt configuration, into
#   $DEBS (default /var/cache/offload-test/debs):
#     echo 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main' > L
#     A="-o Dir::Etc::sourcelist=$PWD/L -o Dir::Etc::sourceparts=/dev/null -o Dir::State::Lists=$PWD/lists -o Dir::Cache=$PWD/cache"
#     apt-get $A update && cd $DEBS && apt-get $A download librocblas0
# Without it, it says SKIP and succeeds.  Never installed, never committed.
. "$(dirname "$0")/../lib.sh"
# lib.sh took test/ for the top: one level further up.
TOP=$(cd "$TOP/.." && pwd) BIN=$TOP/../build/bin
BIN=$TOP/build/bin PATH=$TOP/build/bin:$PATH
export TOP PATH
DEBS=${DEBS:-/var/cache/offload-test/debs}
DEB=$(ls "$DEBS"/librocblas0_*_amd64.deb 2>/dev/null | tail -1)
if [ -z "$DEB" ]; then
	echo "SKIP: no $DEBS/librocblas0_*_amd64.deb (see test/real/rocblas.sh)"
	finish
	exit
fi
scratch
dpkg -x "$DEB" pkg || exit 1
L=usr/lib/x86_64-linux-gnu
LIB=rocblas/2.47.0/library
secs() { date +%s.%N; }
took() { echo "$2 $1" | awk '{ printf "%.2f", $1 - $2 }'; }

# Cold: the tree's pages out of the page cache first (its files alone,
# POSIX_FADV_DONTNEED), as on a first look at an install.
evict() {
	sync
	python3 -c 'import os, sys
for d, _, fs in os.walk(sys.argv[1]):
    for f in fs:
        p = os.path.join(d, f)
        if not os.path.islink(p):
            fd = os.open(p, os.O_RDONLY)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            os.close(fd)' "$1"
}
evict pkg
t0=$(secs); cp -a pkg/$L cold; t1=$(secs)
cp_cold=$(took "$t0" "$t1")
rm -rf cold
t0=$(secs); cp -a pkg/$L tree; t1=$(secs)
cp_time=$(took "$t0" "$t1")
t0=$(secs); offload du -q tree > du.txt; t1=$(secs)
du_time=$(took "$t0" "$t1")
evict tree
t0=$(secs); offload du -q tree > /dev/null; t1=$(secs)
du_cold=$(took "$t0" "$t1")
blocks_before=$(du -s --block-size=512 tree | cut -f1)
cp -a tree tree2
evict tree2
t0=$(secs); offload prune -r -q --keep gfx90a --remove-files tree2 > /dev/null; t1=$(secs)
prune_cold=$(took "$t0" "$t1")
rm -rf tree2
t0=$(secs); offload prune -r -q --keep gfx90a --remove-files tree > prune.txt; rc=$?; t1=$(secs)
prune_time=$(took "$t0" "$t1")
blocks_after=$(du -s --block-size=512 tree | cut -f1)
echo "cold: cp -a ${cp_cold}s, du ${du_cold}s, prune -r ${prune_cold}s;" \
	"hot: cp -a ${cp_time}s, du ${du_time}s, prune -r ${prune_time}s;" \
	"blocks $blocks_before -> $blocks_after"
cat du.txt prune.txt

testing "prune -r --keep gfx90a --remove-files succeeds" "exit $rc" "" "" 0
testing "du of the pruned tree: gfx90a alone" \
	"offload du -q tree | awk 'NR > 1 && \$5 != \"host\" && \$2 != \"-\" { print \$5 }'" \
	"gfx90a
gfx90a:xnack+
gfx90a:xnack-" "" 0
testing "the files left in the library directory" "ls tree/$LIB" \
	"Kernels.so-000-gfx90a-xnack+.hsaco
Kernels.so-000-gfx90a-xnack-.hsaco
TensileLibrary.dat
TensileLibrary_gfx90a.co" "" 0
testing "each of them the same bytes" \
	"for f in tree/$LIB/*; do cmp \$f pkg/$L/$LIB/\${f##*/} || echo \$f differs; done" "" "" 0
testing "librocblas.so.0 still points at librocblas.so.0.1" \
	"readlink tree/librocblas.so.0" "librocblas.so.0.1" "" 0
testing "the tree takes at most 30% of its blocks" \
	"test \$(($blocks_after * 100)) -le \$(($blocks_before * 30)) && echo yes" "yes" "" 0
testing "the library's gfx90a code objects are the same bytes" \
	"mkdir a b && offload extract -q -o a -t gfx90a pkg/$L/librocblas.so.0.1 && offload extract -q -o b -t gfx90a tree/librocblas.so.0.1 && ls a | wc -l && diff -r a b && echo same" \
	"$(offload ls pkg/$L/librocblas.so.0.1 | grep -c 'gfx90a')
same" "" 0

# The stand-in HIP runtime, loaded with the library in the sid root.
ROOT=$(sh "$TOP/test/refroot.sh" 23 2>/dev/null)
if [ -n "$ROOT" ] && [ -d "$ROOT/usr/lib" ] && [ "$(id -u)" = 0 ] &&
   pkg-config --exists libzstd; then
	J=$ROOT/tmp/offload-rocblas.$$
	mkdir -p "$J"
	# The library is linked -z now: every HIP function it calls must be
	# there, in its version node; those the stub has not abort.
	cc -c -fPIC -o stub.o "$TOP/test/prune/stubhip.c"
	nm --defined-only stub.o | awk '$2 == "T" { print $3 }' > have.txt
	readelf --dyn-syms -W pkg/$L/librocblas.so.0.1 |
		awk '$7 == "UND" && $8 ~ /@hip_/ { split($8, a, "@"); print a[1], a[2] }' > syms.txt
	{ echo '#include <stdlib.h>'; grep -v -w -F -f have.txt syms.txt |
		awk '{ print "void " $1 "(void) { abort(); }" }'; } > more.c
	prev=
	for v in $(awk '{ print $2 }' syms.txt | sort -u -V); do
		printf '%s { global: %s }%s;\n' $v "$(awk -v v=$v '$2 == v { printf "%s; ", $1 }' syms.txt)" "${prev:+ $prev}"
		prev=$v
	done > hip.map
	cc -shared -fPIC -O1 -o "$J/libamdhip64.so.5" "$TOP/test/prune/stubhip.c" more.c \
		-Wl,-soname,libamdhip64.so.5 -Wl,--version-script=hip.map $(pkg-config --libs libzstd)
	printf '#include <dlfcn.h>\n#include <stdio.h>\nint main(int c, char **v) { return !dlopen(v[1], RTLD_LAZY) ? (puts(dlerror()), 1) : 0; }\n' > dl.c
	cc -o "$J/dl" dl.c -ldl
	cp pkg/$L/librocblas.so.0.1 "$J/before.so"
	cp tree/librocblas.so.0.1 "$J/after.so"
	run() { chroot "$ROOT" env LD_LIBRARY_PATH=/tmp/${J##*/} /tmp/${J##*/}/dl /tmp/${J##*/}/$1; }
	run before.so > before.txt
	run after.so > after.txt
	grep -E '^  (bundle|ccob) .*(gfx90a|host)' before.txt | sort > want.txt
	echo "registered before: $(grep -cE '^  (bundle|ccob) ' before.txt) code objects; after: $(grep -cE '^  (bundle|ccob) ' after.txt)"
	testing "the library registers the same host and gfx90a code objects, and no other" \
		"grep -E '^  (bundle|ccob) ' after.txt | sort | diff want.txt - && wc -l < want.txt" \
		"$(wc -l < want.txt)" "" 0
	testing "and no code object of another GPU" \
		"grep -E '^  (bundle|ccob) ' after.txt | grep -v -E 'gfx90a|host'" "" "" 1
	rm -rf "$J"
else
	echo "SKIP: no sid root (sh test/refroot.sh 23), not root, or no libzstd: the library is not loaded"
fi
finish
