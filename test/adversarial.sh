#!/bin/bash
# adversarial.sh: the adversarial pass of issue 19 (see test/ADVERSARIAL),
# repeatable: every applet against devices, FIFOs, full disks and outputs,
# long and deep paths, signals mid-write and inputs shrinking while read.
# Each line: the exit status, the case, the start of stderr; "<<<<<" marks
# a hang (124), a crash (a signal) or a success on a full standard output.
# Not part of make check (it takes a minute or two): sh test/adversarial.sh
TOP=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/adversarial.XXXXXX") && cd "$W" || exit 1
B=$TOP/build/bin
export PATH=$B:$PATH
F=$TOP/test/files
export OFFLOAD_STREAM_MAX=${OFFLOAD_STREAM_MAX:-67108864}
HIP=hip-amdgcn-amd-amdhsa--gfx90a HOST=host-x86_64-unknown-linux-gnu-
printf 'HOSTDATA\n' > h; printf 'device\n' > d
clang-offload-bundler -type=bc -targets=$HOST,$HIP -input=h -input=d -output=b.bc
offload ccob -o b.ccob b.bc 2>/dev/null
llvm-offload-binary -o p.bin --image=file=d,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip
ar rc lib.a b.bc	# an archive of one bundle, for unpack-archive
run() { name=$1; shift; timeout 15 "$@" >out.txt 2>err.txt; rc=$?; flag=; [ $rc -ge 124 ] && [ $rc != 141 ] && flag=" <<<<<"; echo "rc=$rc $name$flag :: $(head -c 200 err.txt | tr '\n' '|')"; }
echo "--- inputs from devices"
for dev in /dev/zero /dev/null /dev/urandom /dev/full; do
  run "bundler list $dev" clang-offload-bundler -type=bc -list -input=$dev
  run "bundler unbundle $dev" clang-offload-bundler -type=bc -unbundle -input=$dev -targets=$HIP -output=o
  run "ls $dev" offload ls $dev
  run "extract $dev" offload extract -o ex $dev
  run "ccob -l $dev" offload ccob -l $dev
  run "ccob -d $dev" offload ccob -d -o o $dev
  run "ccob -c $dev" offload ccob -o o $dev
  run "packager $dev" llvm-offload-binary $dev --image=kind=hip
  run "packager pack $dev" llvm-offload-binary -o o --image=file=$dev,triple=x
  run "unpack-archive $dev" offload unpack-archive -o ua $dev
  run "prune $dev" offload prune -k gfx90a -o o $dev
done
echo "--- outputs to /dev/full"
run "bundler -> /dev/full" clang-offload-bundler -type=bc -targets=$HOST,$HIP -input=h -input=d -output=/dev/full
run "bundler -compress -> /dev/full" clang-offload-bundler -compress -type=bc -targets=$HOST,$HIP -input=h -input=d -output=/dev/full
run "unbundle -> /dev/full" clang-offload-bundler -type=bc -unbundle -input=b.bc -targets=$HIP -output=/dev/full
run "ccob -> /dev/full" offload ccob -o /dev/full b.bc
run "ccob -d -> /dev/full" offload ccob -d -o /dev/full b.ccob
run "packager -> /dev/full" llvm-offload-binary -o /dev/full --image=file=d,triple=x
run "packager extract -> /dev/full" llvm-offload-binary p.bin --image=file=/dev/full
run "prune -> /dev/full" offload prune -k gfx90a -o /dev/full b.bc
echo "--- stdout to /dev/full"
for c in "offload ls b.bc" "offload ls --format=json b.bc" "offload ls --format=roc-obj b.bc" "offload ccob -l b.ccob" "offload --help" "offload --version" "offload" "offload --list" "clang-offload-bundler --help" "clang-offload-bundler --version" "clang-offload-bundler -type=bc -list -input=b.bc" "llvm-offload-binary --help" "llvm-offload-binary --version" "offload extract --help" "offload prune -n -k gfx90a b.bc" "offload unpack-archive -l lib.a" "offload unpack-archive -v -o uv lib.a" "offload ccob -d -o - b.ccob" "clang-offload-bundler -type=bc -unbundle -input=b.bc -targets=$HIP -output=-" "offload extract -o - b.bc"; do
  timeout 15 $c > /dev/full 2>err.txt; rc=$?; flag=; [ $rc = 0 ] && flag=" <<<<< exit 0 on full stdout"; [ $rc -ge 124 ] && flag=" <<<<<"; echo "rc=$rc stdout-full: $c$flag :: $(head -c 150 err.txt | tr '\n' '|')"
done
echo "--- FIFOs"
mkfifo ff
( sleep 0.5; timeout 5 sh -c "head -c 100 /dev/zero > ff" ) & run "ls fifo short" offload ls ff; wait
( sleep 0.5; timeout 5 sh -c "cat b.bc > ff" ) & run "bundler list fifo" clang-offload-bundler -type=bc -list -input=ff; wait
( sleep 0.5; timeout 5 sh -c "cat b.bc > ff" ) & run "extract fifo" offload extract -o exf ff; wait
( sleep 0.5; timeout 5 sh -c "cat d > ff" ) & run "bundler input fifo" clang-offload-bundler -type=bc -targets=$HOST,$HIP -input=h -input=ff -output=of.bc; wait
( sleep 0.5; timeout 5 sh -c "cat ff > /dev/null" ) & run "bundler output fifo" clang-offload-bundler -type=bc -targets=$HOST,$HIP -input=h -input=d -output=ff; wait
echo "--- long paths"
long=$(printf 'A%.0s' $(seq 1 5000))
run "ls long name" offload ls $long
run "bundler long output" clang-offload-bundler -type=bc -targets=$HOST,$HIP -input=h -input=d -output=$long
run "extract -o long" offload extract -o $long b.bc
deep=$(printf 'dd/%.0s' $(seq 1 1100))	# 3300 bytes, inside PATH_MAX
mkdir -p $deep 2>/dev/null; echo "mkdir deep: $?"
run "bundler output deep" clang-offload-bundler -type=bc -targets=$HOST,$HIP -input=h -input=d -output=${deep}out.bc
run "extract -o deep" offload extract -o ${deep}exd b.bc
run "unpack-archive -o deep" offload unpack-archive -o ${deep}uad lib.a
run "ccob -o deep" offload ccob -o ${deep}o.ccob b.bc
run "packager -o deep" llvm-offload-binary -o ${deep}o.bin --image=file=d,triple=x
run "ls deep input" offload ls ${deep}out.bc
deeper=$(printf 'dd/%.0s' $(seq 1 2000))	# 6000 bytes, past PATH_MAX
for c in "clang-offload-bundler -type=bc -targets=$HOST,$HIP -input=h -input=d -output=${deeper}o" "offload extract -o ${deeper}x b.bc" "offload unpack-archive -o ${deeper}x b.bc" "offload ccob -o ${deeper}o b.bc" "llvm-offload-binary -o ${deeper}o --image=file=d,triple=x" "offload ls ${deeper}o" "offload prune -k gfx90a -o ${deeper}o b.bc"; do
  timeout 15 $c >/dev/null 2>err.txt; rc=$?; echo "rc=$rc past PATH_MAX: ${c%% *} ... :: $(wc -c < err.txt) bytes, ends: $(tail -c 40 err.txt)"
done
echo "--- names from inside files: '/', '..', control bytes"
python3 - <<'PY'
import struct
ids = [b"hip-amdgcn-amd-amdhsa--gfx90a\x1b[31mRED\nfake line",
       b"hip-x/../../../etc/evil-y-gfx90a", b"..", b"/abs/path", b""]
data = b"DEV\n"
hdr = b"__CLANG_OFFLOAD_BUNDLE__" + struct.pack("<Q", len(ids))
off = len(hdr) + sum(24 + len(i) for i in ids)
ents = b"".join(struct.pack("<QQQ", off, len(data), len(i)) + i for i in ids)
open("evil.bc", "wb").write(hdr + ents + data)
PY
mkdir -p nx/in/evil-x; run "extract hostile IDs" offload extract -o nx/in evil.bc; echo "   wrote: $(ls nx/in | tr '\n' ' ')"
llvm-offload-binary -o evil.bin --image=file=d,triple=x/../../escaped,arch=a,kind=hip
(cd nx/in && run "llvm-offload-binary '..' in a triple" llvm-offload-binary ../../evil.bin --image=kind=hip); echo "   escaped: $(ls nx | grep -c escaped)"
run "ls --format=roc-obj hostile IDs" offload ls --format=roc-obj evil.bc; echo "   lines: $(wc -l < out.txt)"
echo "--- signals mid-write (no temporary may be left)"
truncate -s 300M big3; clang-offload-bundler -type=bc -targets=$HOST,$HIP -input=h -input=big3 -output=big.bc
llvm-offload-binary -o big.bin --image=file=big3,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip
for sig in TERM INT HUP QUIT USR1 USR2 ALRM XCPU VTALRM PROF; do
  for c in "offload extract -o sx big.bc" "llvm-offload-binary big.bin --image=kind=hip" "offload prune -k gfx90a -o sp.bc big.bc" "clang-offload-bundler -type=bc -unbundle -input=big.bc -targets=$HIP -output=su" "offload ccob -o s.ccob big3"; do
    env --default-signal $c >/dev/null 2>&1 & pid=$!; sleep 0.3; kill -$sig $pid 2>/dev/null; wait $pid 2>/dev/null; rc=$?
    echo "rc=$rc SIG$sig ${c%% *}: left $(find . -name '.*' -type f | wc -l)"; find . -name '.*' -type f -delete; rm -rf sx sp.bc su s.ccob big-amdgcn*
  done
done
echo "--- inputs shrinking while read"
head -c 100M /dev/urandom > rnd
for c in "llvm-offload-binary sh.bin --image=kind=hip" "offload prune -k gfx90a -o pr.bc sh.bc" "offload extract -o ex sh.bc" "clang-offload-bundler -type=bc -unbundle -input=sh.bc -targets=$HIP -output=ub" "offload ls --verify sh.bc"; do
  rm -f sh.bc sh.bin; clang-offload-bundler -type=bc -targets=$HOST,$HIP -input=h -input=rnd -output=sh.bc
  llvm-offload-binary -o sh.bin --image=file=rnd,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip
  f=$(echo $c | grep -o 'sh\.b[a-z]*' | head -1)
  $c >/dev/null 2>err.txt & pid=$!; sleep 0.1; truncate -s 100000 $f; wait $pid; rc=$?
  echo "rc=$rc shrinking: ${c%% *} :: $(head -c 150 err.txt | tr '\n' '|')"; rm -rf ex pr.bc ub sh-amdgcn*
done
echo "--- ulimit -f"
head -c 3000000 /dev/urandom > big
for c in "clang-offload-bundler -type=bc -targets=$HOST,$HIP -input=h -input=big -output=uf.bc" "offload ccob -o uf.ccob big" "llvm-offload-binary -o uf.bin --image=file=big,triple=x" "offload extract -o ufx b.bc"; do
  (ulimit -f 100; timeout 15 $c >/dev/null 2>err.txt); rc=$?; echo "rc=$rc ulimit: $c :: $(head -c 150 err.txt | tr '\n' '|') left: $(ls -A | grep '^\.' | tr '\n' ' ')"
done
echo "--- leftovers"; ls -A | grep '^\.' ; find . -name '.*.??????' | head
cd / && rm -rf "$W"
