#!/bin/sh
# shrunk.sh FILE KEEP DROPPED [LOADER [SED]]: prune FILE (a linked program,
# or a library LOADER dlopens) to KEEP, once shrunk (--always-shrink: every
# cut, wherever the program headers go) and once with --keep-layout (the
# floor), and print, a line each, what holds (test/shrink.test wants
# all seven lines):
#   the file is smaller, by what the summary says;
#   as a loader sees them, the shrunk file is the floor (layout.py);
#   run against the stub runtime, it registers what it did before but the
#     lines matching DROPPED (a grep pattern), and those changed by SED (a
#     sed script: the OpenMP stub's count of images);
#   ld.so run as a command loads it the same (programs; the kernel loads
#     them otherwise);
#   eu-elflint --gnu-ld says of it what it says of the floor;
#   offload extract gives the same bytes for KEEP as from FILE;
#   pruned again to KEEP, it stays the same.
# Runs in the current directory; writes s.FILE, f.FILE and scratch files.
f=$1 keep=$2 drop=$3 loader=${4:-} edit=${5:-}
layout="python3 $(dirname "$0")/layout.py"
$loader ./"$f" > "before.$f" || echo "$f does not run"
sum=$(offload prune --always-shrink --keep "$keep" "$f" -o "s.$f") || echo "prune failed"
offload prune --keep-layout --keep "$keep" "$f" -o "f.$f" >/dev/null
size=$(echo "$sum" | sed -n 's/.*-> \([0-9]*\) bytes.*/\1/p')
if [ "$(stat -c %s "s.$f")" = "$size" ] && [ "$size" -lt "$(stat -c %s "$f")" ]; then
	echo "smaller, as the summary says"
else
	echo "not smaller: $sum"
fi
$layout "f.$f" "s.$f"
$loader ./"s.$f" > "after.$f" && grep -v "$drop" "before.$f" | sed "$edit" | cmp -s - "after.$f" &&
	grep -q . "after.$f" && echo "registers the kept code objects as before"
if [ -z "$loader" ]; then
	interp=$(readelf -lW "$f" | sed -n 's/.*interpreter: \(.*\)]/\1/p')
	"$interp" ./"s.$f" | cmp -s - "after.$f" && echo "the same through ld.so"
else
	echo "the same through ld.so"
fi
# Program headers added by the shrink renumber those after them: what
# eu-elflint says is compared with the entries unnumbered.
eu-elflint --gnu-ld "f.$f" 2>&1 | sed 's/program header entry [0-9]*/program header entry N/' > "lint.f.$f"
eu-elflint --gnu-ld "s.$f" 2>&1 | sed 's/program header entry [0-9]*/program header entry N/' > "lint.s.$f"
cmp -s "lint.f.$f" "lint.s.$f" && echo "eu-elflint as for the floor"
rm -rf "x.$f" "y.$f" && mkdir "x.$f" "y.$f"
# Each file's hash and name but the input's name and the entry's index
# (packed OpenMP images are numbered anew).
offload extract -o "x.$f" -t "$keep" "$f" && offload extract -o "y.$f" -t "$keep" "s.$f" &&
	(cd "x.$f" && sha256sum -- * | sed "s/  [^ ]*\.[0-9]*\./ /" | sort) > "xl.$f" &&
	(cd "y.$f" && sha256sum -- * | sed "s/  [^ ]*\.[0-9]*\./ /" | sort) > "yl.$f" &&
	cmp -s "xl.$f" "yl.$f" && [ -s "xl.$f" ] &&
	echo "extract gives the same bytes"
offload prune --always-shrink --keep "$keep" "s.$f" -o "t.$f" >/dev/null && cmp -s "s.$f" "t.$f" &&
	echo "pruned again: the same"
