/* triple: LLVM 22 target triples (llvm::Triple), as the bundler uses them.
 *
 * The enum values below follow LLVM 22's own enum order.  Nothing outside
 * this file relies on that; it only makes differential testing against
 * libLLVM easy. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "triple.h"

/* A view of part of a string, like llvm::StringRef. */
struct sv {
	const char *p;
	size_t n;
};

static struct sv sv_lit(const char *s)
{
	struct sv v = { s, strlen(s) };
	return v;
}

static bool sv_eq(struct sv a, const char *b)
{
	size_t n = strlen(b);
	return a.n == n && memcmp(a.p, b, n) == 0;
}

static bool sv_starts(struct sv a, const char *b)
{
	size_t n = strlen(b);
	return a.n >= n && memcmp(a.p, b, n) == 0;
}

static bool sv_ends(struct sv a, const char *b)
{
	size_t n = strlen(b);
	return a.n >= n && memcmp(a.p + a.n - n, b, n) == 0;
}

static bool sv_contains(struct sv a, const char *b)
{
	size_t n = strlen(b);
	for (size_t i = 0; i + n <= a.n; i++)
		if (memcmp(a.p + i, b, n) == 0)
			return true;
	return false;
}

/* StringRef::substr semantics: a start past the end gives an empty view. */
static struct sv sv_sub(struct sv a, size_t start, size_t len)
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
	S_DXIL_V1_0 = S_SPIRV_V10 + 7 /* .. V1_9 follow */
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

struct name {
	const char *s;
	int v;
};

/* ---- name tables ---- */

/* Architecture names matched exactly (Triple.cpp parseArch). */
static const struct name arch_names[] = {
	{ "i386", A_X86 }, { "i486", A_X86 }, { "i586", A_X86 },
	{ "i686", A_X86 }, { "i786", A_X86 }, { "i886", A_X86 },
	{ "i986", A_X86 },
	{ "amd64", A_X86_64 }, { "x86_64", A_X86_64 }, { "x86_64h", A_X86_64 },
	{ "powerpc", A_PPC }, { "powerpcspe", A_PPC }, { "ppc", A_PPC },
	{ "ppc32", A_PPC },
	{ "powerpcle", A_PPCLE }, { "ppcle", A_PPCLE }, { "ppc32le", A_PPCLE },
	{ "powerpc64", A_PPC64 }, { "ppu", A_PPC64 }, { "ppc64", A_PPC64 },
	{ "powerpc64le", A_PPC64LE }, { "ppc64le", A_PPC64LE },
	{ "xscale", A_ARM }, { "xscaleeb", A_ARMEB },
	{ "aarch64", A_AARCH64 }, { "aarch64_be", A_AARCH64_BE },
	{ "aarch64_32", A_AARCH64_32 }, { "aarch64_lfi", A_AARCH64 },
	{ "arc", A_ARC },
	{ "arm64", A_AARCH64 }, { "arm64_32", A_AARCH64_32 },
	{ "arm64e", A_AARCH64 }, { "arm64ec", A_AARCH64 },
	{ "arm", A_ARM }, { "armeb", A_ARMEB },
	{ "thumb", A_THUMB }, { "thumbeb", A_THUMBEB },
	{ "avr", A_AVR }, { "m68k", A_M68K }, { "msp430", A_MSP430 },
	{ "mips", A_MIPS }, { "mipseb", A_MIPS }, { "mipsallegrex", A_MIPS },
	{ "mipsisa32r6", A_MIPS }, { "mipsr6", A_MIPS },
	{ "mipsel", A_MIPSEL }, { "mipsallegrexel", A_MIPSEL },
	{ "mipsisa32r6el", A_MIPSEL }, { "mipsr6el", A_MIPSEL },
	{ "mips64", A_MIPS64 }, { "mips64eb", A_MIPS64 },
	{ "mipsn32", A_MIPS64 }, { "mipsisa64r6", A_MIPS64 },
	{ "mips64r6", A_MIPS64 }, { "mipsn32r6", A_MIPS64 },
	{ "mips64el", A_MIPS64EL }, { "mipsn32el", A_MIPS64EL },
	{ "mipsisa64r6el", A_MIPS64EL }, { "mips64r6el", A_MIPS64EL },
	{ "mipsn32r6el", A_MIPS64EL },
	{ "r600", A_R600 }, { "amdgcn", A_AMDGCN },
	{ "riscv32", A_RISCV32 }, { "riscv64", A_RISCV64 },
	{ "riscv32be", A_RISCV32BE }, { "riscv64be", A_RISCV64BE },
	{ "hexagon", A_HEXAGON },
	{ "s390x", A_SYSTEMZ }, { "systemz", A_SYSTEMZ },
	{ "sparc", A_SPARC }, { "sparcel", A_SPARCEL },
	{ "sparcv9", A_SPARCV9 }, { "sparc64", A_SPARCV9 },
	{ "tce", A_TCE }, { "tcele", A_TCELE }, { "xcore", A_XCORE },
	{ "nvptx", A_NVPTX }, { "nvptx64", A_NVPTX64 },
	{ "amdil", A_AMDIL }, { "amdil64", A_AMDIL64 },
	{ "hsail", A_HSAIL }, { "hsail64", A_HSAIL64 },
	{ "spir", A_SPIR }, { "spir64", A_SPIR64 },
	{ "spirv", A_SPIRV }, { "spirv1.5", A_SPIRV }, { "spirv1.6", A_SPIRV },
	{ "spirv32", A_SPIRV32 }, { "spirv32v1.0", A_SPIRV32 },
	{ "spirv32v1.1", A_SPIRV32 }, { "spirv32v1.2", A_SPIRV32 },
	{ "spirv32v1.3", A_SPIRV32 }, { "spirv32v1.4", A_SPIRV32 },
	{ "spirv32v1.5", A_SPIRV32 }, { "spirv32v1.6", A_SPIRV32 },
	{ "spirv64", A_SPIRV64 }, { "spirv64v1.0", A_SPIRV64 },
	{ "spirv64v1.1", A_SPIRV64 }, { "spirv64v1.2", A_SPIRV64 },
	{ "spirv64v1.3", A_SPIRV64 }, { "spirv64v1.4", A_SPIRV64 },
	{ "spirv64v1.5", A_SPIRV64 }, { "spirv64v1.6", A_SPIRV64 },
	{ "lanai", A_LANAI },
	{ "renderscript32", A_RENDERSCRIPT32 },
	{ "renderscript64", A_RENDERSCRIPT64 },
	{ "shave", A_SHAVE }, { "ve", A_VE },
	{ "wasm32", A_WASM32 }, { "wasm64", A_WASM64 },
	{ "csky", A_CSKY },
	{ "loongarch32", A_LOONGARCH32 }, { "loongarch64", A_LOONGARCH64 },
	{ "dxil", A_DXIL }, { "dxilv1.0", A_DXIL }, { "dxilv1.1", A_DXIL },
	{ "dxilv1.2", A_DXIL }, { "dxilv1.3", A_DXIL }, { "dxilv1.4", A_DXIL },
	{ "dxilv1.5", A_DXIL }, { "dxilv1.6", A_DXIL }, { "dxilv1.7", A_DXIL },
	{ "dxilv1.8", A_DXIL }, { "dxilv1.9", A_DXIL },
	{ "xtensa", A_XTENSA },
};

/* Vendors are matched exactly. */
static const struct name vendor_names[] = {
	{ "apple", V_APPLE }, { "pc", V_PC }, { "scei", V_SCEI },
	{ "sie", V_SCEI }, { "fsl", V_FREESCALE }, { "ibm", V_IBM },
	{ "img", V_IMG }, { "mti", V_MTI }, { "nvidia", V_NVIDIA },
	{ "csr", V_CSR }, { "amd", V_AMD }, { "mesa", V_MESA },
	{ "suse", V_SUSE }, { "oe", V_OE }, { "intel", V_INTEL },
	{ "meta", V_META },
};

/* OS names are prefixes ("linux5.10" is Linux); first match wins, so a
 * name must precede any shorter name it starts with (wasip1 vs wasi). */
static const struct name os_names[] = {
	{ "darwin", O_DARWIN }, { "dragonfly", O_DRAGONFLY },
	{ "freebsd", O_FREEBSD }, { "fuchsia", O_FUCHSIA }, { "ios", O_IOS },
	{ "kfreebsd", O_KFREEBSD }, { "linux", O_LINUX }, { "lv2", O_LV2 },
	{ "macos", O_MACOSX }, { "managarm", O_MANAGARM },
	{ "netbsd", O_NETBSD }, { "openbsd", O_OPENBSD },
	{ "solaris", O_SOLARIS }, { "uefi", O_UEFI }, { "win32", O_WIN32 },
	{ "windows", O_WIN32 }, { "zos", O_ZOS }, { "haiku", O_HAIKU },
	{ "rtems", O_RTEMS }, { "aix", O_AIX }, { "cuda", O_CUDA },
	{ "nvcl", O_NVCL }, { "amdhsa", O_AMDHSA }, { "ps4", O_PS4 },
	{ "ps5", O_PS5 }, { "elfiamcu", O_ELFIAMCU }, { "tvos", O_TVOS },
	{ "watchos", O_WATCHOS }, { "bridgeos", O_BRIDGEOS },
	{ "driverkit", O_DRIVERKIT }, { "xros", O_XROS },
	{ "visionos", O_XROS }, { "mesa3d", O_MESA3D }, { "amdpal", O_AMDPAL },
	{ "hermit", O_HERMIT }, { "hurd", O_HURD }, { "wasip1", O_WASIP1 },
	{ "wasip2", O_WASIP2 }, { "wasip3", O_WASIP3 }, { "wasi", O_WASI },
	{ "emscripten", O_EMSCRIPTEN }, { "shadermodel", O_SHADERMODEL },
	{ "liteos", O_LITEOS }, { "serenity", O_SERENITY },
	{ "vulkan", O_VULKAN }, { "cheriotrtos", O_CHERIOTRTOS },
};

/* Environment names are prefixes too, longest variants first. */
static const struct name env_names[] = {
	{ "eabihf", E_EABIHF }, { "eabi", E_EABI },
	{ "gnuabin32", E_GNUABIN32 }, { "gnuabi64", E_GNUABI64 },
	{ "gnueabihft64", E_GNUEABIHFT64 }, { "gnueabihf", E_GNUEABIHF },
	{ "gnueabit64", E_GNUEABIT64 }, { "gnueabi", E_GNUEABI },
	{ "gnuf32", E_GNUF32 }, { "gnuf64", E_GNUF64 }, { "gnusf", E_GNUSF },
	{ "gnux32", E_GNUX32 }, { "gnu_ilp32", E_GNUILP32 },
	{ "code16", E_CODE16 }, { "gnut64", E_GNUT64 }, { "gnu", E_GNU },
	{ "android", E_ANDROID },
	{ "muslabin32", E_MUSLABIN32 }, { "muslabi64", E_MUSLABI64 },
	{ "musleabihf", E_MUSLEABIHF }, { "musleabi", E_MUSLEABI },
	{ "muslf32", E_MUSLF32 }, { "muslsf", E_MUSLSF },
	{ "muslx32", E_MUSLX32 }, { "muslwali", E_MUSLWALI },
	{ "musl", E_MUSL }, { "msvc", E_MSVC }, { "itanium", E_ITANIUM },
	{ "cygnus", E_CYGNUS }, { "coreclr", E_CORECLR },
	{ "simulator", E_SIMULATOR }, { "macabi", E_MACABI },
	{ "pixel", E_PIXEL }, { "vertex", E_VERTEX },
	{ "geometry", E_GEOMETRY }, { "hull", E_HULL }, { "domain", E_DOMAIN },
	{ "compute", E_COMPUTE }, { "library", E_LIBRARY },
	{ "raygeneration", E_RAYGENERATION },
	{ "intersection", E_INTERSECTION }, { "anyhit", E_ANYHIT },
	{ "closesthit", E_CLOSESTHIT }, { "miss", E_MISS },
	{ "callable", E_CALLABLE }, { "mesh", E_MESH },
	{ "amplification", E_AMPLIFICATION },
	{ "rootsignature", E_ROOTSIGNATURE }, { "opencl", E_OPENCL },
	{ "ohos", E_OHOS }, { "pauthtest", E_PAUTHTEST }, { "llvm", E_LLVM },
	{ "mlibc", E_MLIBC }, { "mtia", E_MTIA },
};

/* Object formats are suffixes of the environment; xcoff before coff. */
static const struct name fmt_names[] = {
	{ "xcoff", F_XCOFF }, { "coff", F_COFF }, { "elf", F_ELF },
	{ "goff", F_GOFF }, { "macho", F_MACHO }, { "wasm", F_WASM },
	{ "spirv", F_SPIRV },
};

/* Canonical format names, indexed by F_*, for normalize's output. */
static const char *const fmt_text[] = {
	"", "coff", "dxcontainer", "elf", "goff", "macho", "spirv", "wasm",
	"xcoff",
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static int find_exact(const struct name *t, size_t n, struct sv s)
{
	for (size_t i = 0; i < n; i++)
		if (sv_eq(s, t[i].s))
			return t[i].v;
	return 0;
}

static int find_prefix(const struct name *t, size_t n, struct sv s)
{
	for (size_t i = 0; i < n; i++)
		if (sv_starts(s, t[i].s))
			return t[i].v;
	return 0;
}

static int find_suffix(const struct name *t, size_t n, struct sv s)
{
	for (size_t i = 0; i < n; i++)
		if (sv_ends(s, t[i].s))
			return t[i].v;
	return 0;
}

/* ---- ARM architecture names (ARMTargetParser) ---- */

enum { PROF_NONE, PROF_A, PROF_R, PROF_M };

/* LLVM's ARM arch list, in its order: lookups take the first entry whose
 * name ends with the wanted spelling, so order decides odd inputs. */
static const struct arm_arch {
	const char *name;
	int subarch;	/* Triple sub-architecture it maps to */
	int profile;
	int version;
} arm_archs[] = {
	{ "invalid", S_NONE, PROF_NONE, 0 },
	{ "armv4", S_NONE, PROF_NONE, 4 },
	{ "armv4t", S_ARM_V4T, PROF_NONE, 4 },
	{ "armv5t", S_ARM_V5, PROF_NONE, 5 },
	{ "armv5te", S_ARM_V5TE, PROF_NONE, 5 },
	{ "armv5tej", S_ARM_V5TE, PROF_NONE, 5 },
	{ "armv6", S_ARM_V6, PROF_NONE, 6 },
	{ "armv6k", S_ARM_V6K, PROF_NONE, 6 },
	{ "armv6t2", S_ARM_V6T2, PROF_NONE, 6 },
	{ "armv6kz", S_ARM_V6K, PROF_NONE, 6 },
	{ "armv6-m", S_ARM_V6M, PROF_M, 6 },
	{ "armv7-a", S_ARM_V7, PROF_A, 7 },
	{ "armv7ve", S_ARM_V7VE, PROF_A, 7 },
	{ "armv7-r", S_ARM_V7, PROF_R, 7 },
	{ "armv7-m", S_ARM_V7M, PROF_M, 7 },
	{ "armv7e-m", S_ARM_V7EM, PROF_M, 7 },
	{ "armv8-a", S_ARM_V8, PROF_A, 8 },
	{ "armv8.1-a", S_ARM_V8_1A, PROF_A, 8 },
	{ "armv8.2-a", S_ARM_V8_2A, PROF_A, 8 },
	{ "armv8.3-a", S_ARM_V8_3A, PROF_A, 8 },
	{ "armv8.4-a", S_ARM_V8_4A, PROF_A, 8 },
	{ "armv8.5-a", S_ARM_V8_5A, PROF_A, 8 },
	{ "armv8.6-a", S_ARM_V8_6A, PROF_A, 8 },
	{ "armv8.7-a", S_ARM_V8_7A, PROF_A, 8 },
	{ "armv8.8-a", S_ARM_V8_8A, PROF_A, 8 },
	{ "armv8.9-a", S_ARM_V8_9A, PROF_A, 8 },
	{ "armv9-a", S_ARM_V9, PROF_A, 9 },
	{ "armv9.1-a", S_ARM_V9_1A, PROF_A, 9 },
	{ "armv9.2-a", S_ARM_V9_2A, PROF_A, 9 },
	{ "armv9.3-a", S_ARM_V9_3A, PROF_A, 9 },
	{ "armv9.4-a", S_ARM_V9_4A, PROF_A, 9 },
	{ "armv9.5-a", S_ARM_V9_5A, PROF_A, 9 },
	{ "armv9.6-a", S_ARM_V9_6A, PROF_A, 9 },
	{ "armv9.7-a", S_ARM_V9_7A, PROF_A, 9 },
	{ "armv8-r", S_ARM_V8R, PROF_R, 8 },
	{ "armv8-m.base", S_ARM_V8M_BASE, PROF_M, 8 },
	{ "armv8-m.main", S_ARM_V8M_MAIN, PROF_M, 8 },
	{ "armv8.1-m.main", S_ARM_V8_1M_MAIN, PROF_M, 8 },
	{ "iwmmxt", S_ARM_V5TE, PROF_NONE, 5 },
	{ "iwmmxt2", S_ARM_V5TE, PROF_NONE, 5 },
	{ "xscale", S_ARM_V5TE, PROF_NONE, 5 },
	{ "armv7s", S_ARM_V7S, PROF_NONE, 7 },
	{ "armv7k", S_ARM_V7K, PROF_A, 7 },
};

/* Short spellings accepted for ARM architectures (getArchSynonym). */
static const struct {
	const char *from, *to;
} arm_synonyms[] = {
	{ "v5", "v5t" }, { "v5e", "v5te" }, { "v6j", "v6" }, { "v6hl", "v6k" },
	{ "v6m", "v6-m" }, { "v6sm", "v6-m" }, { "v6s-m", "v6-m" },
	{ "v6z", "v6kz" }, { "v6zk", "v6kz" },
	{ "v7", "v7-a" }, { "v7a", "v7-a" }, { "v7hl", "v7-a" },
	{ "v7l", "v7-a" }, { "v7r", "v7-r" }, { "v7m", "v7-m" },
	{ "v7em", "v7e-m" },
	{ "v8", "v8-a" }, { "v8a", "v8-a" }, { "v8l", "v8-a" },
	{ "aarch64", "v8-a" }, { "arm64", "v8-a" },
	{ "v8.1a", "v8.1-a" }, { "v8.2a", "v8.2-a" }, { "v8.3a", "v8.3-a" },
	{ "v8.4a", "v8.4-a" }, { "v8.5a", "v8.5-a" }, { "v8.6a", "v8.6-a" },
	{ "v8.7a", "v8.7-a" }, { "v8.8a", "v8.8-a" }, { "v8.9a", "v8.9-a" },
	{ "v8r", "v8-r" }, { "v9", "v9-a" }, { "v9a", "v9-a" },
	{ "v9.1a", "v9.1-a" }, { "v9.2a", "v9.2-a" }, { "v9.3a", "v9.3-a" },
	{ "v9.4a", "v9.4-a" }, { "v9.5a", "v9.5-a" }, { "v9.6a", "v9.6-a" },
	{ "v9.7a", "v9.7-a" },
	{ "v8m.base", "v8-m.base" }, { "v8m.main", "v8-m.main" },
	{ "v8.1m.main", "v8.1-m.main" },
};

/* getCanonicalArchName: strip the arm/thumb/aarch64 prefix and "eb" from
 * a name.  Returns an empty view for a malformed name; a bare prefix
 * ("arm", "thumbeb") comes back whole.  Not idempotent on every input,
 * so callers apply it exactly as often as LLVM does. */
static struct sv arm_canonical(struct sv arch)
{
	static const struct sv error = { "", 0 };
	const size_t none = (size_t)-1;
	struct sv a = arch;
	size_t off = none;

	if (sv_starts(a, "arm64_32"))
		off = 8;
	else if (sv_starts(a, "arm64e"))
		off = 6;
	else if (sv_starts(a, "arm64"))
		off = 5;
	else if (sv_starts(a, "aarch64_32"))
		off = 10;
	else if (sv_starts(a, "arm"))
		off = 3;
	else if (sv_starts(a, "thumb"))
		off = 5;
	else if (sv_starts(a, "aarch64")) {
		off = 7;
		/* AArch64 spells big endian "_be", never "eb". */
		if (sv_contains(a, "eb"))
			return error;
		if (sv_eq(sv_sub(a, off, 3), "_be"))
			off += 3;
	}

	if (off != none && sv_eq(sv_sub(a, off, 2), "eb"))
		off += 2;
	else if (sv_ends(a, "eb"))
		a.n -= 2;
	if (off != none)
		a = sv_sub(a, off, (size_t)-1);

	if (a.n == 0)
		return arch;
	if (off != none) {
		if (a.n >= 2 && (a.p[0] != 'v' || a.p[1] < '0' || a.p[1] > '9'))
			return error;
		if (sv_contains(a, "eb"))
			return error;
	}
	return a;
}

/* ARM::parseArch: index into arm_archs, 0 when invalid. */
static size_t arm_parse_arch(struct sv arch)
{
	struct sv syn = arm_canonical(arch);

	for (size_t i = 0; i < COUNT(arm_synonyms); i++) {
		if (sv_eq(syn, arm_synonyms[i].from)) {
			syn = sv_lit(arm_synonyms[i].to);
			break;
		}
	}
	/* A partial name matches: "v7-a" finds "armv7-a". */
	for (size_t i = 0; i < COUNT(arm_archs); i++) {
		size_t n = strlen(arm_archs[i].name);

		if (n >= syn.n &&
		    memcmp(arm_archs[i].name + n - syn.n, syn.p, syn.n) == 0)
			return i;
	}
	return 0;
}

enum { ISA_INVALID, ISA_ARM, ISA_THUMB, ISA_AARCH64 };
enum { END_INVALID, END_LITTLE, END_BIG };

static int arm_parse_isa(struct sv a)
{
	if (sv_starts(a, "aarch64") || sv_starts(a, "arm64"))
		return ISA_AARCH64;
	if (sv_starts(a, "thumb"))
		return ISA_THUMB;
	if (sv_starts(a, "arm"))
		return ISA_ARM;
	return ISA_INVALID;
}

static int arm_parse_endian(struct sv a)
{
	if (sv_starts(a, "armeb") || sv_starts(a, "thumbeb") ||
	    sv_starts(a, "aarch64_be"))
		return END_BIG;
	if (sv_starts(a, "arm") || sv_starts(a, "thumb"))
		return sv_ends(a, "eb") ? END_BIG : END_LITTLE;
	if (sv_starts(a, "aarch64"))
		return END_LITTLE;
	return END_INVALID;
}

/* Triple.cpp parseARMArch, for names starting arm/thumb/aarch64. */
static int parse_arm_arch(struct sv name)
{
	static const int by_isa[3][4] = {
		[END_LITTLE] = { 0, A_ARM, A_THUMB, A_AARCH64 },
		[END_BIG] = { 0, A_ARMEB, A_THUMBEB, A_AARCH64_BE },
	};
	int isa = arm_parse_isa(name), endian = arm_parse_endian(name);
	int arch = by_isa[endian][isa];
	struct sv canon = arm_canonical(name);
	const struct arm_arch *k;

	if (canon.n == 0)
		return A_UNKNOWN;
	/* Thumb needs v4 or later. */
	if (isa == ISA_THUMB &&
	    (sv_starts(canon, "v2") || sv_starts(canon, "v3")))
		return A_UNKNOWN;
	/* v6-M only has Thumb, whatever the prefix said. */
	k = &arm_archs[arm_parse_arch(arm_canonical(canon))];
	if (k->profile == PROF_M && k->version == 6)
		return endian == END_BIG ? A_THUMBEB : A_THUMB;
	return arch;
}

static int parse_bpf_arch(struct sv a)
{
	if (sv_eq(a, "bpf")) {
		/* LLVM picks the host's byte order for a bare "bpf". */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		return A_BPFEB;
#else
		return A_BPFEL;
#endif
	}
	if (sv_eq(a, "bpf_be") || sv_eq(a, "bpfeb"))
		return A_BPFEB;
	if (sv_eq(a, "bpf_le") || sv_eq(a, "bpfel"))
		return A_BPFEL;
	return A_UNKNOWN;
}

static int parse_arch(struct sv a)
{
	int at = find_exact(arch_names, COUNT(arch_names), a);

	if (at == A_UNKNOWN && sv_starts(a, "kalimba"))
		at = A_KALIMBA;
	if (at != A_UNKNOWN)
		return at;
	if (sv_starts(a, "arm") || sv_starts(a, "thumb") ||
	    sv_starts(a, "aarch64"))
		return parse_arm_arch(a);
	if (sv_starts(a, "bpf"))
		return parse_bpf_arch(a);
	return A_UNKNOWN;
}

/* Version suffixes "v1.0".."v1.N" map to consecutive sub-architectures. */
static int parse_version_suffix(struct sv a, int first, int count)
{
	char suf[] = "v1.0";

	for (int i = 0; i < count; i++) {
		suf[3] = (char)('0' + i);
		if (sv_ends(a, suf))
			return first + i;
	}
	return S_NONE;
}

static int parse_subarch(struct sv a)
{
	struct sv canon;

	if (sv_starts(a, "mips") && (sv_ends(a, "r6el") || sv_ends(a, "r6")))
		return S_MIPS_R6;
	if (sv_eq(a, "powerpcspe"))
		return S_PPC_SPE;
	if (sv_eq(a, "arm64e"))
		return S_ARM64E;
	if (sv_eq(a, "arm64ec"))
		return S_ARM64EC;
	if (sv_eq(a, "aarch64_lfi"))
		return S_AARCH64_LFI;
	if (sv_starts(a, "spirv"))
		return parse_version_suffix(a, S_SPIRV_V10, 7);
	if (sv_starts(a, "dxil"))
		return parse_version_suffix(a, S_DXIL_V1_0, 10);

	canon = arm_canonical(a);
	if (canon.n == 0) {
		/* Only reached for malformed ARM names or "", so these never
		 * match in practice; kept to mirror LLVM. */
		if (sv_ends(a, "kalimba3"))
			return S_KALIMBA_V3;
		if (sv_ends(a, "kalimba4"))
			return S_KALIMBA_V4;
		if (sv_ends(a, "kalimba5"))
			return S_KALIMBA_V5;
		return S_NONE;
	}
	/* Any other name goes through the ARM table too: "ve" ends like
	 * "armv7ve", so LLVM gives the VE target an ARM sub-arch. */
	return arm_archs[arm_parse_arch(canon)].subarch;
}

static int parse_vendor(struct sv a)
{
	return find_exact(vendor_names, COUNT(vendor_names), a);
}

static int parse_os(struct sv a)
{
	return find_prefix(os_names, COUNT(os_names), a);
}

static int parse_env(struct sv a)
{
	return find_prefix(env_names, COUNT(env_names), a);
}

static int parse_format(struct sv a)
{
	return find_suffix(fmt_names, COUNT(fmt_names), a);
}

static bool os_is_darwin(int os)
{
	switch (os) {
	case O_DARWIN: case O_MACOSX: case O_IOS: case O_TVOS:
	case O_WATCHOS: case O_DRIVERKIT: case O_XROS: case O_BRIDGEOS:
		return true;
	default:
		return false;
	}
}

static int default_format(const struct triple *t)
{
	switch (t->arch) {
	case A_UNKNOWN: case A_AARCH64: case A_AARCH64_32: case A_ARM:
	case A_THUMB: case A_X86: case A_X86_64:
		if (t->os == O_WIN32 || t->os == O_UEFI)
			return F_COFF;
		return os_is_darwin(t->os) ? F_MACHO : F_ELF;
	case A_MIPSEL:
		return t->os == O_WIN32 ? F_COFF : F_ELF;
	case A_PPC64: case A_PPC:
		if (t->os == O_AIX)
			return F_XCOFF;
		return os_is_darwin(t->os) ? F_MACHO : F_ELF;
	case A_SYSTEMZ:
		return t->os == O_ZOS ? F_GOFF : F_ELF;
	case A_WASM32: case A_WASM64:
		return F_WASM;
	case A_SPIRV: case A_SPIRV32: case A_SPIRV64:
		return F_SPIRV;
	case A_DXIL:
		return F_DXCONTAINER;
	default:
		return F_ELF;
	}
}

/* StringRef::split(Out, '-', max): pieces are views into s; the last piece
 * keeps any further dashes once max splits are done (max < 0: no limit).
 * Returns the number of pieces; out must have room for them. */
static size_t split_dash(struct sv s, struct sv *out, int max)
{
	size_t n = 0, start = 0;

	for (size_t i = 0; i < s.n; i++) {
		if (max >= 0 && (int)n == max)
			break;
		if (s.p[i] == '-') {
			out[n].p = s.p + start;
			out[n].n = i - start;
			n++;
			start = i + 1;
		}
	}
	out[n].p = s.p + start;
	out[n].n = s.n - start;
	return n + 1;
}

void triple_parse(const char *s, size_t len, struct triple *t)
{
	struct sv c[4];
	struct sv str = { s, len };
	size_t n = split_dash(str, c, 3);

	memset(t, 0, sizeof(*t));
	t->arch = parse_arch(c[0]);
	t->subarch = parse_subarch(c[0]);
	if (n > 1) {
		t->vendor = parse_vendor(c[1]);
		if (n > 2) {
			t->os = parse_os(c[2]);
			if (n > 3) {
				t->env = parse_env(c[3]);
				t->objfmt = parse_format(c[3]);
			}
		}
	} else {
		/* A lone MIPS arch implies its usual GNU ABI. */
		if (sv_starts(c[0], "mipsn32"))
			t->env = E_GNUABIN32;
		else if (sv_starts(c[0], "mips64") ||
			 sv_starts(c[0], "mipsisa64"))
			t->env = E_GNUABI64;
		else if (sv_starts(c[0], "mipsisa32") || sv_eq(c[0], "mips") ||
			 sv_eq(c[0], "mipsel") || sv_eq(c[0], "mipsr6") ||
			 sv_eq(c[0], "mipsr6el"))
			t->env = E_GNU;
	}
	if (t->objfmt == F_UNKNOWN)
		t->objfmt = default_format(t);
}

/* ---- normalize ---- */

/* VersionTuple::tryParse + withoutBuild, reduced to what the DXIL rule
 * needs.  Fields keep VersionTuple's widths: minor is 31 bits. */
struct version {
	uint32_t major, minor, sub, build;
	bool has_minor;
};

static bool parse_uint(struct sv *in, uint32_t *v)
{
	if (in->n == 0 || in->p[0] < '0' || in->p[0] > '9')
		return false;
	*v = 0;
	while (in->n && in->p[0] >= '0' && in->p[0] <= '9') {
		*v = *v * 10 + (uint32_t)(in->p[0] - '0');
		in->p++;
		in->n--;
	}
	return true;
}

static struct version parse_version(struct sv in)
{
	struct version none = { 0, 0, 0, 0, false }, v = none;
	uint32_t *parts[4] = { &v.major, &v.minor, &v.sub, &v.build };

	for (int i = 0; i < 4; i++) {
		if (i > 0) {
			if (in.p[0] != '.')
				return none;
			in.p++;
			in.n--;
		}
		if (!parse_uint(&in, parts[i]))
			return none;
		if (i == 1)
			v.has_minor = true;
		if (in.n == 0)
			break;
		if (i == 3)
			return none;	/* trailing junk */
	}
	v.minor &= 0x7fffffff;
	v.sub &= 0x7fffffff;
	v.build = 0;
	return v;
}

/* The DXIL version matching "shadermodelX.Y", or NULL where LLVM stops
 * with "Unsupported Shader Model version". */
static const char *dxil_arch_for(struct sv os)
{
	static const char *const names[] = {
		"dxilv1.0", "dxilv1.1", "dxilv1.2", "dxilv1.3", "dxilv1.4",
		"dxilv1.5", "dxilv1.6", "dxilv1.7", "dxilv1.8", "dxilv1.9",
	};
	struct version v = parse_version(sv_sub(os, 11, (size_t)-1));

	if (v.major || v.minor || v.sub) {
		if (v.major == 6 && v.has_minor)
			return v.minor < COUNT(names) ? names[v.minor] : NULL;
	} else if (sv_eq(os, "shadermodel6.x")) {
		return names[COUNT(names) - 1];
	}
	return names[0];
}

static const struct sv empty_sv = { "", 0 };

/* Normalize's component list: views into the input or static strings. */
struct comps {
	struct sv *v;
	size_t n;
};

static void comps_resize(struct comps *c, size_t n, struct sv fill)
{
	while (c->n < n)
		c->v[c->n++] = fill;
	c->n = n;
}

static void sv_swap(struct sv *a, struct sv *b)
{
	struct sv t = *a;
	*a = *b;
	*b = t;
}

/* What normalize learnt of the components: the parse results of every
 * component tried (valid or not) land in arch/vendor/os/env/fmt, as in
 * LLVM, and the special cases read them; found: which of the first four
 * positions hold a valid component. */
struct norm {
	int arch, vendor, os, env, fmt;
	bool mingw, cygwin, found[4];
};

static void parse_os_into(struct norm *st, struct sv comp)
{
	st->os = parse_os(comp);
	st->cygwin = sv_starts(comp, "cygwin") || sv_starts(comp, "msys");
	st->mingw = sv_starts(comp, "mingw");
}

/* Components already valid in their own position stay put. */
static void parse_in_place(const struct comps *c, struct norm *st)
{
	*st = (struct norm){ A_UNKNOWN, V_UNKNOWN, O_UNKNOWN, E_UNKNOWN,
			     F_UNKNOWN, false, false, { false } };
	if (c->n > 0)
		st->arch = parse_arch(c->v[0]);
	if (c->n > 1)
		st->vendor = parse_vendor(c->v[1]);
	if (c->n > 2)
		parse_os_into(st, c->v[2]);
	if (c->n > 3)
		st->env = parse_env(c->v[3]);
	if (c->n > 4)
		st->fmt = parse_format(c->v[4]);
	st->found[0] = st->arch != A_UNKNOWN;
	st->found[1] = st->vendor != V_UNKNOWN;
	st->found[2] = st->os != O_UNKNOWN;
	st->found[3] = st->env != E_UNKNOWN;
}

/* Whether comp is valid in position pos (0 arch, 1 vendor, 2 OS, 3
 * environment or object format). */
static bool valid_at(struct norm *st, size_t pos, struct sv comp)
{
	switch (pos) {
	case 0:
		st->arch = parse_arch(comp);
		return st->arch != A_UNKNOWN;
	case 1:
		st->vendor = parse_vendor(comp);
		return st->vendor != V_UNKNOWN;
	case 2:
		parse_os_into(st, comp);
		return st->os != O_UNKNOWN || st->cygwin || st->mingw;
	default:
		st->env = parse_env(comp);
		if (st->env != E_UNKNOWN)
			return true;
		st->fmt = parse_format(comp);
		return st->fmt != F_UNKNOWN;
	}
}

/* Move component idx to pos < idx: take it out, then insert it at pos,
 * shifting non-fixed components right into the hole (or into the first
 * empty one). */
static void move_left(struct comps *c, const bool *found, size_t pos,
		      size_t idx)
{
	struct sv cur = c->v[idx];

	c->v[idx] = empty_sv;
	for (size_t i = pos; cur.n; i++) {
		while (i < 4 && found[i])
			i++;
		sv_swap(&cur, &c->v[i]);
	}
}

/* Move component idx to pos > idx: insert empty components before it
 * until it reaches pos, skipping fixed ones. */
static void move_right(struct comps *c, const bool *found, size_t pos,
		       size_t idx)
{
	do {
		struct sv cur = empty_sv;
		size_t i = idx;

		while (i < c->n) {
			sv_swap(&cur, &c->v[i]);
			if (!cur.n)
				break;
			while (++i < 4 && found[i])
				;
		}
		if (cur.n)
			c->v[c->n++] = cur;
		while (++idx < 4 && found[idx])
			;
	} while (idx < pos);
}

/* Move the first component valid for each unfilled position there. */
static void reorder(struct comps *c, struct norm *st)
{
	for (size_t pos = 0; pos < 4; pos++) {
		if (st->found[pos])
			continue;
		for (size_t idx = 0; idx < c->n; idx++) {
			if (idx < 4 && st->found[idx])
				continue;
			if (!valid_at(st, pos, c->v[idx]))
				continue;
			if (pos < idx)
				move_left(c, st->found, pos, idx);
			else if (pos > idx)
				move_right(c, st->found, pos, idx);
			st->found[pos] = true;
			break;
		}
	}
}

/* androideabi[N] is spelled android[N]: *android holds the new text when
 * there is an N.  -1 when out of memory. */
static int android_spelling(struct comps *c, const struct norm *st,
			    char **android)
{
	struct sv ver;

	if (st->env != E_ANDROID || !sv_starts(c->v[3], "androideabi"))
		return 0;
	ver = sv_sub(c->v[3], 11, (size_t)-1);
	if (ver.n == 0) {
		c->v[3] = sv_lit("android");
		return 0;
	}
	*android = malloc(7 + ver.n);
	if (!*android)
		return -1;
	memcpy(*android, "android", 7);
	memcpy(*android + 7, ver.p, ver.n);
	c->v[3].p = *android;
	c->v[3].n = 7 + ver.n;
	return 0;
}

/* Windows spells its OS "windows" and its environment msvc, gnu (MinGW)
 * or cygnus, with an object format other than COFF after them. */
static void windows_spelling(struct comps *c, const struct norm *st)
{
	if (st->os == O_WIN32) {
		comps_resize(c, 4, empty_sv);
		c->v[2] = sv_lit("windows");
		if (st->env == E_UNKNOWN) {
			if (st->fmt == F_UNKNOWN || st->fmt == F_COFF)
				c->v[3] = sv_lit("msvc");
			else
				c->v[3] = sv_lit(fmt_text[st->fmt]);
		}
	} else if (st->mingw) {
		comps_resize(c, 4, empty_sv);
		c->v[2] = sv_lit("windows");
		c->v[3] = sv_lit("gnu");
	} else if (st->cygwin) {
		comps_resize(c, 4, empty_sv);
		c->v[2] = sv_lit("windows");
		c->v[3] = sv_lit("cygnus");
	}
	if ((st->mingw || st->cygwin ||
	     (st->os == O_WIN32 && st->env != E_UNKNOWN)) &&
	    st->fmt != F_UNKNOWN && st->fmt != F_COFF) {
		comps_resize(c, 5, empty_sv);
		c->v[4] = sv_lit(fmt_text[st->fmt]);
	}
}

/* The components joined by '-', malloc'd. */
static char *join(const struct comps *c)
{
	size_t total = 1;
	char *out, *o;

	for (size_t i = 0; i < c->n; i++)
		total += c->v[i].n + 1;
	out = malloc(total);
	if (!out)
		return NULL;
	o = out;
	for (size_t i = 0; i < c->n; i++) {
		if (i)
			*o++ = '-';
		memcpy(o, c->v[i].p, c->v[i].n);
		o += c->v[i].n;
	}
	*o = '\0';
	return out;
}

char *triple_normalize(const char *s, size_t len, int form, struct err *e)
{
	struct sv str = { s, len };
	size_t ndash = 0;
	struct comps c;
	struct norm st;
	char *android = NULL, *out = NULL;
	const struct sv unknown = sv_lit("unknown");

	for (size_t i = 0; i < len; i++)
		ndash += s[i] == '-';
	/* Pushing components right appends at most six in all, the fixed
	 * resizes below need five, and form pads to its own size. */
	c.v = malloc((ndash + 1 + 8 + (form > 0 ? (size_t)form : 0)) *
		     sizeof(*c.v));
	if (!c.v)
		goto nomem;
	c.n = split_dash(str, c.v, -1);
	parse_in_place(&c, &st);
	reorder(&c, &st);

	/* In arch-none-env, "none" is the OS, not the vendor. */
	if (st.found[0] && !st.found[1] && !st.found[2] && st.found[3] &&
	    sv_eq(c.v[1], "none") && c.v[2].n == 0)
		sv_swap(&c.v[1], &c.v[2]);
	for (size_t i = 0; i < c.n; i++)
		if (c.v[i].n == 0)
			c.v[i] = unknown;
	if (android_spelling(&c, &st, &android) < 0)
		goto nomem;
	/* SUSE's gnueabi means hard float. */
	if (st.vendor == V_SUSE && st.env == E_GNUEABI)
		c.v[3] = sv_lit("gnueabihf");
	windows_spelling(&c, &st);

	/* A plain "dxil" takes its version from the shader model. */
	if (sv_eq(c.v[0], "dxil")) {
		if (c.n > 4)
			comps_resize(&c, 4, empty_sv);
		if (st.os == O_SHADERMODEL) {
			const char *a = dxil_arch_for(c.v[2]);

			if (!a) {
				err_llvm(e, ERR_FATAL,
					 "Unsupported Shader Model version");
				goto out;
			}
			c.v[0] = sv_lit(a);
		}
	}
	if (form > 0)
		comps_resize(&c, (size_t)form, unknown);
	out = join(&c);
	if (!out)
		goto nomem;
	goto out;
nomem:
	err_code_set(e, ERR_NOMEM, "out of memory");
out:
	free(android);
	free(c.v);
	return out;
}

/* ---- predicates ---- */

bool triple_arch_known(const struct triple *t)
{
	return t->arch != A_UNKNOWN;
}

bool triple_os_is_amdhsa(const struct triple *t)
{
	return t->os == O_AMDHSA;
}

bool triple_is_amdgcn(const struct triple *t)
{
	return t->arch == A_AMDGCN;
}

bool triple_is_nvptx(const struct triple *t)
{
	return t->arch == A_NVPTX || t->arch == A_NVPTX64;
}

bool triple_compatible(const struct triple *a, const struct triple *b)
{
	/* MinGW objects mix "w64" and "pc" vendors freely. */
	bool any_vendor = a->os == O_WIN32 && a->env == E_GNU;
	bool same_vendor = a->vendor == b->vendor || any_vendor;
	bool arm_thumb =
		(a->arch == A_THUMB && b->arch == A_ARM) ||
		(a->arch == A_ARM && b->arch == A_THUMB) ||
		(a->arch == A_THUMBEB && b->arch == A_ARMEB) ||
		(a->arch == A_ARMEB && b->arch == A_THUMBEB);

	if (arm_thumb) {
		if (a->vendor == V_APPLE)
			return a->subarch == b->subarch &&
			       a->vendor == b->vendor && a->os == b->os;
		return a->subarch == b->subarch && same_vendor &&
		       a->os == b->os && a->env == b->env &&
		       a->objfmt == b->objfmt;
	}
	/* Apple keeps OS versions in the environment; ignore it. */
	if (a->vendor == V_APPLE)
		return a->arch == b->arch && a->subarch == b->subarch &&
		       same_vendor && a->os == b->os;
	return a->arch == b->arch && a->subarch == b->subarch &&
	       same_vendor && a->os == b->os && a->env == b->env &&
	       a->objfmt == b->objfmt;
}
