/* ls_kpack: a kpack-split host binary (ROCm/rocm-kpack, docs/multi_arch_
 * packaging_with_kpack.md, "Binary Conversion"), shown as what it is: its
 * .rocm_kpack_ref (the TOC key of its code, the archives' search paths),
 * its HIPK wrappers (each the index of a code object, the "#<index>" of
 * its TOC key), and the code objects the archives hold for them.
 *
 * The runtime (rocm-kpack runtime/src/loader.cpp) resolves a search path
 * against the binary's directory (an absolute one as it is) and puts the
 * device's target ID in place of "@GFXARCH@", then less specific forms of
 * it; offline there is no device, so every file of that directory whose
 * name is the pattern with a target ID in place is an archive of the
 * install, each for the target its name gives. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_kpack.h"
#include "messages.h"
#include "../core/elfscan.h"
#include "../core/io_in.h"
#include "../formats/amdgpu_co.h"
#include "../formats/kernels.h"
#include "../formats/kpack.h"
#include "../ops/kpack_find.h"

#define fail(what, file, ...) applet_fail("ls", what, file, __VA_ARGS__)

struct host {
	const char *path;
	struct kpack_ref ref;
	uint64_t *index;
	size_t nhipk, nhipf;
	bool verify;
	struct select *sel;	/* -t: NULL or no rules for all */
	int rc;
};

static const char amdgcn[] = "amdgcn-amd-amdhsa";

/* Does -t take the code for target (with its TOC key id, or none)? */
static bool selected(struct host *h, const char *id, const char *target)
{
	struct select_entry en = {
		.id = id, .id_len = id ? strlen(id) : 0,
		.arch = target, .arch_len = strlen(target),
		.triple = amdgcn, .triple_len = sizeof(amdgcn) - 1,
	};

	return !h->sel || !h->sel->n || select_match(h->sel, &en);
}

static const struct elfscan_section *section(const struct elfscan *s,
					     const char *name)
{
	for (size_t i = 1; i < s->n; i++)
		if (!strcmp(s->sec[i].name, name))
			return &s->sec[i];
	return NULL;
}

/* Is code (n bytes) an AMDGPU code object for target? */
static bool code_for(const uint8_t *code, uint64_t n, const char *target,
		     char *got, size_t got_len)
{
	struct kernel_list l;
	struct err e;
	bool ok;

	snprintf(got, got_len, "not an AMDGPU code object");
	if (amdgpu_co_kernels(code, (size_t)n, &l, &e) < 0)
		return false;
	snprintf(got, got_len, "%s", l.target_id[0] ? l.target_id : "no target");
	ok = !strcmp(l.target_id, target) || !strcmp(l.processor, target);
	kernels_free(&l);
	return ok;
}

/* One archive at apath for target (its name's). */
static void archive(struct host *h, const char *apath, const char *target)
{
	struct io_in in;
	struct kpack k;
	struct err e;

	if (strcmp(target, "?") && !selected(h, NULL, target))
		return;
	printf("    archive %s (%s)", apath, target);
	if (kpack_archive_open(&in, apath, &e) < 0) {
		putchar('\n');
		h->rc |= applet_fail_err("ls", "cannot read", apath, 0, &e);
		return;
	}
	if (kpack_parse(in.data, in.len, &k, &e) < 0) {
		putchar('\n');
		h->rc |= fail("cannot list", apath, "kpack archive: %s", e.msg);
		io_in_close(&in);
		return;
	}
	printf(": %s, %zu entr%s\n", kpack_scheme_name(k.scheme), k.n,
	       k.n == 1 ? "y" : "ies");
	for (size_t w = 0; w < h->nhipk; w++) {
		char key[4200];
		bool found = false;

		snprintf(key, sizeof(key), "%s#%" PRIu64, h->ref.kernel_name,
			 h->index[w]);
		for (size_t i = 0; i < k.n; i++) {
			const struct kpack_entry *en = &k.v[i];
			uint8_t *code = NULL;
			uint64_t n;
			char got[96];

			if (strcmp(en->key, key))
				continue;
			found = true;
			if (!selected(h, en->key, en->target))
				continue;
			printf("      %s  %s  %" PRIu64 "\n", en->key, en->target,
			       en->size);
			if (!h->verify)
				continue;
			if (kpack_entry_code(in.data, in.len, &k, i,
					     &(struct ccob_limits){
						     .max_ratio = CCOB_DEFAULT_MAX_RATIO,
						     .max_size = CCOB_DEFAULT_MAX_SIZE },
					     &code, &n, &e) < 0) {
				h->rc |= fail("bad code object in", apath, "%s",
					      e.msg);
			} else if (strcmp(en->target, target) &&
				   strncmp(target, en->target,
					   strlen(en->target))) {
				h->rc |= fail("bad code object in", apath,
					      "'%s' is for %s, not the archive's "
					      "%s", key, en->target, target);
			} else if (!code_for(code, n, en->target, got,
					     sizeof(got))) {
				h->rc |= fail("bad code object in", apath,
					      "'%s' for %s: %s", key, en->target,
					      got);
			}
			free(code);
		}
		if (!found && h->verify)
			h->rc |= fail("missing code object for", h->path,
				      "wrapper #%" PRIu64 ": no '%s' in '%s'",
				      h->index[w], key, apath);
		else if (!found)
			printf("      %s  missing\n", key);
	}
	kpack_free(&k);
	io_in_close(&in);
}

/* Every archive one search path finds (ops/kpack_find.c). */
static void search(struct host *h, const char *pattern)
{
	struct kpack_finds f;
	struct err e;

	printf("    search path %s\n", pattern);
	if (kpack_find(h->path, pattern, &f, &e) < 0) {
		h->rc |= fail("cannot list", h->path, "%s", e.msg);
		return;
	}
	if (f.no_dir && h->verify)
		h->rc |= fail("no archive for", h->path, "search path "
			      "'%s': no directory '%s'", pattern, f.dir);
	else if (!f.n && h->verify)
		h->rc |= fail("no archive for", h->path, "search path '%s' "
			      "finds no archive", pattern);
	for (size_t i = 0; i < f.n; i++)
		archive(h, f.v[i].path, f.v[i].target);
	kpack_finds_free(&f);
}

int ls_kpack_host(const char *path, const uint8_t *buf, size_t len,
		  bool verify, struct select *sel)
{
	struct host h = { .path = path, .verify = verify, .sel = sel };
	const struct elfscan_section *ref, *seg;
	struct elfscan s;
	struct err e;

	if (!elfscan_is_elf(buf, len))
		return 0;
	/* The walk has said what is wrong with the file; out of memory
	 * is this listing's own failure. */
	if (elfscan_open(&s, buf, len, &e) < 0)
		return e.code == ERR_NOMEM ? fail("cannot list", path, "%s",
						  e.msg) : 0;
	ref = section(&s, ".rocm_kpack_ref");
	seg = section(&s, ".hipFatBinSegment");
	if (!ref)
		goto out;
	if (ref->offset > len || ref->size > len - ref->offset ||
	    kpack_ref_parse(buf + ref->offset, (size_t)ref->size, &h.ref,
			    &e) < 0) {
		h.rc = fail("cannot list", path, "%s", ref->offset > len ||
			    ref->size > len - ref->offset ?
			    ".rocm_kpack_ref runs past the end of the file" :
			    e.msg);
		goto out;
	}
	if (seg && (seg->offset > len || seg->size > len - seg->offset ||
		    kpack_wrappers(buf + seg->offset, seg->size, s.is64,
				   s.big_endian, &h.index, &h.nhipk, &h.nhipf,
				   &e) < 0)) {
		h.rc = fail("cannot list", path, "%s", seg->offset > len ||
			    seg->size > len - seg->offset ?
			    ".hipFatBinSegment runs past the end of the file" :
			    e.msg);
		goto out;
	}
	printf("  kpack-split: code '%s', %zu HIPK wrapper%s", h.ref.kernel_name,
	       h.nhipk, h.nhipk == 1 ? "" : "s");
	for (size_t i = 0; i < h.nhipk; i++)
		printf("%s#%" PRIu64, i ? ", " : " (", h.index[i]);
	printf("%s\n", h.nhipk ? ")" : "");
	for (size_t i = 0; i < h.ref.npaths; i++)
		search(&h, h.ref.paths[i]);
out:
	kpack_ref_free(&h.ref);
	free(h.index);
	elfscan_free(&s);
	return h.rc;
}
