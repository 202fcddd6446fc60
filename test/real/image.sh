#!/bin/sh
# image.sh: offload du and prune of a real container image (issue 40): an
# OCI image of a Debian root (test/image/debimage.sh: mmdebstrap's sid
# minbase, one layer) with sid's rocSPARSE 6.4 (librocsparse1:
# librocsparse.so.1.0, 1.6 GB, ten GPUs) and trixie's rocBLAS 5.5
# (librocblas0: librocblas.so.0.1 and its Tensile code objects) unpacked
# in a second layer, pruned to gfx90a.  Checks: the base layer is the
# same blob; umoci unpack (every digest and diff_id), skopeo inspect and
# copy, podman load take the result; du IMAGE's root is du of the
# unpacked root; the libraries hold gfx90a and host code alone, every
# gfx90a code object the same bytes as in the original; loaded in the
# unpacked roots (chroot) against the stand-in HIP runtime, the pruned
# libraries register the original's host and gfx90a code objects and no
# other.  Prints the sizes before and after, the time of prune against
# the floor (the changed layer decompressed and compressed again by gzip
# -6) and prune's peak resident memory.
#
# Opt-in (make check-real): it needs the packages, which it does not
# download, fetched once as test/real/rocblas.sh says, into $DEBS
# (default /var/cache/offload-test/debs): apt-get download librocsparse1
# (from sid) librocblas0 (from trixie); and mmdebstrap, umoci.  The image
# is made once, into /var/cache/offload-test/image-debian-rocm.  Without
# them it says SKIP and succeeds.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../image/debimage.sh"
TOP=$(cd "$TOP/.." && pwd)
PATH=$TOP/build/bin:$PATH
export TOP PATH
DEBS=${DEBS:-/var/cache/offload-test/debs}
CACHE=${CACHE:-/var/cache/offload-test/image-debian-rocm}
SPARSE=$(ls "$DEBS"/librocsparse1_*_amd64.deb 2>/dev/null | tail -1)
BLAS=$(ls "$DEBS"/librocblas0_*_amd64.deb 2>/dev/null | tail -1)
if [ -z "$SPARSE" ] || [ -z "$BLAS" ] || ! command -v umoci >/dev/null 2>&1 ||
   { [ ! -f "$BASE" ] && ! command -v mmdebstrap >/dev/null 2>&1; }; then
	echo "SKIP: no librocsparse1 and librocblas0 in $DEBS, or no umoci or mmdebstrap (see test/real/image.sh)"
	finish
	exit
fi
scratch
debimage "$CACHE" "$SPARSE" "$BLAS" || { echo "cannot make the image"; exit 1; }
secs() { date +%s.%N; }
took() { echo "$2 $1" | awk '{ printf "%.1f", $1 - $2 }'; }
blobs() { du -b --apparent-size -c "$1"/blobs/sha256/* | tail -1 | cut -f1; }
layer="python3 $TOP/test/image/digest.py"
L=usr/lib/x86_64-linux-gnu

offload du -q --keep gfx90a "oci:$CACHE:sid" | sed -n '/^all/,$p'
t0=$(secs)
/usr/bin/time -f %M -o rss offload prune -q --keep gfx90a "oci:$CACHE:sid" -o out > prune.txt
rc=$?
t1=$(secs)
prune_time=$(took "$t0" "$t1")
L1=$($layer "$CACHE" 1)
t0=$(secs)
zcat "$CACHE/blobs/sha256/$L1" | gzip -6 > /dev/null
t1=$(secs)
floor=$(took "$t0" "$t1")
cat prune.txt
echo "image $(blobs "$CACHE") -> $(blobs out) bytes of blobs; prune ${prune_time}s," \
	"zcat | gzip -6 of the changed layer ${floor}s; peak RSS $(cat rss) KiB"
for f in librocsparse.so.1.0 librocblas.so.0.1; do
	umoci unpack --image "$CACHE:sid" a > /dev/null 2>&1 || true
	echo "$f: $(stat -c %s a/rootfs/$L/$f) bytes before"
done

testing "prune --keep gfx90a succeeds" "exit $rc" "" "" 0
testing "the Debian root's layer is the same blob" \
	"cmp $CACHE/blobs/sha256/\$($layer $CACHE 0) out/blobs/sha256/\$($layer out 0) && echo same" "same" "" 0
testing "umoci unpacks it (every digest and diff_id checked)" \
	"umoci unpack --image out:sid b > /dev/null && echo ok" "ok" "" 0
for f in librocsparse.so.1.0 librocblas.so.0.1; do
	echo "$f: $(stat -c %s b/rootfs/$L/$f) bytes after"
	testing "$f holds gfx90a and host code alone" \
		"offload du -q b/rootfs/$L/$f | awk 'NR > 1 && \$2 != \"-\" { print \$5 }'" "gfx90a
host" "" 0
	testing "$f: every gfx90a code object is the same bytes" \
		"offload extract -q -o xa.$f -t gfx90a a/rootfs/$L/$f && offload extract -q -o xb.$f -t gfx90a b/rootfs/$L/$f && ls xa.$f | wc -l > n && diff -r xa.$f xb.$f && test \$(cat n) -gt 0 && echo same" "same" "" 0
done
# gfx90a, gfx90a:xnack+ and gfx90a:xnack- (rocBLAS's Tensile files).
testing "du IMAGE's root is du of the unpacked root" \
	"offload du -q out | sed -n '/^root/,\$p' | sed 1d > image.txt && offload du -q b/rootfs | diff - image.txt && grep -c gfx90a image.txt" "3" "" 0
if command -v skopeo >/dev/null 2>&1; then
	testing "skopeo inspects it" \
		"skopeo inspect oci:out:sid | grep -c sha256:" "3" "" 0
	testing "skopeo copies it into a docker archive, which offload reads" \
		"skopeo copy -q oci:out:sid docker-archive:d.tar:pruned:1 && offload du -q docker-archive:d.tar | sed -n '/^root/,\$p' | sed 1d | diff image.txt - && echo same" "same" "" 0
fi
if command -v podman >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
	mkdir pt
	POD="podman --root $PWD/pr --runroot $PWD/prun --storage-driver vfs --cgroup-manager cgroupfs --events-backend file --tmpdir $PWD/pt"
	export POD
	diffs() { python3 -c "import json, sys; print(*json.load(open(sys.argv[1]))['rootfs']['diff_ids'], sep='\\n')" "$1/blobs/sha256/$($layer "$1" c)"; }
	testing "podman loads it: the layers its config names" \
		"\$POD load -q -i out > /dev/null && \$POD image inspect localhost/out --format '{{range .RootFS.Layers}}{{println .}}{{end}}'" \
		"$(diffs out)" "" 0
	$POD rmi -a -f > /dev/null 2>&1
fi
# The stand-in HIP runtime in each unpacked root (a Debian root: chroot),
# the library loaded from its place there.
if [ "$(id -u)" = 0 ] && pkg-config --exists libzstd; then
	for f in librocsparse.so.1.0:libamdhip64.so.6 librocblas.so.0.1:libamdhip64.so.5; do
		lib=${f%%:*}
		for r in a b; do
			mkdir -p $r/rootfs/tmp/hip &&
			stubhip $r/rootfs/$L/$lib ${f##*:} $r/rootfs/tmp/hip &&
			chroot $r/rootfs env LD_LIBRARY_PATH=/tmp/hip /tmp/hip/dl /$L/$lib > $r.$lib.txt
			rm -rf $r/rootfs/tmp/hip
		done
		grep -E '^  (bundle|ccob) .*(gfx90a|host)' a.$lib.txt | sort > want.txt
		echo "$lib registered before: $(grep -cE '^  (bundle|ccob) ' a.$lib.txt) code objects; after: $(grep -cE '^  (bundle|ccob) ' b.$lib.txt)"
		testing "$lib in the pruned root registers the same host and gfx90a code objects, and no other" \
			"grep -E '^  (bundle|ccob) ' b.$lib.txt | sort | diff want.txt - && test -s want.txt && echo same" "same" "" 0
	done
else
	echo "SKIP: not root, or no libzstd: the libraries are not loaded"
fi
finish
