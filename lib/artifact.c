/* artifact: an artefact's handle for liboffcode (include/offcode.h): its
 * bytes (a path or descriptor mapped, a buffer copied or borrowed), what
 * it owns (an arena, its last error) and its close; the walk of its
 * headers kept as its records is keep.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_impl.h"
#include "error.h"
#include "source.h"

const char *offcode_version(void)
{
#define STR2(x) #x
#define STR(x) STR2(x)
	return STR(OFFCODE_VERSION_MAJOR) "." STR(OFFCODE_VERSION_MINOR) "."
	       STR(OFFCODE_VERSION_PATCH);
#undef STR
#undef STR2
}

/* ---- what the handle owns ---- */

void *artifact_take(offcode_artifact *a, size_t size)
{
	struct arena_block *b = a->arena;

	size = (size + 15) & ~(size_t)15;
	if (!b || b->cap - b->used < size) {
		size_t cap = size > 65536 ? size : 65536;

		if (!(b = malloc(sizeof(*b) + cap)))
			return NULL;
		b->next = a->arena;
		b->used = 0;
		b->cap = cap;
		a->arena = b;
	}
	b->used += size;
	return b->data + b->used - size;
}

void *artifact_alloc(offcode_artifact *a, size_t size)
{
	void *p = artifact_take(a, size);

	return p ? memset(p, 0, size) : NULL;
}

struct arena_mark artifact_mark(const offcode_artifact *a)
{
	return (struct arena_mark){ a->arena, a->arena ? a->arena->used : 0 };
}

void artifact_release(offcode_artifact *a, struct arena_mark m)
{
	while (a->arena && a->arena != m.block) {
		struct arena_block *next = a->arena->next;

		if (next == m.block) {
			/* The first block after the mark stays, empty: a walk
			 * that takes and gives back a little for each node
			 * does not allocate a block each time. */
			a->arena->used = 0;
			return;
		}
		free(a->arena);
		a->arena = next;
	}
	if (a->arena)
		a->arena->used = m.used;
}

const char *artifact_keep(offcode_artifact *a, const char *s, size_t len,
			  bool *oom)
{
	char *p;

	if (!s)
		return NULL;
	/* (not zeroed first: ten of these an entry) */
	if (!(p = artifact_take(a, len + 1))) {
		*oom = true;
		return NULL;
	}
	memcpy(p, s, len);
	p[len] = 0;
	return p;
}

static void set_last(offcode_artifact *a, offcode_error *r)
{
	offcode_error_free(a->last);
	a->last = r ? r : error_nomem();
}

int artifact_fail(offcode_artifact *a, const struct err *e)
{
	set_last(a, error_from(e, a->path));
	return offcode_error_code(a->last);
}

int artifact_fail_code(offcode_artifact *a, enum offcode_code code,
		       const char *reason)
{
	set_last(a, error_new(code, reason));
	return offcode_error_code(a->last);
}

void artifact_give_last(offcode_artifact *a, offcode_error **err)
{
	if (!err)
		return;
	*err = a->last == error_nomem() ? NULL : a->last;
	a->last = NULL;
}

int artifact_map_fd(offcode_artifact *a, int fd)
{
	struct err e;

	struct io_stop stop = artifact_stop(&a->opts);

	if (source_map_fd(&a->in, fd, a->path, &stop, &e) < 0)
		return artifact_fail(a, &e);
	a->is_file = true;
	a->data = a->in.data;
	a->len = a->in.len;
	return 0;
}

const offcode_error *offcode_last_error(const offcode_artifact *a)
{
	return a ? a->last : NULL;
}

const char *offcode_artifact_path(const offcode_artifact *a)
{
	return a->path;
}

uint64_t offcode_artifact_size(const offcode_artifact *a)
{
	return a->len;
}

bool artifact_owns_entry(const offcode_artifact *a, const offcode_entry *e)
{
	return e && e->owner == a && e->ordinal < a->nentries &&
	       &a->entries[e->ordinal] == e;
}

void artifact_input_free_late(offcode_artifact *a, size_t from)
{
	for (struct input_late **p = &a->late, *l; (l = *p);)
		if (l->input >= from) {
			*p = l->next;
			free(l);
		} else
			p = &l->next;
}

/* ---- its file let go of ---- */

int artifact_file(offcode_artifact *a)
{
	char why[600];

	if (!a->file_closed)
		return 0;
	snprintf(why, sizeof(why), "'%.500s': the artefact's file is closed",
		 a->path);
	return artifact_fail_code(a, OFFCODE_INVALID, why);
}

/* Everything of the file's: its map and descriptor, the copy of a buffer
 * (a borrowed one is no longer read), the code decoded from it.  The
 * records keep a->len (offcode_artifact_size) and copies of their own. */
static void let_go(offcode_artifact *a)
{
	if (a->is_file)
		io_in_close(&a->in);
	a->is_file = false;
	free(a->copy);
	a->copy = NULL;
	a->data = NULL;
	free(a->cache);
	a->cache = NULL;
	a->cache_len = 0;
	a->cached = 0;
	if (a->close_members_file)
		a->close_members_file(a);
}

int artifact_reading(offcode_artifact *a)
{
	int rc = artifact_file(a);

	if (!rc)
		a->reading++;
	return rc;
}

void artifact_read_done(offcode_artifact *a)
{
	if (!--a->reading && a->file_closed)
		let_go(a);
}

void offcode_close_file(offcode_artifact *a)
{
	if (!a || a->file_closed)
		return;
	a->file_closed = true;
	if (!a->reading)
		let_go(a);
}

void offcode_close(offcode_artifact *a)
{
	if (!a)
		return;
	if (a->free_kernels)
		a->free_kernels(a);
	artifact_input_free_late(a, 0);
	for (size_t i = 0; i < a->ncontainers; i++)
		offcode_error_free(a->containers[i].hash_error);
	for (size_t i = 0; i < a->nentries; i++)
		offcode_error_free(a->entries[i].decode_error);
	for (struct arena_block *b = a->arena, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	if (a->is_file)
		io_in_close(&a->in);
	free(a->copy);
	free(a->inputs);
	free(a->containers);
	free(a->entries);
	free(a->cache);
	if (a->free_members)
		a->free_members(a);
	offcode_error_free(a->last);
	free(a->path);
	free(a);
}

/* ---- opening ---- */

struct io_stop artifact_stop(const struct offcode_open_options *opt)
{
	if (!opt || opt->size < offsetof(struct offcode_open_options,
					 interrupted_ctx) +
				sizeof(opt->interrupted_ctx))
		return (struct io_stop){ NULL, NULL };
	return (struct io_stop){ .interrupted = opt->interrupted,
				 .ctx = opt->interrupted_ctx };
}

offcode_artifact *artifact_new(const char *name,
				      const struct offcode_open_options *opt)
{
	offcode_artifact *a = calloc(1, sizeof(*a));
	struct io_stop stop;
	uint64_t max_size = 0, max_ratio = 0;
	unsigned flags = 0;

	if (!a)
		return NULL;
	if (!(a->path = strdup(name))) {
		free(a);
		return NULL;
	}
	/* Fields past what the caller's version of the struct has are left
	 * at their defaults. */
	if (opt && opt->size >= offsetof(struct offcode_open_options, flags) +
				sizeof(opt->flags))
		flags = opt->flags;
	if (opt && opt->size >= offsetof(struct offcode_open_options,
					 ccob_max_ratio) +
				sizeof(opt->ccob_max_ratio)) {
		max_size = opt->ccob_max_size;
		max_ratio = opt->ccob_max_ratio;
	}
	a->in.fd = -1;
	a->opts = (struct offcode_open_options){
		.size = sizeof(a->opts), .flags = flags,
		.ccob_max_size = max_size, .ccob_max_ratio = max_ratio };
	stop = artifact_stop(opt);
	a->opts.interrupted = stop.interrupted;
	a->opts.interrupted_ctx = stop.ctx;
	a->verify = flags & OFFCODE_OPEN_VERIFY;
	a->walk = (struct inspect_opts){
		.accept_other = true,
		/* each entry's code is looked at when its image kind is
		 * asked for (image_kind.c), not here */
		.image_kinds = false,
		.inflate = a->verify,
		.no_hash = !a->verify,
		.ccob = { .max_ratio = max_ratio ? max_ratio
						 : CCOB_DEFAULT_MAX_RATIO,
			  .max_size = max_size ? max_size
					       : CCOB_DEFAULT_MAX_SIZE },
		.package = { .max_ratio = PACKAGE_DEFAULT_MAX_RATIO,
			     .max_size = PACKAGE_DEFAULT_MAX_SIZE },
	};
	return a;
}
