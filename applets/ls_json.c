/* ls_json: the ls applet's JSON output, one object per file, printed from
 * the public streaming walk's records (include/offcode.h); the schema is
 * in man/offload-ls.1 and changes only with its version number. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_json.h"
#include "ls_json_kpack.h"
#include "ls_json_node.h"
#include "ls_json_put.h"
#include "ls_kernels.h"
#include "ls_kpack.h"
#include "ls_text.h"
#include "../core/err.h"
#include "../core/json.h"

/* ---- a node's fields, copied out of its record ---- */

static char *copy(const char *s, size_t len)
{
	char *p = s ? malloc(len + 1) : NULL;

	if (p) {
		memcpy(p, s, len);
		p[len] = 0;
	}
	return p;
}

static char *copy_str(const char *s)
{
	return s ? strdup(s) : NULL;
}

static void node_free(struct ls_json_node *v)
{
	free(v->name);
	free(v->format);
	free(v->kind);
	free(v->host_type);
	free(v->host_machine);
	for (size_t i = 0; i < v->nfields; i++)
		free((char *)v->fields[i].text);
	free(v->fields);
	memset(v, 0, sizeof(*v));
}

/* A container's fields from first on, copied. */
static int copy_fields(struct ls_json_node *v, const offcode_container *c)
{
	size_t n = offcode_container_field_count(c);

	if (!n)
		return 0;
	if (!(v->fields = calloc(n, sizeof(*v->fields))))
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct offcode_field *f = &v->fields[i];

		offcode_container_field(c, i, f);
		v->nfields++;
		if (f->text && !(f->text = copy(f->text, f->text_len)))
			return -1;
	}
	return 0;
}

static int node_fill(struct ls_json_node *v, const struct offcode_node *n)
{
	const char *s;
	size_t len;

	memset(v, 0, sizeof(*v));
	v->kind_of = n->kind;
	v->depth = n->depth;
	switch (n->kind) {
	case OFFCODE_NODE_INPUT:
		s = offcode_input_name(n->input, &len);
		v->offset = offcode_input_offset(n->input);
		v->size = offcode_input_size(n->input);
		v->host.size = sizeof(v->host);
		v->has_host = offcode_input_host(n->input, &v->host) == 0;
		if ((n->depth && !(v->name = copy(s, len))) ||
		    !(v->format = copy_str(offcode_input_format(n->input))))
			return -1;
		v->name_len = len;
		if (v->has_host &&
		    ((v->host.type && !(v->host_type = strdup(v->host.type))) ||
		     (v->host.machine &&
		      !(v->host_machine = strdup(v->host.machine)))))
			return -1;
		return 0;
	case OFFCODE_NODE_SECTION:
		v->number = n->section_index;
		v->offset = n->section_offset;
		v->size = n->section_size;
		v->name_len = n->section_name_len;
		return (v->name = copy(n->section_name, n->section_name_len)) &&
		       (v->kind = copy_str(n->section_kind)) ? 0 : -1;
	case OFFCODE_NODE_CONTAINER:
		v->number = offcode_container_number(n->container);
		v->has_offset = offcode_container_offset(n->container,
							 &v->offset);
		v->size = offcode_container_size(n->container);
		v->has_version = offcode_container_version(n->container,
							   &v->version);
		v->coded = offcode_container_coded(n->container);
		if (!(v->format = copy_str(offcode_container_format(n->container))))
			return -1;
		return copy_fields(v, n->container);
	case OFFCODE_NODE_ENTRY:
	case OFFCODE_NODE_CONTAINER_END:
		break;
	}
	return 0;
}

/* ---- the fields printed ---- */

/* A kind's own fields (offcode.h's), from the first'th on. */
static void json_fields(bool *first, const struct offcode_field *fs,
			size_t n, size_t from)
{
	bool inner[4], *f = first;
	size_t depth = 0;

	for (size_t i = from; i < n; i++) {
		const struct offcode_field *k = &fs[i];

		switch (k->type) {
		case OFFCODE_FIELD_UINT:
			json_u64(f, k->key, k->number);
			break;
		case OFFCODE_FIELD_HEX:
			json_hex(f, k->key, k->number);
			break;
		case OFFCODE_FIELD_BOOL:
			json_key(f, k->key);
			fputs(k->number ? "true" : "false", stdout);
			break;
		case OFFCODE_FIELD_TEXT:
			json_text(f, k->key, k->text, k->text_len);
			break;
		case OFFCODE_FIELD_OBJECT:
			if (depth == sizeof(inner) / sizeof(inner[0]))
				break;
			json_key(f, k->key);
			putchar('{');
			inner[depth] = true;
			f = &inner[depth++];
			break;
		case OFFCODE_FIELD_END:
			if (!depth)
				break;
			putchar('}');
			f = --depth ? &inner[depth - 1] : first;
			break;
		}
	}
	for (; depth; depth--)
		putchar('}');
}

static int entry_field(const void *e, size_t i, struct offcode_field *f)
{
	return offcode_entry_field(e, i, f);
}

static int container_field(const void *c, size_t i, struct offcode_field *f)
{
	return offcode_container_field(c, i, f);
}

/* A record's fields [from, n), read in place. */
static void record_fields(bool *first,
			  int (*get)(const void *, size_t,
				     struct offcode_field *),
			  const void *of, size_t from, size_t n)
{
	struct offcode_field fs[64];

	if (n > from + 64)
		n = from + 64;	/* more than any kind has */
	for (size_t i = from; i < n; i++)
		if (get(of, i, &fs[i - from]))
			return;
	json_fields(first, fs, n - from, 0);
}

/* The "elf", "coff" or "pe" object of a file or member. */
static void json_host(const struct ls_json_node *v, bool *f)
{
	const struct offcode_host *h = &v->host;

	if (!v->has_host)
		return;
	if (!strcmp(h->format, "elf")) {
		json_key(f, "elf");
		printf("{\"class\":%u,\"byte_order\":\"%s\",\"type\":", h->bits,
		       h->big_endian ? "big" : "little");
		json_put_str(stdout, v->host_type,
			     v->host_type ? strlen(v->host_type) : 0);
		printf(",\"type_number\":%u,\"machine\":", h->type_number);
	} else if (!strcmp(h->format, "coff")) {
		json_key(f, "coff");
		printf("{\"bigobj\":%s,\"machine\":", h->bigobj ? "true"
								: "false");
	} else {
		json_key(f, "pe");
		printf("{\"pe32plus\":%s,\"dll\":%s,\"machine\":",
		       h->bits == 64 ? "true" : "false",
		       h->dll ? "true" : "false");
	}
	json_put_str(stdout, v->host_machine,
		     v->host_machine ? strlen(v->host_machine) : 0);
	printf(",\"machine_number\":%u}", h->machine_number);
}

static void json_input(const struct ls_json *js, const struct ls_json_level *l,
		       bool *f)
{
	const struct ls_json_node *v = &l->v;

	if (v->depth)
		json_text(f, "member", v->name, v->name_len);
	else
		json_text(f, "path", js->path, strlen(js->path));
	json_key(f, "format");
	printf("\"%s\"", v->format);
	json_u64(f, "offset", v->offset);
	json_u64(f, "size", v->size);
	ls_json_kernels(f, js->rs, &l->k);
	json_host(v, f);
}

static void json_container(const struct ls_json_node *v, bool *f)
{
	json_u64(f, "number", v->number);
	json_key(f, "format");
	printf("\"%s\"", v->format);
	json_key(f, "offset");
	if (v->has_offset)
		printf("%" PRIu64, v->offset);
	else		/* bits of a bitcode module's array */
		fputs("null", stdout);
	json_u64(f, "size", v->size);
	json_key(f, "version");
	if (v->has_version)
		printf("%u", v->version);
	else
		fputs("null", stdout);
	json_fields(f, v->fields, v->nfields, 0);
}

static void json_section(const struct ls_json_node *v, bool *f)
{
	json_u64(f, "index", v->number);
	json_text(f, "name", v->name, v->name_len);
	json_key(f, "kind");
	printf("\"%s\"", v->kind);
	json_u64(f, "offset", v->offset);
	json_u64(f, "size", v->size);
}

static void json_entry(const struct ls_json *js, const struct offcode_node *n,
		       const struct code_kernels *k)
{
	const offcode_entry *e = n->entry;
	const char *s;
	size_t len;
	uint64_t off;
	bool f = true;

	putchar('{');
	json_u64(&f, "index", offcode_entry_index(e));
	s = offcode_entry_id(e, &len);
	json_text(&f, "id", s, len);
	s = offcode_entry_offload_kind(e, &len);
	json_text(&f, "offload_kind", s, len);
	s = offcode_entry_triple(e, &len);
	json_text(&f, "triple", s, len);
	s = offcode_entry_target_id(e, &len);
	json_text(&f, "arch", s, len);
	s = offcode_entry_image_kind(e);
	json_text(&f, "image_kind", s, s ? strlen(s) : 0);
	json_u64(&f, "size", offcode_entry_size(e));
	json_key(&f, "offset");
	if (offcode_entry_offset(e, &off))
		printf("%" PRIu64, off);
	else
		fputs("null", stdout);
	s = offcode_entry_uri(e);
	json_text(&f, "uri", s, s ? strlen(s) : 0);
	json_key(&f, "compressed");
	fputs(offcode_entry_compressed(e) ? "true" : "false", stdout);
	record_fields(&f, entry_field, e, 0, offcode_entry_field_count(e));
	ls_json_kernels(&f, js->rs, k);
	putchar('}');
}

/* ---- the stream: each node printed as the walk gives it ---- */

/* The arrays under each kind of node, in the order they are printed. */
enum { MAX_ARRAYS = 2 };
static int arrays_of(const struct ls_json_node *v, const char **key)
{
	switch (v->kind_of) {
	case OFFCODE_NODE_INPUT:
		if (!strcmp(v->format, "elf") || !strcmp(v->format, "coff") ||
		    !strcmp(v->format, "pe")) {
			key[0] = "sections";
			key[1] = "containers";
			return 2;
		}
		if (!strcmp(v->format, "archive")) {
			key[0] = "members";
			return 1;
		}
		if (!strcmp(v->format, "other") || !strcmp(v->format, "text") ||
		    !strcmp(v->format, "thin-member"))
			return 0;
		/* raw, and every host format that holds containers */
		key[0] = "containers";
		return 1;
	case OFFCODE_NODE_SECTION:
		key[0] = "containers";
		return 1;
	case OFFCODE_NODE_CONTAINER:
		key[0] = "entries";
		return 1;
	case OFFCODE_NODE_ENTRY:
	case OFFCODE_NODE_CONTAINER_END:
		break;
	}
	return 0;
}

static const char *array_for(enum offcode_node_kind k)
{
	return k == OFFCODE_NODE_SECTION ? "sections" :
	       k == OFFCODE_NODE_CONTAINER ? "containers" :
	       k == OFFCODE_NODE_INPUT ? "members" : "entries";
}

/* Close the array open in l (if any), and print the empty ones before
 * the one named want (all that are left when want is NULL); open want. */
static void to_array(struct ls_json_level *l, const char *want)
{
	const char *key[MAX_ARRAYS];
	int n = arrays_of(&l->v, key);

	if (l->array >= 0 && want && !strcmp(key[l->array], want))
		return;
	if (l->array >= 0)
		putchar(']');
	for (int k = l->array + 1; k < n; k++) {
		json_key(&l->first, key[k]);
		putchar('[');
		l->array = k;
		l->any = false;
		if (want && !strcmp(key[k], want))
			return;
		putchar(']');
	}
}

/* A node is printed once something under it is (archive members without
 * device code are left out, and with -t sections and containers without
 * a selected entry), or at once. */
static bool deferred(const struct ls_json *js, const struct ls_json_node *v)
{
	if (v->kind_of == OFFCODE_NODE_INPUT)
		return v->depth == 0 || (strcmp(v->format, "archive") &&
					 strcmp(v->format, "thin-member"));
	return js->rs->targets && js->rs->targets->n &&
	       (v->kind_of == OFFCODE_NODE_SECTION ||
		v->kind_of == OFFCODE_NODE_CONTAINER);
}

/* Print level d's opening and fields, and its parents' first. */
static void show(struct ls_json *js, size_t d)
{
	struct ls_json_level *l = &js->lv[d];

	if (l->shown)
		return;
	if (!d && js->comma)
		putchar(',');	/* after the file before */
	if (!d)
		js->printed = true;
	if (d) {
		struct ls_json_level *p = &js->lv[d - 1];

		show(js, d - 1);
		to_array(p, array_for(l->v.kind_of));
		if (p->any)
			putchar(',');
		p->any = true;
	}
	l->shown = true;
	l->first = true;
	l->array = -1;
	putchar('{');
	switch (l->v.kind_of) {
	case OFFCODE_NODE_INPUT:
		json_input(js, l, &l->first);
		break;
	case OFFCODE_NODE_SECTION:
		json_section(&l->v, &l->first);
		break;
	case OFFCODE_NODE_CONTAINER:
	case OFFCODE_NODE_ENTRY:
	case OFFCODE_NODE_CONTAINER_END:
		json_container(&l->v, &l->first);
		break;
	}
}

static void later(struct ls_json *js, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void later(struct ls_json *js, const char *what, const char *fmt, ...)
{
	va_list ap;

	js->rc = 1;
	if (!js->errs)
		return;
	fprintf(js->errs, "offload ls: error: %s '%s': ", what, js->path);
	va_start(ap, fmt);
	vfprintf(js->errs, fmt, ap);
	va_end(ap);
	fputc('\n', js->errs);
}

/* Close the deepest level: its arrays, a CCOB's later fields and hash
 * (end: its END record; NULL when the walk failed before it), what
 * failed in it. */
static void close_level(struct ls_json *js, const offcode_container *end)
{
	struct ls_json_level *l = &js->lv[--js->n];
	const struct ls_json_node *v = &l->v;
	const offcode_error *bad = end ? offcode_container_hash_error(end)
				       : NULL;

	if (!l->shown && v->depth == 0 && js->walked) {
		/* A file that is itself a code object is described. */
		if (ls_code_kernels(&l->k, js->data, js->len) < 0)
			js->oom = true;
		show(js, 0);
	}
	if (l->shown) {
		to_array(l, NULL);
		if (v->kind_of == OFFCODE_NODE_INPUT && v->depth == 0 &&
		    !strcmp(v->format, "elf") && js->walked)
			js->rc |= ls_json_kpack(js->rs, js->path, js->data,
						 js->len, js->verify,
						 js->errs, &js->oom);
		if (end)	/* the fields it has after its entries */
			record_fields(&l->first, container_field, end,
				      v->nfields,
				      offcode_container_field_count(end));
		putchar('}');
		if (bad)
			later(js, "bad hash in", "%s", offcode_error_reason(bad));
		if (l->bad)
			later(js, "cannot decode", "%s #%u at offset %"
			      PRIu64 ": %zu of %zu entr%s (%s); entry %u: %s",
			      v->format, v->number, v->offset, l->bad,
			      l->listed, l->listed == 1 ? "y" : "ies",
			      l->bad_list, l->first_bad,
			      l->first_why ? l->first_why : "?");
		if (l->k.error && js->rs->kernels)
			later(js, "cannot read kernels in", "%s",
			      ls_kernels_why(&l->k));
	}
	free(l->first_why);
	node_free(&l->v);
	ls_code_kernels_free(&l->k);
}

/* An entry: printed at once, what failed in it kept for the end. */
static int print_entry(struct ls_json *js, const struct offcode_node *n)
{
	struct ls_json_level *c = js->n ? &js->lv[js->n - 1] : NULL;
	const offcode_error *undecoded = offcode_entry_decode_error(n->entry);
	struct code_kernels k = { NULL, NULL };
	size_t klen, alen;
	const char *key = offcode_entry_id(n->entry, &klen);
	const char *arch = offcode_entry_target_id(n->entry, &alen);

	if (js->rs->kernels && n->code &&
	    ls_code_kernels(&k, n->code, (size_t)n->code_size) < 0)
		return -1;
	if (js->verify &&
	    !strcmp(offcode_container_format(n->container), "kpack") &&
	    ls_kpack_verify_code(js->errs, js->path, n->code, n->code_size,
				 key, klen, arch, alen))
		js->rc = 1;
	if (c) {
		show(js, js->n - 1);
		to_array(c, "entries");
		if (c->any)
			putchar(',');
		c->any = true;
		c->listed++;
		if (offcode_container_coded(n->container) && undecoded) {
			size_t len = strlen(c->bad_list);

			if (!c->bad++) {
				c->first_bad = offcode_entry_index(n->entry);
				c->first_why = strdup(offcode_error_reason(
					undecoded));
			}
			if (len + 16 < sizeof(c->bad_list))
				snprintf(c->bad_list + len,
					 sizeof(c->bad_list) - len, "%s%u",
					 len ? ", " : "",
					 offcode_entry_index(n->entry));
			else if (!strstr(c->bad_list, "..."))
				strcpy(c->bad_list + len, ", ...");
		}
	}
	json_entry(js, n, &k);
	if (k.error && js->rs->kernels) {
		char *name = ls_text_entry_name(n);

		later(js, "cannot read kernels in", "%s: %s", name ? name : "?",
		      ls_kernels_why(&k));
		free(name);
	}
	ls_code_kernels_free(&k);
	return 0;
}

int ls_json_visit(void *ctx, const struct offcode_node *n)
{
	struct ls_json *js = ctx;
	struct ls_json_level *l;

	if (n->kind == OFFCODE_NODE_CONTAINER_END) {
		/* Its hash and later fields, printed as it closes (nothing
		 * comes between). */
		if (js->n && js->n - 1 == n->depth &&
		    js->lv[js->n - 1].v.kind_of == OFFCODE_NODE_CONTAINER)
			close_level(js, n->container);
		return js->oom ? -1 : 0;
	}
	if (n->kind == OFFCODE_NODE_ENTRY &&
	    !ls_wanted_entry(js->rs, n->entry))
		return 0;
	while (js->n > n->depth)
		close_level(js, NULL);
	if (n->kind == OFFCODE_NODE_ENTRY)
		return print_entry(js, n);
	if (js->n == js->cap) {
		size_t cap = js->cap ? 2 * js->cap : 16;
		struct ls_json_level *v = realloc(js->lv, cap * sizeof(*v));

		if (!v)
			return -1;
		js->lv = v;
		js->cap = cap;
	}
	l = &js->lv[js->n];
	memset(l, 0, sizeof(*l));
	js->n++;
	if (node_fill(&l->v, n) < 0)
		return -1;
	if (!deferred(js, &l->v))
		show(js, js->n - 1);
	return 0;
}

int ls_json_end(struct ls_json *js, bool walked)
{
	/* A walk that failed after some of the file was printed leaves it
	 * valid JSON: what was read, closed. */
	js->walked = walked;
	while (js->n)
		if (walked || js->lv[0].shown) {
			close_level(js, NULL);
		} else {
			struct ls_json_level *l = &js->lv[--js->n];

			free(l->first_why);
			node_free(&l->v);
			ls_code_kernels_free(&l->k);
		}
	free(js->lv);
	js->lv = NULL;
	return js->oom ? -1 : js->rc;
}

void ls_json_directory(const char *path)
{
	bool f = true;

	putchar('{');
	json_text(&f, "path", path, strlen(path));
	json_key(&f, "format");
	fputs("\"directory\"", stdout);
	json_u64(&f, "offset", 0);
	json_u64(&f, "size", 0);
	json_key(&f, "kernels");
	fputs("null}", stdout);
}
