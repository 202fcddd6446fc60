#!/bin/sh
# mancheck.sh "HELP-COMMAND" PAGE: the long options a man page describes
# (the line after each ".TP") must be exactly those the help text lists.
help=$(sh -c "$1" | sed -n 's/^ *\(-[^-], \)\{0,1\}\(--[a-z0-9#-]*\).*/\2/p' | sort -u)
page=$(sed -n '/^\.TP/{n;p;}' "$2" | grep -o '\\-\\-[a-z0-9#\\-]*' |
	sed 's/\\//g' | sort -u)
if [ "$help" != "$page" ]; then
	echo "$2 and '$1' disagree (< help, > page):"
	printf '%s\n' "$help" > /tmp/mancheck.$$.a
	printf '%s\n' "$page" > /tmp/mancheck.$$.b
	diff /tmp/mancheck.$$.a /tmp/mancheck.$$.b
	rm -f /tmp/mancheck.$$.a /tmp/mancheck.$$.b
	exit 1
fi
