#!/bin/sh
# fetch.sh VERSION: make (once) and print the directory holding LLVM
# VERSION's own lit tests of the three tools we replace (the bundler's
# clang/test/Driver/clang-offload-bundler* and, from 23 on,
# clang/test/OffloadTools/clang-offload-bundler/, the packager's
# clang/test/Driver/offload-packager*, llvm/test/tools/llvm-offload-binary/,
# and the inputs they read),
# taken from Debian's source package of that LLVM (llvm-toolchain-22,
# llvm-toolchain-23, llvm-toolchain-snapshot for 24) on this machine's own
# mirror, read with a private apt configuration as test/nvroot.sh does.
# Only those files are unpacked, into $OFFLOAD_TEST_CACHE (default
# /var/cache/offload-test) as lit-llvmVERSION; never committed.
#   fetch.sh --path VERSION   print where it would be, make nothing
# The source whose upstream version is the reference's (the llvm-VERSION
# package of the host for 22, of test/refroot.sh's root for 23 and 24) is
# taken when the mirror has its tarball, else the newest that it has, and
# the file SOURCE in the directory says which it was.  A directory made by
# hand (the tests of a snapshot the mirror lacks: LLVM 24's, whose files
# and commits test/lit/llvm24.files lists) is used as it is.
set -eu
path_only=
if [ "${1:-}" = --path ]; then
	path_only=1
	shift
fi
v=${1:?usage: fetch.sh [--path] VERSION}
top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${OFFLOAD_TEST_CACHE:-/var/cache/offload-test}
dir=$cache/lit-llvm$v
if [ -n "$path_only" ] || [ -f "$dir/SOURCE" ]; then
	echo "$dir"
	exit 0
fi
case $v in
22|23) pkg=llvm-toolchain-$v suites=sid ;;
24) pkg=llvm-toolchain-snapshot suites="experimental" ;;
*) echo "fetch.sh: no LLVM $v here (22, 23 or 24)" >&2; exit 1 ;;
esac
# The reference's upstream version: 1:23.1.4-2 -> 23.1.4.
case $v in
22) ref=$(dpkg-query -W -f '${Version}' "llvm-$v" 2>/dev/null || :) ;;
*) ref=$(chroot "$(sh "$top/test/refroot.sh" --path "$v")" dpkg-query -W -f '${Version}' "llvm-$v" 2>/dev/null || :) ;;
esac
ref=${ref#*:}
ref=${ref%-*}

mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
	/etc/apt/sources.list.d/*.sources 2>/dev/null |
	awk '/^deb[ \t]/ && $2 ~ /\/debian\/?$/ { print $2; exit }
	     /^URIs:/ && $2 ~ /\/debian\/?$/ { print $2; exit }')
[ -n "$mirror" ] || { echo "fetch.sh: no Debian mirror in the apt sources" >&2; exit 1; }
mirror=${mirror%/}

work=$dir.tmp
rm -rf "$work"
mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial" "$work/tests"
for s in $suites; do
	echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $s main"
done >"$work/apt/sources.list"
set -- -o Dir::Etc::sourcelist="$work/apt/sources.list" -o Dir::Etc::sourceparts=/dev/null \
	-o Dir::State::Lists="$work/apt/lists" -o Dir::Cache="$work/apt/cache" \
	-o Dir::State::status=/dev/null \
	-o Acquire::Check-Valid-Until=false -o APT::Sandbox::User=root -q
apt-get "$@" update >&2
# Each source of the package as "UPSTREAM SHA256 POOL-PATH" of its
# .orig.tar.xz, the reference's upstream version first, then newest first.
apt-cache "$@" showsrc "$pkg" |
	awk -v want="$v" '
	/^Package: / { p = $2 }
	/^Version: / { ver = $2; sub(/^[0-9]+:/, "", ver); sub(/-[^-]*$/, "", ver) }
	/^Directory: / { d = $2 }
	/^Checksums-Sha256:/ { c = 1; next }
	/^[^ ]/ { c = 0 }
	c && $3 ~ /\.orig\.tar\.xz$/ { sum = $1; file = $3 }
	/^$/ { if (file != "" && index(ver, want) == 1) print ver, sum, d "/" file; file = "" }
	END { if (file != "" && index(ver, want) == 1) print ver, sum, d "/" file }' |
	sort -u | sort -k1,1Vr >"$work/candidates"
{ grep "^$ref " "$work/candidates" || :; grep -v "^$ref " "$work/candidates" || :; } >"$work/order"
got=
while read -r up sum path; do
	echo "fetch.sh: trying $pkg $up" >&2
	if /usr/lib/apt/apt-helper "$@" download-file "$mirror/$path" "$work/orig.tar.xz" \
		"SHA256:$sum" >&2; then
		got=$up
		break
	fi
done <"$work/order"
if [ -z "$got" ]; then
	echo "fetch.sh: the mirror has no source tarball of $pkg $v (tried: $(awk '{ printf "%s ", $1 }' "$work/order"))" >&2
	rm -rf "$work"
	exit 1
fi
# One pass over the tarball (about 30 s: xz), only the tests' files.
tar -xJf "$work/orig.tar.xz" -C "$work/tests" --strip-components=1 --wildcards \
	'*/clang/test/Driver/clang-offload-bundler*' \
	'*/clang/test/Driver/offload-packager*' \
	'*/clang/test/Driver/Inputs/clang-offload-bundler*' \
	'*/clang/test/OffloadTools/clang-offload-bundler/*' \
	'*/clang/test/OffloadTools/clang-offload-packager/*' \
	'*/llvm/test/tools/llvm-offload-binary/*' 2>"$work/tar.err" || {
	# Members a release lacks are not an error; anything else is.
	if grep -v 'Not found in archive\|Exiting with failure status' "$work/tar.err" >&2; then
		exit 1
	fi
}
if [ "$got" = "$ref" ]; then
	echo "$pkg $got (the reference's own)" >"$work/tests/SOURCE"
else
	echo "$pkg $got (the reference is $ref, whose tarball the mirror lacks)" >"$work/tests/SOURCE"
fi
rm -rf "$dir"
mv "$work/tests" "$dir"
rm -rf "$work"
echo "$dir"
