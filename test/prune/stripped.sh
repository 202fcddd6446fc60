#!/bin/sh
# stripped.sh FILE KEEP DROPPED [LOADER]: prune FILE (a linked program, or
# a library LOADER dlopens) to KEEP with prune's default layout, then strip
# the result as distributions do, and print a line for each way it still
# runs as the pruned file does (test/shrink.test wants every line):
#   the summary's note, or "shrunk" (what prune chose);
#   GNU strip --strip-debug, --strip-unneeded, -g and with no option;
#   dh_strip's sequence: objcopy --only-keep-debug, strip
#     --remove-section=.comment --remove-section=.note --strip-unneeded,
#     objcopy --add-gnu-debuglink;
#   find-debuginfo's: eu-strip --remove-comment -f FILE.debug;
#   llvm-strip.
# PRUNE (environment) adds options to prune's (--always-shrink).
# "Runs as the pruned file does": registers what FILE did before but the
# lines matching DROPPED (a grep pattern).  Writes d.FILE, FILE.*.st and
# scratch files in the current directory.
f=$1 keep=$2 drop=$3 loader=${4:-}
llvm=${LLVM_BIN:-/usr/lib/llvm-22/bin}
$loader ./"$f" | grep -v "$drop" > "want.$f"
sum=$(offload prune $PRUNE --keep "$keep" "$f" -o "d.$f") || echo "prune failed"
case $sum in
*"(not shrunk: "*) echo "$sum" | sed 's/.*(not shrunk: \(.*\))$/not shrunk: \1/' ;;
*) echo shrunk ;;
esac
runs() {
	$loader ./"$2" > "got.$2" 2>&1 && cmp -s "want.$f" "got.$2" &&
		grep -q . "got.$2" && echo "$1: runs" || echo "$1: broken"
}
for o in --strip-debug --strip-unneeded -g ""; do
	# shellcheck disable=SC2086
	strip $o -o "$f.st" "d.$f" 2>/dev/null
	runs "strip${o:+ $o}" "$f.st"
done
# (bfd warns that the debug file's notes fit in no segment, as for the
# unpruned file: no matter, nothing loads it)
cp "d.$f" "$f.dh.st"
objcopy --only-keep-debug "$f.dh.st" "$f.dh.debug" 2>/dev/null
strip --remove-section=.comment --remove-section=.note --strip-unneeded \
	"$f.dh.st" 2>/dev/null
objcopy --add-gnu-debuglink="$f.dh.debug" "$f.dh.st" 2>/dev/null
runs "dh_strip" "$f.dh.st"
eu-strip --remove-comment -f "$f.eu.debug" -o "$f.eu.st" "d.$f"
runs "eu-strip" "$f.eu.st"
"$llvm/llvm-strip" -o "$f.llvm.st" "d.$f"
runs "llvm-strip" "$f.llvm.st"
