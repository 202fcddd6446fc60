# lib.sh: the `testing` helper for shell tests (after toybox's runtest.sh).
#
#   testing NAME COMMAND EXPECTED_STDOUT EXPECTED_STDERR EXPECTED_STATUS
#
# COMMAND runs with sh -c in the test's scratch directory ($SCRATCH, emptied
# by `scratch`); stdout, stderr and the exit status must all match exactly.
# Output is compared as command substitution sees it (trailing newlines
# dropped); byte-exact checks of files use cmp inside COMMAND.  Each test script ends with `finish`, which prints
# "N passed, N failed" and sets the exit status.

PASSED=0
FAILED=0
TOP=$(cd "$(dirname "$0")/.." && pwd)
BIN=$TOP/build/bin
PATH=$BIN:$PATH
export PATH TOP
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/offload-test.XXXXXX")
CAPTURE=$(mktemp -d "${TMPDIR:-/tmp}/offload-capture.XXXXXX")
trap 'chmod -R u+w "$SCRATCH"; rm -rf "$SCRATCH" "$CAPTURE"' EXIT INT TERM

scratch() {
	cd / && chmod -R u+w "$SCRATCH" && rm -rf "$SCRATCH" &&
		mkdir -p "$SCRATCH" && cd "$SCRATCH" || exit 1
}

testing() {
	t_name=$1 cmd=$2 want_out=$3 want_err=$4 want_rc=$5
	sh -c "$cmd" >"$CAPTURE/stdout" 2>"$CAPTURE/stderr"
	got_rc=$?
	got_out=$(cat "$CAPTURE/stdout")
	got_err=$(cat "$CAPTURE/stderr")
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
	[ "$got_out" = "$want_out" ] ||
		printf '  stdout want:\n%s\n  stdout got:\n%s\n' "$want_out" "$got_out"
	[ "$got_err" = "$want_err" ] ||
		printf '  stderr want:\n%s\n  stderr got:\n%s\n' "$want_err" "$got_err"
	return 1
}

finish() {
	echo "$PASSED passed, $FAILED failed"
	[ "$FAILED" -eq 0 ]
}
