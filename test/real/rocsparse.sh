#!/bin/sh
# rocsparse.sh: offload prune --compress of Debian sid's rocSPARSE
# (librocsparse1 6.4.3-3: librocsparse.so.1.0, 1.67 GB, 142 bundles in
# .hip_fatbin, the largest 302 MB), issue 36.  Checks that the file written
# is the one offload wrote before the compressed bytes were spooled (its
# SHA-256, 426517520 bytes, 142 CCOBs of version 2 whose hashes match), the
# same on one thread and on two, in a peak RSS under 256 MB at -j2 (1.9 GB
# before).  Prints wall and CPU seconds and peak RSS of zstd -3 -T1 of the
# file (the floor issue 36 names: CPU within 1.1x, wall under it at -j2),
# zstd -3 --long=27 -T1 (the parameters of LLVM's CCOBs) and prune
# --compress at -j2 and -j1.
#
# Opt-in (make check-real): it needs the package, which it does not
# download.  Fetch it once, with a private apt configuration, into
#   $DEBS (default /var/cache/offload-test/debs), as test/real/hipblaslt.sh
#   says, with: apt-get $A download librocsparse1=6.4.3-3
# It is unpacked (dpkg -x) under $REAL (default
# /var/cache/offload-test/real/rocsparse), once, where make bench finds it.
# Without it, it says SKIP and succeeds.  Never installed, never committed.
. "$(dirname "$0")/../lib.sh"
TOP=$(cd "$TOP/.." && pwd)
BIN=$TOP/build/bin PATH=$TOP/build/bin:$PATH
export TOP PATH
DEBS=${DEBS:-/var/cache/offload-test/debs}
REAL=${REAL:-/var/cache/offload-test/real/rocsparse}
DEB=$DEBS/librocsparse1_6.4.3-3_amd64.deb
LIB=$REAL/pkg/usr/lib/x86_64-linux-gnu/librocsparse.so.1.0
if [ ! -f "$LIB" ] && [ -f "$DEB" ]; then
	mkdir -p "$REAL" && dpkg -x "$DEB" "$REAL/pkg" || exit 1
fi
if [ ! -f "$LIB" ] || [ ! -x /usr/bin/time ] || ! command -v zstd >/dev/null; then
	echo "SKIP: no $DEB (see test/real/rocsparse.sh), GNU time or zstd"
	finish
	exit
fi
scratch
measure() {
	m_name=$1
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$m_name.t.raw" "$@" > "$m_name.out"
	m_rc=$?
	tail -n 1 "$m_name.t.raw" | awk '{ print $1, $2 + $3, $4 }' > "$m_name.t"
	return $m_rc
}
say() { awk -v n="$1" '{ printf "%-22s %6.2fs wall %6.2fs cpu %7.1f MB\n", n, $1, $2, $3 / 1024 }' "$1.t"; }
ratio() { awk -v w="$1" 'NR == FNR { a = $1; c = $2; next } { printf "%s wall %.2fx, cpu %.2fx\n", w, $1 ? a / $1 : 0, $2 ? c / $2 : 0 }' "$2.t" "$3.t"; }

cat "$LIB" > /dev/null	# in the page cache, for all alike
measure zstd zstd -q -3 -T1 -f "$LIB" -o z.zst
rm -f z.zst
measure zlong zstd -q -3 --long=27 -T1 -f "$LIB" -o z.zst
rm -f z.zst
sync
measure j2 offload prune -q --compress -j2 "$LIB" -o out2
sync
measure j1 offload prune -q --compress -j1 "$LIB" -o out1
for n in zstd zlong j2 j1; do say $n; done
ratio "prune --compress -j2 over zstd -3 -T1:" j2 zstd
ratio "prune --compress -j1 over zstd -3 -T1:" j1 zstd
ratio "prune --compress -j2 over zstd -3 --long=27 -T1:" j2 zlong
ratio "prune --compress -j1 over zstd -3 --long=27 -T1:" j1 zlong

testing "the file written before the spool, byte for byte" \
	"cat j2.out; sha256sum < out2 | cut -c1-64; wc -c < out2" \
	"$LIB: dropped 0 of 1562 entries, 0 bytes of code; file 1669776336 -> 426517520 bytes, 260472 zeroed in place, 142 bundles compressed (CCOB version 2)
06e504a4cc8717cb05a4db2d93f108bc934d0eaf96a376973ddffd89ba60a7d9
426517520" "" 0
testing "one thread writes the same" "cmp out1 out2 && echo same" "same" "" 0
testing "142 CCOBs whose hashes match" \
	"offload ls --verify out2 | grep -c 'version 2, zstd, .* ok, '" "142" "" 0
testing "peak RSS under 256 MB at -j2 (1.9 GB before)" \
	"awk '\$3 >= 262144 { print \$3, \"KB\" }' j2.t j1.t" "" "" 0
finish
