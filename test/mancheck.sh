#!/bin/sh
# mancheck.sh "HELP-COMMAND" PAGE: the long options a man page describes
# (".TP" then ".B \-\-name") must be exactly those the help text lists.
help=$(sh -c "$1" | sed -n 's/^  \(--[a-z0-9#-]*\).*/\1/p' | sort -u)
page=$(sed -n '/^\.TP/{n;s/^\.B[RI]* \(\\-\\-[a-z0-9#\\-]*\).*/\1/p;}' "$2" |
	sed 's/\\//g' | sort -u)
if [ "$help" != "$page" ]; then
	echo "$2 and '$1' disagree (< help, > page):"
	printf '%s\n' "$help" > /tmp/mancheck.$$.a
	printf '%s\n' "$page" > /tmp/mancheck.$$.b
	diff /tmp/mancheck.$$.a /tmp/mancheck.$$.b
	rm -f /tmp/mancheck.$$.a /tmp/mancheck.$$.b
	exit 1
fi
