/* image_root: the root an image's layers make, from their members alone
 * (image_root.h).  The root is a tree of names (a node per name, found by
 * a hash of its parent and name); a name removed, or written again, is
 * marked dead and what was under it is no longer reached. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "image_root.h"

struct image_root_note {
	char *name, *link;
	size_t name_len, link_len;
	uint64_t index, size;
	enum tar_kind kind;
};

int image_root_note(void *ctx, const struct layer_member *m, struct err *e)
{
	struct image_root_layer *l = ctx;
	struct image_root_note *n;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;

		if (!(n = realloc(l->v, cap * sizeof(*n))))
			return err_nomem(e);
		l->v = n;
		l->cap = cap;
	}
	n = &l->v[l->n];
	memset(n, 0, sizeof(*n));
	if (!(n->name = malloc(m->name_len + 1)) ||
	    !(n->link = malloc(m->link_len + 1))) {
		free(n->name);
		return err_nomem(e);
	}
	memcpy(n->name, m->name, m->name_len);
	n->name[m->name_len] = '\0';
	n->name_len = m->name_len;
	memcpy(n->link, m->link, m->link_len);
	n->link[m->link_len] = '\0';
	n->link_len = m->link_len;
	n->index = m->index;
	n->size = m->size;
	n->kind = m->h->kind;
	l->n++;
	return 0;
}

void image_root_layer_free(struct image_root_layer *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].link);
	}
	free(l->v);
	*l = (struct image_root_layer){ 0 };
}

enum { NONE = UINT32_MAX };

struct node {
	const char *name;	/* into a note's name */
	size_t len;
	uint32_t parent, child, sibling;
	uint32_t file;		/* its file's number, or NONE */
	uint32_t layer;		/* the layer that wrote it last */
	bool dir, dead, keep;
};

struct file {
	size_t layer;
	uint64_t index, size;
	bool used;
};

struct tree {
	struct node *v;
	size_t n, cap;
	uint32_t *slot;		/* node + 1, 0 empty */
	size_t nslot;
	struct file *f;
	size_t nf, fcap;
	uint32_t *stack;	/* an opaque directory's walk */
	size_t nstack, stack_cap;
};

static size_t hash(uint32_t parent, const char *name, size_t len)
{
	uint64_t h = 1469598103934665603ull ^ parent;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)name[i]) * 1099511628211ull;
	return (size_t)(h ^ h >> 29);
}

/* The slot of (parent, name): the one holding it, or the empty one where
 * it goes. */
static size_t slot_of(const struct tree *t, uint32_t parent, const char *name,
		      size_t len)
{
	size_t s = hash(parent, name, len) & (t->nslot - 1);

	for (;; s = (s + 1) & (t->nslot - 1)) {
		const struct node *n;

		if (!t->slot[s])
			return s;
		n = &t->v[t->slot[s] - 1];
		if (n->parent == parent && n->len == len &&
		    !memcmp(n->name, name, len))
			return s;
	}
}

/* The live node named name under parent, or NONE. */
static uint32_t child(const struct tree *t, uint32_t parent, const char *name,
		      size_t len)
{
	size_t s = slot_of(t, parent, name, len);

	if (!t->slot[s] || t->v[t->slot[s] - 1].dead)
		return NONE;
	return t->slot[s] - 1;
}

static int grow_slots(struct tree *t, struct err *e)
{
	uint32_t *old = t->slot;
	size_t nold = t->nslot;

	if (!(t->slot = calloc(nold * 2, sizeof(*t->slot)))) {
		t->slot = old;
		return err_nomem(e);
	}
	t->nslot = nold * 2;
	for (size_t i = 0; i < nold; i++)
		if (old[i]) {
			const struct node *n = &t->v[old[i] - 1];

			t->slot[slot_of(t, n->parent, n->name, n->len)] = old[i];
		}
	free(old);
	return 0;
}

/* A new node under parent, in place of any of its name there. */
static uint32_t make(struct tree *t, uint32_t parent, const char *name,
		     size_t len, bool dir, uint32_t layer, uint32_t file,
		     struct err *e)
{
	struct node *n;
	size_t s;

	if (t->n >= NONE - 1) {
		err_code_set(e, ERR_MALFORMED, "over %u names in an image's "
			     "root", NONE - 1);
		return NONE;
	}
	if (t->n == t->cap) {
		size_t cap = t->cap * 2;

		if (!(n = realloc(t->v, cap * sizeof(*n)))) {
			err_nomem(e);
			return NONE;
		}
		t->v = n;
		t->cap = cap;
	}
	if (2 * t->n >= t->nslot && grow_slots(t, e) < 0)
		return NONE;
	n = &t->v[t->n];
	*n = (struct node){ .name = name, .len = len, .parent = parent,
			    .child = NONE, .sibling = t->v[parent].child,
			    .file = file, .layer = layer, .dir = dir };
	t->v[parent].child = (uint32_t)t->n;
	s = slot_of(t, parent, name, len);
	if (t->slot[s])
		t->v[t->slot[s] - 1].dead = true;
	t->slot[s] = (uint32_t)++t->n;
	return (uint32_t)(t->n - 1);
}

/* The next name of path[*at..len) ("", "." and "/" skipped): its start
 * and length, or false at the end. */
static bool next_name(const char *path, size_t len, size_t *at,
		      const char **name, size_t *nlen)
{
	while (*at < len) {
		size_t end = *at;

		while (end < len && path[end] != '/')
			end++;
		*name = path + *at;
		*nlen = end - *at;
		*at = end + (end < len);
		if (*nlen && !(*nlen == 1 && **name == '.'))
			return true;
	}
	return false;
}

/* The directory holding path's last name, in *dir (made where missing
 * when create is true, in layer), that name in *name: 0; 1 when path
 * names the root itself, or (create false) its directory is not there;
 * -1 with e filled. */
static int parent_of(struct tree *t, const char *path, size_t len,
		     bool create, uint32_t layer, uint32_t *dir,
		     const char **name, size_t *nlen, struct err *e)
{
	size_t at = 0;
	const char *n;
	size_t l;

	*dir = 0;
	if (!next_name(path, len, &at, &n, &l))
		return 1;
	for (;;) {
		const char *next;
		size_t nl;
		uint32_t c;

		if (!next_name(path, len, &at, &next, &nl)) {
			*name = n;
			*nlen = l;
			return 0;
		}
		c = child(t, *dir, n, l);
		if (c == NONE || !t->v[c].dir) {
			if (!create)
				return 1;
			if ((c = make(t, *dir, n, l, true, layer, NONE, e)) == NONE)
				return -1;
		}
		*dir = c;
		n = next;
		l = nl;
	}
}

/* Under the directory d, what no member of layer wrote (nor holds what
 * one wrote) is removed: an opaque directory.  Walked with a stack, the
 * nodes in the order found, then back from the last (children before
 * their parents). */
static int opaque(struct tree *t, uint32_t d, uint32_t layer, struct err *e)
{
	size_t start;

	t->nstack = 0;
	for (uint32_t c = t->v[d].child; c != NONE; c = t->v[c].sibling)
		if (!t->v[c].dead) {
			if (t->nstack == t->stack_cap) {
				size_t cap = t->stack_cap ? 2 * t->stack_cap : 64;
				uint32_t *v = realloc(t->stack, cap * sizeof(*v));

				if (!v)
					return err_nomem(e);
				t->stack = v;
				t->stack_cap = cap;
			}
			t->stack[t->nstack++] = c;
		}
	/* Each node found adds its children after the end. */
	for (start = 0; start < t->nstack; start++) {
		uint32_t p = t->stack[start];

		t->v[p].keep = false;
		for (uint32_t c = t->v[p].child; c != NONE; c = t->v[c].sibling) {
			if (t->v[c].dead)
				continue;
			if (t->nstack == t->stack_cap) {
				size_t cap = 2 * t->stack_cap;
				uint32_t *v = realloc(t->stack, cap * sizeof(*v));

				if (!v)
					return err_nomem(e);
				t->stack = v;
				t->stack_cap = cap;
			}
			t->stack[t->nstack++] = c;
		}
	}
	for (size_t i = t->nstack; i-- > 0;) {
		struct node *n = &t->v[t->stack[i]];

		if (n->layer == layer)
			n->keep = true;
		if (n->keep && n->parent != d)
			t->v[n->parent].keep = true;
		if (!n->keep)
			n->dead = true;
	}
	return 0;
}

/* The live node path names, or NONE. */
static uint32_t lookup(struct tree *t, const char *path, size_t len)
{
	const char *name;
	size_t nlen;
	struct err ignored;
	uint32_t d;

	if (parent_of(t, path, len, false, 0, &d, &name, &nlen, &ignored))
		return NONE;
	return child(t, d, name, nlen);
}

static int apply(struct tree *t, const struct image_root_note *n,
		 size_t layer, struct err *e)
{
	const char *name;
	size_t len;
	uint32_t d, old, target, file = NONE;
	size_t at = n->name_len;
	bool whiteout;
	int r;

	/* The last name (trailing slashes aside) says a whiteout, which
	 * makes no directory: under a name that is none (a file, or
	 * nothing) it removes nothing, as umoci unpacks it. */
	while (at && n->name[at - 1] == '/')
		at--;
	while (at && n->name[at - 1] != '/')
		at--;
	whiteout = n->name_len - at >= 4 && !memcmp(n->name + at, ".wh.", 4);
	r = parent_of(t, n->name, n->name_len, !whiteout, (uint32_t)layer, &d,
		      &name, &len, e);
	if (r)
		return r < 0 ? -1 : 0;	/* 1: the root itself, or no
					 * directory for a whiteout */
	if (len >= 4 && !memcmp(name, ".wh.", 4)) {
		if (len == 12 && !memcmp(name, ".wh..wh..opq", 12))
			return opaque(t, d, (uint32_t)layer, e);
		if (len >= 8 && !memcmp(name, ".wh..wh.", 8))
			return 0;	/* aufs' own, not whiteouts */
		/* Only what lower layers wrote: a file of this layer
		 * stays, before its whiteout or after it. */
		if ((old = child(t, d, name + 4, len - 4)) != NONE &&
		    t->v[old].layer != (uint32_t)layer)
			t->v[old].dead = true;
		return 0;
	}
	old = child(t, d, name, len);
	switch (n->kind) {
	case TAR_DIRECTORY:
		if (old != NONE && t->v[old].dir) {
			t->v[old].layer = (uint32_t)layer;
			return 0;
		}
		return make(t, d, name, len, true, (uint32_t)layer, NONE,
			    e) == NONE ? -1 : 0;
	case TAR_FILE:
		if (t->nf == t->fcap) {
			size_t cap = t->fcap ? 2 * t->fcap : 256;
			struct file *v = realloc(t->f, cap * sizeof(*v));

			if (!v)
				return err_nomem(e);
			t->f = v;
			t->fcap = cap;
		}
		t->f[t->nf] = (struct file){ .layer = layer, .index = n->index,
					     .size = n->size };
		file = (uint32_t)t->nf++;
		break;
	case TAR_HARDLINK:
		target = lookup(t, n->link, n->link_len);
		if (target != NONE && !t->v[target].dir)
			file = t->v[target].file;
		break;
	case TAR_SYMLINK:
	case TAR_DEVICE:
	case TAR_FIFO:
	case TAR_OTHER:
	case TAR_PAX:
	case TAR_PAX_GLOBAL:
	case TAR_GNU_LONGNAME:
	case TAR_GNU_LONGLINK:
		break;
	}
	return make(t, d, name, len, false, (uint32_t)layer, file, e) == NONE
	       ? -1 : 0;
}

int image_root_files(const struct image_root_layer *const *layers, size_t n,
		     int (*fn)(void *ctx, size_t layer, uint64_t index,
			       uint64_t size),
		     void *ctx, struct err *e)
{
	struct tree t = { .cap = 1024, .nslot = 2048 };
	int rc = -1;

	t.v = malloc(t.cap * sizeof(*t.v));
	t.slot = calloc(t.nslot, sizeof(*t.slot));
	if (!t.v || !t.slot) {
		err_nomem(e);
		goto out;
	}
	t.v[0] = (struct node){ .name = "", .parent = 0, .child = NONE,
				.sibling = NONE, .file = NONE, .dir = true };
	t.n = 1;
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < layers[k]->n; i++)
			if (apply(&t, &layers[k]->v[i], k, e) < 0)
				goto out;
	/* A node is there when it and every directory above it are (a
	 * parent is made before its children). */
	for (size_t i = 1; i < t.n; i++) {
		struct node *v = &t.v[i];

		if (t.v[v->parent].dead)
			v->dead = true;
		if (!v->dead && v->file != NONE)
			t.f[v->file].used = true;
	}
	rc = 0;
	for (size_t i = 0; i < t.nf && rc == 0; i++)
		if (t.f[i].used && fn(ctx, t.f[i].layer, t.f[i].index,
				      t.f[i].size) < 0)
			rc = -1;
out:
	free(t.v);
	free(t.slot);
	free(t.f);
	free(t.stack);
	return rc;
}
