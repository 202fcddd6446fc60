/* amdgpu_co: the kernels of an AMDGPU code object (code object v4-v6):
 * its NT_AMDGPU_METADATA note, MessagePack decoded by libmsgpack (msgpack-c),
 * and each kernel's 64-byte descriptor, found by its .kd symbol.  See
 * kernels.h. */
#include <elf.h>
#include <msgpack.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amdgpu_target.h"
#include "kernels.h"
#include "amdgpu_co.h"
#include "msgp.h"
#include "../core/bytes.h"
#include "../core/elfscan.h"
#include "../core/strmap.h"

#ifndef EM_AMDGPU
#define EM_AMDGPU 224
#endif

enum {
	NT_AMDGPU_METADATA = 32,
	KD_SIZE = 64,
};

/* ---- reading the decoded metadata ---- */

/* An unsigned field that fits 32 bits: 0 with *v set (KERNEL_NONE when
 * absent), -1 when of another type. */
static int mp_u32(const msgpack_object *map, const char *key, uint32_t *v,
		  struct err *e)
{
	const msgpack_object *o = msgp_get(map, key);

	*v = KERNEL_NONE;
	if (!o)
		return 0;
	if (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER ||
	    o->via.u64 >= KERNEL_NONE)
		return err_code_set(e, ERR_MALFORMED, "%s is not an unsigned "
				    "32-bit integer", key);
	*v = (uint32_t)o->via.u64;
	return 0;
}

/* ---- the ELF around it ---- */

struct co {
	const uint8_t *buf;
	size_t len;
	struct elfscan s;
	struct strmap syms;	/* .kd symbol name -> index into symvals */
	uint64_t *symvals;
};

/* The metadata note's bytes: 1 found, 0 none, -1 damaged. */
static int find_note(struct co *c, const uint8_t **desc, size_t *desc_len,
		     struct err *e)
{
	for (size_t i = 1; i < c->s.n; i++) {
		const struct elfscan_section *sec = &c->s.sec[i];
		const uint8_t *p;
		uint64_t size, pos = 0;
		unsigned align = sec->align == 8 ? 8 : 4;

		if (sec->type != SHT_NOTE)
			continue;
		p = elfscan_bytes(&c->s, c->buf, i, &size);
		while (size - pos >= 12) {
			uint32_t namesz = (uint32_t)get_le(p + pos, 4);
			uint32_t descsz = (uint32_t)get_le(p + pos + 4, 4);
			uint32_t type = (uint32_t)get_le(p + pos + 8, 4);
			uint64_t name_at = pos + 12, desc_at, room;

			room = size - name_at;
			if (namesz > room)
				break;
			desc_at = name_at + ((namesz + align - 1) & ~(uint64_t)(align - 1));
			if (desc_at > size || descsz > size - desc_at)
				return err_code_set(e, ERR_TRUNCATED, "note in "
						    "section [%zu] runs past its "
						    "end", i);
			if (type == NT_AMDGPU_METADATA && namesz == 7 &&
			    !memcmp(p + name_at, "AMDGPU", 7)) {
				*desc = p + desc_at;
				*desc_len = descsz;
				return 1;
			}
			pos = desc_at + ((descsz + align - 1) & ~(uint64_t)(align - 1));
			if (pos > size)
				break;
		}
	}
	return 0;
}

/* Index the symbols whose names end in ".kd" (the descriptors). */
static int index_symbols(struct co *c, struct err *e)
{
	size_t count = 0;

	for (size_t i = 1; i < c->s.n; i++) {
		const struct elfscan_section *sec = &c->s.sec[i];
		uint64_t size;
		const uint8_t *p;

		if (sec->type != SHT_SYMTAB && sec->type != SHT_DYNSYM)
			continue;
		if (sec->link == 0 || sec->link >= c->s.n)
			return err_code_set(e, ERR_MALFORMED, "symbol table [%zu]"
					    " links to no string table", i);
		p = elfscan_bytes(&c->s, c->buf, i, &size);
		for (uint64_t k = 1; k < size / 24; k++) {
			const uint8_t *sym = p + 24 * k;
			size_t nlen;
			const char *name = elfscan_string(c->buf,
				&c->s.sec[sec->link], get_le(sym, 4), &nlen);
			uint64_t *v;

			if (!name || nlen < 4 || memcmp(name + nlen - 3, ".kd", 3))
				continue;
			v = realloc(c->symvals, (count + 1) * sizeof(*v));
			if (!v || strmap_set(&c->syms, name, nlen, count) < 0)
				return err_nomem(e);
			c->symvals = v;
			v[count++] = get_le(sym + 8, 8);
		}
	}
	return 0;
}

/* The descriptor symbol names, at its address in the file. */
static int read_kd(struct co *c, const char *symbol, struct kernel *k,
		   struct err *e)
{
	uint32_t b = strmap_find(&c->syms, symbol, strlen(symbol));
	uint64_t addr;

	if (b == c->syms.nb)
		return 0;	/* none: a stripped object */
	addr = c->symvals[c->syms.b[b].value];
	for (size_t i = 1; i < c->s.n; i++) {
		const struct elfscan_section *sec = &c->s.sec[i];
		const uint8_t *p;

		if (!(sec->flags & SHF_ALLOC) || sec->type == SHT_NOBITS ||
		    addr < sec->addr || addr - sec->addr >= sec->size)
			continue;
		if (sec->size - (addr - sec->addr) < KD_SIZE)
			return err_code_set(e, ERR_TRUNCATED, "descriptor %.200s "
					    "at 0x%llx runs past the end of "
					    "section [%zu]", symbol,
					    (unsigned long long)addr, i);
		p = c->buf + sec->offset + (addr - sec->addr);
		k->has_kd = true;
		k->kd.offset = sec->offset + (addr - sec->addr);
		k->kd.group_segment_fixed_size = (uint32_t)get_le(p, 4);
		k->kd.private_segment_fixed_size = (uint32_t)get_le(p + 4, 4);
		k->kd.kernarg_size = (uint32_t)get_le(p + 8, 4);
		k->kd.rsrc3 = (uint32_t)get_le(p + 44, 4);
		k->kd.rsrc1 = (uint32_t)get_le(p + 48, 4);
		k->kd.rsrc2 = (uint32_t)get_le(p + 52, 4);
		k->kd.properties = (uint16_t)get_le(p + 56, 2);
		return 0;
	}
	return err_code_set(e, ERR_MALFORMED, "descriptor %.200s at 0x%llx is "
			    "in no section of the file", symbol,
			    (unsigned long long)addr);
}

static void kernel_init(struct kernel *k)
{
	memset(k, 0, sizeof(*k));
	k->regs = k->stack = k->shared = k->local = KERNEL_NONE;
	k->max_threads = KERNEL_NONE;
	for (size_t i = 0; i < sizeof(k->constant) / sizeof(k->constant[0]); i++)
		k->constant[i] = KERNEL_NONE;
}

static int one_kernel(struct co *c, const msgpack_object *m,
		      struct kernel_list *l, struct err *e)
{
	struct kernel *k = &l->v[l->n];
	const msgpack_object *o;
	char *symbol = NULL;
	int rc = -1;

	kernel_init(k);
	if (m->type != MSGPACK_OBJECT_MAP)
		return err_code_set(e, ERR_MALFORMED, "kernel %zu is not a map",
				    l->n);
	if (msgp_string(msgp_get(m, ".name"), "a kernel's .name", &k->name, e) < 0)
		return -1;
	l->n++;		/* its name is freed with the list from here on */
	if (mp_u32(m, ".sgpr_count", &k->sgprs, e) < 0 ||
	    mp_u32(m, ".vgpr_count", &k->vgprs, e) < 0 ||
	    mp_u32(m, ".agpr_count", &k->agprs, e) < 0 ||
	    mp_u32(m, ".sgpr_spill_count", &k->sgpr_spills, e) < 0 ||
	    mp_u32(m, ".vgpr_spill_count", &k->vgpr_spills, e) < 0 ||
	    mp_u32(m, ".group_segment_fixed_size", &k->lds, e) < 0 ||
	    mp_u32(m, ".private_segment_fixed_size", &k->scratch, e) < 0 ||
	    mp_u32(m, ".wavefront_size", &k->wavefront, e) < 0 ||
	    mp_u32(m, ".max_flat_workgroup_size", &k->max_flat_wg, e) < 0 ||
	    mp_u32(m, ".kernarg_segment_size", &k->kernarg_size, e) < 0)
		goto out;
	k->dynamic_stack = -1;
	if ((o = msgp_get(m, ".uses_dynamic_stack"))) {
		if (o->type != MSGPACK_OBJECT_BOOLEAN) {
			err_code_set(e, ERR_MALFORMED, ".uses_dynamic_stack is "
				     "not a boolean");
			goto out;
		}
		k->dynamic_stack = o->via.boolean;
	}
	k->reqd_wg = KERNEL_NONE;
	if ((o = msgp_get(m, ".reqd_workgroup_size")) &&
	    o->type == MSGPACK_OBJECT_ARRAY && o->via.array.size == 3) {
		uint64_t p = 1;

		for (int i = 0; i < 3; i++) {
			const msgpack_object *d = &o->via.array.ptr[i];

			p = d->type == MSGPACK_OBJECT_POSITIVE_INTEGER &&
			    d->via.u64 <= 1024 ? p * d->via.u64 : 0;
		}
		if (p && p <= 1024)
			k->reqd_wg = (uint32_t)p;
	}
	if (msgp_string(msgp_get(m, ".symbol"), "a kernel's .symbol", &symbol, e) < 0 ||
	    read_kd(c, symbol, k, e) < 0)
		goto out;
	rc = 0;
out:
	if (rc < 0 && k->name)
		err_wrap(e, e ? e->code : ERR_OTHER, "kernel '%.200s'", k->name);
	free(symbol);
	return rc;
}


/* A code object whose metadata names no target (amdhsa.target is
 * optional; hipBLASLt's extop_gfx*.co have none): the target ID from
 * e_flags, as llvm-readelf reads it: the processor, then sramecc and
 * xnack (v3: a bit each, set or not; v4 on: two bits each, "any" and
 * "unsupported" leaving the feature out).  Nothing for a processor
 * not in the table. */
static void target_from_flags(uint32_t flags, unsigned co_version,
			      struct kernel_list *l)
{
	const char *name = amdgpu_mach_name(flags), *sramecc, *xnack;

	if (!name)
		return;
	if (co_version == 3) {
		sramecc = flags & 0x200 ? ":sramecc+" : "";
		xnack = flags & 0x100 ? ":xnack+" : "";
	} else {
		sramecc = (flags & 0xc00) == 0xc00 ? ":sramecc+"
			: (flags & 0xc00) == 0x800 ? ":sramecc-" : "";
		xnack = (flags & 0x300) == 0x300 ? ":xnack+"
		      : (flags & 0x300) == 0x200 ? ":xnack-" : "";
	}
	snprintf(l->processor, sizeof(l->processor), "%s", name);
	snprintf(l->target_id, sizeof(l->target_id), "%s%s%s", name, sramecc,
		 xnack);
	snprintf(l->target, sizeof(l->target), "amdgcn-amd-amdhsa--%s",
		 l->target_id);
}

static int read_metadata(struct co *c, const uint8_t *desc, size_t dlen,
			 struct kernel_list *l, struct err *e)
{
	msgpack_unpacked u;
	const msgpack_object *root, *ks, *t;
	size_t pos = 0;
	int rc = -1;

	if (msgp_check(desc, dlen, &pos, e) < 0)
		return -1;
	msgpack_unpacked_init(&u);
	pos = 0;
	if (msgpack_unpack_next(&u, (const char *)desc, dlen, &pos) !=
	    MSGPACK_UNPACK_SUCCESS) {
		err_code_set(e, ERR_MALFORMED, "MessagePack does not decode");
		goto out;
	}
	root = &u.data;
	if (root->type != MSGPACK_OBJECT_MAP) {
		err_code_set(e, ERR_MALFORMED, "metadata is not a map");
		goto out;
	}
	if ((t = msgp_get(root, "amdhsa.target"))) {
		const char *dash;
		size_t n;

		if (t->type != MSGPACK_OBJECT_STR) {
			err_code_set(e, ERR_MALFORMED, "amdhsa.target is not a "
				     "string");
			goto out;
		}
		n = t->via.str.size < sizeof(l->target) - 1 ?
		    t->via.str.size : sizeof(l->target) - 1;
		memcpy(l->target, t->via.str.ptr, n);
		l->target[n] = 0;
		/* The target ID follows the triple's four parts, whatever
		 * they are ("amdgcn-amd-amdhsa--", LLVM 23's
		 * "amdgcn-amd-amdhsa-unknown-", LLVM 24's
		 * "amdgpu9.0a-amd-amdhsa-unknown-"). */
		dash = l->target;
		for (int d = 0; d < 4 && dash; d++)
			if ((dash = strchr(dash, '-')))
				dash++;
		if (dash && *dash) {
			size_t tlen = strlen(dash);
			size_t plen = strcspn(dash, ":");

			if (tlen < sizeof(l->target_id))
				memcpy(l->target_id, dash, tlen + 1);
			if (plen < sizeof(l->processor)) {
				memcpy(l->processor, dash, plen);
				l->processor[plen] = 0;
			}
		}
	}
	/* Before the kernels: their occupancy wants the processor. */
	if (!l->target[0])
		target_from_flags(c->s.flags, l->co_version, l);
	ks = msgp_get(root, "amdhsa.kernels");
	if (!ks) {
		rc = 0;		/* a code object with no kernels */
		goto out;
	}
	if (ks->type != MSGPACK_OBJECT_ARRAY) {
		err_code_set(e, ERR_MALFORMED, "amdhsa.kernels is not an array");
		goto out;
	}
	l->v = calloc(ks->via.array.size ? ks->via.array.size : 1,
		      sizeof(*l->v));
	if (!l->v) {
		err_nomem(e);
		goto out;
	}
	for (uint32_t i = 0; i < ks->via.array.size; i++)
		if (one_kernel(c, &ks->via.array.ptr[i], l, e) < 0)
			goto out;
	rc = 0;
out:
	msgpack_unpacked_destroy(&u);
	return rc;
}

int amdgpu_co_kernels(const uint8_t *buf, size_t len, struct kernel_list *l,
		      struct err *e)
{
	struct co c = { .buf = buf, .len = len };
	const uint8_t *desc = NULL;
	size_t dlen = 0;
	int rc = -1, found;
	bool opened = false;

	memset(l, 0, sizeof(*l));
	l->source = KERNELS_AMDGPU;
	if (elfscan_open(&c.s, buf, len, e) < 0)
		goto out;
	opened = true;
	if (!c.s.is64 || c.s.big_endian || c.s.machine != EM_AMDGPU) {
		err_code_set(e, ERR_MALFORMED, "not a 64-bit little-endian "
			     "AMDGPU ELF file");
		goto out;
	}
	/* EI_ABIVERSION: 2 for code object v4, 3 for v5, 4 for v6. */
	l->co_version = c.s.abiversion + 2u;
	if ((found = find_note(&c, &desc, &dlen, e)) < 0)
		goto out;
	if (!found) {
		err_code_set(e, ERR_NOTHING, "no AMDGPU metadata note "
			     "(code object v%u)", l->co_version);
		goto out;
	}
	if (index_symbols(&c, e) < 0)
		goto out;
	if (read_metadata(&c, desc, dlen, l, e) < 0) {
		err_wrap(e, e ? e->code : ERR_OTHER, "metadata note");
		goto out;
	}
	rc = 0;
out:
	if (rc < 0)
		kernels_free(l);
	free(c.symvals);
	strmap_free(&c.syms);
	if (opened)
		elfscan_free(&c.s);
	return rc;
}
