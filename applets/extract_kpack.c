/* extract_kpack: extract's kpack-split binaries (extract_kpack.c): each
 * wrapper's code object, read from the archives the binary names,
 * written as the fat binary's entry would be. */
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
#include "../core/io_in.h"
#include "../ops/inspect.h"
#include "../ops/kpack_find.h"
#include "../formats/kpack.h"

/* The bundle ID a split binary's code object had in the fat binary: the
 * splitter keeps it in the entry's metadata ("target"), its TOC target
 * being what follows the ID's last "--" (rocm-kpack's
 * extract_architecture_from_target); without it (or when they disagree),
 * the ID clang writes for HIP, hipv4-amdgcn-amd-amdhsa--<target ID>. */
static const char hip_id[] = "hipv4-amdgcn-amd-amdhsa--";

static void split_id(const struct kpack_entry *en, char *id, size_t cap)
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
static bool split_selected(struct options *o, const struct kpack_entry *en,
			   char *id, size_t cap)
{
	struct select_entry se;

	split_id(en, id, cap);
	select_entry_from_id(&se, id, strlen(id));
	if (!o->targets.n)
		return en->size > 0;
	return select_match(&o->targets, &se);
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

/* Wrapper w's code object, entry i of archive a: counted, or written as
 * the fat binary's entry of container #<index> would be
 * (FILE.N.hipv4-amdgcn-amd-amdhsa--TARGET.co). */
static int split_write(struct job *j, const struct kpack_find *h, size_t w,
		       const struct kpack_find_archive *a, size_t i)
{
	const struct kpack_entry *en = &a->k.v[i];
	struct inspect_target t = { 0 };
	struct inspect_node n;
	uint8_t *code = NULL;
	char id[sizeof(hip_id) + 256], *name = NULL;
	struct err e;
	int rc = 0;

	if (strlen(en->target) > 255 ||
	    !split_selected(j->o, en, id, sizeof(id)))
		return 0;
	j->count++;
	if (j->counting)
		return 0;
	if (kpack_find_entry(a, i, true, &j->o->walk.ccob, &n, &code, &e) < 0)
		return fail("cannot extract from", a->path, "kpack archive: %s",
			    e.msg);
	/* The container number the fat binary gave it: its wrapper's
	 * index (the splitter counts each target's code objects in the
	 * fat binary's order, and numbers the wrappers the same). */
	if (h->index[w] > UINT_MAX ||
	    !(name = extract_entry_name(j, (unsigned)h->index[w], id, strlen(id),
				extract_extension(n.data, n.size, &t)))) {
		rc = fail("cannot extract from", j->path, "out of memory");
		goto out;
	}
	rc = extract_write_out(j->o, &a->in, name, n.data, 0, n.size);
	progress_show(j->count, j->total);
out:
	free(name);
	free(code);
	return rc;
}

/* A kpack-split binary (in, at path): each wrapper's code object in each
 * archive its search paths find, counted or written.  An archive that
 * cannot be read, or lacks a wrapper's code object, fails the command
 * (the install is damaged: offload ls --verify says where); so does a
 * binary whose search paths find no archive at all. */
int extract_split_file(struct job *j, const struct io_in *in)
{
	struct kpack_find h;
	struct err e;
	int rc = 0, split = kpack_find_open(&h, j->path, in->data, in->len,
					    &e);

	if (split < 0)
		rc = fail("cannot extract from", j->path, "%s", e.msg);
	for (size_t sp = 0; split > 0 && sp < h.ref.npaths; sp++) {
		size_t found = 0;

		for (size_t k = 0; k < h.na; k++)
			found += h.a[k].search == sp;
		if (h.no_dir[sp])
			rc = fail("no archive for", j->path, "search path '%s': "
				  "no directory '%s'", h.ref.paths[sp],
				  h.dir[sp]);
		else if (!found)
			rc = fail("no archive for", j->path, "search path '%s' "
				  "finds no archive", h.ref.paths[sp]);
	}
	for (size_t k = 0; split > 0 && k < h.na; k++) {
		const struct kpack_find_archive *a = &h.a[k];
		bool taken = split_archive_selected(j->o, a->target);
		size_t before = j->count;

		if (!a->read) {
			if (taken)
				rc = a->damaged ?
				     fail("cannot extract from", a->path,
					  "kpack archive: %s", a->e.msg) :
				     applet_fail_err("extract", "cannot read",
						     a->path, 0, &a->e);
			continue;
		}
		for (size_t w = 0; w < h.nhipk; w++) {
			char key[4200];

			size_t from, n;

			kpack_find_key(&h, w, key, sizeof(key));
			n = kpack_find_lookup(a, key, &from);
			for (size_t x = from; x < from + n; x++)
				rc |= split_write(j, &h, w, a,
						  a->by_key[x].entry);
		}
		/* What is missing, of an archive -t takes or one whose code
		 * objects it takes. */
		for (size_t w = 0; w < h.nhipk && (taken || j->count > before);
		     w++) {
			char key[4200];
			size_t from;

			kpack_find_key(&h, w, key, sizeof(key));
			if (!kpack_find_lookup(a, key, &from))
				rc = fail("missing code object for", j->path,
					  "wrapper #%" PRIu64 ": no '%s' in '%s'",
					  h.index[w], key, a->path);
		}
	}
	kpack_find_close(&h);
	return rc;
}

/* The entries of archive a that the split binary h writes: claimed. */
static int claim_archive(struct options *o, const struct kpack_find *h,
			 const struct kpack_find_archive *a)
{
	struct stat st;

	if (!a->read || fstat(a->in.fd, &st) < 0)
		return 0;
	for (size_t w = 0; w < h->nhipk; w++) {
		char key[4200], id[sizeof(hip_id) + 256];
		size_t from, cnt;

		kpack_find_key(h, w, key, sizeof(key));
		cnt = kpack_find_lookup(a, key, &from);
		for (size_t x = from; x < from + cnt; x++) {
			size_t i = a->by_key[x].entry;
			struct claim *v;

			if (strlen(a->k.v[i].target) > 255 ||
			    !split_selected(o, &a->k.v[i], id, sizeof(id)))
				continue;
			v = realloc(o->claims, (o->nclaims + 1) * sizeof(*v));
			if (!v)
				return -1;
			o->claims = v;
			v[o->nclaims++] = (struct claim){ st.st_dev, st.st_ino, i };
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
		struct kpack_find h;
		struct io_in in;
		struct stat st;
		struct err e;

		/* Only files: a pipe or a device is read once, later. */
		if (offcode_uri_is(args[f]) || stat(args[f], &st) < 0 ||
		    !S_ISREG(st.st_mode) || io_in_open(&in, args[f], &e) < 0)
			continue;	/* said when it is read */
		if (kpack_find_open(&h, args[f], in.data, in.len, &e) > 0)
			for (size_t k = 0; k < h.na && !rc; k++)
				rc = claim_archive(o, &h, &h.a[k]);
		kpack_find_close(&h);
		io_in_close(&in);
	}
	if (o->nclaims)
		qsort(o->claims, o->nclaims, sizeof(*o->claims), extract_cmp_claim);
	return rc;
}
