#!/bin/sh
# agrees.sh FILE: print "name kind " for each offload section elfscan_test
# reports in FILE, but only if readelf gives every one the same index,
# name, offset and size.
scan=$(dirname "$0")/../../build/test/elfscan_test
tmp=$(mktemp -d "${TMPDIR:-/tmp}/agrees.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
"$scan" "$1" | cut -d' ' -f1,2,4,5 > "$tmp/scan" || exit 1
readelf -S -W "$1" |
	sed -n 's/^ *\[ *\([0-9]*\)\] \([^ ]*\) *[^ ]* *[0-9a-f]* \([0-9a-f]*\) \([0-9a-f]*\) .*/\1 \2 \3 \4/p' |
	grep -F -x -f "$tmp/scan" > "$tmp/readelf"
cmp "$tmp/scan" "$tmp/readelf" >&2 || exit 1
"$scan" "$1" | cut -d' ' -f2,3 | tr '\n' ' '
