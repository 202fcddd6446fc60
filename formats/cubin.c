/* cubin: the kernels of an NVIDIA cubin and what each uses, from the
 * sections ptxas writes for each kernel K:
 *   .nv.info.K          K's attributes (it is there for kernels only)
 *   .text.K             its code; sh_info holds its symbol's index in the
 *                       low 24 bits and its register count in the top 8
 *   .nv.shared.K        its static shared memory (size)
 *   .nv.local.K         its local memory (size)
 *   .nv.constantN.K     what it uses of constant bank N (size)
 * and the module's .nv.info, whose attributes name a function by symbol
 * index: its register count and the stack it needs with its
 * callees (MIN_STACK_SIZE: ptxas -v's "cumulative stack size", cuobjdump
 * -res-usage's STACK; all ones when ptxas cannot bound it, as for
 * recursion, cuobjdump's UNKNOWN).  Attributes are records
 * of a format byte, an attribute byte and 16 bits: nothing, a byte or a
 * half-word, or the size of the bytes that follow.  See kernels.h. */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "cubin.h"
#include "../core/bytes.h"
#include "../core/elfscan.h"
#include "../core/strmap.h"

#ifndef EM_CUDA
#define EM_CUDA 190
#endif

enum {
	EIFMT_NVAL = 1, EIFMT_BVAL = 2, EIFMT_HVAL = 3, EIFMT_SVAL = 4,
	EIATTR_MAX_THREADS = 0x05,
	EIATTR_MIN_STACK_SIZE = 0x12,
	EIATTR_REGCOUNT = 0x2f,
	NBANKS = 18,
};

/* One attribute: 1 read, 0 at the end, -1 cut short. */
static int next_attr(const uint8_t *p, uint64_t size, uint64_t *pos,
		     uint8_t *attr, const uint8_t **val, uint32_t *vlen)
{
	uint64_t at = *pos;
	uint8_t fmt;

	if (at >= size)
		return 0;
	if (size - at < 2)
		return -1;
	fmt = p[at];
	*attr = p[at + 1];
	at += 2;
	/* Every record has a 16-bit field after its two bytes: the value
	 * of a byte or half-word attribute (zero for none), or the size of
	 * the bytes that follow. */
	if (fmt < EIFMT_NVAL || fmt > EIFMT_SVAL || size - at < 2)
		return -1;
	*vlen = fmt == EIFMT_SVAL ? (uint32_t)get_le(p + at, 2) :
		fmt == EIFMT_NVAL ? 0 : fmt == EIFMT_BVAL ? 1 : 2;
	if (fmt != EIFMT_SVAL) {
		*val = p + at;
		*pos = at + 2;
		return 1;
	}
	at += 2;
	if (*vlen > size - at)
		return -1;
	*val = p + at;
	*pos = at + *vlen;
	return 1;
}

struct cubin {
	const uint8_t *buf;
	struct elfscan s;
	struct strmap names;	/* section name -> index */
	char *key;		/* room for a prefix and a section's name */
	uint64_t reserved;	/* .nv.reservedSmem.cap's value, or 0 */
};

/* The shared memory reserved at the start of each kernel's window, which
 * ptxas leaves out of its "smem" figure: on sm_90 and later, the value of
 * .nv.reservedSmem.cap when the cubin has it, else CUDA's 1 KB of
 * reserved shared memory per block when it refers to the reserved part
 * at all (.nv.reservedSmem.offset0); 0 before. */
static uint64_t reserved_shared(const struct elfscan *s, const uint8_t *buf)
{
	static const char cap[] = ".nv.reservedSmem.cap";
	static const char off0[] = ".nv.reservedSmem.offset0";
	uint64_t found = 0;

	for (size_t i = 1; i < s->n; i++) {
		const uint8_t *p;
		uint64_t size;

		if (s->sec[i].type != SHT_SYMTAB || !s->is64 ||
		    s->sec[i].link == 0 || s->sec[i].link >= s->n)
			continue;
		p = elfscan_bytes(s, buf, i, &size);
		for (uint64_t k = 1; k < size / 24; k++) {
			size_t nlen;
			const char *name = elfscan_string(buf,
				&s->sec[s->sec[i].link], get_le(p + 24 * k, 4),
				&nlen);

			if (name && nlen == sizeof(cap) - 1 &&
			    !memcmp(name, cap, nlen))
				return get_le(p + 24 * k + 8, 8);
			if (name && nlen == sizeof(off0) - 1 &&
			    !memcmp(name, off0, nlen))
				found = 1024;
		}
	}
	return found;
}

/* The section named prefix + name, or 0. */
static size_t find_section(const struct cubin *c, const char *prefix,
			   const char *name)
{
	size_t n = (size_t)sprintf(c->key, "%s%s", prefix, name);
	uint32_t b = strmap_find(&c->names, c->key, n);

	return b == c->names.nb ? 0 : c->names.b[b].value;
}

static void kernel_init(struct kernel *k)
{
	memset(k, 0, sizeof(*k));
	k->sgprs = k->vgprs = k->agprs = k->sgpr_spills = KERNEL_NONE;
	k->vgpr_spills = k->lds = k->scratch = k->wavefront = KERNEL_NONE;
	k->max_flat_wg = k->kernarg_size = k->reqd_wg = KERNEL_NONE;
	k->dynamic_stack = -1;
	k->regs = k->stack = k->max_threads = KERNEL_NONE;
	k->shared = k->local = 0;
	for (int b = 0; b < NBANKS; b++)
		k->constant[b] = KERNEL_NONE;
}

/* The module's .nv.info: what it says of symbol sym. */
static int module_attrs(const struct cubin *c,
			uint32_t sym, struct kernel *k, struct err *e)
{
	const struct elfscan *s = &c->s;
	size_t i = find_section(c, ".nv.info", "");
	uint32_t min_stack = 0;
	const uint8_t *p, *val;
	uint64_t size, pos = 0;
	uint32_t vlen;
	uint8_t attr;
	int rc;

	if (!i)
		return 0;
	p = elfscan_bytes(s, c->buf, i, &size);
	while ((rc = next_attr(p, size, &pos, &attr, &val, &vlen)) > 0) {
		uint32_t v;

		if (vlen != 8 || get_le(val, 4) != sym)
			continue;
		v = (uint32_t)get_le(val + 4, 4);
		if (attr == EIATTR_REGCOUNT)
			k->regs = v;
		else if (attr == EIATTR_MIN_STACK_SIZE)
			min_stack = v;
	}
	if (rc < 0)
		return err_code_set(e, ERR_TRUNCATED, ".nv.info: an attribute "
				    "at offset %llu is cut short or of no known "
				    "format", (unsigned long long)pos);
	/* MIN_STACK_SIZE as cuobjdump reads it (its all-ones, unknown, is
	 * KERNEL_NONE), and 0 without one, as cuobjdump says of the device
	 * functions nvcc -G gives attributes (they have only a frame size).
	 * Not MAX_STACK_SIZE (0x23), which CUDA 11.8's cubins have for every
	 * function, 0 whatever the stack. */
	k->stack = min_stack;
	return 0;
}

static int one_kernel(const struct cubin *c,
		      size_t info, struct kernel *k, struct err *e)
{
	const struct elfscan *s = &c->s;
	const char *name;
	const uint8_t *p, *val;
	uint64_t size, pos = 0;
	uint32_t vlen;
	uint8_t attr;
	size_t i;
	int rc;

	kernel_init(k);
	/* The name as the scan measured it, copied: the bytes may change
	 * under us (a buffer another thread writes, a file rewritten under
	 * its map), and c->key has room for that length alone. */
	if (!(k->name = strndup(s->sec[info].name + 9,
				s->sec[info].name_len - 9)))
		return err_nomem(e);
	name = k->name;
	if ((i = find_section(c, ".text.", name))) {
		if (module_attrs(c, s->sec[i].info & 0xffffff, k, e) < 0)
			return -1;
		/* Before sm_90's cubins the register count is also in the
		 * top byte of sh_info. */
		if (k->regs == KERNEL_NONE)
			k->regs = s->sec[i].info >> 24;
	}
	if ((i = find_section(c, ".nv.shared.", name))) {
		uint64_t bytes = s->sec[i].size;

		/* From sm_90 on, a kernel's shared window starts with the
		 * reserved part (.nv.reservedSmem.cap bytes); ptxas counts
		 * only what follows it. */
		bytes -= bytes >= c->reserved ? c->reserved : bytes;
		k->shared = bytes > UINT32_MAX - 1 ? UINT32_MAX - 1
						   : (uint32_t)bytes;
	}
	if ((i = find_section(c, ".nv.local.", name)))
		k->local = s->sec[i].size > UINT32_MAX - 1 ? UINT32_MAX - 1
							   : (uint32_t)s->sec[i].size;
	for (int b = 0; b < NBANKS; b++) {
		char prefix[24];

		snprintf(prefix, sizeof(prefix), ".nv.constant%d.", b);
		if ((i = find_section(c, prefix, name)))
			k->constant[b] = s->sec[i].size > UINT32_MAX - 1 ?
					 UINT32_MAX - 1 : (uint32_t)s->sec[i].size;
	}
	p = elfscan_bytes(s, c->buf, info, &size);
	while ((rc = next_attr(p, size, &pos, &attr, &val, &vlen)) > 0)
		if (attr == EIATTR_MAX_THREADS && vlen == 12) {
			uint64_t t = get_le(val, 4) * get_le(val + 4, 4) *
				     get_le(val + 8, 4);

			k->max_threads = t < KERNEL_NONE ? (uint32_t)t : KERNEL_NONE;
		}
	if (rc < 0)
		return err_code_set(e, ERR_TRUNCATED, "%s: an attribute at "
				    "offset %llu is cut short or of no known "
				    "format", s->sec[info].name,
				    (unsigned long long)pos);
	return 0;
}

int cubin_kernels(const uint8_t *buf, size_t len, struct kernel_list *l,
		  struct err *e)
{
	struct cubin c = { .buf = buf };
	struct elfscan s;
	size_t n = 0, longest = 0;
	int rc = -1;

	memset(l, 0, sizeof(*l));
	l->source = KERNELS_CUBIN;
	if (elfscan_open(&c.s, buf, len, e) < 0)
		return -1;
	s = c.s;
	c.reserved = reserved_shared(&s, buf);
	for (size_t i = 1; i < s.n; i++) {
		if (strmap_set(&c.names, s.sec[i].name, s.sec[i].name_len, i) < 0) {
			err_nomem(e);
			goto out;
		}
		if (s.sec[i].name_len > longest)
			longest = s.sec[i].name_len;
	}
	if (!(c.key = malloc(longest + 24))) {
		err_nomem(e);
		goto out;
	}
	if (s.machine != EM_CUDA) {
		err_code_set(e, ERR_MALFORMED, "not an NVIDIA cubin");
		goto out;
	}
	/* e_flags: the SM version, in bits 0-7 before ABI version 8 (CUDA
	 * 12.8's cubins and later keep it in bits 8-15). */
	snprintf(l->processor, sizeof(l->processor), "sm_%u",
		 s.abiversion >= 8 ? (s.flags >> 8) & 0xff : s.flags & 0xff);
	snprintf(l->target, sizeof(l->target), "%s", l->processor);
	for (size_t i = 1; i < s.n; i++)
		if (s.sec[i].name_len > 9 &&
		    !memcmp(s.sec[i].name, ".nv.info.", 9))
			n++;
	if (!(l->v = calloc(n ? n : 1, sizeof(*l->v)))) {
		err_nomem(e);
		goto out;
	}
	for (size_t i = 1; i < s.n; i++) {
		if (s.sec[i].name_len <= 9 ||
		    memcmp(s.sec[i].name, ".nv.info.", 9))
			continue;
		if (one_kernel(&c, i, &l->v[l->n], e) < 0) {
			free(l->v[l->n].name);
			goto out;
		}
		l->n++;
	}
	rc = 0;
out:
	if (rc < 0)
		kernels_free(l);
	free(c.key);
	strmap_free(&c.names);
	elfscan_free(&c.s);
	return rc;
}

unsigned cubin_header_arch(const uint8_t *buf, size_t len)
{
	uint64_t flags;

	if (len < 52 || memcmp(buf, "\x7f" "ELF", 4) || buf[5] != 1 ||
	    get_le(buf + 18, 2) != EM_CUDA)
		return 0;
	if (buf[4] == 2 && len < 64)
		return 0;
	flags = get_le(buf + (buf[4] == 2 ? 48 : 36), 4);
	return (unsigned)(buf[8] >= 8 ? (flags >> 8) & 0xff : flags & 0xff);
}
