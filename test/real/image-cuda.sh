#!/bin/sh
# image-cuda.sh: offload du and prune of a real NVIDIA container image
# (issue 40): an OCI image of a Debian root (test/image/debimage.sh:
# mmdebstrap's sid minbase, one layer) with Debian sid contrib's
# libtorch-cuda-2.6 (libtorch_cuda.so.2.6.0, 1.18 GB, code for sm_50 to
# sm_90a and compute_90) unpacked in a second layer, pruned to sm_80.
# Checks: the Debian root's layer is the same blob; umoci unpack (every
# digest and diff_id) and skopeo (inspect, copy) take the result, and podman loads it with its new layers; du IMAGE's
# root is du of the unpacked root; in it, cuobjdump -lelf (CUDA 12.4,
# test/nvroot.sh) lists sm_80 ELF entries alone, as many as the library
# had, and every sm_80 code object is the same bytes.  Prints the sizes
# before and after, the time of prune against the floor (the changed
# layer decompressed and compressed again by gzip -6) and prune's peak
# resident memory.
#
# Opt-in (make check-real): it needs the package, which it does not
# download, fetched once with a private apt configuration as
# test/real/rocblas.sh says, into $DEBS (default
# /var/cache/offload-test/debs): apt-get download libtorch-cuda-2.6 (sid
# contrib); and mmdebstrap, umoci.  The image is made once, into
# /var/cache/offload-test/image-debian-cuda.  Without the package or umoci
# it says SKIP and succeeds; without CUDA 12.4's cuobjdump it skips that
# case alone.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../image/debimage.sh"
TOP=$(cd "$TOP/.." && pwd)
PATH=$TOP/build/bin:$PATH
export TOP PATH
DEBS=${DEBS:-/var/cache/offload-test/debs}
CACHE=${CACHE:-/var/cache/offload-test/image-debian-cuda}
DEB=$(ls "$DEBS"/libtorch-cuda-2.6_*_amd64.deb 2>/dev/null | tail -1)
if [ -z "$DEB" ] || ! command -v umoci >/dev/null 2>&1 ||
   { [ ! -f "$BASE" ] && ! command -v mmdebstrap >/dev/null 2>&1; }; then
	echo "SKIP: no $DEBS/libtorch-cuda-2.6_*_amd64.deb, or no umoci or mmdebstrap (see test/real/image-cuda.sh)"
	finish
	exit
fi
scratch
debimage "$CACHE" "$DEB" || { echo "cannot make the image"; exit 1; }
secs() { date +%s.%N; }
took() { echo "$2 $1" | awk '{ printf "%.1f", $1 - $2 }'; }
blobs() { du -b --apparent-size -c "$1"/blobs/sha256/* | tail -1 | cut -f1; }
layer="python3 $TOP/test/image/digest.py"
LIB=usr/lib/x86_64-linux-gnu/libtorch_cuda.so.2.6.0

offload du -q --keep sm_80 "oci:$CACHE:sid" | sed -n '/^root/,$p'
t0=$(secs)
/usr/bin/time -f %M -o rss offload prune -q --keep sm_80 "oci:$CACHE:sid" -o out > prune.txt
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

testing "prune --keep sm_80 succeeds" "exit $rc" "" "" 0
testing "the Debian root's layer is the same blob" \
	"cmp $CACHE/blobs/sha256/\$($layer $CACHE 0) out/blobs/sha256/\$($layer out 0) && echo same" "same" "" 0
testing "umoci unpacks it (every digest and diff_id checked)" \
	"umoci unpack --image out:sid b > /dev/null && echo ok" "ok" "" 0
testing "du IMAGE's root is du of the unpacked root" \
	"offload du -q out | sed -n '/^root/,\$p' | sed 1d > image.txt && offload du -q b/rootfs | diff - image.txt && grep -c sm_80 image.txt" "1" "" 0
testing "the library holds sm_80 and no other device code" \
	"offload du -q b/rootfs/$LIB | awk 'NR > 1 && \$2 != \"-\" { print \$5 }'" "sm_80
host" "" 0
CUOBJDUMP=$(nv_tool 12.4 cuobjdump)
if [ -n "$CUOBJDUMP" ]; then
	export CUOBJDUMP
	testing "cuobjdump -lelf lists sm_80 entries alone, as many as before" \
		"umoci unpack --image $CACHE:sid a > /dev/null && \"\$CUOBJDUMP\" -lelf a/rootfs/$LIB | grep -c '\\.sm_80\\.cubin\$' && \"\$CUOBJDUMP\" -lelf b/rootfs/$LIB | sed 's/.*\\.\\(sm_[0-9a-z]*\\)\\.cubin\$/\\1/' | sort | uniq -c | sed 's/^ *//'" \
		"341
341 sm_80" "" 0
else
	echo "SKIP: no CUDA 12.4 cuobjdump (sh test/nvroot.sh 12.4 makes it)"
	umoci unpack --image "$CACHE:sid" a > /dev/null
fi
testing "every sm_80 code object is the same bytes" \
	"offload extract -q -o xa -t sm_80 a/rootfs/$LIB && offload extract -q -o xb -t sm_80 b/rootfs/$LIB && ls xa | wc -l && diff -r xa xb && echo same" "341
same" "" 0
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
	diffs() { python3 -c "import json, sys; print(*json.load(open(sys.argv[1]))['rootfs']['diff_ids'], sep='\n')" "$1/blobs/sha256/$($layer "$1" c)"; }
	testing "podman loads it: the layers its config names, the second new" \
		"\$POD load -q -i out > /dev/null && \$POD image inspect localhost/out --format '{{range .RootFS.Layers}}{{println .}}{{end}}'" \
		"$(diffs out)" "" 0
	testing "... the second not the input's" \
		"[ '$(diffs "$CACHE" | sed -n 2p)' != '$(diffs out | sed -n 2p)' ] && echo new" "new" "" 0
fi
finish
