#!/bin/sh
# Regenerate test/golden/bundler23.golden, golden-23's records: what LLVM
# 23's bundler printed and wrote for test/bundler.cases and
# test/bundler23.cases, run in LLVM 23's root (test/refroot.sh 23, as
# root: chroot).  make check compares ours with it; live-23 (make check)
# runs 23's own cases live and bundler-23 (make check-long) all of them.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
out=$here/golden/bundler23.golden
tmp=$out.tmp
trap 'rm -f "$tmp"' EXIT
{
	python3 "$here/cases.py" record --root 23 "$here/bundler.cases"
	echo
	python3 "$here/cases.py" record --root 23 "$here/bundler23.cases"
} > "$tmp"
mv "$tmp" "$out"
echo "regen: wrote $out"
