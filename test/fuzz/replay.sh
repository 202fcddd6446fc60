#!/bin/sh
# replay.sh: every fuzz target's seed corpus, run through the target without
# libFuzzer (build/test/fuzz/<name>, made by make check with the normal
# compiler and flags, SANITIZE=1 included).  One pass per corpus file that
# runs without a crash, a hang (60 s) or a sanitizer report; a target with
# no seeds is a failure too.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
passed=0 failed=0
log=$(mktemp "${TMPDIR:-/tmp}/offload-replay.XXXXXX")
trap 'rm -f "$log"' EXIT INT TERM

for src in test/fuzz/*.c; do
	name=$(basename "$src" .c)
	[ "$name" = replay ] && continue
	bin=build/test/fuzz/$name
	set -- test/fuzz/corpus/"$name"/*
	if [ ! -e "$1" ]; then
		echo "FAIL: $name: no seeds in test/fuzz/corpus/$name/"
		failed=$((failed + 1))
		continue
	fi
	# All files in one process; if it dies, again one by one to name the
	# culprits.
	if timeout 60 "$bin" "$@" >"$log" 2>&1; then
		passed=$((passed + $#))
		[ -n "${VERBOSE:-}" ] && sed 's/^/PASS: /' "$log"
		continue
	fi
	for f in "$@"; do
		if timeout 60 "$bin" "$f" >"$log" 2>&1; then
			passed=$((passed + 1))
		else
			failed=$((failed + 1))
			echo "FAIL: $name $f"
			grep -m 5 -E 'ERROR|SUMMARY|runtime error|Abort|replay:' "$log" | sed 's/^/  /'
		fi
	done
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
