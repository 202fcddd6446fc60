# archives.sh: extraction from archives, for the goldens arch-<name>.txt
# (sourced by regen.sh, which runs LLVM 22 on each case, and by
# test/packager.test, which runs ours and compares).
#   archive_inputs PACKAGER GOLDEN_DIR
#                             make the inputs in the current directory
#   archive_cases             name|command lines, run in an empty run/
#                             beside the inputs, $P the packager
#   archive_record NAME CMD   run one, print what the golden holds: the
#                             messages (program path as its name), the
#                             status, then each file made (size, md5)
# A GNU archive by hand: short member names only ("name/"), dates, owners
# 0, mode 644; "!<thin>" and no data with -T.
mkar() {
	magic='!<arch>' thin=
	if [ "$1" = -T ]; then
		magic='!<thin>' thin=1
		shift
	fi
	out=$1
	shift
	printf '%s\n' "$magic" > "$out"
	for f in "$@"; do
		size=$(wc -c < "$f")
		printf '%-16s%-12s%-6s%-6s%-8s%-10s`\n' "${f##*/}/" 0 0 0 644 \
			"$size" >> "$out"
		[ -n "$thin" ] && continue
		cat "$f" >> "$out"
		[ $((size % 2)) -eq 0 ] || printf '\n' >> "$out"
	done
}

archive_inputs() {
	ar_dir=$2/../ar
	pkg_dir=$2/../../files/package
	# Device code with symbols: AMDGPU bitcode and an AMDGPU object.
	"$1" -o gpu.bin \
		--image=file="$ar_dir/gpu-gfx90a.bc",triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=openmp \
		--image=file="$ar_dir/gpu-gfx90a.o",triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip
	cp "$2/two.bin" "$2/kinds.bin" .
	cp "$pkg_dir/offload-be.o" "$pkg_dir/embed-i8.bc" .
	mkar lib.a gpu.bin offload-be.o two.bin embed-i8.bc
	mkar -T thin.a gpu.bin two.bin
	mkar nest.a kinds.bin lib.a
}

archive_cases() {
	cat <<'CASES'
gen|$P ../lib.a --image=triple=amdgcn-amd-amdhsa --image=arch=sm_90 --image=kind=cuda
file|$P ../lib.a --image=file=last.o,arch=gfx90a
all|$P ../lib.a --image=file=all.a --archive
some|$P ../lib.a --image=file=gfx.a,arch=gfx90a --archive --image=file=no.a,arch=none --archive
thin|$P ../thin.a --image=file=t.a --archive
thin-gen|$P ../thin.a --image=kind=cuda --image=arch=gfx90a
nest|$P ../nest.a --image=file=n.a --archive
nest-gen|$P ../nest.a --image=triple= --image=kind=openmp
path|$P ../two.bin --image=file=p.a --archive
dash|$P ../gpu.bin --image=file=-,kind=hip --archive
CASES
}

archive_record() {
	(
		mkdir run && cd run || exit 1
		P=$2
		if eval "$3" 2> ../err; then rc=0; else rc=$?; fi
		echo "rc $rc"
		sed "s|^$2:|llvm-offload-binary:|" ../err
		for f in $(ls -A | sort); do
			printf '%s %s %s\n' "$f" $(wc -c < "$f") \
				$(md5sum < "$f" | cut -c1-32)
		done
	)
	rm -rf run err
}
