/* triple: LLVM 22 target triples (llvm::Triple), as the bundler uses them.
 * Names and parsing; normalize is in triple_normalize.c, and what the
 * two share (the enums, in LLVM 22 order) in triple_impl.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "triple.h"
#include "triple_impl.h"

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

/* LLVM 23's sub-architectures of amdgpu, by the suffix of the arch name
 * ("amdgpu9.0a"), each with the family it belongs to (a row index here):
 * a family's head ("amdgpu9") is compatible with every member. */
static const struct {
	const char *suffix;
	unsigned char family;
} amdgpu_subarchs[] = {
	{ "6", 0 }, { "6.00", 0 }, { "6.01", 0 }, { "6.02", 0 },
	{ "7", 4 }, { "7.00", 4 }, { "7.01", 4 }, { "7.02", 4 },
	{ "7.03", 4 }, { "7.04", 4 }, { "7.05", 4 },
	{ "8", 11 }, { "8.01", 11 }, { "8.02", 11 }, { "8.03", 11 },
	{ "8.05", 11 },
	{ "8.10", 16 },
	{ "9", 17 }, { "9.00", 17 }, { "9.02", 17 }, { "9.04", 17 },
	{ "9.06", 17 }, { "9.09", 17 }, { "9.0c", 17 },
	{ "9.08", 24 },
	{ "9.0a", 25 },
	{ "9.4", 26 }, { "9.42", 26 }, { "9.50", 26 },
	{ "10.1", 29 }, { "10.10", 29 }, { "10.11", 29 }, { "10.12", 29 },
	{ "10.13", 29 },
	{ "10.3", 34 }, { "10.30", 34 }, { "10.31", 34 }, { "10.32", 34 },
	{ "10.33", 34 }, { "10.34", 34 }, { "10.35", 34 }, { "10.36", 34 },
	{ "11", 42 }, { "11.00", 42 }, { "11.01", 42 }, { "11.02", 42 },
	{ "11.03", 42 }, { "11.50", 42 }, { "11.51", 42 }, { "11.52", 42 },
	{ "11.53", 42 }, { "11.54", 42 },
	{ "11.7", 52 }, { "11.70", 52 }, { "11.71", 52 }, { "11.72", 52 },
	{ "12", 56 }, { "12.00", 56 }, { "12.01", 56 },
	{ "12.5", 59 }, { "12.50", 59 }, { "12.51", 59 },
	{ "13", 62 }, { "13.10", 62 },
};

/* Two more spellings LLVM 23 takes for family heads. */
static const struct {
	const char *suffix, *as;
} amdgpu_aliases[] = { { "9.5", "9.4" }, { "10", "10.1" } };

/* LLVM 22 knows only "amdgcn"; 23 takes every name that starts "amdgpu". */
static bool amdgpu_arch(struct sv a, enum llvm_release r)
{
	return r >= LLVM_23 && sv_starts(a, "amdgpu");
}

static int amdgpu_subarch(struct sv a)
{
	struct sv suf = sv_sub(a, 6, (size_t)-1);

	if (suf.n == 0)
		return S_NONE;
	for (size_t i = 0; i < COUNT(amdgpu_aliases); i++)
		if (sv_eq(suf, amdgpu_aliases[i].suffix))
			suf = sv_lit(amdgpu_aliases[i].as);
	for (size_t i = 0; i < COUNT(amdgpu_subarchs); i++)
		if (sv_eq(suf, amdgpu_subarchs[i].suffix))
			return S_AMDGPU_FIRST + (int)i;
	return S_AMDGPU_ODD;
}

/* AMDGPU::isSubArchCompatible over two triples: a side without a
 * sub-architecture fits all when spelled "amdgcn" or "amdgpu", none when
 * an unknown suffix left it without one; else equal, or one is the head
 * of the other's family. */
static bool amdgpu_subarch_compatible(int a, int b)
{
	int fa, fb;

	if (a == S_NONE || a == S_AMDGPU_ODD)
		return a == S_NONE;
	if (b == S_NONE || b == S_AMDGPU_ODD)
		return b == S_NONE;
	if (a == b)
		return true;
	a -= S_AMDGPU_FIRST;
	b -= S_AMDGPU_FIRST;
	fa = amdgpu_subarchs[a].family;
	fb = amdgpu_subarchs[b].family;
	return (a == fa || b == fb) && fa == fb;
}

int triple_parse_arch(struct sv a, enum llvm_release r)
{
	int at = find_exact(arch_names, COUNT(arch_names), a);

	if (at == A_UNKNOWN && amdgpu_arch(a, r))
		return A_AMDGCN;

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

static int parse_subarch(struct sv a, enum llvm_release r)
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
	if (amdgpu_arch(a, r))
		return amdgpu_subarch(a);

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

int triple_parse_vendor(struct sv a)
{
	return find_exact(vendor_names, COUNT(vendor_names), a);
}

int triple_parse_os(struct sv a)
{
	return find_prefix(os_names, COUNT(os_names), a);
}

int triple_parse_env(struct sv a)
{
	return find_prefix(env_names, COUNT(env_names), a);
}

int triple_parse_format(struct sv a)
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

size_t triple_split_dash(struct sv s, struct sv *out, int max)
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

void triple_parse(const char *s, size_t len, enum llvm_release r,
		  struct triple *t)
{
	struct sv c[4];
	struct sv str = { s, len };
	size_t n = triple_split_dash(str, c, 3);

	memset(t, 0, sizeof(*t));
	t->arch = triple_parse_arch(c[0], r);
	t->subarch = parse_subarch(c[0], r);
	if (n > 1) {
		t->vendor = triple_parse_vendor(c[1]);
		if (n > 2) {
			t->os = triple_parse_os(c[2]);
			if (n > 3) {
				t->env = triple_parse_env(c[3]);
				t->objfmt = triple_parse_format(c[3]);
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
	if (a->arch == A_AMDGCN && b->arch == A_AMDGCN)
		return a->os == b->os && a->vendor == b->vendor &&
		       a->env == b->env && a->objfmt == b->objfmt &&
		       amdgpu_subarch_compatible(a->subarch, b->subarch);
	/* Apple keeps OS versions in the environment; ignore it. */
	if (a->vendor == V_APPLE)
		return a->arch == b->arch && a->subarch == b->subarch &&
		       same_vendor && a->os == b->os;
	return a->arch == b->arch && a->subarch == b->subarch &&
	       same_vendor && a->os == b->os && a->env == b->env &&
	       a->objfmt == b->objfmt;
}
