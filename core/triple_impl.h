/* triple_impl: what triple.c (names and parsing) and triple_normalize.c
 * share; no other file includes it.  The enum values follow LLVM 22's own
 * enum order.  Nothing relies on that; it only makes differential testing
 * against libLLVM easy. */
#ifndef CORE_TRIPLE_IMPL_H
#define CORE_TRIPLE_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "env.h"


#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* A view of part of a string, like llvm::StringRef. */
struct sv {
	const char *p;
	size_t n;
};

static inline struct sv sv_lit(const char *s)
{
	struct sv v = { s, strlen(s) };
	return v;
}

static inline bool sv_eq(struct sv a, const char *b)
{
	size_t n = strlen(b);
	return a.n == n && memcmp(a.p, b, n) == 0;
}

static inline bool sv_starts(struct sv a, const char *b)
{
	size_t n = strlen(b);
	return a.n >= n && memcmp(a.p, b, n) == 0;
}

static inline bool sv_ends(struct sv a, const char *b)
{
	size_t n = strlen(b);
	return a.n >= n && memcmp(a.p + a.n - n, b, n) == 0;
}

static inline bool sv_contains(struct sv a, const char *b)
{
	size_t n = strlen(b);
	for (size_t i = 0; i + n <= a.n; i++)
		if (memcmp(a.p + i, b, n) == 0)
			return true;
	return false;
}

/* StringRef::substr semantics: a start past the end gives an empty view. */
static inline struct sv sv_sub(struct sv a, size_t start, size_t len)
{
	struct sv r;

	if (start > a.n)
		start = a.n;
	r.p = a.p + start;
	r.n = a.n - start < len ? a.n - start : len;
	return r;
}

/* ---- enums, in LLVM 22 order ---- */

enum {
	A_UNKNOWN, A_ARM, A_ARMEB, A_AARCH64, A_AARCH64_BE, A_AARCH64_32,
	A_ARC, A_AVR, A_BPFEL, A_BPFEB, A_CSKY, A_DXIL, A_HEXAGON,
	A_LOONGARCH32, A_LOONGARCH64, A_M68K, A_MIPS, A_MIPSEL, A_MIPS64,
	A_MIPS64EL, A_MSP430, A_PPC, A_PPCLE, A_PPC64, A_PPC64LE, A_R600,
	A_AMDGCN, A_RISCV32, A_RISCV64, A_RISCV32BE, A_RISCV64BE, A_SPARC,
	A_SPARCV9, A_SPARCEL, A_SYSTEMZ, A_TCE, A_TCELE, A_THUMB, A_THUMBEB,
	A_X86, A_X86_64, A_XCORE, A_XTENSA, A_NVPTX, A_NVPTX64, A_AMDIL,
	A_AMDIL64, A_HSAIL, A_HSAIL64, A_SPIR, A_SPIR64, A_SPIRV, A_SPIRV32,
	A_SPIRV64, A_KALIMBA, A_SHAVE, A_LANAI, A_WASM32, A_WASM64,
	A_RENDERSCRIPT32, A_RENDERSCRIPT64, A_VE
};

enum {
	S_NONE,
	S_ARM_V9_7A, S_ARM_V9_6A, S_ARM_V9_5A, S_ARM_V9_4A, S_ARM_V9_3A,
	S_ARM_V9_2A, S_ARM_V9_1A, S_ARM_V9, S_ARM_V8_9A, S_ARM_V8_8A,
	S_ARM_V8_7A, S_ARM_V8_6A, S_ARM_V8_5A, S_ARM_V8_4A, S_ARM_V8_3A,
	S_ARM_V8_2A, S_ARM_V8_1A, S_ARM_V8, S_ARM_V8R, S_ARM_V8M_BASE,
	S_ARM_V8M_MAIN, S_ARM_V8_1M_MAIN, S_ARM_V7, S_ARM_V7EM, S_ARM_V7M,
	S_ARM_V7S, S_ARM_V7K, S_ARM_V7VE, S_ARM_V6, S_ARM_V6M, S_ARM_V6K,
	S_ARM_V6T2, S_ARM_V5, S_ARM_V5TE, S_ARM_V4T,
	S_ARM64E, S_ARM64EC, S_AARCH64_LFI,
	S_KALIMBA_V3, S_KALIMBA_V4, S_KALIMBA_V5,
	S_MIPS_R6, S_PPC_SPE,
	S_SPIRV_V10, /* .. V16 follow */
	S_DXIL_V1_0 = S_SPIRV_V10 + 7, /* .. V1_9 follow */
	/* LLVM 23's amdgpu<suffix> arches: a suffix it does not know has no
	 * sub-architecture, but is not the plain "amdgpu" either (LLVM tells
	 * them apart by the name's length); the known ones follow, in the
	 * order of triple.c's amdgpu_subarchs. */
	S_AMDGPU_ODD = S_DXIL_V1_0 + 10,
	S_AMDGPU_FIRST
};

enum {
	V_UNKNOWN, V_APPLE, V_PC, V_SCEI, V_FREESCALE, V_IBM, V_IMG, V_MTI,
	V_NVIDIA, V_CSR, V_AMD, V_MESA, V_SUSE, V_OE, V_INTEL, V_META
};

enum {
	O_UNKNOWN, O_DARWIN, O_DRAGONFLY, O_FREEBSD, O_FUCHSIA, O_IOS,
	O_KFREEBSD, O_LINUX, O_LV2, O_MACOSX, O_MANAGARM, O_NETBSD, O_OPENBSD,
	O_SOLARIS, O_UEFI, O_WIN32, O_ZOS, O_HAIKU, O_RTEMS, O_AIX, O_CUDA,
	O_NVCL, O_AMDHSA, O_PS4, O_PS5, O_ELFIAMCU, O_TVOS, O_WATCHOS,
	O_BRIDGEOS, O_DRIVERKIT, O_XROS, O_MESA3D, O_AMDPAL, O_HERMIT, O_HURD,
	O_WASI, O_WASIP1, O_WASIP2, O_WASIP3, O_EMSCRIPTEN, O_SHADERMODEL,
	O_LITEOS, O_SERENITY, O_VULKAN, O_CHERIOTRTOS
};

enum {
	E_UNKNOWN, E_GNU, E_GNUT64, E_GNUABIN32, E_GNUABI64, E_GNUEABI,
	E_GNUEABIT64, E_GNUEABIHF, E_GNUEABIHFT64, E_GNUF32, E_GNUF64,
	E_GNUSF, E_GNUX32, E_GNUILP32, E_CODE16, E_EABI, E_EABIHF, E_ANDROID,
	E_MUSL, E_MUSLABIN32, E_MUSLABI64, E_MUSLEABI, E_MUSLEABIHF,
	E_MUSLF32, E_MUSLSF, E_MUSLX32, E_MUSLWALI, E_LLVM, E_MSVC,
	E_ITANIUM, E_CYGNUS, E_CORECLR, E_SIMULATOR, E_MACABI, E_PIXEL,
	E_VERTEX, E_GEOMETRY, E_HULL, E_DOMAIN, E_COMPUTE, E_LIBRARY,
	E_RAYGENERATION, E_INTERSECTION, E_ANYHIT, E_CLOSESTHIT, E_MISS,
	E_CALLABLE, E_MESH, E_AMPLIFICATION, E_ROOTSIGNATURE, E_OPENCL,
	E_OHOS, E_MLIBC, E_PAUTHTEST, E_MTIA
};

enum {
	F_UNKNOWN, F_COFF, F_DXCONTAINER, F_ELF, F_GOFF, F_MACHO, F_SPIRV,
	F_WASM, F_XCOFF
};


/* Each component parsed alone, as Triple.cpp's parse* do: 0 (unknown)
 * when it names nothing. */
int triple_parse_arch(struct sv a, enum llvm_release r);
int triple_parse_vendor(struct sv a);
int triple_parse_os(struct sv a);
int triple_parse_env(struct sv a);
int triple_parse_format(struct sv a);
/* StringRef::split(Out, '-', max): pieces are views into s; the last piece
 * keeps any further dashes once max splits are done (max < 0: no limit).
 * Returns the number of pieces; out must have room for them. */
size_t triple_split_dash(struct sv s, struct sv *out, int max);

#endif
