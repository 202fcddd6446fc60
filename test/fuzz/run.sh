#!/bin/sh
# run.sh: run fuzz targets under libFuzzer, one after another (make fuzz).
#   sh test/fuzz/run.sh SECONDS NAME...
# Each target runs SECONDS with the flags its source names on a
# "libFuzzer:" line, its dictionary test/fuzz/<name>.dict if there is one,
# and its seeds test/fuzz/corpus/<name>/.  New interesting inputs go to
# build/fuzz/new/<name>/ (never into git by themselves), crashes to
# build/fuzz/crashes/<name>/, the log to build/fuzz/<name>.log.
#   FUZZ_NICE=N   niceness (default 10: the machine is shared)
#   FUZZ_SEED=N FUZZ_RUNS=N   a fixed seed and at most N runs per target:
#                 the same inputs on every machine (CI), so a failure there
#                 is reproduced here with the same command
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
seconds=$1
shift
status=0
for name in "$@"; do
	flags=$(sed -n 's/^.*libFuzzer: *//p' "test/fuzz/$name.c" | head -n 1)
	dict=
	[ -f "test/fuzz/$name.dict" ] && dict=-dict=test/fuzz/$name.dict
	mkdir -p "build/fuzz/new/$name" "build/fuzz/crashes/$name" "test/fuzz/corpus/$name"
	# shellcheck disable=SC2086
	nice -n "${FUZZ_NICE:-10}" "build/fuzz/$name" $flags $dict \
		${FUZZ_SEED:+-seed=$FUZZ_SEED} ${FUZZ_RUNS:+-runs=$FUZZ_RUNS} \
		-max_total_time="$seconds" -timeout=10 -rss_limit_mb=1024 \
		-print_final_stats=1 -artifact_prefix="build/fuzz/crashes/$name/" \
		"build/fuzz/new/$name" "test/fuzz/corpus/$name" \
		>"build/fuzz/$name.log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "build/fuzz/$name.log")
	cov=$(grep -o 'cov: [0-9]*' "build/fuzz/$name.log" | tail -n 1)
	if [ "$rc" -eq 0 ]; then
		printf '%-16s %ss, %s runs, %s\n' "$name:" "$seconds" "${runs:-?}" "$cov"
	else
		status=1
		printf '%-16s FAILED (exit %s): see build/fuzz/%s.log, build/fuzz/crashes/%s/\n' \
			"$name:" "$rc" "$name" "$name"
		grep -m 3 -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "build/fuzz/$name.log"
	fi
done
exit $status
