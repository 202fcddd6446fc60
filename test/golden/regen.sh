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

# Compressed bundles written by LLVM 22, for test/ccob.test: the same
# uncompressed bundle at several levels and both versions it writes.
mkdir -p "$here/golden/ccob"
cd "$here/golden/ccob"
printf 'HOSTDATA\n' > host.txt
python3 -c "import random;r=random.Random(7);w=[bytes(r.randrange(256) for _ in range(r.randint(4,90))) for _ in range(300)];open('dev.bin','wb').write(b''.join(r.choice(w) for _ in range(6000)))"
B="$llvm/clang-offload-bundler"
T=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a
"$B" -type=bc -targets=$T -input=host.txt -input=dev.bin -output=bundle.bc
for l in 1 3 9 19; do
	"$B" -type=bc -targets=$T -input=host.txt -input=dev.bin -output=bundle-v3-$l.ccob -compress -compression-level=$l
done
COMPRESSED_BUNDLE_FORMAT_VERSION=2 "$B" -type=bc -targets=$T -input=host.txt -input=dev.bin -output=bundle-v2-3.ccob -compress
rm -f host.txt dev.bin
echo "regen: wrote $here/golden/ccob/"
