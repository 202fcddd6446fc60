#!/bin/sh
# mancheck.sh PAGE APPLET...: the long options a man page describes (the
# line after each ".TP") must be exactly those of the applets' option
# tables, as `offload --list-options APPLET` prints them (an APPLET such as
# "kpack split" is a command of one): a row added to a table fails this
# until its page has it too.
page=$1
shift
table=$(for a in "$@"; do offload --list-options $a || echo "failed: $a"; done |
	sed -n 's/^\(--[^=]*\)=\{0,1\}$/\1/p; /^failed/p' | sort -u)
described=$(sed -n '/^\.TP/{n;p;}' "$page" | grep -o '\\-\\-[a-z0-9#\\-]*' |
	sed 's/\\//g' | sort -u)
if [ "$table" != "$described" ]; then
	echo "$page and the options of '$*' disagree (< table, > page):"
	printf '%s\n' "$table" > /tmp/mancheck.$$.a
	printf '%s\n' "$described" > /tmp/mancheck.$$.b
	diff /tmp/mancheck.$$.a /tmp/mancheck.$$.b
	rm -f /tmp/mancheck.$$.a /tmp/mancheck.$$.b
	exit 1
fi
