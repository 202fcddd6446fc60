#!/bin/sh
# image.sh: offload du and prune of a real container image (issue 40): an
# OCI image of two layers made by umoci from Debian sid's rocSPARSE 6.4
# (librocsparse1: librocsparse.so.1.0, 1.6 GB, ten GPUs), its documents in
# one layer and the library in the other, pruned to gfx90a.  Checks: the
# documents' layer is the same blob; umoci unpack (every digest and
# diff_id), skopeo and podman load take the result; du IMAGE's root is
# du of the unpacked root; the unpacked library holds gfx90a
# and host code alone, every gfx90a code object the same bytes as in the
# original.  Prints the sizes before and after, the time of prune against
# the floor (the changed layer decompressed and compressed again by gzip
# -6) and prune's peak resident memory.
#
# Opt-in (make check-real): it needs the package, which it does not
# download, fetched once as test/real/rocblas.sh says, into $DEBS
# (default /var/cache/offload-test/debs): apt-get download librocsparse1
# (from sid).  The image is made once, into
# /var/cache/offload-test/image-rocsparse.  Without the package it says
# SKIP and succeeds; without umoci too.
. "$(dirname "$0")/../lib.sh"
TOP=$(cd "$TOP/.." && pwd)
PATH=$TOP/build/bin:$PATH
export TOP PATH
DEBS=${DEBS:-/var/cache/offload-test/debs}
CACHE=${CACHE:-/var/cache/offload-test/image-rocsparse}
DEB=$(ls "$DEBS"/librocsparse1_*_amd64.deb 2>/dev/null | tail -1)
if [ -z "$DEB" ] || ! command -v umoci >/dev/null 2>&1; then
	echo "SKIP: no $DEBS/librocsparse1_*_amd64.deb or no umoci (see test/real/image.sh)"
	finish
	exit
fi
scratch
if [ ! -f "$CACHE/index.json" ]; then
	rm -rf "$CACHE" "$CACHE.new" && mkdir -p "$(dirname "$CACHE")" &&
	dpkg -x "$DEB" root &&
	umoci init --layout "$CACHE.new" && umoci new --image "$CACHE.new:sid" &&
	umoci insert --image "$CACHE.new:sid" root/usr/share /usr/share &&
	umoci insert --image "$CACHE.new:sid" root/usr/lib /usr/lib &&
	mv "$CACHE.new" "$CACHE" || { echo "cannot make the image"; exit 1; }
	rm -rf root
fi
secs() { date +%s.%N; }
took() { echo "$2 $1" | awk '{ printf "%.1f", $1 - $2 }'; }
blobs() { du -b --apparent-size -c "$1"/blobs/sha256/* | tail -1 | cut -f1; }
layer="python3 $TOP/test/image/digest.py"

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

testing "prune --keep gfx90a succeeds" "exit $rc" "" "" 0
testing "the documents' layer is the same blob" \
	"cmp $CACHE/blobs/sha256/\$($layer $CACHE 0) out/blobs/sha256/\$($layer out 0) && echo same" "same" "" 0
testing "umoci unpacks it (every digest and diff_id checked)" \
	"umoci unpack --image out:sid b > /dev/null && echo ok" "ok" "" 0
testing "the library holds gfx90a and host code alone" \
	"offload du -q b/rootfs/usr/lib | awk 'NR > 1 && \$2 != \"-\" { print \$5 }'" "gfx90a
host" "" 0
testing "every gfx90a code object is the same bytes" \
	"umoci unpack --image $CACHE:sid a > /dev/null && offload extract -q -o xa -t gfx90a a/rootfs/usr/lib/x86_64-linux-gnu/librocsparse.so.1.0 && offload extract -q -o xb -t gfx90a b/rootfs/usr/lib/x86_64-linux-gnu/librocsparse.so.1.0 && ls xa | wc -l && (cd xa && for f in *; do cmp \$f ../xb/\$f || echo \$f; done)" "142" "" 0
if command -v skopeo >/dev/null 2>&1; then
	testing "skopeo inspects it" \
		"skopeo inspect oci:out:sid | grep -c sha256:" "3" "" 0
fi
testing "du IMAGE's root is du of the unpacked root" \
	"offload du -q out | sed -n '/^root/,\$p' | sed 1d > image.txt && offload du -q b/rootfs | diff - image.txt && grep -c gfx90a image.txt" "1" "" 0
if command -v podman >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
	mkdir pt
	POD="podman --root $PWD/pr --runroot $PWD/prun --storage-driver vfs --cgroup-manager cgroupfs --events-backend file --tmpdir $PWD/pt"
	export POD
	diffs() { python3 -c "import json, sys; print(*json.load(open(sys.argv[1]))['rootfs']['diff_ids'], sep='\\n')" "$1/blobs/sha256/$($layer "$1" c)"; }
	testing "podman loads it: the layers its config names" \
		"\$POD load -q -i out > /dev/null && \$POD image inspect localhost/out --format '{{range .RootFS.Layers}}{{println .}}{{end}}'" \
		"$(diffs out)" "" 0
fi
finish
