/* extract_kpack: extract's kpack-split binaries (extract_kpack.c): each
 * wrapper's code object, read from the archives the binary names,
 * written as the fat binary's entry would be; all through liboffcode's
 * offcode_split (include/offcode.h). */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "applets.h"
#include "messages.h"
#include "progress.h"
#include "selection.h"
#include "extract_kpack.h"
#include "extract_write.h"
#include "../include/offcode.h"

/* The bundle ID a split binary's code object had in the fat binary: the
 * splitter keeps it in the entry's metadata ("target"), its TOC target
 * being what follows the ID's last "--" (rocm-kpack's
 * extract_architecture_from_target); without it (or when they disagree),
 * the ID clang writes for HIP, hipv4-amdgcn-amd-amdhsa--<target ID>. */
static const char hip_id[] = "hipv4-amdgcn-amd-amdhsa--";

static void split_id(const struct offcode_split_entry *en, char *id,
		     size_t cap)
{
	const char *b = en->bundle_id, *dash = NULL;

	for (const char *p = b; p && (p = strstr(p, "--")); p++)
		dash = p;
	if (b && dash && !strcmp(dash + 2, en->target) && strlen(b) < cap)
		snprintf(id, cap, "%s", b);
	else
		snprintf(id, cap, "%s%s", hip_id, en->target);
}

/* Whether -t (or, without it, the default) takes the code object the
 * split binary's entry en is, its bundle ID made in id (room for
 * sizeof(hip_id) + target). */
static bool split_selected(struct options *o,
			   const struct offcode_split_entry *en, char *id,
			   size_t cap)
{
	struct select_entry se;

	split_id(en, id, cap);
	select_entry_from_id(&se, id, strlen(id));
	if (!o->targets.n)
		return en->code_size > 0;
	return select_match(&o->targets, &se);
}

/* Entry i of archive k, into *en: whether it is one the split binary may
 * write (a target of at most 255 bytes) and -t takes, its ID in id. */
static bool split_entry_taken(struct options *o, const offcode_split *s,
			      size_t k, size_t i,
			      struct offcode_split_entry *en, char *id,
			      size_t cap)
{
	*en = (struct offcode_split_entry){ .size = sizeof(*en) };
	return offcode_split_entry(s, k, i, en) == 0 &&
	       strlen(en->target) <= 255 && split_selected(o, en, id, cap);
}

/* Does -t take the archive of target (NULL: no target in its name) as a
 * target ID, a glob or a triple would take it (a bundle ID rule takes
 * its entries only, through their IDs)? */
static bool split_archive_selected(struct options *o, const char *target)
{
	static const char amdgcn[] = "amdgcn-amd-amdhsa";
	struct select_entry se = {
		.arch = target, .arch_len = target ? strlen(target) : 0,
		.triple = amdgcn, .triple_len = sizeof(amdgcn) - 1,
	};

	return !o->targets.n || !target || select_match(&o->targets, &se);
}

/* Wrapper w's code object, entry i of archive k (at a): counted, or
 * written as the fat binary's entry of container #<index> would be
 * (FILE.N.hipv4-amdgcn-amd-amdhsa--TARGET.co). */
static int split_write(struct job *j, offcode_split *s, uint64_t index,
		       size_t k, const struct offcode_split_archive *a,
		       size_t i)
{
	struct extract_file_id from = { a->has_id, (dev_t)a->device,
					(ino_t)a->inode };
	struct offcode_split_entry en;
	offcode_error *why = NULL;
	const void *code;
	uint64_t size;
	char id[sizeof(hip_id) + 256], *name = NULL;
	int rc = 0;

	if (!split_entry_taken(j->o, s, k, i, &en, id, sizeof(id)))
		return 0;
	j->count++;
	if (j->counting)
		return 0;
	if (offcode_split_read(s, k, i, j->o->open.ccob_max_size,
			       j->o->open.ccob_max_ratio, &code, &size, &why)) {
		rc = fail("cannot extract from", a->path, "kpack archive: %s",
			  offcode_error_message(why));
		offcode_error_free(why);
		return rc;
	}
	/* The container number the fat binary gave it: its wrapper's
	 * index (the splitter counts each target's code objects in the
	 * fat binary's order, and numbers the wrappers the same). */
	if (index > UINT_MAX ||
	    !(name = extract_entry_name(j, (unsigned)index, id, strlen(id),
				extract_extension(code, size, NULL, 0)))) {
		rc = fail("cannot extract from", j->path, "out of memory");
		goto out;
	}
	rc = extract_write_code(j->o, &from, name, code, size);
	progress_show(j->count, j->total);
out:
	free(name);
	return rc;
}

/* Archive k of the split binary s (read): each wrapper's code object in
 * it written, and, of an archive -t takes or one whose code objects it
 * takes, each wrapper's missing said. */
static int split_archive(struct job *j, offcode_split *s, size_t k,
			 const struct offcode_split_archive *a, bool taken)
{
	size_t before = j->count, nw = offcode_split_wrapper_count(s);
	int rc = 0;

	for (size_t w = 0; w < nw; w++) {
		size_t n = offcode_split_code_count(s, k, w);
		uint64_t index = 0;

		offcode_split_wrapper(s, w, &index, NULL);
		for (size_t x = 0; x < n; x++)
			rc |= split_write(j, s, index, k, a,
					  offcode_split_code(s, k, w, x));
	}
	for (size_t w = 0; w < nw && (taken || j->count > before); w++) {
		const char *key = "";
		uint64_t index = 0;

		if (offcode_split_code_count(s, k, w))
			continue;
		offcode_split_wrapper(s, w, &index, &key);
		rc = fail("missing code object for", j->path, "wrapper #%" PRIu64
			  ": no '%s' in '%s'", index, key, a->path);
	}
	return rc;
}

/* A kpack-split binary (its len bytes at data, at j->path): each
 * wrapper's code object in each archive its search paths find, counted
 * or written.  An archive that cannot be read, or lacks a wrapper's code
 * object, fails the command (the install is damaged: offload ls --verify
 * says where); so does a binary whose search paths find no archive at
 * all. */
int extract_split_file(struct job *j, const void *data, size_t len)
{
	offcode_split *s = NULL;
	offcode_error *why = NULL;
	int rc = 0, opened = offcode_split_open_memory(data, len, j->path, &s,
							&why);

	if (opened == OFFCODE_NOTHING)
		return 0;
	if (opened) {
		rc = fail("cannot extract from", j->path, "%s",
			  offcode_error_message(why));
		offcode_error_free(why);
		return rc;
	}
	for (size_t sp = 0; sp < offcode_split_search_count(s); sp++) {
		struct offcode_split_search p = { .size = sizeof(p) };

		if (offcode_split_search(s, sp, &p))
			continue;
		if (p.no_dir)
			rc = fail("no archive for", j->path, "search path '%s': "
				  "no directory '%s'", p.path, p.dir);
		else if (!p.archives)
			rc = fail("no archive for", j->path, "search path '%s' "
				  "finds no archive", p.path);
	}
	for (size_t k = 0; k < offcode_split_archive_count(s); k++) {
		struct offcode_split_archive a = { .size = sizeof(a) };
		bool taken;

		if (offcode_split_archive(s, k, &a))
			continue;
		taken = split_archive_selected(j->o, a.target);
		if (!a.error)
			rc |= split_archive(j, s, k, &a, taken);
		else if (taken)
			rc = a.damaged ? fail("cannot extract from", a.path,
					      "kpack archive: %s",
					      offcode_error_message(a.error))
				       : extract_fail_record("cannot read",
							     a.path, a.error);
	}
	offcode_split_close(s);
	return rc;
}

/* The entries of archive k that the split binary s writes: claimed. */
static int claim_archive(struct options *o, offcode_split *s, size_t k)
{
	struct offcode_split_archive a = { .size = sizeof(a) };

	if (offcode_split_archive(s, k, &a) || a.error || !a.has_id)
		return 0;
	for (size_t w = 0; w < offcode_split_wrapper_count(s); w++) {
		size_t n = offcode_split_code_count(s, k, w);

		for (size_t x = 0; x < n; x++) {
			size_t i = offcode_split_code(s, k, w, x);
			struct offcode_split_entry en;
			char id[sizeof(hip_id) + 256];
			struct claim *v;

			if (!split_entry_taken(o, s, k, i, &en, id, sizeof(id)))
				continue;
			v = realloc(o->claims, (o->nclaims + 1) * sizeof(*v));
			if (!v)
				return -1;
			o->claims = v;
			v[o->nclaims++] = (struct claim){ (dev_t)a.device,
							  (ino_t)a.inode, i };
		}
	}
	return 0;
}

/* Before anything is written: the archive entries that the split
 * binaries among the inputs write (see struct claim). */
int extract_claim_splits(struct options *o, char **args, int n)
{
	int rc = 0;

	for (int f = 0; f < n && !rc; f++) {
		offcode_split *s = NULL;
		struct stat st;

		/* Only files: a pipe or a device is read once, later; what
		 * cannot be read is said when it is. */
		if (offcode_uri_is(args[f]) || stat(args[f], &st) < 0 ||
		    !S_ISREG(st.st_mode) ||
		    offcode_split_open_path(args[f], &s, NULL))
			continue;
		for (size_t k = 0; k < offcode_split_archive_count(s) && !rc;
		     k++)
			rc = claim_archive(o, s, k);
		offcode_split_close(s);
	}
	if (o->nclaims)
		qsort(o->claims, o->nclaims, sizeof(*o->claims), extract_cmp_claim);
	return rc;
}
