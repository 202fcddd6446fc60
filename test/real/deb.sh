#!/bin/sh
# deb.sh: offload prune of real Debian packages (issue 41): sid's
# librocsparse1 (rocSPARSE 6.4, librocsparse.so.1.0 with code for ten
# GPUs) kept to gfx90a, and sid contrib's libtorch-cuda-2.6
# (libtorch_cuda.so, 1.18 GB, 94% .nv_fatbin) kept to sm_80.  Checks:
# dpkg-deb --info and --contents read the result; md5sums matches the
# unpacked tree (md5sum -c) and Installed-Size moved by the change
# dpkg-gencontrol's rule gives for the unpacked trees
# (test/package/installed_size.py); dpkg -i installs it into a root of
# its own and dpkg --verify reports nothing; lintian reports no tag the
# original's report lacks; the pruned library lists the kept target
# alone.  Prints the sizes before and after, prune's time
# against the floor (dpkg-deb -b of the pruned tree with the package's
# compressor) and prune's peak resident memory.
#
# Opt-in (make check-real): it needs the packages, which it does not
# download.  Fetch them once, with a private apt configuration, into
#   $DEBS (default /var/cache/offload-test/debs):
#     echo 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian sid main contrib' > L
#     A="-o Dir::Etc::sourcelist=$PWD/L -o Dir::Etc::sourceparts=/dev/null -o Dir::State::Lists=$PWD/lists -o Dir::Cache=$PWD/cache"
#     apt-get $A update && cd $DEBS && apt-get $A download librocsparse1 libtorch-cuda-2.6
# A package not there is skipped.  Never installed on the host, never
# committed.
. "$(dirname "$0")/../lib.sh"
TOP=$(cd "$TOP/.." && pwd)
PATH=$TOP/build/bin:$PATH
export TOP PATH
DEBS=${DEBS:-/var/cache/offload-test/debs}
ISIZE="python3 $TOP/test/package/installed_size.py"
secs() { date +%s.%N; }
took() { echo "$2 $1" | awk '{ printf "%.1f", $1 - $2 }'; }

# one PACKAGE KEEP PATTERN: prune $DEBS/PACKAGE_*.deb --keep KEEP; the
# library matching PATTERN must list KEEP's code alone.
one() {
	deb=$(ls "$DEBS"/"$1"_*_amd64.deb 2>/dev/null | tail -1)
	if [ -z "$deb" ]; then
		echo "SKIP: no $DEBS/$1_*_amd64.deb (see test/real/deb.sh)"
		return
	fi
	scratch
	name=$1 keep=$2 lib=$3
	t0=$(secs)
	/usr/bin/time -f %M -o rss offload prune -q --keep "$keep" "$deb" -o out.deb > prune.txt
	rc=$?
	t1=$(secs)
	testing "$name: pruned to $keep" "echo $rc" "0" "" 0
	testing "$name: dpkg-deb reads it; md5sums matches the unpacked tree" \
		"dpkg-deb --info out.deb >/dev/null && dpkg-deb --contents out.deb >/dev/null && dpkg-deb -R out.deb x && (cd x && md5sum --quiet -c DEBIAN/md5sums) && echo ok" \
		"ok" "" 0
	# The package's own Installed-Size is dpkg-gencontrol's of its build
	# tree, which the unpacked one need not give back to the KiB: the
	# change is what must agree.
	testing "$name: Installed-Size moved by the unpacked trees' change" \
		"dpkg-deb -x \"$deb\" o && echo \$(( \$(dpkg-deb -f \"$deb\" Installed-Size) - \$(dpkg-deb -f out.deb Installed-Size) )) \$(( \$($ISIZE o) - \$($ISIZE x) )) | awk '{ print (\$1 == \$2) ? \"same\" : \$0 }'; rm -rf o" \
		"same" "" 0
	testing "$name: dpkg installs it in a root of its own; dpkg --verify finds nothing" \
		"mkdir -p r/var/lib/dpkg/info r/var/lib/dpkg/updates && touch r/var/lib/dpkg/status && dpkg --root=r --force-not-root --force-script-chrootless --force-depends --log=/dev/null -i out.deb >/dev/null 2>&1; dpkg --root=r --force-not-root --verify $name && echo ok" \
		"ok" "" 0
	testing "$name: the library lists $keep's code alone" \
		"offload du \$(find r -name '$lib' -type f | head -1) | awk '\$NF ~ /^(sm|compute|gfx)/ { print \$NF }' | sort -u | tr '\\n' ' '" \
		"$4" "" 0
	# lintian on the result under the original's name (some tags quote
	# it): every tag line it prints, sorted, is one the original has.
	testing "$name: lintian reports no tag the original has not" \
		"mkdir -p lint && cp out.deb lint/\$(basename \"$deb\") && lintian --tag-display-limit 0 \"$deb\" 2>/dev/null | sort -u > lint-old; lintian --tag-display-limit 0 lint/\$(basename \"$deb\") 2>/dev/null | sort -u > lint-new; comm -13 lint-old lint-new; rm -rf lint" \
		"" "" 0
	# The floor: dpkg-deb -b of the pruned tree with the same compressor.
	z=$(ar t "$deb" | sed -n 's/^data\.tar\.\{0,1\}//p')
	case $z in xz) Z=xz ;; zst) Z=zstd ;; gz) Z=gzip ;; *) Z=none ;; esac
	t2=$(secs)
	dpkg-deb --root-owner-group -Z"$Z" -b x floor.deb >/dev/null 2>&1
	t3=$(secs)
	echo "$name: $(stat -c %s "$deb") -> $(stat -c %s out.deb) bytes (floor: dpkg-deb -b -Z$Z $(stat -c %s floor.deb)); prune $(took "$t0" "$t1") s, dpkg-deb -b $(took "$t2" "$t3") s; peak RSS $(( $(cat rss) / 1024 )) MiB"
	cat prune.txt
}

one librocsparse1 gfx90a 'librocsparse.so.1*' "gfx90a "
one libtorch-cuda-2.6 sm_80 'libtorch_cuda.so*' "sm_80 "
finish
