#!/bin/sh
# refroot.sh VERSION: make (once) and print the directory of a Debian root
# holding LLVM VERSION's tools, the reference of the tests for that LLVM
# where Debian 12 has none: 23 from sid, 24 from experimental (issue 25).
# The root is kept in $OFFLOAD_TEST_CACHE (default /var/cache/offload-test)
# as refroot-llvmVERSION and reused; .ci/run makes it, the tests only look.
#   refroot.sh --path VERSION   print where it would be, make nothing
# Run its tools with `chroot DIR /usr/lib/llvm-VERSION/bin/TOOL`.  The
# packages come from this machine's own Debian mirror, read from its apt
# sources: no host name is written here.  The mirror's Release files may be
# past their Valid-Until date, which is not checked.
set -eu
path_only=
if [ "${1:-}" = --path ]; then
	path_only=1
	shift
fi
v=${1:?usage: refroot.sh [--path] VERSION}
cache=${OFFLOAD_TEST_CACHE:-/var/cache/offload-test}
dir=$cache/refroot-llvm$v
if [ -n "$path_only" ]; then
	echo "$dir"
	exit 0
fi
# /proc in the root: our sanitized builds run there (the -23 suites), and
# ASan and LeakSanitizer read /proc/self; a mount does not outlive a
# reboot, so each call makes sure of it.
with_proc() {
	mountpoint -q "$1/proc" || mount -t proc proc "$1/proc" ||
		echo "refroot.sh: cannot mount /proc in $1: sanitized builds will not run there" >&2
}
if [ -x "$dir/usr/lib/llvm-$v/bin/clang" ]; then
	with_proc "$dir"
	# llvm-VERSION-tools (lit, FileCheck: make check-lit) came later
	# than the first roots: added to one made before it.
	if [ ! -x "$dir/usr/lib/llvm-$v/bin/FileCheck" ]; then
		chroot "$dir" apt-get -q update >&2 &&
			chroot "$dir" env DEBIAN_FRONTEND=noninteractive \
				apt-get install -y -q "llvm-$v-tools" >&2 ||
			echo "refroot.sh: cannot add llvm-$v-tools to $dir" >&2
	fi
	echo "$dir"
	exit 0
fi

# The first Debian mirror of the apt sources (one-line or deb822 form).
mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
	/etc/apt/sources.list.d/*.sources 2>/dev/null |
	awk '/^deb[ \t]/ && $2 ~ /\/debian\/?$/ { print $2; exit }
	     /^URIs:/ && $2 ~ /\/debian\/?$/ { print $2; exit }')
[ -n "$mirror" ] || { echo "refroot.sh: no Debian mirror in the apt sources" >&2; exit 1; }
command -v mmdebstrap >/dev/null ||
	{ echo "refroot.sh: mmdebstrap is not installed" >&2; exit 1; }

pkgs="clang-$v,clang-tools-$v,llvm-$v,llvm-$v-tools,lld-$v,libomp-$v-dev"
set -- --variant=apt --quiet --aptopt='Acquire::Check-Valid-Until "false"'
case $v in
23) sources="deb $mirror sid main" ;;
*)  # A snapshot in experimental: its packages from there, the rest sid's.
	sources="deb $mirror sid main
deb $mirror experimental main"
	set -- "$@" --aptopt='APT::Default-Release "experimental"' ;;
esac
mkdir -p "$cache"
rm -rf "$dir.tmp"
mmdebstrap "$@" --include="$pkgs" sid "$dir.tmp" "$sources" >&2
mv "$dir.tmp" "$dir"
with_proc "$dir"
echo "$dir"
