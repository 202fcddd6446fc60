#!/bin/sh
# nvroot.sh: make (once) and print the directory holding NVIDIA's CUDA 11.8
# tools as Debian 12 ships them in non-free (nvidia-cuda-toolkit:
# cuobjdump, nvprune, nvcc, ptxas; the headers, libcudadevrt.a and the
# stubs of nvidia-cuda-dev; libcudart11.0 and libnppc11), the reference of
# the live NVIDIA cases of the cuobjdump, nvres, prune and shrink suites
# (issue 35).  Fetched with a private apt configuration (apt-get download,
# dpkg -x), kept in $OFFLOAD_TEST_CACHE (default /var/cache/offload-test)
# as nvidia-cuda-11.8, never installed and never committed; .ci/run makes
# it, the tests only look (test/lib.sh: nv_tool).
#   nvroot.sh --path   print where it would be, make nothing
# nvcc is made to run from there: Debian's /usr/bin/nvcc and nvcc.profile
# name /usr/lib/nvidia-cuda-toolkit and /usr/include, so both are written
# again relative to the directory (nvcc's $(_HERE_)).  The packages come
# from this machine's own Debian mirror, read from its apt sources, as
# test/refroot.sh does.
set -eu
path_only=
if [ "${1:-}" = --path ]; then
	path_only=1
	shift
fi
v=${1:?usage: nvroot.sh [--path] 11.8|12.4}
case $v in
11.8) suite=bookworm pkgs="nvidia-cuda-toolkit nvidia-cuda-dev libcudart11.0 libnppc11" ;;
12.4) suite=trixie pkgs=nvidia-cuda-toolkit ;;
*) echo "nvroot.sh: no CUDA $v here (11.8 or 12.4)" >&2; exit 1 ;;
esac
cache=${OFFLOAD_TEST_CACHE:-/var/cache/offload-test}
dir=$cache/nvidia-cuda-$v
if [ -n "$path_only" ]; then
	echo "$dir"
	exit 0
fi
if [ -x "$dir/usr/bin/cuobjdump" ]; then
	echo "$dir"
	exit 0
fi
mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
	/etc/apt/sources.list.d/*.sources 2>/dev/null |
	awk '/^deb[ \t]/ && $2 ~ /\/debian\/?$/ { print $2; exit }
	     /^URIs:/ && $2 ~ /\/debian\/?$/ { print $2; exit }')
[ -n "$mirror" ] || { echo "nvroot.sh: no Debian mirror in the apt sources" >&2; exit 1; }

work=$dir.tmp
rm -rf "$work"
mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial" "$work/debs" "$work/root"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main non-free" \
	>"$work/apt/sources.list"
set -- -o Dir::Etc::sourcelist="$work/apt/sources.list" -o Dir::Etc::sourceparts=/dev/null \
	-o Dir::State::Lists="$work/apt/lists" -o Dir::Cache="$work/apt/cache" \
	-o Acquire::Check-Valid-Until=false -o APT::Sandbox::User=root -q
apt-get "$@" update >&2
(cd "$work/debs" && apt-get "$@" download $pkgs >&2)
for deb in "$work"/debs/*.deb; do
	case $deb in
	*/nvidia-cuda-dev_*)
		# 2.8 GB unpacked: only what nvcc and the suites use.
		dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$work/root" --wildcards \
			'./usr/include/*' './usr/lib/x86_64-linux-gnu/stubs/*' \
			'./usr/lib/x86_64-linux-gnu/libcudadevrt.a' \
			'./usr/lib/x86_64-linux-gnu/libcudart_static.a' \
			'./usr/lib/x86_64-linux-gnu/libcudart.so' ;;
	*)	dpkg -x "$deb" "$work/root" ;;
	esac
done
bin=$work/root/usr/lib/nvidia-cuda-toolkit/bin
rm -f "$bin/nvcc.profile" "$work/root/usr/bin/nvcc"
cat >"$bin/nvcc.profile" <<'EOF'
NVVMIR_LIBRARY_DIR = $(_HERE_)/../libdevice
PATH		+= $(_HERE_):$(_HERE_)/../../../bin:
INCLUDES	+= "-I$(_HERE_)/../../../include" $(_SPACE_)
LIBRARIES	=+ $(_SPACE_) "-L$(_HERE_)/../../x86_64-linux-gnu/stubs" "-L$(_HERE_)/../../x86_64-linux-gnu"
EOF
cat >"$work/root/usr/bin/nvcc" <<'EOF'
#!/bin/sh
exec "$(dirname "$0")/../lib/nvidia-cuda-toolkit/bin/nvcc" "$@"
EOF
chmod +x "$work/root/usr/bin/nvcc"
mv "$work/root" "$dir"
rm -rf "$work"
echo "$dir"
