#!/bin/sh
# real.sh [--fetch]: offload prune on two large libraries Debian ships,
# the sizes issue 28 asks for (opt-in: not run by make check; the files
# are hundreds of MB and never committed).
#   librocsparse0 (bookworm, ROCm 5.3, 1.3 GB) pruned to gfx90a: at most
#     30% of its bytes, .hip_fatbin one section; dlopen'ed against the stub
#     HIP runtime (test/prune/stubhip.c) it registers what it did before
#     but the dropped code objects;
#   libcurand10 (sid non-free, CUDA 12.4, 96.5 MB, linked for 2 MiB pages)
#     pruned to sm_80: at most 60%, .nv_fatbin one section, and cuobjdump
#     12.4 (nvidia-cuda-toolkit) lists what offload ls --format=cuobjdump
#     lists; with --compress (LZ4, as fatbinary -compress-all), cuobjdump
#     writes out the same code objects.
#   sid's comgr (the HIP runtime's decompressor) on CCOBs: see below.
#   librocsparse1 (sid, ROCm 6.4, 1.7 GB) with --compress: see below.
# The packages are looked for, as .debs or extracted, under $DEBS
# (default /var/cache/offload-test/debs); what is missing is skipped.
# --fetch downloads the missing ones there first (into $DEBS/real), with
# an apt configuration of its own (the machine's mirror, non-free added);
# nothing is installed.  Prints a line a check; exit 1 when one fails.
set -u
DEBS=${DEBS:-/var/cache/offload-test/debs}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OFFLOAD=${OFFLOAD:-$TOP/build/bin/offload}
fails=0

# The mirror the machine uses (the first URIs: line of its sources).
mirror() {
	sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources \
		2>/dev/null | head -n 1
}

fetch() {
	dir=$DEBS/real
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" || exit 1
	m=$(mirror)
	m=${m:-http://deb.debian.org/debian}
	k=/usr/share/keyrings/debian-archive-keyring.gpg
	for suite in bookworm sid; do
		printf 'deb [signed-by=%s] %s %s main non-free\n' "$k" "$m" \
			"$suite" > "$dir/$suite.list"
		set -- -o Dir::Etc::sourcelist="$dir/$suite.list" \
			-o Dir::Etc::sourceparts=/dev/null \
			-o Dir::State::Lists="$dir/lists/$suite" \
			-o Dir::Cache="$dir/cache"
		mkdir -p "$dir/lists/$suite/partial"
		apt-get "$@" -q update >/dev/null || exit 1
		if [ "$suite" = bookworm ]; then
			pkgs=librocsparse0
		else
			pkgs="libcurand10 nvidia-cuda-toolkit librocsparse1
			      libamd-comgr3 libamd-comgr-dev libllvm21"
		fi
		(cd "$dir" && apt-get "$@" -q download $pkgs >/dev/null) ||
			exit 1
	done
}

# find NAME: a regular file NAME under $DEBS, extracted from a .deb
# there (DEB: a glob) into the scratch directory when none is.
find_file() {
	f=$(find "$DEBS" -path "*/$1" -type f 2>/dev/null | head -n 1)
	if [ -z "$f" ]; then
		deb=$(find "$DEBS" -name "$2" -type f 2>/dev/null | head -n 1)
		[ -n "$deb" ] || return 1
		dpkg -x "$deb" "x.${2%%_*}" || return 1
		f=$(find "x.${2%%_*}" -path "*/$1" -type f | head -n 1)
	fi
	[ -n "$f" ] && echo "$f"
}

check() {	# check WHAT COND...
	what=$1
	shift
	if "$@"; then
		echo "ok: $what"
	else
		echo "FAILED: $what"
		fails=$((fails + 1))
	fi
}

# percent A B: A as a percentage of B, one decimal.
percent() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", 100 * a / b }'
}

[ "${1:-}" = --fetch ] && fetch
[ -x "$OFFLOAD" ] || { echo "no $OFFLOAD: make first"; exit 1; }
SCRATCH=$(mktemp -d) || exit 1
trap 'rm -rf "$SCRATCH"' EXIT
cd "$SCRATCH" || exit 1

if lib=$(find_file 'librocsparse.so.0.1' 'librocsparse0_*.deb'); then
	"$OFFLOAD" prune --keep gfx90a "$lib" -o rs.so || fails=$((fails + 1))
	a=$(stat -c %s "$lib") b=$(stat -c %s rs.so)
	echo "librocsparse0 to gfx90a: $a -> $b bytes ($(percent "$b" "$a")%)"
	check "librocsparse0: at most 30%" [ $((b * 100)) -le $((a * 30)) ]
	check "librocsparse0: one .hip_fatbin" \
		[ "$(readelf -SW rs.so | grep -c ' .hip_fatbin ')" = 1 ]
	if pkg-config --exists libzstd; then
		cc -shared -fPIC -O1 -o libamdhip64.so.5 \
			"$TOP/test/prune/stubhip.c" -Wl,-soname,libamdhip64.so.5 \
			$(pkg-config --libs libzstd) -lz
		printf '#include <dlfcn.h>\n#include <stdio.h>\nint main(int c, char **v) { return !dlopen(v[1], RTLD_LAZY) ? (puts(dlerror()), 1) : 0; }\n' > dl.c
		cc -o dl dl.c -ldl
		LD_LIBRARY_PATH=. ./dl "$lib" > before
		LD_LIBRARY_PATH=. ./dl ./rs.so > after
		grep -v -E 'amdhsa--gfx([^9]|9[^0]|90[^a])' before > want
		check "librocsparse0: registers the kept code objects, as before" \
			cmp -s want after
		echo "  $(grep -c '^register' after) fat binaries, $(grep -c 'bundle hipv4' after) code objects registered"
	fi
else
	echo "SKIP: librocsparse0 not under $DEBS (--fetch)"
fi

# sid's librocsparse1 (ROCm 6.4, libamdhip64.so.6, 1.7 GB): --compress
# (CCOBs of version 2), every target kept at most 40%, with --keep gfx90a
# at most 8%; loaded in the sid root (its glibc is newer than Debian
# 12's; test/refroot.sh 23) against the stub runtime, which inflates each
# CCOB, it registers the same code objects as before.
if lib=$(find_file 'librocsparse.so.1.0' 'librocsparse1_*.deb'); then
	a=$(stat -c %s "$lib")
	t0=$(date +%s.%N)
	"$OFFLOAD" prune --compress "$lib" -o rc.so || fails=$((fails + 1))
	t1=$(date +%s.%N)
	zstd -q -3 -f "$lib" -o whole.zst
	t2=$(date +%s.%N)
	"$OFFLOAD" prune --compress --keep gfx90a "$lib" -o rk.so ||
		fails=$((fails + 1))
	b=$(stat -c %s rc.so) c=$(stat -c %s rk.so)
	echo "librocsparse1 --compress: $a -> $b bytes ($(percent "$b" "$a")%), $(awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN { printf "%.1f s; zstd -3 of the file %.1f s", b - a, c - b }')"
	echo "librocsparse1 --compress --keep gfx90a: $a -> $c bytes ($(percent "$c" "$a")%)"
	check "librocsparse1 compressed: at most 40%" [ $((b * 100)) -le $((a * 40)) ]
	check "librocsparse1 compressed, gfx90a: at most 8%" \
		[ $((c * 100)) -le $((a * 8)) ]
	root=$(sh "$TOP/test/refroot.sh" 23 2>/dev/null)
	if [ -n "$root" ] && [ -d "$root" ] && pkg-config --exists libzstd; then
		d=$(mktemp -d "$root/tmp/real.XXXXXX")
		cc -shared -fPIC -O1 -o "$d/libamdhip64.so.6" \
			"$TOP/test/prune/stubhip.c" -Wl,-soname,libamdhip64.so.6 \
			$(pkg-config --libs libzstd) -lz
		printf '#include <dlfcn.h>\n#include <stdio.h>\nint main(int c, char **v) { return !dlopen(v[1], RTLD_LAZY) ? (puts(dlerror()), 1) : 0; }\n' > dl6.c
		cc -o "$d/dl" dl6.c -ldl
		cp "$lib" "$d/orig.so" && cp rc.so rk.so "$d/"
		in=/tmp/${d##*/}
		for f in orig rc rk; do
			chroot "$root" env LD_LIBRARY_PATH="$in" "$in/dl" \
				"$in/$f.so" | sed 's/^  ccob /  bundle /' > "$f.reg"
		done
		rm -rf "$d"
		check "librocsparse1 compressed: the stub registers the same code objects" \
			cmp -s orig.reg rc.reg
		grep -v -E 'amdhsa--gfx([^9]|9[^0]|90[^a])' orig.reg > want6
		check "librocsparse1 compressed, gfx90a: the kept code objects, the same" \
			cmp -s want6 rk.reg
	else
		echo "SKIP: no sid root (sh test/refroot.sh 23): librocsparse1 not loaded"
	fi
else
	echo "SKIP: librocsparse1 (sid) not under $DEBS (--fetch)"
fi

# sid's comgr (libamd-comgr3, LLVM 21), which sid's libamdhip64.so.6
# (6.4.3) hands each fat binary to, unbundles the CCOBs offload writes
# (versions 1, 2 and 3) to the code objects of the bundle they compress.
# Run in the sid root: its glibc is newer than Debian 12's.
if so=$(find_file 'libamd_comgr.so.3.*' 'libamd-comgr3_*.deb') &&
   llvm=$(find_file 'libLLVM.so.21.1' 'libllvm21_*.deb') &&
   hdr=$(find_file 'amd_comgr/amd_comgr.h' 'libamd-comgr-dev_*.deb') &&
   root=$(sh "$TOP/test/refroot.sh" 23 2>/dev/null) && [ -d "$root" ]; then
	d=$(mktemp -d "$root/tmp/comgr.XXXXXX")
	cc -O1 -I"${hdr%/amd_comgr/amd_comgr.h}" -o "$d/comgr" \
		"$TOP/test/prune/comgr.c" -ldl
	cp "$so" "$d/libamd_comgr.so.3" && cp "$llvm" "$d/libLLVM.so.21.1"
	"$OFFLOAD" extract -o co "$TOP/test/files/inspect/app" >/dev/null
	: > h
	K=hipv4-amdgcn-amd-amdhsa-
	"$OFFLOAD" bundler -type=o \
		-targets=host-x86_64-unknown-linux-gnu,$K-gfx90a:xnack+,$K-gfx1100 \
		-input=h -input=co/app.0.$K-gfx90a_xnack+.co \
		-input=co/app.0.$K-gfx1100.co -output="$d/b"
	for v in 1 2 3; do
		"$OFFLOAD" ccob --format-version=$v "$d/b" -o "$d/c$v"
	done
	in=/tmp/${d##*/}
	for f in b c1 c2 c3; do
		chroot "$root" env LD_LIBRARY_PATH="$in" "$in/comgr" "$in/$f" \
			$K-gfx90a:xnack+ $K-gfx1100 > "comgr.$f"
	done
	rm -rf "$d"
	sed -n 1p comgr.b
	check "comgr unbundles the bundle" \
		[ "$(grep -c '^  hipfatbin' comgr.b)" = 2 ]
	for v in 1 2 3; do
		check "comgr unbundles a version $v CCOB to the same code objects" \
			cmp -s comgr.b comgr.c$v
	done
else
	echo "SKIP: sid's libamd-comgr3 and libllvm21 not under $DEBS, or no sid root (--fetch; sh test/refroot.sh 23)"
fi

if lib=$(find_file 'libcurand.so.10.*' 'libcurand10_*.deb'); then
	"$OFFLOAD" prune --keep sm_80 "$lib" -o curand.so || fails=$((fails + 1))
	a=$(stat -c %s "$lib") b=$(stat -c %s curand.so)
	echo "libcurand10 to sm_80: $a -> $b bytes ($(percent "$b" "$a")%)"
	check "libcurand10: at most 60%" [ $((b * 100)) -le $((a * 60)) ]
	check "libcurand10: one .nv_fatbin" \
		[ "$(readelf -SW curand.so | grep -c ' .nv_fatbin ')" = 1 ]
	if cu=$(find_file 'usr/bin/cuobjdump' 'nvidia-cuda-toolkit_*.deb'); then
		"$cu" -lelf -lptx curand.so > cu.txt 2>/dev/null
		"$OFFLOAD" ls --format=cuobjdump curand.so > of.txt
		check "libcurand10: cuobjdump lists what offload ls lists ($(wc -l < cu.txt) entries)" \
			cmp -s cu.txt of.txt
		# --compress: its cubins LZ4 blocks, as fatbinary
		# -compress-all writes them; cuobjdump lists them and writes
		# out the same code as from the file before.
		"$OFFLOAD" prune --compress "$lib" -o cz.so ||
			fails=$((fails + 1))
		c=$(stat -c %s cz.so)
		echo "libcurand10 --compress: $a -> $c bytes ($(percent "$c" "$a")%)"
		"$cu" -lelf -lptx cz.so > cu.txt 2>/dev/null
		"$OFFLOAD" ls --format=cuobjdump cz.so > of.txt
		check "libcurand10 compressed: cuobjdump lists what offload ls lists" \
			cmp -s cu.txt of.txt
		mkdir xa xb && cp "$lib" xa/lib.so && cp cz.so xb/lib.so
		(cd xa && "$cu" -xelf all -xptx all lib.so >/dev/null 2>&1)
		(cd xb && "$cu" -xelf all -xptx all lib.so >/dev/null 2>&1)
		rm xa/lib.so xb/lib.so
		check "libcurand10 compressed: cuobjdump writes out the same $(ls xa | wc -l) code objects" \
			diff -r xa xb
	else
		echo "SKIP: no cuobjdump (nvidia-cuda-toolkit) under $DEBS"
	fi
else
	echo "SKIP: libcurand10 not under $DEBS (--fetch)"
fi
[ "$fails" = 0 ]
