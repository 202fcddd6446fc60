/* magic: what kind of file a buffer holds, from its first bytes (and, for
 * COFF, whose two bytes alone would misjudge plain data, its headers: coff.c
 * owns COFF detection).  magic_is_object leaves out XCOFF. */
#include <string.h>

#include "magic.h"
#include "coff.h"

bool magic_is_object(const uint8_t *buf, size_t len)
{
	static const uint8_t macho[][4] = {
		{ 0xfe, 0xed, 0xfa, 0xce }, { 0xce, 0xfa, 0xed, 0xfe },
		{ 0xfe, 0xed, 0xfa, 0xcf }, { 0xcf, 0xfa, 0xed, 0xfe },
	};

	if (len >= 4 && !memcmp(buf, "\x7f" "ELF", 4))
		return true;
	if (coff_is_object(buf, len))
		return true;
	if (len >= 4 && !memcmp(buf, "\0asm", 4))
		return true;
	for (size_t i = 0; len >= 4 && i < sizeof(macho) / sizeof(macho[0]); i++)
		if (!memcmp(buf, macho[i], 4))
			return true;
	return false;
}

bool magic_is_elf_object(const uint8_t *buf, size_t len)
{
	/* e_type, in the file's byte order (e_ident[EI_DATA] 2 = big). */
	bool big = len > 5 && buf[5] == 2;

	if (len < 18 || memcmp(buf, "\x7f" "ELF", 4))
		return false;
	if (buf[big ? 16 : 17] != 0)
		return false;
	return buf[big ? 17 : 16] >= 1 && buf[big ? 17 : 16] <= 3;
}

bool magic_is_bitcode(const uint8_t *buf, size_t len)
{
	return len >= 4 && (!memcmp(buf, "BC\xc0\xde", 4) ||
			    !memcmp(buf, "\xde\xc0\x17\x0b", 4));
}

bool magic_is_archive(const uint8_t *buf, size_t len)
{
	return len >= 8 && (!memcmp(buf, "!<arch>\n", 8) ||
			    !memcmp(buf, "!<thin>\n", 8));
}
