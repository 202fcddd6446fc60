# debimage.sh: sourced by test/real/image.sh and image-cuda.sh (issue 40's
# proof): an OCI image of a real Debian root with GPU libraries, made
# without a registry.  Its first layer is a Debian root made by
# mmdebstrap (--variant=minbase, sid, from deb.debian.org, cached once as
# $BASE); its second the given packages unpacked over it (dpkg -x: their
# dependencies on other GPU libraries are not installed, none is needed
# to read or load them against a stand-in runtime).  umoci adds each tar
# as a gzip layer.  debimage CACHE DEB... makes the image in CACHE (tag
# sid) unless it is there; 1 when it cannot.
BASE=${BASE:-/var/cache/offload-test/debian-sid-minbase.tar}

debimage() {
	cache=$1
	shift
	[ -f "$cache/index.json" ] && return 0
	if [ ! -f "$BASE" ]; then
		mode=unshare
		[ "$(id -u)" = 0 ] && mode=root
		mmdebstrap --variant=minbase --mode=$mode --format=tar \
			--aptopt='Acquire::Check-Valid-Until "false"' sid \
			"$BASE.new" http://deb.debian.org/debian > /dev/null &&
			mv "$BASE.new" "$BASE" || return 1
	fi
	rm -rf "$cache.new" debroot && mkdir debroot || return 1
	for deb in "$@"; do
		dpkg -x "$deb" debroot || return 1
	done
	tar --sort=name --owner=0 --group=0 --numeric-owner -C debroot \
		-cf gpu.tar . && rm -rf debroot &&
	umoci init --layout "$cache.new" && umoci new --image "$cache.new:sid" &&
	umoci raw add-layer --image "$cache.new:sid" "$BASE" &&
	umoci raw add-layer --image "$cache.new:sid" gpu.tar &&
	umoci gc --layout "$cache.new" && rm -f gpu.tar &&
	mv "$cache.new" "$cache"
}

# stubhip LIB SONAME DIR: the stand-in HIP runtime (test/prune/stubhip.c)
# as DIR/SONAME, with every HIP function LIB calls in its version node
# (the libraries are linked -z now: those the stub has not abort), and
# DIR/dl, which dlopens its argument: its constructors register their
# code objects with the stub, which prints them.
stubhip() {
	cc -c -fPIC -o stub.o "$TOP/test/prune/stubhip.c" &&
	nm --defined-only stub.o | awk '$2 == "T" { print $3 }' > have.txt &&
	readelf --dyn-syms -W "$1" |
		awk '$7 == "UND" && $8 ~ /@hip_/ { split($8, a, "@"); print a[1], a[2] }' > syms.txt &&
	{ echo '#include <stdlib.h>'; grep -v -w -F -f have.txt syms.txt |
		awk '{ print "void " $1 "(void) { abort(); }" }'; } > more.c || return 1
	prev=
	for v in $(awk '{ print $2 }' syms.txt | sort -u -V); do
		printf '%s { global: %s }%s;\n' $v "$(awk -v v=$v '$2 == v { printf "%s; ", $1 }' syms.txt)" "${prev:+ $prev}"
		prev=$v
	done > hip.map
	cc -shared -fPIC -O1 -o "$3/$2" "$TOP/test/prune/stubhip.c" more.c \
		-Wl,-soname,$2 -Wl,--version-script=hip.map $(pkg-config --libs libzstd) &&
	printf '#include <dlfcn.h>\n#include <stdio.h>\nint main(int c, char **v) { return !dlopen(v[1], RTLD_LAZY) ? (puts(dlerror()), 1) : 0; }\n' > dl.c &&
	cc -o "$3/dl" dl.c -ldl
}
