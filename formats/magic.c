/* magic: what kind of file a buffer holds, from its first bytes (and, for
 * COFF, whose two bytes alone would misjudge plain data, its headers).
 * magic_is_object leaves out XCOFF. */
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

bool magic_is_coff_object(const uint8_t *buf, size_t len)
{
	/* The machine fields LLVM 22's identify_magic takes for a COFF
	 * object, measured: each first byte with every second byte, in an
	 * archive llvm-offload-binary read. */
	static const uint8_t machines[][2] = {
		{ 0x00, 0x00 }, { 0x41, 0xa6 }, { 0x4c, 0x01 }, { 0x4c, 0x02 },
		{ 0x4e, 0xa6 }, { 0x50, 0x01 }, { 0x50, 0x02 }, { 0x64, 0x86 },
		{ 0x64, 0xaa }, { 0x66, 0x01 }, { 0x66, 0x02 }, { 0x68, 0x02 },
		{ 0x83, 0x01 }, { 0x83, 0x02 }, { 0x84, 0x01 }, { 0x84, 0x02 },
		{ 0x90, 0x02 }, { 0xc4, 0x01 }, { 0xc4, 0x02 }, { 0xf0, 0x01 },
		{ 0xf0, 0x02 },
	};

	if (len < 4)
		return false;
	if (!memcmp(buf, "\0\0\xff\xff", 4))
		return coff_is_bigobj(buf, len);
	for (size_t i = 0; i < sizeof(machines) / sizeof(machines[0]); i++)
		if (!memcmp(buf, machines[i], 2))
			return true;
	return false;
}
