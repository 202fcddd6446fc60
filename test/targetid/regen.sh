#!/usr/bin/env bash
# Regenerate golden.tsv by asking LLVM 22's clang-offload-bundler.
#   usage: test/targetid/regen.sh [bundler] > test/targetid/golden.tsv
# Line formats (tab separated):
#   known    <name>  <0|1>
#   compat   <triple> <entry id> <request id> <0|1>
#   conflict <ids>   <none|i,j|crash>
# For conflict, <ids> is the comma-separated list of target IDs as the bundler
# sees them (after dropping IDs whose processor is unknown), sorted bytewise
# and deduplicated; i,j index the pair the bundler reports; crash means the
# bundler died on a signal (malformed ID).
set -u
B=${1:-/usr/lib/llvm-22/bin/clang-offload-bundler}
export LC_ALL=C
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
printf x > "$W/x"

# prefix for a triple in a bundle entry ID: three-part triples get an empty
# environment, as the bundler writes them ("amdgcn-amd-amdhsa-").
tprefix() {
	local n
	n=$(printf '%s' "$1" | tr -cd - | wc -c)
	if [ "$n" -eq 2 ]; then printf '%s-' "$1"; else printf '%s' "$1"; fi
}

# The target ID the bundler keeps for hip-amdgcn-amd-amdhsa--ID: all of it if
# the part before the first ':' is a known processor, else nothing.  The
# processor part is probed on its own, since bundling a malformed ID would
# crash the bundler's conflict check.
declare -A EFF
effective() {
	local p=${1%%:*}
	if [ -z "${EFF[x$p]+set}" ]; then
		EFF[x$p]=
		if [ -n "$p" ] && "$B" -type=ll -targets="hip-amdgcn-amd-amdhsa--$p" \
			-input="$W/x" -output="$W/k.ll" 2>/dev/null &&
			grep -qxF -- "; __CLANG_OFFLOAD_BUNDLE____START__ hip-amdgcn-amd-amdhsa--$p" "$W/k.ll"; then
			EFF[x$p]=1
		fi
		rm -f "$W/k.ll"
	fi
	[ -n "${EFF[x$p]}" ] && printf '%s' "$1"
	return 0
}

known() {
	local e v=0
	e=$(effective "$1")
	[ -n "$1" ] && [ "$e" = "$1" ] && v=1
	printf 'known\t%s\t%s\n' "$1" "$v"
}

# compat TRIPLE ENTRY REQUEST: a hand-written text bundle holding ENTRY,
# unbundled for REQUEST; compatible iff the output got the content.
compat() {
	local p r v
	p=$(tprefix "$1")
	printf '\n; __CLANG_OFFLOAD_BUNDLE____START__ hip-%s-%s\nx\n; __CLANG_OFFLOAD_BUNDLE____END__ hip-%s-%s\n' \
		"$p" "$2" "$p" "$2" > "$W/e.ll"
	rm -f "$W/o"
	"$B" -type=ll -unbundle -input="$W/e.ll" -targets="hip-$p-$3" \
		-output="$W/o" -allow-missing-bundles 2>/dev/null
	r=$?
	if [ $r -ne 0 ]; then
		echo "regen: compat $1 '$2' '$3' failed (rc $r)" >&2
		return
	fi
	v=0
	[ -s "$W/o" ] && v=1
	printf 'compat\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$v"
}

# conflict ID... : bundle them all (HIP only, no host needed).
conflict() {
	local id targets="" inputs=() sorted msg r a b res i
	for id in "$@"; do
		targets="$targets${targets:+,}hip-amdgcn-amd-amdhsa--$id"
		inputs+=("-input=$W/x")
	done
	sorted=$(for id in "$@"; do effective "$id"; echo; done | sort -u)
	msg=$("$B" -type=ll -targets="$targets" "${inputs[@]}" -output="$W/c.ll" 2>&1 >/dev/null)
	r=$?
	if [ $r -gt 128 ]; then
		res=crash
	elif [ $r -eq 0 ]; then
		res=none
	else
		a=$(printf '%s' "$msg" | sed -n "s/.*conflicting targets: 'hip-amdgcn-amd-amdhsa--\(.*\)' and 'hip-amdgcn-amd-amdhsa--\(.*\)'\$/\1/p")
		b=$(printf '%s' "$msg" | sed -n "s/.*conflicting targets: 'hip-amdgcn-amd-amdhsa--\(.*\)' and 'hip-amdgcn-amd-amdhsa--\(.*\)'\$/\2/p")
		if [ -z "$a$b" ] && ! printf '%s' "$msg" | grep -q 'conflicting targets'; then
			echo "regen: conflict $*: unexpected: $msg" >&2
			return
		fi
		res=
		i=0
		while IFS= read -r id; do
			[ "$id" = "$a" ] && res="$i$res"
			[ "$id" = "$b" ] && res="$res,$i"
			i=$((i + 1))
		done <<< "$sorted"
	fi
	printf 'conflict\t%s\t%s\n' "$(printf '%s' "$sorted" | paste -sd, -)" "$res"
}

KNOWN="sm_20 sm_21 sm_30 sm_32 sm_35 sm_37 sm_50 sm_52 sm_53 sm_60 sm_61 sm_62
sm_70 sm_72 sm_75 sm_80 sm_86 sm_87 sm_88 sm_89 sm_90 sm_90a sm_100 sm_100a
sm_101 sm_101a sm_103 sm_103a sm_110 sm_110a sm_120 sm_120a sm_121 sm_121a"
GFX="gfx600 gfx601 gfx602 gfx700 gfx701 gfx702 gfx703 gfx704 gfx705 gfx801
gfx802 gfx803 gfx805 gfx810 gfx9-generic gfx900 gfx902 gfx904 gfx906 gfx908
gfx909 gfx90a gfx90c gfx9-4-generic gfx942 gfx950 gfx10-1-generic gfx1010
gfx1011 gfx1012 gfx1013 gfx10-3-generic gfx1030 gfx1031 gfx1032 gfx1033
gfx1034 gfx1035 gfx1036 gfx11-generic gfx1100 gfx1101 gfx1102 gfx1103 gfx1150
gfx1151 gfx1152 gfx1153 gfx12-generic gfx1200 gfx1201 gfx1250 gfx1251"
OTHER="amdgcnspirv graniterapids bmg_g21 generic"
NEAR="gfx940 gfx941 gfx1154 gfx1170 gfx1172 gfx1310 gfx12-5-generic gfx10-2-generic
gfx9 gfx gfx9000 gfx90A GFX906 Gfx906 gfx0906 gfx906a gfx1250a sm_90f sm_100f
sm_89a sm_10 sm_9 sm_090 sm_32_ sm_22 SM_90 sm90 sm_ sm_121b compute_70
compute_amdgcn pvc lnl_m bmg_g21a graniterapid GRANITERAPIDS amdgcnspirv64
spirv Generic generic-hsa r600 rv770 cypress tahiti carrizo fiji gfx906_
-gfx906 unknown unused x86-64 native"

for p in $KNOWN $GFX $OTHER $NEAR; do known "$p"; done
known ""
known "gfx906 "
known " gfx906"

T=amdgcn-amd-amdhsa
# Every gfx processor: which features it accepts, and whether the AMDGCN
# target parser knows it at all (P vs P: parses only if it does).
for p in $GFX; do
	compat $T "$p" "$p:"
	compat $T "$p" "$p:xnack+"
	compat $T "$p" "$p:xnack-"
	compat $T "$p" "$p:sramecc+"
	compat $T "$p" "$p:sramecc-:xnack+"
	compat $T "$p:xnack+" "$p:sramecc+:xnack+"
	compat $T "$p:sramecc-" "$p:sramecc-"
done
# Non-AMDGCN offload archs under an amdgcn triple never parse.
for p in $OTHER sm_70 sm_90a; do
	compat $T "$p" "$p:"
	compat $T "$p:" "$p"
done
# Full matrices over feature combinations for processors that accept both
# features, xnack only, and neither.
FEATS=": :xnack+ :xnack- :sramecc+ :sramecc- :sramecc+:xnack+ :sramecc+:xnack- :sramecc-:xnack+ :sramecc-:xnack- :xnack+:sramecc+ :xnack-:sramecc-"
for p in gfx906 gfx90a gfx942 gfx9-4-generic gfx900 gfx10-1-generic gfx1030 gfx1250; do
	for e in "" $FEATS; do
		[ "$e" = : ] && e=
		for r in "" $FEATS; do
			[ "$r" = : ] && r=
			[ "$e" = "$r" ] && continue
			compat $T "$p$e" "$p$r"
		done
	done
done
# Different processors, and unknown processors (the ID is dropped, so two
# unknown ones compare equal).
compat $T gfx906 gfx908
compat $T gfx906:xnack+ gfx908:xnack+
compat $T gfx90a gfx9-generic
compat $T gfx9-generic gfx900
compat $T gfx942 gfx9-4-generic
compat $T gfx940 gfx941
compat $T gfx940 gfx940:xnack+
compat $T gfx940 gfx906
compat $T gfx906 gfx940
compat $T tahiti gfx600
compat $T tahiti carrizo
compat $T gfx1154 gfx1154
compat $T "" gfx906
compat $T gfx906 ""
compat $T GFX906 gfx906
# Malformed entries (requests can't be: the bundler's conflict check on the
# requested targets would crash first).
for e in gfx906:xnack gfx906:xnack+: gfx906:xnack+:: gfx906::xnack+ \
	gfx906:xnack+:xnack+ gfx906:xnack+:xnack- gfx906:+ gfx906:- gfx906:foo+ \
	gfx906:XNACK+ gfx906:xnack+x gfx906:sramecc+:xnack+:sramecc- :xnack+ \
	gfx906:xnack+:sramecc gfx906:sramecc+:xnack+: gfx906:xnack+: gfx900:sramecc+; do
	compat $T "$e" gfx906:sramecc+:xnack+
	compat $T "$e" gfx906
done
compat $T gfx906 gfx906:xnack+:
compat $T gfx906:xnack+ gfx906:xnack+:
compat $T gfx906:xnack+ gfx906:sramecc+:xnack+:
compat $T gfx906:xnack- gfx906:xnack+:
compat $T gfx906:sramecc+:xnack+ gfx906:xnack+:sramecc+

# NVPTX and other non-AMDGPU triples accept no features at all.
for T in nvptx64-nvidia-cuda nvptx-nvidia-cuda; do
	for p in sm_70 sm_90a sm_121a gfx906; do
		compat $T "$p" "$p:"
		compat $T "$p" "$p:xnack+"
		compat $T "$p" "$p:sramecc-"
		compat $T "$p:" "$p"
		compat $T "$p:xnack+" "$p:xnack+:"
		compat $T "$p:foo+" "$p:foo+:"
	done
	compat $T sm_70 sm_75
	compat $T sm_90 sm_90a
	compat $T sm_90f sm_91
	compat $T sm_90 sm_90f
done
compat spirv64-amd-amdhsa amdgcnspirv amdgcnspirv:
compat spirv64-amd-amdhsa amdgcnspirv amdgcnspirv:xnack+
compat spirv64-amd-amdhsa amdgcnspirv:xnack+ amdgcnspirv:xnack+:
compat x86_64-unknown-linux-gnu gfx906 gfx906:
compat x86_64-unknown-linux-gnu gfx906 gfx906:xnack+
compat x86_64-unknown-linux-gnu graniterapids graniterapids:
compat x86_64-unknown-linux-gnu graniterapids graniterapids:xnack+

# Conflicts: all pairs from a pool, then some larger sets.
POOL="gfx906 gfx906:xnack+ gfx906:xnack- gfx906:sramecc+ gfx906:sramecc-
gfx906:sramecc+:xnack+ gfx906:sramecc-:xnack- gfx906:xnack+:sramecc+
gfx906:foo+ gfx906: gfx906:+ gfx90a gfx90a:xnack+ gfx940 gfx941:xnack+
sm_70:xnack+ gfx9-generic:xnack-"
set -f
P=($POOL)
set +f
for ((i = 0; i < ${#P[@]}; i++)); do
	for ((j = i + 1; j < ${#P[@]}; j++)); do
		conflict "${P[i]}" "${P[j]}"
	done
done
for id in $POOL; do conflict "$id"; done
conflict gfx906 gfx906:xnack+ gfx906:xnack-
conflict gfx906:xnack+ gfx906:xnack- gfx906:sramecc+
conflict gfx906:sramecc+:xnack+ gfx906:xnack- gfx906:sramecc-
conflict gfx906:sramecc+:xnack+ gfx906:xnack- gfx906
conflict gfx906:xnack+ gfx906:xnack- gfx90a gfx90a:sramecc+
conflict gfx90a gfx906 gfx908 gfx90a:xnack+ gfx906:xnack+
conflict gfx940 gfx941 gfx1154
conflict gfx940:xnack+ gfx906
conflict gfx906:xnack+:sramecc- gfx906:sramecc+:xnack-
conflict gfx906:foo+ gfx906:bar- gfx906
conflict gfx906:+ gfx906:-
conflict gfx906: gfx906:xnack+:
conflict gfx906:xnack+: gfx906:
# Malformed IDs: LLVM dereferences an empty optional.  Measured: it then sees
# the processor of the last ID that parsed, with the features recorded before
# the error; if no ID parsed yet, it crashes.
conflict gfx906:xnack
conflict gfx906::xnack+
conflict gfx906:xnack+:xnack-
conflict gfx906:xnack+:: gfx900
conflict gfx906 gfx906:sramecc+ gfx906:xnack
conflict gfx906:sramecc+ gfx906:xnack
conflict gfx900 gfx906:xnack
conflict gfx906:xnack gfx906:xnack+
conflict gfx1030 gfx1030:sramecc+ gfx1030:xnack+:xnack+
conflict gfx1030:xnack+:xnack+ gfx1030 gfx1030:sramecc+
conflict gfx900 gfx906:xnack+:xnack-
conflict gfx900:xnack+ gfx906:xnack+:foo
conflict gfx900 gfx906:xnack gfx906:xnack+:foo
conflict gfx940 gfx906:xnack+:foo
conflict gfx940 gfx906:xnack
conflict gfx906 gfx906:sramecc+:xnack
conflict gfx906 gfx906:sramecc+:sramecc+
conflict gfx906:xnack+ gfx906:xnack+:sramecc
conflict gfx906:xnack+ gfx906:xnack+:xnack+
conflict gfx900 gfx906::xnack+
conflict gfx900 gfx906:+:+
conflict gfx1030 gfx906:xnack+:xnack gfx906:sramecc+
conflict gfx1030 gfx906:xnack gfx906:sramecc+
conflict gfx1030 gfx906:sramecc+:xnack gfx906:sramecc+
conflict gfx1030 gfx1030:xnack gfx906:sramecc+
conflict gfx1030 gfx906::x gfx906:sramecc+
conflict gfx1030:xnack+ gfx906::x gfx906:sramecc+
conflict gfx906:xnack+ gfx906:xnack- gfx906:xnack-:xnack
conflict gfx906:xnack+ gfx906:xnack- gfx906:xnack-:sramecc+:x
conflict gfx900 gfx906:xnack gfx906:xnack+:foo gfx906:sramecc+
conflict gfx900:xnack gfx906
conflict gfx906:+:+
conflict gfx906:sramecc+:xnack gfx906:xnack+
conflict gfx90a gfx90a:xnack gfx906
conflict gfx90a:sramecc+ gfx90a:sramecc+:xnack
conflict gfx90a:sramecc+ gfx90a:xnack+:sramecc
conflict gfx801 gfx906:xnack-:xnack- gfx906:xnack+
conflict sm_70 sm_70:xnack sm_80:foo+
