/* split: a kpack-split binary and the archives that hold its code
 * (include/offcode.h, "files written"): ops/kpack_find.c's resolution,
 * its archives' failures made public records, their TOCs, each
 * wrapper's code read from them as extract writes it and checked as ls
 * --verify checks it. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "../core/io_in.h"
#include "../core/uri.h"
#include "../formats/amdgpu_co.h"
#include "../formats/ccob.h"
#include "../formats/kernels.h"
#include "../ops/inspect_containers.h"
#include "../ops/kind_present.h"
#include "../ops/kpack_find.h"

/* Whether a caller's versioned struct (its size set to its sizeof) has
 * room for field: one made before the field was added has not. */
#define HAS(info, type, field) \
	((info)->size >= offsetof(type, field) + sizeof(((type *)0)->field))

struct offcode_split {
	char *path;		/* the binary, as named */
	struct io_in in;	/* when opened by path */
	struct kpack_find h;
	offcode_error **why;	/* per archive: NULL when read */
	size_t *found;		/* per search path: its archives */
	uint8_t *code;		/* the last entry read, when inflated */
	char *uri;		/* the last URI asked for */
	char key[4200];		/* the last wrapper's key asked for */
	/* The last lookup (archive k, wrapper w: n entries from by_key
	 * [from]), so that a caller's count and then each code cost one. */
	bool looked;
	size_t look_k, look_w, look_from, look_n;
};

/* Open s over buf (len bytes; s->path names them). */
static int split_open(offcode_split *s, const void *buf, size_t len,
		      offcode_split **out, offcode_error **err)
{
	struct err e;
	int split = kpack_find_open(&s->h, s->path, buf, len, &e);

	if (split <= 0) {
		offcode_error *r = split < 0 ? error_from(&e, NULL) : NULL;

		offcode_split_close(s);
		return split < 0 ? error_give(r, err) : OFFCODE_NOTHING;
	}
	if ((s->h.na && !(s->why = calloc(s->h.na, sizeof(*s->why)))) ||
	    !(s->found = calloc(s->h.ref.npaths + 1, sizeof(*s->found)))) {
		offcode_split_close(s);
		return error_give(NULL, err);
	}
	for (size_t k = 0; k < s->h.na; k++)
		s->found[s->h.a[k].search]++;
	/* Each record as the archive's own: its message is what the tool
	 * says after "kpack archive: ". */
	for (size_t k = 0; k < s->h.na; k++)
		if (!s->h.a[k].read &&
		    !(s->why[k] = error_from(&s->h.a[k].e, NULL))) {
			offcode_split_close(s);
			return error_give(NULL, err);
		}
	*out = s;
	return OFFCODE_OK;
}

/* A new handle for path, or NULL with the failure given. */
static offcode_split *split_new(const char *path, offcode_split **out,
				offcode_error **err, int *rc)
{
	offcode_split *s;

	if (err)
		*err = NULL;
	if (out)
		*out = NULL;
	if (!path || !out) {
		*rc = error_give(error_new(OFFCODE_INVALID, "no path, or no place "
				     "for the handle"), err);
		return NULL;
	}
	if (!(s = calloc(1, sizeof(*s))) || !(s->path = strdup(path))) {
		free(s);
		*rc = error_give(NULL, err);
		return NULL;
	}
	s->in.fd = -1;
	return s;
}

int offcode_split_open_path(const char *path, offcode_split **out,
			    offcode_error **err)
{
	int rc = OFFCODE_OK;
	offcode_split *s = split_new(path, out, err, &rc);
	struct err e;

	if (!s)
		return rc;
	if (io_in_open(&s->in, s->path, &e) < 0) {
		offcode_split_close(s);
		return error_give(error_from(&e, path), err);
	}
	return split_open(s, s->in.data, s->in.len, out, err);
}

int offcode_split_open_memory(const void *buf, size_t len, const char *path,
			      offcode_split **out, offcode_error **err)
{
	int rc = OFFCODE_OK;
	offcode_split *s = split_new(path, out, err, &rc);

	if (!s)
		return rc;
	if (!buf && len) {
		offcode_split_close(s);
		return error_give(error_new(OFFCODE_INVALID, "no bytes"), err);
	}
	return split_open(s, buf ? buf : "", len, out, err);
}

void offcode_split_close(offcode_split *s)
{
	if (!s)
		return;
	for (size_t k = 0; s->why && k < s->h.na; k++)
		offcode_error_free(s->why[k]);
	free(s->why);
	free(s->found);
	kpack_find_close(&s->h);
	io_in_close(&s->in);
	free(s->code);
	free(s->uri);
	free(s->path);
	free(s);
}

size_t offcode_split_search_count(const offcode_split *s)
{
	return s ? s->h.ref.npaths : 0;
}

int offcode_split_search(const offcode_split *s, size_t i,
			 struct offcode_split_search *info)
{
	if (!s || !info || info->size < sizeof(*info))
		return OFFCODE_INVALID;
	if (i >= s->h.ref.npaths)
		return OFFCODE_RANGE;
	info->path = s->h.ref.paths[i];
	info->dir = s->h.dir[i];
	info->no_dir = s->h.no_dir[i];
	info->archives = s->found[i];
	return OFFCODE_OK;
}

size_t offcode_split_archive_count(const offcode_split *s)
{
	return s ? s->h.na : 0;
}

int offcode_split_archive(const offcode_split *s, size_t k,
			  struct offcode_split_archive *info)
{
	const struct kpack_find_archive *a;
	struct stat st;

	if (!s || !info || !HAS(info, struct offcode_split_archive, inode))
		return OFFCODE_INVALID;
	if (k >= s->h.na)
		return OFFCODE_RANGE;
	a = &s->h.a[k];
	info->search = a->search;
	info->path = a->path;
	info->target = a->target;
	info->error = s->why[k];
	info->damaged = a->damaged;
	info->has_id = a->read && fstat(a->in.fd, &st) == 0;
	info->device = info->has_id ? (uint64_t)st.st_dev : 0;
	info->inode = info->has_id ? (uint64_t)st.st_ino : 0;
	if (HAS(info, struct offcode_split_archive, version))
		info->version = a->read ? a->k.version : 0;
	if (HAS(info, struct offcode_split_archive, compression_scheme))
		info->compression_scheme = a->read ?
			kpack_scheme_name(a->k.scheme) : NULL;
	if (HAS(info, struct offcode_split_archive, file_size))
		info->file_size = a->read ? a->in.len : 0;
	if (HAS(info, struct offcode_split_archive, entries))
		info->entries = a->read ? a->k.n : 0;
	return OFFCODE_OK;
}

size_t offcode_split_wrapper_count(const offcode_split *s)
{
	return s ? s->h.nhipk : 0;
}

const char *offcode_split_kernel_name(const offcode_split *s)
{
	return s ? s->h.ref.kernel_name : NULL;
}

size_t offcode_split_unsplit_count(const offcode_split *s)
{
	return s ? s->h.nhipf : 0;
}

int offcode_split_wrapper(offcode_split *s, size_t w, uint64_t *index,
			  const char **key)
{
	if (!s)
		return OFFCODE_INVALID;
	if (w >= s->h.nhipk)
		return OFFCODE_RANGE;
	if (index)
		*index = s->h.index[w];
	if (key) {
		kpack_find_key(&s->h, w, s->key, sizeof(s->key));
		*key = s->key;
	}
	return OFFCODE_OK;
}

/* How many entries of archive k have wrapper w's key; the first is
 * by_key[*from]. */
static size_t lookup(offcode_split *s, size_t k, size_t w, size_t *from)
{
	if (!s || k >= s->h.na || !s->h.a[k].read || w >= s->h.nhipk)
		return 0;
	if (!s->looked || s->look_k != k || s->look_w != w) {
		kpack_find_key(&s->h, w, s->key, sizeof(s->key));
		s->look_n = kpack_find_lookup(&s->h.a[k], s->key,
					      &s->look_from);
		s->look_k = k;
		s->look_w = w;
		s->looked = true;
	}
	*from = s->look_from;
	return s->look_n;
}

size_t offcode_split_code_count(offcode_split *s, size_t k, size_t w)
{
	size_t from;

	return lookup(s, k, w, &from);
}

size_t offcode_split_code(offcode_split *s, size_t k, size_t w, size_t x)
{
	size_t from, n = lookup(s, k, w, &from);

	return x < n ? s->h.a[k].by_key[from + x].entry : SIZE_MAX;
}

/* Whether entry i of the archive a (read) is its code as it is, whole
 * (what the walk gives with the code in the file: kpack_find_entry). */
static bool in_file(const struct kpack_find_archive *a, size_t i)
{
	struct err e;

	return a->k.scheme == KPACK_NONE &&
	       kpack_entry_stored_whole(&a->k.v[i], &e) == 0;
}

int offcode_split_entry(const offcode_split *s, size_t k, size_t i,
			struct offcode_split_entry *info)
{
	const struct kpack_entry *en;

	if (!s || !info || !HAS(info, struct offcode_split_entry, code_size))
		return OFFCODE_INVALID;
	if (k >= s->h.na || !s->h.a[k].read || i >= s->h.a[k].k.n)
		return OFFCODE_RANGE;
	en = &s->h.a[k].k.v[i];
	info->target = en->target;
	info->bundle_id = en->bundle_id;
	info->code_size = en->size;
	if (HAS(info, struct offcode_split_entry, key))
		info->key = en->key;
	if (HAS(info, struct offcode_split_entry, in_file))
		info->in_file = in_file(&s->h.a[k], i);
	if (HAS(info, struct offcode_split_entry, offset))
		info->offset = in_file(&s->h.a[k], i) ? en->offset : 0;
	return OFFCODE_OK;
}

int offcode_split_read(offcode_split *s, size_t k, size_t i,
		       uint64_t max_size, uint64_t max_ratio,
		       const void **code, uint64_t *size, offcode_error **err)
{
	struct ccob_limits lim = {
		.max_ratio = max_ratio ? max_ratio : CCOB_DEFAULT_MAX_RATIO,
		.max_size = max_size ? max_size : CCOB_DEFAULT_MAX_SIZE,
	};
	struct inspect_node n;
	struct err e;

	if (err)
		*err = NULL;
	if (!s || !code || !size)
		return error_give(error_new(OFFCODE_INVALID, "no handle, or no place "
				      "for the code"), err);
	if (k >= s->h.na || !s->h.a[k].read || i >= s->h.a[k].k.n)
		return error_give(error_new(OFFCODE_RANGE, "no such entry"), err);
	free(s->code);
	s->code = NULL;
	if (kpack_find_entry(&s->h.a[k], i, true, &lim, &n, &s->code, &e) < 0)
		return error_give(error_from(&e, NULL), err);
	*code = n.data;
	*size = n.size;
	return OFFCODE_OK;
}

const char *offcode_split_uri(offcode_split *s, size_t k, size_t i)
{
	const struct kpack_find_archive *a;

	if (!s || k >= s->h.na || !s->h.a[k].read || i >= s->h.a[k].k.n ||
	    !in_file(&s->h.a[k], i))
		return NULL;
	a = &s->h.a[k];
	free(s->uri);
	s->uri = uri_file(a->path, a->k.v[i].offset, a->k.v[i].size);
	return s->uri;
}

const char *offcode_split_image_kind(const void *code, uint64_t size)
{
	return kind_present_image_name(inspect_sniff_image(code, size));
}

bool offcode_split_code_for(const void *code, uint64_t size,
			    const char *target, char *got, size_t got_len)
{
	struct kernel_list l;
	struct err e;
	bool ok;

	if (got && got_len)
		snprintf(got, got_len, "not an AMDGPU code object");
	if (!code || !target || size > SIZE_MAX ||
	    amdgpu_co_kernels(code, (size_t)size, &l, &e) < 0)
		return false;
	if (got && got_len)
		snprintf(got, got_len, "%s", l.target_id[0] ? l.target_id
							   : "no target");
	ok = !strcmp(l.target_id, target) || !strcmp(l.processor, target);
	kernels_free(&l);
	return ok;
}
