# lib.sh: the `testing` helper for shell tests (after toybox's runtest.sh).
#
#   testing NAME COMMAND EXPECTED_STDOUT EXPECTED_STDERR EXPECTED_STATUS
#
# COMMAND runs with sh -c in the test's scratch directory ($SCRATCH, emptied
# by `scratch`); stdout, stderr and the exit status must all match exactly.
# Output is compared as command substitution sees it (trailing newlines
# dropped); byte-exact checks of files use cmp inside COMMAND.  A failing
# case prints its command, its status and a diff -u of the output wanted and
# got.  Each test script ends with `finish`, which prints "N passed, N
# failed" and sets the exit status.

PASSED=0
FAILED=0
TOP=$(cd "$(dirname "$0")/.." && pwd)
BIN=$TOP/build/bin
PATH=$BIN:$PATH
# The LLVM-named applets follow LLVM 23 unless told (core/env.h); the
# suites written against LLVM 22 say 22 here, and a case about another
# release sets OFFLOAD_LLVM itself (or calls a -23 name).
OFFLOAD_LLVM=22
export PATH TOP OFFLOAD_LLVM
# A make a test runs (bundler.test's install) is not a job of the make check
# running the test, whose jobserver it cannot reach (make would warn): it
# keeps that make's variables (CC=, SANITIZE=), not its -j.
MAKEFLAGS=$(printf '%s' "${MAKEFLAGS:-}" | sed 's/ *--jobserver-[a-z]*=[^ ]*//g; s/\(^\| \)-j[0-9]*\( \|$\)/\1/g; s/ *$//')
MFLAGS=
export MAKEFLAGS MFLAGS
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/offload-test.XXXXXX")
CAPTURE=$(mktemp -d "${TMPDIR:-/tmp}/offload-capture.XXXXXX")
trap 'chmod -R u+w "$SCRATCH"; rm -rf "$SCRATCH" "$CAPTURE"' EXIT INT TERM
# python3 is the interpreter PATH names, found once (test/run.sh does the
# same for the whole run): a version manager's shim there (pyenv's, a bash
# script that runs pyenv) costs more CPU a start than Python itself, and
# the suites start it hundreds of times.
py_resolve() {
	py_real=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) &&
		[ -x "$py_real" ] &&
		[ "$(readlink -f "$py_real")" != "$(readlink -f "$(command -v python3)")" ] &&
		mkdir -p "$1" && ln -sf "$py_real" "$1/python3" && PATH=$1:$PATH
}
py_resolve "$CAPTURE/bin"

scratch() {
	cd / && chmod -R u+w "$SCRATCH" && rm -rf "$SCRATCH" &&
		mkdir -p "$SCRATCH" && cd "$SCRATCH" || exit 1
}

testing() {
	t_name=$1 cmd=$2 want_out=$3 want_err=$4 want_rc=$5
	[ -z "${TEST_TIMES:-}" ] || t_start=$(date +%s%N)
	sh -c "$cmd" >"$CAPTURE/stdout" 2>"$CAPTURE/stderr"
	got_rc=$?
	# TEST_TIMES=FILE: each case's milliseconds and name, to find the
	# slow ones (the suites' own times are run.sh's).
	[ -z "${TEST_TIMES:-}" ] ||
		echo "$(( ($(date +%s%N) - t_start) / 1000000 )) $t_name" >>"$TEST_TIMES"
	got_out=; [ ! -s "$CAPTURE/stdout" ] || got_out=$(cat "$CAPTURE/stdout")
	got_err=; [ ! -s "$CAPTURE/stderr" ] || got_err=$(cat "$CAPTURE/stderr")
	if [ "$got_out" = "$want_out" ] && [ "$got_err" = "$want_err" ] &&
	   [ "$got_rc" = "$want_rc" ]; then
		PASSED=$((PASSED + 1))
		[ -n "${VERBOSE:-}" ] && echo "PASS: $t_name"
		return 0
	fi
	FAILED=$((FAILED + 1))
	echo "FAIL: $t_name"
	echo "  command: $cmd"
	[ "$got_rc" = "$want_rc" ] || echo "  status: want $want_rc, got $got_rc"
	[ "$got_out" = "$want_out" ] || differ stdout "$want_out" "$got_out"
	[ "$got_err" = "$want_err" ] || differ stderr "$want_err" "$got_err"
	return 1
}

# differ WHAT WANT GOT: a diff -u of what was wanted and what came.
differ() {
	printf '%s' "$2" >"$CAPTURE/want"
	printf '%s' "$3" >"$CAPTURE/got"
	# Whole lines for diff (the captures lost their last newline), but
	# nothing stays no line at all.
	[ -z "$2" ] || echo >>"$CAPTURE/want"
	[ -z "$3" ] || echo >>"$CAPTURE/got"
	diff -u --label "$1 wanted" --label "$1 got" "$CAPTURE/want" "$CAPTURE/got"
}

finish() {
	echo "$PASSED passed, $FAILED failed"
	[ "$FAILED" -eq 0 ]
}

# registry: the applets and their names, read from applets/applets.def
# (the registry main.c and the Makefile read): "APPLET NAME LLVM" a line,
# each applet under its own name, then under each of its aliases, in the
# file's order; LLVM is 1 for an LLVM-named tool; a fourth word, llvmdir,
# for a name linked only in the llvm-N directories (DIRALIAS).  Tests take the list of
# applets from here, so that a new applet needs no test edited but its own.
registry() {
	awk -F'"' '/^APPLET\(/ { a = $2; split($3, f, ","); l = f[3] + 0; print a, a, l }
		/^ALIAS\(/ { print a, $2, l }
		/^DIRALIAS\(/ { print a, $2, l, "llvmdir" }' "$TOP/applets/applets.def"
}

# The default bound on declared sizes (core/env.c env_memory_cap): half the
# physical memory, at most 32 GiB.
MEMCAP=$(( $(getconf _PHYS_PAGES) / 2 * $(getconf PAGESIZE) ))
[ "$MEMCAP" -gt 0 ] && [ "$MEMCAP" -lt 34359738368 ] || MEMCAP=34359738368

# vm_limit N: "ulimit -v N" for a command string, or ":" where this build
# cannot start under a limit (ASan reserves terabytes of address space):
# such a case then checks what is written, not the memory it took.
vm_limit() {
	if (ulimit -v "$1" && "$BIN/offload" --version) >/dev/null 2>&1; then
		echo "ulimit -v $1"
	else
		echo "SKIP: ulimit -v $1: this build cannot start under it (sanitizers): memory left unbounded there" >&2
		echo ":"
	fi
}

# option_errors APPLET FLAG VALUED LONG_VALUED LONG_FLAG AMBIGUOUS: the
# usage errors every applet of ours gives for options getopt refuses
# (applets/messages.c applet_option_error), with a short option taking no
# value and one taking a value, the same in long, and a prefix of two
# long options.
option_errors() {
	o_try="Try 'offload $1 --help'."
	testing "$1: an unknown short option" "offload $1 -Z x" "" \
		"offload $1: error: unknown option '-Z'
$o_try" 2
	testing "$1: an unknown short option in a cluster" \
		"offload $1 $5 $2Z x" "" "offload $1: error: unknown option '-Z'
$o_try" 2
	testing "$1: an unknown long option" "offload $1 --frob=1 x" "" \
		"offload $1: error: unknown option '--frob'
$o_try" 2
	testing "$1: an ambiguous long option" "offload $1 $6 x" "" \
		"offload $1: error: ambiguous option '$6'
$o_try" 2
	testing "$1: a short option without its value" "offload $1 $3" "" \
		"offload $1: error: option '$3' needs a value
$o_try" 2
	testing "$1: a long option without its value" "offload $1 x $4" "" \
		"offload $1: error: option '$4' needs a value
$o_try" 2
	testing "$1: a value for a long option that takes none" \
		"offload $1 $5=1 x" "" "offload $1: error: option '$5' takes no value
$o_try" 2
}

# llvm_root VERSION: the Debian root holding LLVM VERSION's tools
# (test/refroot.sh) in $ROOT, and our binary staged in it, beside the two
# libraries the root lacks (bookworm's libelf and libmsgpackc), with the
# NVIDIA's tools of CUDA 11.8 (cuobjdump, nvprune, nvcc: the goldens'
# reference) and 12.4 (a cuobjdump that reads CUDA 13's output), for the
# live NVIDIA cases: `nv_tool VERSION NAME` prints NAME from the directory
# test/nvroot.sh makes of Debian's non-free packages, else the PATH's of
# that release, else nothing.  `nv_require VERSION`: under REQUIRE_LLVM=1
# (CI makes the directories) a missing one is a failing case, not a skip.
nv_dir() { echo "$(sh "$TOP/test/nvroot.sh" --path "$1")/usr"; }
nv_tool() {
	if [ -x "$(nv_dir "$1")/bin/$2" ]; then
		echo "$(nv_dir "$1")/bin/$2"
	elif command -v "$2" >/dev/null && "$2" --version 2>/dev/null | grep -q "release $1"; then
		command -v "$2"
	fi
}
nv_require() {
	[ -x "$(nv_dir "$1")/bin/cuobjdump" ] || [ -z "${REQUIRE_LLVM:-}" ] ||
		testing "CUDA $1's tools are there" \
			"echo 'no $(nv_dir "$1")/bin/cuobjdump (sh test/nvroot.sh $1 makes it)'; false" "" "" 0
}
# test sources: $RS is that directory as the root sees it ($RS/bin our
# links, $RS/src test/objects/hip, $RS/work a scratch directory).  Run a
# command there with $IN_ROOT 'COMMAND' (LLVM VERSION's tools first on
# PATH, in $RS/work).  chroot needs root: without the root, or without
# being root, the suite says SKIP and ends (under REQUIRE_LLVM=1 it fails).
llvm_root() {
	ROOT=$(sh "$TOP/test/refroot.sh" --path "$1")
	lr_why=
	[ -x "$ROOT/usr/lib/llvm-$1/bin/clang" ] ||
		lr_why="no LLVM $1 root in $ROOT (sh test/refroot.sh $1 makes it)"
	[ -n "$lr_why" ] || [ "$(id -u)" = 0 ] ||
		lr_why="not root: cannot chroot into LLVM $1's root"
	if [ -n "$lr_why" ]; then
		if [ -n "${REQUIRE_LLVM:-}" ]; then
			testing "LLVM $1's root is there" "echo '$lr_why'; false" "" "" 0
		else
			echo "SKIP: $lr_why"
		fi
		finish
		exit
	fi
	STAGE=$(mktemp -d "$ROOT/tmp/offload-ours.XXXXXX") || exit 1
	trap 'chmod -R u+w "$SCRATCH"; rm -rf "$SCRATCH" "$CAPTURE" "$STAGE"' EXIT INT TERM
	cp -a "$BIN" "$STAGE/bin" && mkdir "$STAGE/lib" "$STAGE/work" &&
		cp -a "$TOP/test/objects/hip" "$STAGE/src" || exit 1
	for lr_lib in libelf.so.1 libmsgpackc.so.2; do
		cp -L "$(ldd "$BIN/offload" | sed -n "s|.*$lr_lib => \([^ ]*\).*|\1|p")" "$STAGE/lib/" || exit 1
	done
	RS=${STAGE#"$ROOT"}
	IN_ROOT="chroot $ROOT env PATH=/usr/lib/llvm-$1/bin:/usr/bin:/bin LD_LIBRARY_PATH=$RS/lib OFFLOAD_LLVM=$1 HOME=/tmp sh -c"
}
