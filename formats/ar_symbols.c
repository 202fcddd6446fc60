/* ar_symbols: what LLVM 22's archive writer lists in the symbol table for
 * one member.  It asks identify_magic what the bytes are and reads every
 * "symbolic file" (getSymbolicFile): bitcode through its IR symbol table,
 * ELF and COFF (objects, bigobj, PE images) through their symbol tables,
 * other object formats through their readers.  The first three are done
 * here; the others (and COFF short import objects) are refused, since a
 * table without their symbols would be silently wrong. */
#include <stdlib.h>
#include <string.h>

#include "../core/elfscan.h"
#include "ar_symbols.h"
#include "bitcode.h"
#include "coff.h"

enum member_kind { OPAQUE, BITCODE, ELF, COFF, OTHER_OBJECT };

/* The start of a COFF bigobj header's UUID for cl.exe /GL objects, and
 * of a Windows resource file: neither is symbolic. */
static const uint8_t cl_gl_magic[16] = {
	0x38, 0xfe, 0xb3, 0x0c, 0xa5, 0xd9, 0xab, 0x4d,
	0xac, 0x9b, 0xd6, 0xb6, 0x22, 0x26, 0x53, 0xc2,
};
static const uint8_t win_res_magic[16] = {
	0x00, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00,
	0xff, 0xff, 0x00, 0x00, 0xff, 0xff, 0x00, 0x00,
};

/* A byte as LLVM's `char` widens it: sign-extended. */
static uint32_t sx(uint8_t c)
{
	return (uint32_t)(int32_t)(int8_t)c;
}

/* identify_magic's Mach-O file type, computed as LLVM computes it (into
 * 16 bits from sign-extended chars); 0 when too short. */
static unsigned macho_type(const uint8_t *b, size_t len)
{
	bool native = !memcmp(b, "\xfe\xed\xfa", 3);
	bool bits64 = native ? b[3] == 0xcf : b[0] == 0xcf;

	if (len < (bits64 ? 32u : 28u))
		return 0;
	if (native)
		return (uint16_t)(sx(b[12]) << 24 | sx(b[13]) << 12 |
				  sx(b[14]) << 8 | sx(b[15]));
	return (uint16_t)(sx(b[15]) << 24 | sx(b[14]) << 12 | sx(b[13]) << 8 |
			  sx(b[12]));
}

/* LLVM's identify_magic, reduced to what the archive writer does with the
 * answer (SymbolicFile::isSymbolicFile). */
static enum member_kind classify(const uint8_t *b, size_t len,
				 const char **what)
{
	if (len < 4)
		return OPAQUE;
	switch (b[0]) {
	case 0x00:
		if (!memcmp(b, "\0\0\xff\xff", 4)) {
			if (len >= 28 && !memcmp(b + 12, cl_gl_magic, 16))
				return OPAQUE;
			return COFF;	/* bigobj or short import */
		}
		if (len >= 16 && !memcmp(b, win_res_magic, 16))
			return OPAQUE;
		if (b[1] == 0)
			return COFF;	/* machine unknown */
		if (!memcmp(b, "\0asm", 4)) {
			*what = "Wasm";
			return OTHER_OBJECT;
		}
		return OPAQUE;
	case 0x01:
		*what = "XCOFF";
		return b[1] == 0xdf || b[1] == 0xf7 ? OTHER_OBJECT : OPAQUE;
	case 0x03:
		*what = "GOFF";
		return !memcmp(b, "\x03\xf0\x00", 3) ? OTHER_OBJECT : OPAQUE;
	case 0xde:
		return !memcmp(b, "\xde\xc0\x17\x0b", 4) ? BITCODE : OPAQUE;
	case 'B':
		return !memcmp(b, "BC\xc0\xde", 4) ? BITCODE : OPAQUE;
	case 0x7f:
		return !memcmp(b, "\x7f" "ELF", 4) && len >= 18 ? ELF : OPAQUE;
	case 0xfe: case 0xce: case 0xcf:
		if (memcmp(b, "\xfe\xed\xfa\xce", 4) &&
		    memcmp(b, "\xfe\xed\xfa\xcf", 4) &&
		    memcmp(b, "\xce\xfa\xed\xfe", 4) &&
		    memcmp(b, "\xcf\xfa\xed\xfe", 4))
			return OPAQUE;
		*what = "Mach-O";
		return macho_type(b, len) - 1 < 12 ? OTHER_OBJECT : OPAQUE;
	case 0xf0: case 0x83: case 0x84: case 0x66: case 0x50:
		if (!memcmp(b, "\x50\xed\x55\xba", 4))
			return OPAQUE;	/* CUDA fatbinary */
		/* fall through */
	case 0x4c: case 0xc4:
		if (b[1] == 0x01)
			goto coff;
		/* fall through */
	case 0x90: case 0x68:
		return b[1] == 0x02 ? COFF : OPAQUE;
	case 'M':
		if (b[1] == 'Z' && len >= 0x40) {
			size_t off = (size_t)b[0x3c] | (size_t)b[0x3d] << 8 |
				     (size_t)b[0x3e] << 16 |
				     (size_t)b[0x3f] << 24;

			if (off <= len && len - off >= 4 &&
			    !memcmp(b + off, "PE\0\0", 4))
				return COFF;
		}
		return OPAQUE;
	case 0x64:
		if (b[1] == 0x86 || b[1] == 0xaa)
			goto coff;
		return OPAQUE;
	case 'D':
		*what = "DXContainer";
		return !memcmp(b, "DXBC", 4) ? OTHER_OBJECT : OPAQUE;
	case 0x41: case 0x4e:
		if (b[1] == 0xa6)
			goto coff;
		return OPAQUE;
	}
	return OPAQUE;
coff:
	return COFF;
}

_Static_assert((int)AR_SYMBOLS_UNSUPPORTED == (int)BITCODE_UNSUPPORTED,
	       "ar_member_symbols passes bitcode's failure on");

struct collect {
	struct ar_symlist *l;
	bool out_of_memory;
};

static int add_symbol(void *ctx, const char *name, size_t len)
{
	struct collect *c = ctx;
	struct ar_symlist *l = c->l;

	if (len + 1 > l->cap - l->len) {
		size_t cap = l->cap ? l->cap : 256;
		char *p;

		while (cap - l->len < len + 1) {
			if (cap > SIZE_MAX / 2)
				goto nomem;
			cap *= 2;
		}
		p = realloc(l->syms, cap);
		if (!p)
			goto nomem;
		l->syms = p;
		l->cap = cap;
	}
	memcpy(l->syms + l->len, name, len);
	l->syms[l->len + len] = '\0';
	l->len += len + 1;
	l->n++;
	return 0;
nomem:
	c->out_of_memory = true;
	return -1;
}

enum {
	MACHINE_ARM64 = 0xaa64, MACHINE_ARM64EC = 0xa641,
	MACHINE_ARM64X = 0xa64e,
};

static unsigned coff_ec(const uint8_t *buf, size_t len)
{
	struct coff_header h;
	struct err e;

	if (coff_read_header(buf, len, &h, &e) < 0)
		return 0;
	return (h.machine == MACHINE_ARM64 || h.machine == MACHINE_ARM64EC ||
		h.machine == MACHINE_ARM64X ? AR_EC_ARM64 : 0) |
	       (h.machine != MACHINE_ARM64 ? AR_EC_OBJECT : 0);
}

/* The same of a bitcode member, by its triple's architecture and OS. */
static unsigned bitcode_ec(const uint8_t *buf, size_t len)
{
	struct bitcode_symtab t;
	struct err e;
	const char *arch, *dash;
	size_t n;
	bool windows = false;

	if (bitcode_symtab_open(&t, buf, len, &e) < 0 || !t.triple)
		return 0;
	arch = t.triple;
	dash = memchr(arch, '-', t.triple_len);
	n = dash ? (size_t)(dash - arch) : t.triple_len;
	for (size_t i = 0; i + 5 <= t.triple_len; i++)
		if ((i + 7 <= t.triple_len &&
		     !memcmp(t.triple + i, "windows", 7)) ||
		    !memcmp(t.triple + i, "win32", 5))
			windows = true;
#define IS(s) (n == sizeof(s) - 1 && !memcmp(arch, s, n))
	if (IS("arm64ec"))
		return AR_EC_OBJECT | (windows ? AR_EC_ARM64 : 0);
	if (IS("x86_64") || IS("amd64") || IS("x86_64h"))
		return AR_EC_OBJECT;
	if (IS("aarch64") || IS("arm64"))
		return windows ? AR_EC_ARM64 : 0;
#undef IS
	return 0;
}

int ar_member_symbols(const uint8_t *buf, size_t len, struct ar_symlist *l,
		      struct err *e)
{
	struct collect c = { l, false };
	enum member_kind kind;
	const char *what = "";
	int rc = 0;

	memset(l, 0, sizeof(*l));
	switch ((kind = classify(buf, len, &what))) {
	case OPAQUE:
		return 0;
	case BITCODE:
		rc = bitcode_archive_symbols(buf, len, add_symbol, &c, e);
		break;
	case ELF:
		rc = elfscan_symbols(buf, len, add_symbol, &c, e);
		break;
	case COFF:
		rc = coff_archive_symbols(buf, len, add_symbol, &c, e);
		break;
	case OTHER_OBJECT:
		return err_set(e, "the symbols of a %s object are not read "
			       "here (only ELF, COFF and LLVM bitcode)", what);
	}
	if (rc) {
		if (c.out_of_memory)
			err_nomem(e);
		ar_symlist_free(l);
		return rc == AR_SYMBOLS_UNSUPPORTED ? rc : -1;
	}
	l->symbolic = true;
	l->ec = kind == COFF ? coff_ec(buf, len) :
		kind == BITCODE ? bitcode_ec(buf, len) : 0;
	return 0;
}

void ar_symlist_free(struct ar_symlist *l)
{
	free(l->syms);
	memset(l, 0, sizeof(*l));
}
