#!/bin/sh
# Regenerate the goldens of object.test's "two SHT_SYMTAB_SHNDX tables"
# cases: test/objects/fixtures/clang-x86_64-linux-gnu.o with tables added
# by test/objects/shndx.py, bundled (and a bundle unbundled) by LLVM 22's
# clang-offload-bundler, whose llvm-objcopy keeps every table but the
# last (the symbol table's), emptied.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
B=${LLVM_BIN:-/usr/lib/llvm-22/bin}/clang-offload-bundler
F=$top/test/objects/fixtures/clang-x86_64-linux-gnu.o
S=$top/test/objects/shndx.py
T=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a
cd "$here"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'device code\n' > "$tmp/dev"
python3 "$S" "$F" "$tmp/two.o" .symtab_shndx:4:4:0 .symtab_shndx:4:4:0
python3 "$S" "$F" "$tmp/three.o" .a:8:0:2 .symtab_shndx:4:4:0 .b:1:4:0
for n in two three; do
	"$B" -type=o -targets=$T -input="$tmp/$n.o" -input="$tmp/dev" -output=$n.o
done
"$B" -type=o -targets=$T -input="$F" -input="$tmp/dev" -output="$tmp/b.o"
python3 "$S" "$tmp/b.o" "$tmp/b3.o" .a:8:0:2 .symtab_shndx:4:4:0 .b:1:4:0
"$B" -type=o -targets=host-x86_64-unknown-linux-gnu -input="$tmp/b3.o" \
	-output=three-host.o -unbundle
# object.test's damaged-input corpus has one too (dev is its device file).
printf 'dev' > "$tmp/dev1"
"$B" -type=o -targets=$T -input="$top/test/files/bad/elf-two-shndx.o" \
	-input="$tmp/dev1" -output=elf-two-shndx.o
echo "regen: wrote $here"
