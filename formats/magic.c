/* magic: what kind of file a buffer holds, from its first bytes.
 * COFF and XCOFF are recognised by LLVM from two bytes plus a full parse;
 * two bytes alone would misjudge plain data, so they are left out here. */
#include <string.h>

#include "magic.h"

bool magic_is_object(const uint8_t *buf, size_t len)
{
	static const uint8_t macho[][4] = {
		{ 0xfe, 0xed, 0xfa, 0xce }, { 0xce, 0xfa, 0xed, 0xfe },
		{ 0xfe, 0xed, 0xfa, 0xcf }, { 0xcf, 0xfa, 0xed, 0xfe },
	};

	if (len >= 4 && !memcmp(buf, "\x7f" "ELF", 4))
		return true;
	if (len >= 4 && !memcmp(buf, "\0asm", 4))
		return true;
	for (size_t i = 0; len >= 4 && i < sizeof(macho) / sizeof(macho[0]); i++)
		if (!memcmp(buf, macho[i], 4))
			return true;
	return false;
}

bool magic_is_ccob(const uint8_t *buf, size_t len)
{
	return len >= 4 && !memcmp(buf, "CCOB", 4);
}
