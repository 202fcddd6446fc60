#!/usr/bin/env bash
# Regenerate golden.tsv by running LLVM 22's clang-offload-bundler on a
# generated list of 4-component triples.
#
#   <triple>\t<standardised host bundle ID | ERROR | FATAL>
#   compat\t<a>\t<b>\t<1 if a bundle for a is found when asking for b>
#
# ERROR: the bundler rejects the triple ("unknown target triple").
# FATAL: LLVM aborts ("LLVM ERROR: ...", e.g. an unsupported shader model).
set -euo pipefail

BUNDLER=${BUNDLER:-/usr/lib/llvm-22/bin/clang-offload-bundler}
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/golden.tsv}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$BUNDLER" --version | grep 'version 22\.' >/dev/null ||
	{ echo "regen.sh: $BUNDLER is not LLVM 22" >&2; exit 1; }

# ---- name pools ----

arches=(
	i386 i486 i586 i686 i786 i886 i986 amd64 x86_64 x86_64h
	powerpc powerpcspe ppc ppc32 powerpcle ppcle ppc32le powerpc64 ppu
	ppc64 powerpc64le ppc64le xscale xscaleeb aarch64 aarch64_be
	aarch64_32 aarch64_lfi arc arm64 arm64_32 arm64e arm64ec arm armeb
	thumb thumbeb avr m68k msp430 mips mipseb mipsallegrex mipsisa32r6
	mipsr6 mipsel mipsallegrexel mipsisa32r6el mipsr6el mips64 mips64eb
	mipsn32 mipsisa64r6 mips64r6 mipsn32r6 mips64el mipsn32el
	mipsisa64r6el mips64r6el mipsn32r6el r600 amdgcn riscv32 riscv64
	riscv32be riscv64be hexagon s390x systemz sparc sparcel sparcv9
	sparc64 tce tcele xcore nvptx nvptx64 amdil amdil64 hsail hsail64
	spir spir64 spirv spirv1.5 spirv1.6 spirv32 spirv32v1.0 spirv32v1.4
	spirv32v1.6 spirv64 spirv64v1.1 spirv64v1.5 spirv64v1.6 kalimba
	kalimba3 kalimba5 kalimbafoo lanai renderscript32 renderscript64
	shave ve wasm32 wasm64 csky loongarch32 loongarch64 dxil dxilv1.0
	dxilv1.3 dxilv1.8 dxilv1.9 xtensa bpf bpfel bpfeb bpf_le bpf_be
	# ARM spellings, parsed by the ARM target parser
	armv4 armv4t armv5 armv5t armv5te armv5tej armv6 armv6j armv6k
	armv6kz armv6t2 armv6m armv6sm armv7 armv7a armv7l armv7hl armv7r
	armv7m armv7em armv7s armv7k armv7ve armv8 armv8a armv8l armv8r
	armv8.1a armv8.5a armv8.9a armv9 armv9a armv9.4a armv9.6a armv9.7a
	armv8m.base armv8m.main armv8.1m.main armebv7 armv7eb armebv6m
	thumbv4t thumbv6m thumbv7 thumbv7em thumbv8m.main thumbebv7
	thumbv7eb aarch64v8 aarch64_bev8 arm64v8 arm64eb armv2 armv3 arm6
	armk armt arme armv
	# not architectures in LLVM 22
	thumbv2 thumbv3 armve armv7ebeb aarch64eb amdgpu x86 x86-64
	x86_64_lfi tcele64 sh pe i086 spirv1.0 spirv32v1.7 dxilv2.0 bpfx
	foo unknown none linux X86_64 AMD64 Arm ARMV7 NVPTX64 ''
)

vendors=(
	apple pc scei sie fsl ibm img mti nvidia csr amd mesa suse oe intel
	meta w64 unknown none foo Apple PC AMD ''
)

oses=(
	darwin darwin21.1 dragonfly freebsd freebsd14.0 fuchsia ios ios17.0
	kfreebsd linux lv2 macosx macosx10.15 macos macos14 managarm netbsd
	openbsd solaris uefi windows win32 zos haiku rtems aix aix7.2 cuda
	nvcl amdhsa amdhsa5 ps4 ps5 elfiamcu tvos watchos bridgeos driverkit
	xros visionos mesa3d amdpal hermit hurd wasi wasip1 wasip2 wasip3
	wasip4 emscripten shadermodel shadermodel6.3 liteos serenity vulkan
	vulkan1.3 cheriotrtos
	# special or unknown
	mingw32 mingw cygwin msys msys2 none unknown nacl opencl firmware
	qurt Linux WINDOWS foo ''
)

envs=(
	eabihf eabi gnuabin32 gnuabi64 gnueabihft64 gnueabihf gnueabit64
	gnueabi gnuf32 gnuf64 gnusf gnux32 gnu_ilp32 code16 gnut64 gnu
	android android21 androideabi androideabi16 muslabin32 muslabi64
	musleabihf musleabi muslf32 muslsf muslx32 muslwali musl msvc
	itanium cygnus coreclr simulator macabi pixel vertex geometry hull
	domain compute library raygeneration intersection anyhit closesthit
	miss callable mesh amplification rootsignature opencl ohos pauthtest
	llvm mlibc mtia
	# object formats and odd spellings
	elf coff xcoff macho wasm goff spirv dxcontainer gnuelf msvccoff
	eabielf muslmacho unknown none foo GNU Gnu ''
)

# ---- inputs ----

gen_inputs() {
	local a v o e

	for a in "${arches[@]}"; do
		echo "$a-unknown-linux-gnu"
	done
	for a in amdgcn x86_64 nvptx64 spirv64 foo; do
		echo "$a-amd-amdhsa-"
		echo "$a-amd-amdhsa-gnu"
		echo "$a--amdhsa-elf"
	done
	for v in "${vendors[@]}"; do
		echo "x86_64-$v-linux-gnu"
		echo "x86_64-linux-$v-gnu"
		echo "x86_64-gnu-linux-$v"
		echo "armv7-$v-none-eabi"
	done
	for o in "${oses[@]}"; do
		echo "x86_64-pc-$o-"
		echo "x86_64-$o-pc-gnu"
		echo "aarch64-$o--musl"
		echo "$o-x86_64-pc-"
	done
	for e in "${envs[@]}"; do
		echo "x86_64-pc-linux-$e"
		echo "x86_64-$e-pc-linux"
		echo "armv7-$e-none-"
		echo "i686-w64-windows-$e"
	done

	# Special cases of normalize and of the bundler.
	cat <<-'EOF'
	x86_64--linux-gnu
	linux-x86_64-gnu-unknown
	amd64-pc-linux-
	i686-w64-mingw32-
	i686-pc-cygwin-
	x86_64-pc-msys-
	x86_64-w64-mingw32-elf
	x86_64-pc-cygwin-macho
	x86_64-pc-windows-
	x86_64-pc-windows-gnu
	x86_64-pc-windows-elf
	x86_64-pc-windows-coff
	x86_64-pc-windows-macho
	x86_64-pc-win32-msvc
	x86_64-windows--
	windows-x86_64--
	x86_64-pc-windows-gnuelf
	x86_64-pc-windows-msvcelf
	armv7-none-linux-gnueabi
	arm-none-eabi-
	arm--none-eabi
	armv7-none--eabi
	thumbv7em-none--eabihf
	aarch64-none-elf-
	armv7-suse-linux-gnueabi
	armv7-suse-linux-gnueabihf
	aarch64-suse-linux-gnueabi
	armv7-linux-androideabi-
	armv7-linux-androideabi21-
	aarch64-linux-android-
	aarch64-unknown-linux-androideabi
	dxil-unknown-shadermodel6.0-library
	dxil-unknown-shadermodel6.3-library
	dxil-unknown-shadermodel6.9-compute
	dxil-unknown-shadermodel6.x-pixel
	dxil-unknown-shadermodel6-vertex
	dxil-unknown-shadermodel5.1-library
	dxil-unknown-shadermodel6.3.1-library
	dxil-unknown-shadermodel6.10-library
	dxil-unknown-shadermodel7.0-library
	dxil-unknown-shadermodel6.2147483653-library
	dxil-unknown-shadermodel-library
	dxilv1.3-unknown-shadermodel6.3-library
	dxil--shadermodel6.1-
	dxil-shadermodel6.2-unknown-hull
	spirv-unknown-vulkan1.3-compute
	spirv1.6-unknown-vulkan1.3-compute
	spirv64-amd-amdhsa-
	nvptx64-nvidia-cuda-
	nvptx-nvidia-cuda-
	nvptx64-unknown-unknown-
	amdgcn-amd-amdpal-
	amdgcn-amd-mesa3d-
	r600-amd-amdhsa-
	x86_64-unknown-unknown-unknown
	x86_64---
	---
	-pc--
	--linux-
	---gnu
	pc-x86_64--
	gnu-linux-pc-x86_64
	linux-gnu-x86_64-pc
	apple-macosx-x86_64-
	x86_64-apple-macosx10.15-
	arm64-apple-ios17.0-simulator
	arm64-apple-macosx-macabi
	x86_64-apple-darwin-macho
	x86_64-apple-darwin-elf
	powerpc-ibm-aix-
	powerpc64-ibm-aix7.2-
	s390x-ibm-zos-
	mipsel-unknown-windows-
	mipsel--windows-gnu
	x86_64-unknown-uefi-
	wasm32-unknown-wasi-
	wasm32-wasip1--
	wasm32-unknown-emscripten-
	riscv64-unknown-linux-gnu
	riscv64-linux-gnu-unknown
	x86_64-linux-gnu-
	x86_64-gnu-linux-
	x86_64-linux-pc-gnu
	i386-pc-elfiamcu-
	x86_64-scei-ps4-
	x86_64-sie-ps5-
	mips-mti-linux-gnu
	mipsisa64r6el-unknown-linux-gnuabi64
	mipsn32el-linux-gnuabin32-
	powerpcspe-unknown-linux-gnuspe
	xscale-unknown-linux-gnueabi
	kalimba3-csr-unknown-
	bpf-unknown-none-
	x86_64-pc-linux-gnu
	X86_64-pc-linux-gnu
	x86_64-PC-Linux-GNU
	x86_64-pc-LINUX-gnu
	x86_64-Pc-linux-Gnu
	x86_64-pc-linux-GNU
	EOF

	# A deterministic mixed bag: every position gets words of every kind.
	awk -v A="${arches[*]}" -v V="${vendors[*]}" -v O="${oses[*]}" \
	    -v E="${envs[*]}" 'BEGIN {
		na = split(A, a, " "); nv = split(V, v, " ")
		no = split(O, o, " "); ne = split(E, e, " ")
		srand(22)
		for (i = 0; i < 400; i++) {
			for (k = 0; k < 4; k++) {
				r = int(rand() * 5)
				if (r == 0) w[k] = a[1 + int(rand() * na)]
				else if (r == 1) w[k] = v[1 + int(rand() * nv)]
				else if (r == 2) w[k] = o[1 + int(rand() * no)]
				else if (r == 3) w[k] = e[1 + int(rand() * ne)]
				else w[k] = ""
			}
			# Mostly keep a real arch somewhere so that the
			# bundler gets to normalize.
			if (rand() < 0.75) {
				k = int(rand() * 4)
				w[k] = a[1 + int(rand() * 150)]
			}
			print w[0] "-" w[1] "-" w[2] "-" w[3]
		}
	}'
}

# ---- compatibility pairs (a: bundled, b: requested) ----

gen_pairs() {
	cat <<-'EOF'
	x86_64-pc-linux-gnu	x86_64-pc-linux-gnu
	x86_64-pc-linux-gnu	amd64-pc-linux-gnu
	amd64-pc-linux-gnu	x86_64-pc-linux-gnu
	x86_64-pc-linux-gnu	x86_64h-pc-linux-gnu
	x86_64-pc-linux-gnu	x86_64-unknown-linux-gnu
	x86_64-pc-linux-gnu	x86_64--linux-gnu
	x86_64-pc-linux-gnu	x86_64-pc-linux-musl
	x86_64-pc-linux-gnu	x86_64-pc-linux-
	x86_64-pc-linux-gnu	x86_64-pc-linux5.10-gnu
	x86_64-pc-linux-gnu	x86_64-pc-linux-gnu2.17
	x86_64-pc-linux-gnu	x86_64-pc-linux-gnuelf
	x86_64-pc-linux-gnuelf	x86_64-pc-linux-gnu
	x86_64-pc-linux-gnucoff	x86_64-pc-linux-gnu
	x86_64-pc-linux-gnu	x86_64-pc-linux-gnucoff
	x86_64-pc-linux-gnucoff	x86_64-pc-linux-gnuxcoff
	x86_64-pc-linux-elf	x86_64-pc-linux-
	x86_64-pc-linux-elf	x86_64-pc-linux-gnu
	x86_64-pc-linux-gnu	x86_64-linux-gnu-
	x86_64-pc-linux-gnu	x86_64-linux-pc-gnu
	x86_64-pc-linux-gnu	i686-pc-linux-gnu
	i386-pc-linux-gnu	i686-pc-linux-gnu
	i686-pc-linux-gnu	i986-pc-linux-gnu
	x86_64-pc-windows-gnu	x86_64-w64-windows-gnu
	x86_64-w64-windows-gnu	x86_64-pc-windows-gnu
	x86_64-w64-mingw32-	x86_64-pc-windows-gnu
	x86_64-pc-windows-gnu	x86_64-w64-mingw32-
	x86_64-pc-windows-msvc	x86_64-w64-windows-msvc
	x86_64-pc-windows-msvc	x86_64-pc-win32-msvc
	x86_64-pc-windows-	x86_64-pc-windows-msvc
	x86_64-pc-windows-elf	x86_64-pc-windows-coff
	x86_64-pc-windows-coff	x86_64-pc-windows-msvc
	x86_64-pc-windows-gnu	x86_64-pc-windows-gnuelf
	x86_64-pc-cygwin-	x86_64-pc-windows-cygnus
	x86_64-pc-msys-	x86_64-pc-cygwin-
	x86_64-apple-windows-gnu	x86_64-pc-windows-msvc
	x86_64-pc-windows-msvc	x86_64-apple-windows-gnu
	x86_64-apple-macosx10.15-	x86_64-apple-macosx11.0-
	x86_64-apple-macosx-	x86_64-apple-darwin-
	x86_64-apple-macosx-	x86_64-apple-macos-
	x86_64-apple-macosx-macabi	x86_64-apple-macosx-
	x86_64-apple-macosx-elf	x86_64-apple-macosx-
	x86_64-apple-ios-simulator	x86_64-apple-ios-
	x86_64-apple-ios-	x86_64-pc-ios-
	x86_64-pc-ios-	x86_64-apple-ios-
	arm64-apple-ios-	aarch64-apple-ios-
	arm64e-apple-ios-	arm64-apple-ios-
	arm64ec-pc-windows-msvc	aarch64-pc-windows-msvc
	aarch64-unknown-linux-gnu	arm64-unknown-linux-gnu
	aarch64-unknown-linux-gnu	aarch64_be-unknown-linux-gnu
	aarch64-unknown-linux-gnu	aarch64_32-unknown-linux-gnu
	aarch64-unknown-linux-gnu	aarch64_lfi-unknown-linux-gnu
	armv7-unknown-linux-gnueabihf	thumbv7-unknown-linux-gnueabihf
	thumbv7-unknown-linux-gnueabihf	armv7-unknown-linux-gnueabihf
	armv7-unknown-linux-gnueabihf	armv7a-unknown-linux-gnueabihf
	armv7-unknown-linux-gnueabihf	armv7l-unknown-linux-gnueabihf
	armv7-unknown-linux-gnueabihf	armv7r-unknown-linux-gnueabihf
	armv7-unknown-linux-gnueabihf	armv7ve-unknown-linux-gnueabihf
	armv7-unknown-linux-gnueabihf	thumbv7-unknown-linux-gnueabi
	armv7-unknown-linux-gnueabihf	thumbv7-pc-linux-gnueabihf
	armv7-unknown-linux-gnueabihf	thumbv7-unknown-linux-gnueabihfelf
	armv6-unknown-linux-gnueabihf	thumbv6-unknown-linux-gnueabihf
	armv6-unknown-linux-gnueabihf	armv6j-unknown-linux-gnueabihf
	armv6-unknown-linux-gnueabihf	armv6k-unknown-linux-gnueabihf
	armv6k-unknown-linux-gnueabihf	armv6kz-unknown-linux-gnueabihf
	armv6m-none-unknown-eabi	thumbv6m-none-unknown-eabi
	armv7em-none-unknown-eabi	thumbv7em-none-unknown-eabi
	armebv7-unknown-linux-gnueabi	thumbebv7-unknown-linux-gnueabi
	thumbebv7-unknown-linux-gnueabi	armebv7-unknown-linux-gnueabi
	armv7eb-unknown-linux-gnueabi	armebv7-unknown-linux-gnueabi
	armebv7-unknown-linux-gnueabi	thumbv7-unknown-linux-gnueabi
	armv7-apple-ios-	thumbv7-apple-ios-
	armv7-apple-ios-	thumbv7-apple-ios-simulator
	thumbv7-apple-ios-macho	armv7-apple-ios-elf
	armv7-apple-ios-	thumbv7-pc-ios-
	thumbv7-pc-ios-	armv7-apple-ios-
	armv7s-apple-ios-	thumbv7s-apple-ios-
	armv7s-apple-ios-	armv7-apple-ios-
	armv7k-apple-watchos-	armv7-apple-watchos-
	armv7-w64-windows-gnu	thumbv7-pc-windows-gnu
	thumbv7-pc-windows-gnu	armv7-w64-windows-gnu
	arm-unknown-linux-gnueabi	armv4-unknown-linux-gnueabi
	arm-unknown-linux-gnueabi	armv4t-unknown-linux-gnueabi
	arm-unknown-linux-gnueabi	armv9.7a-unknown-linux-gnueabi
	armv9.7a-unknown-linux-gnueabi	armv9.6a-unknown-linux-gnueabi
	armv5-unknown-linux-gnueabi	armv5t-unknown-linux-gnueabi
	armv5e-unknown-linux-gnueabi	armv5tej-unknown-linux-gnueabi
	xscale-unknown-linux-gnueabi	armv5te-unknown-linux-gnueabi
	armv8-unknown-linux-gnueabihf	armv8a-unknown-linux-gnueabihf
	armv8-unknown-linux-gnueabihf	armv8.1a-unknown-linux-gnueabihf
	arm6-unknown-linux-gnueabi	armv6-unknown-linux-gnueabi
	armk-unknown-linux-gnueabi	armv6k-unknown-linux-gnueabi
	mips-unknown-linux-gnu	mipseb-unknown-linux-gnu
	mips-unknown-linux-gnu	mipsr6-unknown-linux-gnu
	mipsisa32r6-unknown-linux-gnu	mipsr6-unknown-linux-gnu
	mips64el-unknown-linux-gnuabi64	mipsn32el-unknown-linux-gnuabi64
	mips64-unknown-linux-gnuabi64	mips64-unknown-linux-gnuabin32
	powerpc-unknown-linux-gnu	powerpcspe-unknown-linux-gnu
	powerpc-unknown-linux-gnu	ppc32-unknown-linux-gnu
	powerpc64le-unknown-linux-gnu	ppc64le-unknown-linux-gnu
	powerpc64-ibm-aix-	powerpc64-ibm-aix7.2-
	powerpc64-ibm-aix-	powerpc64-ibm-aix-xcoff
	powerpc64-ibm-aix-	powerpc64-ibm-aix-elf
	s390x-ibm-zos-	systemz-ibm-zos-
	s390x-ibm-zos-	s390x-ibm-zos-goff
	s390x-ibm-linux-	s390x-ibm-zos-
	sparcv9-sun-solaris-	sparc64-sun-solaris-
	sparc-unknown-linux-gnu	sparcel-unknown-linux-gnu
	riscv64-unknown-linux-gnu	riscv64be-unknown-linux-gnu
	bpf-unknown-none-	bpfel-unknown-none-
	bpf-unknown-none-	bpfeb-unknown-none-
	bpf_le-unknown-none-	bpfel-unknown-none-
	wasm32-unknown-wasi-	wasm32-unknown-wasip1-
	wasm32-unknown-wasip2-	wasm32-unknown-wasip2.1-
	ve-unknown-linux-gnu	ve-unknown-linux-gnu
	kalimba-csr-unknown-	kalimba3-csr-unknown-
	amdgcn-amd-amdhsa-	amdgcn-amd-amdhsa-
	amdgcn-amd-amdhsa-gnu	amdgcn-amd-amdhsa-
	amdgcn-amd-amdhsa-	amdgcn-amd-amdhsa-gnu
	amdgcn-amd-amdhsa-	amdgcn-unknown-amdhsa-
	amdgcn-amd-amdhsa-	amdgcn-amd-amdpal-
	amdgcn-amd-amdhsa-	amdgcn-amd-amdhsa5.0-
	amdgcn-amd-amdhsa-elf	amdgcn-amd-amdhsa-coff
	amdgcn-amd-amdhsa-	r600-amd-amdhsa-
	nvptx64-nvidia-cuda-	nvptx64-nvidia-cuda-
	nvptx64-nvidia-cuda-	nvptx-nvidia-cuda-
	nvptx64-nvidia-cuda-	nvptx64-unknown-cuda-
	nvptx64-nvidia-cuda-	nvptx64-nvidia-nvcl-
	nvptx64-nvidia-cuda-	nvptx64-nvidia-cuda-gnu
	spirv64-amd-amdhsa-	spirv64-amd-amdhsa-
	spirv64-unknown-unknown-	spirv64v1.6-unknown-unknown-
	spirv64v1.5-unknown-unknown-	spirv64v1.6-unknown-unknown-
	spirv-unknown-vulkan1.3-compute	spirv1.6-unknown-vulkan1.3-compute
	dxil-unknown-shadermodel6.3-library	dxilv1.3-unknown-shadermodel6.3-library
	dxil-unknown-shadermodel6.3-library	dxil-unknown-shadermodel6.5-library
	dxil-unknown-shadermodel6.3-library	dxil-unknown-shadermodel6.3-compute
	x86_64-sie-ps5-	x86_64-scei-ps5-
	x86_64-pc-linux-gnu	x86_64-PC-linux-gnu
	x86_64-pc-linux-gnu	x86_64-pc-Linux-gnu
	EOF
}

# ---- run the bundler ----

host_id() {
	local t=$1 o=$tmp/o.ll e=$tmp/err

	rm -f "$o"
	if "$BUNDLER" -type=ll -targets="host-$t" -input=/dev/null \
	    -output="$o" 2>"$e"; then
		sed -n 's/^; __CLANG_OFFLOAD_BUNDLE____START__ //p' "$o"
	elif grep -q 'unknown target triple' "$e"; then
		echo ERROR
	elif grep -q 'LLVM ERROR' "$e"; then
		echo FATAL
	else
		echo "regen.sh: unexpected failure for '$t':" >&2
		cat "$e" >&2
		exit 1
	fi
}

compat() {
	local a=$1 b=$2

	printf H >"$tmp/h"
	printf DEV >"$tmp/d"
	rm -f "$tmp/b" "$tmp/o"
	"$BUNDLER" -type=bc -targets="host-x86_64-unknown-linux-gnu,openmp-$a" \
		-input="$tmp/h" -input="$tmp/d" -output="$tmp/b" ||
		{ echo "regen.sh: cannot bundle '$a'" >&2; exit 1; }
	"$BUNDLER" -type=bc -unbundle -allow-missing-bundles \
		-targets="openmp-$b" -input="$tmp/b" -output="$tmp/o" ||
		{ echo "regen.sh: cannot unbundle '$b'" >&2; exit 1; }
	if [ -s "$tmp/o" ]; then echo 1; else echo 0; fi
}

{
	gen_inputs | awk '!seen[$0]++' | while IFS= read -r t; do
		r=$(host_id "$t") || exit 1
		printf '%s\t%s\n' "$t" "$r"
	done
	gen_pairs | while IFS=$'\t' read -r a b; do
		r=$(compat "$a" "$b") || exit 1
		printf 'compat\t%s\t%s\t%s\n' "$a" "$b" "$r"
	done
} >"$tmp/golden"
mv "$tmp/golden" "$out"
echo "regen.sh: wrote $(wc -l <"$out") cases to $out" >&2
