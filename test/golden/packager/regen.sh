#!/bin/sh
# Regenerate the packager goldens from LLVM 22's llvm-offload-binary: the
# packages of inputs.sh's command lines, and the help texts.  Goldens are
# data: what LLVM 22 wrote for inputs we made.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
llvm=${LLVM_BIN:-/usr/lib/llvm-22/bin}
"$llvm/llvm-offload-binary" --version | grep -q 'version 22\.' || {
	echo "regen: $llvm/llvm-offload-binary is not LLVM 22" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
. "$here/inputs.sh"
golden_cases | while IFS='|' read -r name args; do
	# shellcheck disable=SC2086
	"$llvm/llvm-offload-binary" -o "$here/$name.bin" $args
done
for h in help help-hidden help-list help-list-hidden; do
	"$llvm/llvm-offload-binary" --$h > "$here/$h.txt"
done
"$llvm/clang-offload-packager" --help > "$here/help-packager.txt"
# Extraction from archives (archives.sh): what LLVM 22 writes and says.
. "$here/archives.sh"
archive_inputs "$llvm/llvm-offload-binary" "$here"
archive_cases | while IFS='|' read -r name cmd; do
	archive_record "$name" "$llvm/llvm-offload-binary" "$cmd" \
		> "$here/arch-$name.txt"
done
echo "regen: wrote $here"
