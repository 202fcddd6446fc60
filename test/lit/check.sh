#!/bin/sh
# check.sh [VERSION...]: `make check-lit`.  LLVM's own lit tests of
# clang-offload-bundler, clang-offload-packager and llvm-offload-binary
# (test/lit/fetch.sh brings them from Debian's source packages), run with
# our lit configuration (test/lit/lit.cfg.py) twice for each release (22,
# 23 and 24, or those named): once with LLVM's tools of that release first
# on PATH, which validates the harness, then with ours in that release's
# mode (links in an llvm-NN directory).  A case is a test LLVM's tools pass:
# it passes when ours pass it too.  Tests LLVM's tools do not pass are listed
# with the reason, and are no case.
# LLVM 22 runs on this machine (Debian 12's llvm-22 and llvm-22-tools), 23
# and 24 in test/refroot.sh's roots, with our binary staged there as the
# -23 suites do (test/lib.sh: llvm_root).  Each run's whole lit output is
# kept in build/lit/NN-llvm.txt and build/lit/NN-ours.txt.
#   REQUIRE_LLVM=1   fail, rather than skip, a release whose tools or
#                    tests are not there (the mirror's missing tarball of
#                    24's snapshot stays a skip: nothing here can mend it)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
BIN=${BIN:-$top/build/bin}
out=$top/build/lit
mkdir -p "$out"
passed=0 failed=0
stage=
trap 'rm -rf "$stage"' EXIT
trap 'exit 130' INT TERM

skip() {
	if [ -n "${REQUIRE_LLVM:-}" ] && [ "${2:-}" != always ]; then
		echo "FAIL: LLVM $v: $1"
		failed=$((failed + 1))
	else
		echo "SKIP: LLVM $v: $1"
	fi
}

# results FILE: each test's verdict in a lit -v output, "VERDICT PATH".
results() {
	sed -n 's/^\([A-Z]*\): offload-upstream :: \([^ ]*\) (.*/\1 \2/p' "$1" | sort -k2
}

# why FILE TEST: the lines of a failed test's transcript that say why.
why() {
	awk -v t="$2" '
		index($0, "TEST '\''offload-upstream :: " t "'\'' FAILED") { on = 1; next }
		on && /^\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*$/ { exit }
		on' "$1" | grep -E 'error|Error|RUN: at line|^# executed command|^# note|expected|not found|exit' |
		grep -v '^# executed command: echo\|^# \.---' | tail -n 6 | sed 's/^/    /'
}

run_release() {
	v=$1
	if ! src=$(sh test/lit/fetch.sh "$v" 2>"$out/$v-fetch.txt"); then
		case $(tail -n 1 "$out/$v-fetch.txt") in
		*"no source tarball"*) skip "$(tail -n 1 "$out/$v-fetch.txt" | sed 's/^fetch.sh: //')" always ;;
		*) skip "cannot fetch its tests: $(tail -n 1 "$out/$v-fetch.txt")" ;;
		esac
		return
	fi
	if [ "$v" = 22 ]; then
		root=
	else
		root=$(sh test/refroot.sh --path "$v")
	fi
	llvm_bin=/usr/lib/llvm-$v/bin
	for t in lit FileCheck clang clang-offload-bundler llvm-offload-binary; do
		if [ ! -x "$root$llvm_bin/$t" ]; then
			skip "no $root$llvm_bin/$t (test/refroot.sh $v, or llvm-$v-tools)"
			return
		fi
	done
	if [ -n "$root" ] && [ "$(id -u)" != 0 ]; then
		skip "not root: cannot chroot into LLVM $v's root"
		return
	fi
	stage=$(mktemp -d "$root/tmp/offload-lit.XXXXXX") || exit 1
	# Our binary, the libraries a root lacks (bookworm's libelf and
	# libmsgpackc), LLVM's tools and ours each by the three names.
	mkdir "$stage/bin" "$stage/lib" "$stage/llvm" "$stage/llvm-$v"
	cp "$BIN/offload" "$stage/bin/" || exit 1
	for lib in libelf.so.1 libmsgpackc.so.2; do
		cp -L "$(ldd "$BIN/offload" | sed -n "s|.*$lib => \([^ ]*\).*|\1|p")" "$stage/lib/" || exit 1
	done
	for t in clang-offload-bundler clang-offload-packager llvm-offload-binary; do
		ln -s "$llvm_bin/$t" "$stage/llvm/$t"
		ln -s ../bin/offload "$stage/llvm-$v/$t"
	done
	rs=${stage#"$root"}
	for who in llvm ours; do
		rm -rf "$stage/tests"
		cp -a "$src" "$stage/tests" && cp test/lit/lit.cfg.py "$stage/tests/" || exit 1
		case $who in
		llvm) tools=$rs/llvm ;;
		ours) tools=$rs/llvm-$v ;;
		esac
		${root:+chroot "$root"} env HOME=/tmp LD_LIBRARY_PATH="$rs/lib" \
			"$llvm_bin/lit" -v -j 2 -D llvm_bin="$llvm_bin" -D tools="$tools" \
			"$rs/tests" >"$out/$v-$who.txt" 2>&1
	done
	rm -rf "$stage"
	stage=
	results "$out/$v-llvm.txt" >"$out/$v-llvm.res"
	results "$out/$v-ours.txt" >"$out/$v-ours.res"
	if [ ! -s "$out/$v-llvm.res" ]; then
		echo "FAIL: LLVM $v: lit ran no test (build/lit/$v-llvm.txt)"
		tail -n 5 "$out/$v-llvm.txt" | sed 's/^/    /'
		failed=$((failed + 1))
		return
	fi
	echo "LLVM $v's tests: $(cat "$src/SOURCE")"
	while read -r verdict test; do
		ours=$(awk -v t="$test" '$2 == t { print $1 }' "$out/$v-ours.res")
		case $verdict in
		PASS)
			if [ "$ours" = PASS ]; then
				echo "PASS: $v $test"
				passed=$((passed + 1))
			else
				echo "FAIL: $v $test (LLVM's tools pass it, ours: ${ours:-no verdict}; build/lit/$v-ours.txt)"
				why "$out/$v-ours.txt" "$test"
				failed=$((failed + 1))
			fi ;;
		UNSUPPORTED)
			echo "UNSUPPORTED: $v $test (needs: $(sed -n "s|^[/;#]* *REQUIRES: \(.*\)|\1|p" "$src/$test" | tr "\n" ";" | sed "s/;$//; s/;/; /g"))" ;;
		*)
			echo "LLVM FAILS: $v $test ($verdict with LLVM's own tools, ${ours:-no verdict} with ours; build/lit/$v-llvm.txt)"
			why "$out/$v-llvm.txt" "$test" ;;
		esac
	done <"$out/$v-llvm.res"
}

for v in ${*:-22 23 24}; do
	run_release "$v"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
