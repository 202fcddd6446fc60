/* amdgpu_target: a code object's target ID from its ELF header; see
 * amdgpu_target.h.  test/du.test checks the table against what llc-22
 * writes for each processor, kernels.test against llvm-readelf. */
#include <stdio.h>
#include <string.h>

#include "amdgpu_target.h"

/* EF_AMDGPU_MACH (e_flags bits 0-7): the processor, named as LLVM's
 * llvm-readelf names it (LLVM 23's table, read back from llvm-readelf
 * itself; gfx940 and gfx941, which LLVM 20 dropped, kept for the code
 * objects ROCm 6 shipped for them). */
static const struct {
	uint8_t mach;
	char name[16];
} machs[] = {
	{ 0x20, "gfx600" }, { 0x21, "gfx601" }, { 0x22, "gfx700" },
	{ 0x23, "gfx701" }, { 0x24, "gfx702" }, { 0x25, "gfx703" },
	{ 0x26, "gfx704" }, { 0x28, "gfx801" }, { 0x29, "gfx802" },
	{ 0x2a, "gfx803" }, { 0x2b, "gfx810" }, { 0x2c, "gfx900" },
	{ 0x2d, "gfx902" }, { 0x2e, "gfx904" }, { 0x2f, "gfx906" },
	{ 0x30, "gfx908" }, { 0x31, "gfx909" }, { 0x32, "gfx90c" },
	{ 0x33, "gfx1010" }, { 0x34, "gfx1011" }, { 0x35, "gfx1012" },
	{ 0x36, "gfx1030" }, { 0x37, "gfx1031" }, { 0x38, "gfx1032" },
	{ 0x39, "gfx1033" }, { 0x3a, "gfx602" }, { 0x3b, "gfx705" },
	{ 0x3c, "gfx805" }, { 0x3d, "gfx1035" }, { 0x3e, "gfx1034" },
	{ 0x3f, "gfx90a" }, { 0x40, "gfx940" }, { 0x41, "gfx1100" },
	{ 0x42, "gfx1013" }, { 0x43, "gfx1150" }, { 0x44, "gfx1103" },
	{ 0x45, "gfx1036" }, { 0x46, "gfx1101" }, { 0x47, "gfx1102" },
	{ 0x48, "gfx1200" }, { 0x49, "gfx1250" }, { 0x4a, "gfx1151" },
	{ 0x4b, "gfx941" }, { 0x4c, "gfx942" }, { 0x4e, "gfx1201" },
	{ 0x4f, "gfx950" }, { 0x50, "gfx1310" }, { 0x51, "gfx9-generic" },
	{ 0x52, "gfx10-1-generic" }, { 0x53, "gfx10-3-generic" },
	{ 0x54, "gfx11-generic" }, { 0x55, "gfx1152" }, { 0x57, "gfx1154" },
	{ 0x58, "gfx1153" }, { 0x59, "gfx12-generic" }, { 0x5a, "gfx1251" },
	{ 0x5b, "gfx12-5-generic" }, { 0x5c, "gfx1172" },
	{ 0x5d, "gfx1170" }, { 0x5e, "gfx1171" }, { 0x5f, "gfx9-4-generic" },
	{ 0x62, "gfx11-7-generic" }, { 0x63, "gfx13-generic" },
};

const char *amdgpu_mach_name(uint32_t flags)
{
	for (size_t i = 0; i < sizeof(machs) / sizeof(machs[0]); i++)
		if (machs[i].mach == (flags & 0xff))
			return machs[i].name;
	return NULL;
}

enum {
	EM_AMDGPU_ = 224,
	ABI_V4 = 2,		/* EI_ABIVERSION of code object v4 */
	XNACK = 0x300, XNACK_OFF = 0x200, XNACK_ON = 0x300,
	SRAMECC = 0xc00, SRAMECC_OFF = 0x800, SRAMECC_ON = 0xc00,
};

int amdgpu_target_of(const uint8_t *buf, size_t len, char *out, size_t cap)
{
	uint32_t flags;
	const char *name = NULL;
	int n;

	if (len < 64 || memcmp(buf, "\177ELF", 4) || buf[4] != 2 ||
	    buf[5] != 1 || buf[7] != 64 || buf[8] < ABI_V4 ||
	    (buf[18] | buf[19] << 8) != EM_AMDGPU_)
		return 0;
	flags = (uint32_t)buf[48] | (uint32_t)buf[49] << 8 |
		(uint32_t)buf[50] << 16 | (uint32_t)buf[51] << 24;
	if (!(name = amdgpu_mach_name(flags)))
		return 0;
	n = snprintf(out, cap, "%s%s%s", name,
		     (flags & SRAMECC) == SRAMECC_ON ? ":sramecc+" :
		     (flags & SRAMECC) == SRAMECC_OFF ? ":sramecc-" : "",
		     (flags & XNACK) == XNACK_ON ? ":xnack+" :
		     (flags & XNACK) == XNACK_OFF ? ":xnack-" : "");
	return n > 0 && (size_t)n < cap;
}
