/* amdgpu_target: a code object's target ID from its ELF header; see
 * amdgpu_target.h.  The table is what LLVM 22's llc writes for each
 * processor (test/du.test checks it against llc-22 where installed). */
#include <stdio.h>
#include <string.h>

#include "amdgpu_target.h"

static const struct {
	uint8_t mach;
	const char *name;
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
	{ 0x3f, "gfx90a" }, { 0x41, "gfx1100" }, { 0x42, "gfx1013" },
	{ 0x43, "gfx1150" }, { 0x44, "gfx1103" }, { 0x45, "gfx1036" },
	{ 0x46, "gfx1101" }, { 0x47, "gfx1102" }, { 0x48, "gfx1200" },
	{ 0x49, "gfx1250" }, { 0x4a, "gfx1151" }, { 0x4c, "gfx942" },
	{ 0x4e, "gfx1201" }, { 0x4f, "gfx950" }, { 0x51, "gfx9-generic" },
	{ 0x52, "gfx10-1-generic" }, { 0x53, "gfx10-3-generic" },
	{ 0x54, "gfx11-generic" }, { 0x55, "gfx1152" }, { 0x58, "gfx1153" },
	{ 0x59, "gfx12-generic" }, { 0x5a, "gfx1251" },
	{ 0x5f, "gfx9-4-generic" },
};

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
	for (size_t i = 0; i < sizeof(machs) / sizeof(machs[0]); i++)
		if (machs[i].mach == (flags & 0xff))
			name = machs[i].name;
	if (!name)
		return 0;
	n = snprintf(out, cap, "%s%s%s", name,
		     (flags & SRAMECC) == SRAMECC_ON ? ":sramecc+" :
		     (flags & SRAMECC) == SRAMECC_OFF ? ":sramecc-" : "",
		     (flags & XNACK) == XNACK_ON ? ":xnack+" :
		     (flags & XNACK) == XNACK_OFF ? ":xnack-" : "");
	return n > 0 && (size_t)n < cap;
}
