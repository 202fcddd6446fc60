#!/bin/sh
# Regenerate the golden records from LLVM 22's tools.  Goldens are data: what
# LLVM 22 printed and wrote for inputs our cases make.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
llvm=${LLVM_BIN:-/usr/lib/llvm-22/bin}
"$llvm/clang-offload-bundler" --version | grep -q 'version 22\.' || {
	echo "regen: $llvm/clang-offload-bundler is not LLVM 22" >&2; exit 1; }
python3 "$here/cases.py" record "$llvm" "$here/bundler.cases" > "$here/golden/bundler.golden"
echo "regen: wrote $here/golden/bundler.golden"
