/* bundle_object: bundles kept as sections of the host object, the layout
 * LLVM's bundler makes with llvm-objcopy (here through core/elfcopy). */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle.h"
#include "bundle_object.h"
#include "coff.h"
#include "coffcopy.h"
#include "../core/elfcopy.h"
#include "../core/elfscan.h"
#include "../core/io_in.h"
#include "../core/io_types.h"
#include "../core/sections.h"

/* LLVM takes a section as a bundle entry only with a non-empty ID. */
static bool is_entry_section(void *ctx, const char *name, size_t len)
{
	const char *id;
	size_t id_len;

	(void)ctx;
	return sections_id(SECTION_BUNDLE, name, len, &id, &id_len);
}

static int add_coff_entry(void *ctx, const struct coff_section *sec,
			  struct err *e)
{
	struct bundle_reader *r = ctx;
	size_t n = r->nobj + 1;
	const char **ids;
	size_t *id_len;
	uint64_t *off, *size;

	/* Each array is kept as soon as it has grown: bundle_close frees it. */
	if (!(ids = realloc(r->ids, n * sizeof(*ids))))
		return err_nomem(e);
	r->ids = ids;
	if (!(id_len = realloc(r->id_len, n * sizeof(*id_len))))
		return err_nomem(e);
	r->id_len = id_len;
	if (!(off = realloc(r->off, n * sizeof(*off))))
		return err_nomem(e);
	r->off = off;
	if (!(size = realloc(r->size, n * sizeof(*size))))
		return err_nomem(e);
	r->size = size;
	(void)sections_id(SECTION_BUNDLE, sec->name, sec->name_len,
			  &r->ids[r->nobj], &r->id_len[r->nobj]);
	r->off[r->nobj] = sec->offset;
	r->size[r->nobj] = sec->size;
	r->nobj++;
	return 0;
}

/* A COFF object's bundle sections, which LLVM's bundler (through
 * llvm-objcopy) makes as in ELF: read in section order. */
static int open_coff(struct bundle_reader *r, const uint8_t *buf, size_t len,
		     struct err *e)
{
	uint16_t machine;
	bool bigobj;

	if (coff_section_names(buf, len, is_entry_section, add_coff_entry, r,
			       &machine, &bigobj, e) < 0) {
		/* LLVM's bundler walks every section by name: a name that
		 * does not resolve fails it in its own words. */
		const char *why = coff_llvm_name_error(buf, len);

		if (why)
			err_llvm(e, ERR_MALFORMED, "%s", why);
		bundle_close(r);
		return -1;
	}
	return 0;
}

int bundle_open_object(struct bundle_reader *r, const uint8_t *buf, size_t len,
		       struct err *e)
{
	struct elfscan s;

	memset(r, 0, sizeof(*r));
	r->buf = buf;
	r->len = len;
	r->object = true;
	if (coff_has_magic(buf, len))
		return open_coff(r, buf, len, e);
	if (!elfscan_is_elf(buf, len))
		return 0;
	if (elfscan_open_names(&s, buf, len, e) < 0)
		return -1;
	r->ids = calloc(s.n, sizeof(*r->ids));
	r->id_len = calloc(s.n, sizeof(*r->id_len));
	r->off = calloc(s.n, sizeof(*r->off));
	r->size = calloc(s.n, sizeof(*r->size));
	if (!r->ids || !r->id_len || !r->off || !r->size) {
		elfscan_free(&s);
		bundle_close(r);
		return err_nomem(e);
	}
	for (size_t i = 1; i < s.n; i++) {
		const struct elfscan_section *sec = &s.sec[i];

		if (!sections_id(sec->kind, sec->name, sec->name_len,
				 &r->ids[r->nobj], &r->id_len[r->nobj]))
			continue;
		/* SHT_NOBITS has no bytes in the file: an empty entry. */
		r->off[r->nobj] = sec->type == SHT_NOBITS ? 0 : sec->offset;
		r->size[r->nobj] = sec->type == SHT_NOBITS ? 0 : sec->size;
		r->nobj++;
	}
	elfscan_free(&s);
	return 0;
}

int bundle_next_object(struct bundle_reader *r, struct bundle_entry *ent)
{
	if (r->cur >= r->nobj)
		return 0;
	ent->id = r->ids[r->cur];
	ent->id_len = r->id_len[r->cur];
	r->cur++;
	return 1;
}

/* Sections were listed by name (bundle_open_object): their bytes are
 * checked here, when they are read, in LLVM's words. */
int bundle_content_object(const struct bundle_reader *r, uint64_t *off,
			  uint64_t *size, struct err *e)
{
	*off = r->off[r->cur - 1];
	*size = r->size[r->cur - 1];
	if (*off > r->len || *size > r->len - *off)
		return err_llvm(e, ERR_TRUNCATED, "The end of the file was "
				"unexpectedly encountered");
	return 0;
}

bool bundle_object_is_host(const uint8_t *buf, uint64_t off, uint64_t size)
{
	return size == 1 && buf[off] == 0;
}

int bundle_write_object(const uint8_t *host, size_t host_len,
			const char *const *ids, const struct io_in *inputs,
			size_t n, long host_index, struct io_out *out,
			struct err *e)
{
	static const uint8_t host_marker[1] = { 0 };
	struct elfcopy_add *add = calloc(n + 1, sizeof(*add));
	struct coffcopy_add *cadd = calloc(n + 1, sizeof(*cadd));
	char **names = calloc(n + 1, sizeof(*names));
	int rc = -1;

	if (!add || !cadd || !names) {
		err_nomem(e);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (asprintf(&names[i], "%s%s", sections_name(SECTION_BUNDLE),
			     ids[i]) < 0) {
			names[i] = NULL;
			err_nomem(e);
			goto out;
		}
		add[i] = (struct elfcopy_add){
			.name = names[i], .type = SHT_PROGBITS,
			.flags = SHF_EXCLUDE, .align = 1, .set_existing = true,
			.data = (long)i == host_index ? host_marker : NULL,
			.from = (long)i == host_index ? NULL : &inputs[i],
			.size = (long)i == host_index ? 1 : inputs[i].len,
		};
		cadd[i] = (struct coffcopy_add){
			.name = names[i], .data = add[i].data,
			.from = add[i].from, .size = add[i].size,
		};
	}
	if (coff_has_magic(host, host_len))
		rc = coffcopy_write(host, host_len, NULL, NULL, cadd, n, out,
				    e);
	else
		rc = elfcopy_write(host, host_len, NULL, NULL, add, n, out, e);
out:
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
	free(add);
	free(cadd);
	return rc;
}

/* As llvm-objcopy --regex '__CLANG_OFFLOAD_BUNDLE__.*' removes them. */
static bool is_bundle_section(void *ctx, const char *name, size_t len)
{
	(void)ctx;
	return sections_has_prefix(SECTION_BUNDLE, name, len);
}

int bundle_strip_object(const uint8_t *buf, size_t len, struct io_out *out,
			struct err *e)
{
	if (coff_has_magic(buf, len))
		return coffcopy_write(buf, len, is_bundle_section, NULL, NULL,
				      0, out, e);
	if (!elfscan_is_elf(buf, len))
		return err_set(e, "the host object is neither ELF nor COFF: "
			       "its bundle sections are removed only from "
			       "those (LLVM 22 has llvm-objcopy do it)");
	return elfcopy_write(buf, len, is_bundle_section, NULL, NULL, 0, out,
			     e);
}
