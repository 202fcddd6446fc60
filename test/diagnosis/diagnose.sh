#!/bin/sh
# diagnose.sh FILE...: for each FILE, the reason ls, extract, prune and du
# each give (the text after "'FILE': " on the first error line; "-" for
# none, or for a reason that says there is nothing to do: no offload code,
# no device code, a file of no known format), checked to agree
# (diagnosis.test).  ls and du read the same headers: the same reason.
# extract and prune (--keep '*', nothing written) decode more (CCOBs;
# extract every entry): whatever ls finds they find, in the same words,
# and what they find beyond it, each that finds it says the same.  Prints
# nothing when they agree; else the four reasons, exit 1.
out=$(mktemp -d "${TMPDIR:-/tmp}/diagnose.XXXXXX") || exit 1
trap 'rm -rf "$out"' EXIT
rc=0

# why FILE: the reason on standard input's first error line, or "-".
why() {
	line=$(grep -a -m1 ': error: ' | sed "s|^[^']*'$1': ||")
	case $line in
	''|'no offload code to prune'*|'not a file of a known format'*)
		echo - ;;
	*)	printf '%s\n' "$line" ;;
	esac
}

for f in "$@"; do
	rm -rf "$out/x"
	l=$(offload ls "$f" 2>&1 >/dev/null | why "$f")
	x=$(offload extract -q -o "$out/x" "$f" 2>&1 >/dev/null | why "$f")
	p=$(offload prune -n --keep '*' "$f" 2>&1 >/dev/null | why "$f")
	d=$(offload du -q "$f" 2>&1 >/dev/null | why "$f")
	ok=true
	[ "$l" = "$d" ] || ok=false
	if [ "$l" != - ]; then
		[ "$x" = "$l" ] && [ "$p" = "$l" ] || ok=false
	elif [ "$x" != - ] && [ "$p" != - ] && [ "$x" != "$p" ]; then
		ok=false
	fi
	$ok && continue
	printf '%s\n  ls: %s\n  extract: %s\n  prune: %s\n  du: %s\n' \
		"$f" "$l" "$x" "$p" "$d"
	rc=1
done
exit $rc
