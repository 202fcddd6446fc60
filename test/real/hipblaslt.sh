#!/bin/sh
# hipblaslt.sh: offload du --keep and prune -r on Debian sid's hipBLASLt
# 7.1.1 (libhipblaslt1 7.1.1+dfsg-4: hipblaslt/library, 1,467 files, 690
# MB: 727 TensileLibrary_*.co, each a CCOB (zstd) of one GPU's code object
# and an empty host entry, 11 .hsaco code objects, 729 .dat indexes),
# pruned to gfx90a (issue 36).  Checks the decisions, counted exactly: du
# and prune -r -n say the same 643 files go; prune -r leaves every byte as
# it was (nothing to cut inside a file: each CCOB is kept or dropped
# whole); --remove-files leaves the 95 gfx90a code files and the indexes,
# each the same bytes.  A CCOB is decided by its bundle header, never
# inflated here: peak RSS under 64 MB.  Prints wall and CPU seconds and
# peak RSS of cp -a of the tree (the floor for prune -r: issue 36 asks
# 1.5x), du --keep (the floor for -n: 2x), prune -r -n, prune -r and
# --remove-files, with the tree's pages in the page cache and out of it.
#
# Opt-in (make check-real): it needs the package, which it does not
# download.  Fetch it once, with a private apt configuration, into
#   $DEBS (default /var/cache/offload-test/debs):
#     echo 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian sid main' > L
#     A="-o Dir::Etc::sourcelist=$PWD/L -o Dir::Etc::sourceparts=/dev/null -o Dir::State::Lists=$PWD/lists -o Dir::Cache=$PWD/cache -o Dir::State::status=/dev/null"
#     mkdir -p lists/partial cache/archives/partial
#     apt-get $A update && cd $DEBS && apt-get $A download libhipblaslt1=7.1.1+dfsg-4
# (once sid has moved on: snapshot.debian.org, pool/main/h/hipblaslt).  The
# counts are this version's.  Without it, it says SKIP and succeeds.
# Never installed, never committed.
. "$(dirname "$0")/../lib.sh"
# lib.sh took test/ for the top: one level further up.
TOP=$(cd "$TOP/.." && pwd)
BIN=$TOP/build/bin PATH=$TOP/build/bin:$PATH
export TOP PATH
DEBS=${DEBS:-/var/cache/offload-test/debs}
DEB=$DEBS/libhipblaslt1_7.1.1+dfsg-4_amd64.deb
if [ ! -f "$DEB" ] || [ ! -x /usr/bin/time ]; then
	echo "SKIP: no $DEB (see test/real/hipblaslt.sh), or no GNU time"
	finish
	exit
fi
scratch
dpkg -x "$DEB" pkg || exit 1
LIB=pkg/usr/lib/x86_64-linux-gnu/hipblaslt/library

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
# measure NAME CMD...: its stdout in NAME.out, "wall cpu rss_kb" in NAME.t
# (GNU time: the workers prune -r forks count, a shell's or Python's own
# memory does not).
measure() {
	m_name=$1
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$m_name.t.raw" "$@" > "$m_name.out"
	m_rc=$?
	tail -n 1 "$m_name.t.raw" | awk '{ print $1, $2 + $3, $4 }' > "$m_name.t"
	return $m_rc
}
say() { awk -v n="$1" '{ printf "%s %.2fs wall %.2fs cpu %.1f MB\n", n, $1, $2, $3 / 1024 }' "$1.t"; }
ratio() { awk -v w="$1" 'NR == FNR { a = $1; next } { printf "%s %.2fx\n", w, $1 ? a / $1 : 0 }' "$2.t" "$3.t"; }

evict "$LIB"
measure cp_cold cp -a "$LIB" cold
rm -rf cold
measure cp cp -a "$LIB" tree
measure du offload du -q --keep gfx90a tree
measure dry offload prune -r -q -n --keep gfx90a tree
evict tree
measure prune_cold offload prune -r -q --keep gfx90a tree
measure prune offload prune -r -q --keep gfx90a tree
cp -a tree tree2
measure remove offload prune -r -q --keep gfx90a --remove-files tree2
for n in cp_cold cp du dry prune_cold prune remove; do say $n; done
ratio "prune -r over cp -a, hot:" prune cp
ratio "prune -r over cp -a, cold:" prune_cold cp_cold
ratio "prune -r -n over du --keep:" dry du

testing "du --keep gfx90a: 643 files would go" "tail -n 1 du.out" \
	"prune would drop 643 entries, 215373502 bytes stored (31.2% of the total), 4254543688 of code; 643 files would be left with no device code (--remove-files removes them)" "" 0
testing "prune -r -n says the same" "tail -n 1 dry.out; grep -c 'only code for GPUs dropped' dry.out" \
	"prune: 1467 files: 0 would be pruned, 0 would be removed, 643 left with code of dropped GPUs alone, 824 with nothing to drop, 0 failed; 689598438 -> 689598438 bytes
643" "" 0
testing "prune -r: each CCOB kept or left whole, nothing written" \
	"cat prune.out; diff -r $LIB tree && echo same" \
	"prune: 1467 files: 0 pruned, 0 removed, 643 left with code of dropped GPUs alone, 824 with nothing to drop, 0 failed; 689598438 -> 689598438 bytes
same" "" 0
testing "prune -r --remove-files: the 643 go" "cat remove.out" \
	"prune: 1467 files: 0 pruned, 643 removed, 0 left with code of dropped GPUs alone, 824 with nothing to drop, 0 failed; 689598438 -> 473923451 bytes" "" 0
testing "du of what is left: gfx90a alone, the indexes" \
	"offload du -q tree2 | sed 's/  */ /g'" \
	" stored code entries files target
 45071963 723861488 95 95 gfx90a
 0 0 93 93 host
 428851488 - - 729 no device code
 473923451 - - 824 total" "" 0
testing "each file left the same bytes" \
	"for f in tree2/*; do cmp \$f $LIB/\${f##*/} || echo \$f differs; done" "" "" 0
testing "no CCOB inflated: every run under 64 MB" \
	"for n in du dry prune_cold prune remove; do awk -v n=\$n '\$3 >= 65536 { print n, \$3, \"KB\" }' \$n.t; done" "" "" 0
finish
