/* du_sums.c: one file's device code walked and counted into du's sums
 * (per target ID, host entries, what --keep or --drop would drop), and the
 * sums printed as du's table or its JSON. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "du_sums.h"
#include "messages.h"
#include "../core/json.h"
#include "../ops/hosts.h"
#include "../ops/kinds.h"
#include "../core/strjoin.h"

#define fail(what, file, ...) applet_fail("du", what, file, __VA_ARGS__)

/* The index of target NAME (len bytes) in o->t, added if new; -1: out of
 * memory. */
int du_find_target(struct options *o, const char *name, size_t len)
{
	for (size_t i = 0; i < o->n; i++)
		if (strlen(o->t[i].name) == len && !memcmp(o->t[i].name, name, len))
			return (int)i;
	if (o->n == o->cap) {
		size_t cap = o->cap ? 2 * o->cap : 16;
		struct target *v = realloc(o->t, cap * sizeof(*v));

		if (!v)
			return -1;
		o->t = v;
		o->cap = cap;
	}
	memset(&o->t[o->n], 0, sizeof(o->t[o->n]));
	if (!(o->t[o->n].name = strjoin(name, len, "", "", 0)))
		return -1;
	return (int)o->n++;
}

/* What prune would drop: its own rule (applet_keeps). */
static bool dropped(struct options *o, const struct select_entry *en)
{
	return (o->keep.n || o->drop.n) &&
	       !applet_keeps(&o->keep, &o->drop, en);
}

/* One entry: bytes of code, bytes stored. */
static int count(struct scan *sc, const struct select_entry *en,
		 uint64_t bytes, uint64_t stored)
{
	struct options *o = sc->o;
	const char *name = en->arch_len ? en->arch : en->triple;
	size_t len = en->arch_len ? en->arch_len : en->triple_len;
	int i;

	if (en->host) {
		o->host.bytes += bytes;
		o->host.stored += stored;
		o->host.entries++;
		if (o->host_last != sc->file)
			o->host.files++;
		o->host_last = sc->file;
		sc->host_bytes += bytes;
		return 0;
	}
	o->device_stored += stored;
	sc->device++;
	if (dropped(o, en)) {
		sc->dropped.bytes += bytes;
		sc->dropped.stored += stored;
		sc->dropped.entries++;
	} else {
		sc->kept++;
	}
	if (o->targets.n && !select_match(&o->targets, en))
		return 0;
	if (!name)
		name = "?", len = 1;
	if ((i = du_find_target(o, name, len)) < 0)
		return -1;
	o->t[i].s.bytes += bytes;
	o->t[i].s.stored += stored;
	o->t[i].s.entries++;
	if (o->t[i].last_file != sc->file)
		o->t[i].s.files++;
	o->t[i].last_file = sc->file;
	return 0;
}

static int visit(void *ctx, const struct inspect_node *n)
{
	struct scan *sc = ctx;
	struct applet_entry ae;
	uint64_t bytes, stored;
	int rc;

	if (n->update)
		return 0;
	if (n->depth == 0) {
		sc->format = n->format;
		sc->machine = n->machine;
		return 0;
	}
	sc->children = true;
	if (sc->packed_depth && n->depth <= sc->packed_depth)
		sc->packed_depth = 0;
	if (n->kind == INSPECT_CONTAINER && kinds_get(n->container)->packed &&
	    kinds_get(n->container)->packed(n, &sc->packed_stored,
					    &sc->packed_raw))
		sc->packed_depth = n->depth;
	if (n->kind != INSPECT_ENTRY)
		return 0;
	if (applet_entry_of(&ae, n) < 0)
		return -1;
	bytes = stored = n->size;
	if (kinds_get(n->container)->sizes)	/* as its kind counts them */
		kinds_get(n->container)->sizes(n, &bytes, &stored);
	if (!n->in_file && sc->packed_depth && sc->packed_raw)
		stored = (uint64_t)((unsigned __int128)sc->packed_stored *
				    n->size / sc->packed_raw);
	rc = count(sc, &ae.en, bytes, stored);
	applet_entry_free(&ae);
	return rc;
}

/* A file that is itself one code object: counted as one entry. */
static int lone_code(struct scan *sc, const uint8_t *buf, size_t len)
{
	struct select_entry en;
	char name[APPLET_CODE_NAME];

	if (!(sc->format == INSPECT_ELF && (sc->machine == EM_AMDGPU_ ||
					    sc->machine == EM_CUDA_)) &&
	    sc->format != INSPECT_TEXT)
		return 0;
	switch (applet_lone_code(buf, len, name, &en)) {
	case 1:
		break;
	case -1:
		return -1;
	default:
		return 0;
	}
	sc->children = true;
	return count(sc, &en, len, len) < 0 ? -1 : 1;
}

static uint64_t next_data(const void *in, uint64_t off)
{
	return io_in_next_data(in, off);
}

/* The bytes of one file (path) walked and counted. */
int du_walk(struct options *o, struct scan *sc, const char *path,
		   const struct io_in *in)
{
	struct inspect_opts walk = o->walk;
	struct err e;
	int rc = 0, lone = 0;

	walk.next_data = next_data;
	walk.data_ctx = (void *)in;
	if (inspect_walk(in->data, in->len, &walk, visit, sc, &e) != 0) {
		o->errors++;
		rc = fail("cannot read", path, "%s", e.msg);
	} else if (!sc->children && (lone = lone_code(sc, in->data, in->len)) < 0) {
		rc = fail("cannot read", path, "out of memory");
	}
	if (!sc->children)
		o->other_files++;
	/* What prune would drop, and whether the file would go whole (a
	 * lone code object or a container file keeping no device code). */
	o->drop_sum.bytes += sc->dropped.bytes;
	o->drop_sum.stored += sc->dropped.stored;
	o->drop_sum.entries += sc->dropped.entries;
	if (sc->device && !sc->kept && !sc->host_bytes &&
	    (lone > 0 || hosts_offload_only(in->data, in->len)))
		o->drop_sum.files++;
	return rc;
}

int du_by_stored(const void *pa, const void *pb)
{
	const struct target *a = pa, *b = pb;

	if (a->s.stored != b->s.stored)
		return a->s.stored > b->s.stored ? -1 : 1;
	return strcmp(a->name, b->name);
}

static void json_sum(const char *key, const struct sum *s)
{
	printf("\"%s\":{\"bytes\":%" PRIu64 ",\"stored\":%" PRIu64
	       ",\"entries\":%" PRIu64 ",\"files\":%" PRIu64 "}", key,
	       s->bytes, s->stored, s->entries, s->files);
}

/* Bytes that are neither device code nor host entries.  Entries of a
 * compressed offload package count their decompressed size as stored (the
 * package does not say each one's share), so the sum may pass the total:
 * then 0. */
static uint64_t other_bytes(const struct options *o)
{
	uint64_t code = o->device_stored + o->host.stored;

	return o->total > code ? o->total - code : 0;
}

void du_print_json(const struct options *o, const char *end)
{
	fputs("{\"version\":1,\"targets\":[", stdout);
	for (size_t i = 0; i < o->n; i++) {
		const struct sum *s = &o->t[i].s;

		fputs(i ? ",{\"target\":" : "{\"target\":", stdout);
		json_put_str(stdout, o->t[i].name, strlen(o->t[i].name));
		printf(",\"bytes\":%" PRIu64 ",\"stored\":%" PRIu64
		       ",\"entries\":%" PRIu64 ",\"files\":%" PRIu64 "}",
		       s->bytes, s->stored, s->entries, s->files);
	}
	fputs("],", stdout);
	json_sum("host", &o->host);
	printf(",\"other\":{\"stored\":%" PRIu64 ",\"files\":%" PRIu64 "}",
	       other_bytes(o), o->other_files);
	printf(",\"total\":{\"stored\":%" PRIu64 ",\"files\":%" PRIu64
	       ",\"errors\":%" PRIu64 "}", o->total, o->files, o->errors);
	if (o->keep.n || o->drop.n) {
		putchar(',');
		json_sum("drop", &o->drop_sum);
	}
	fputs(end, stdout);
}

static void row(uint64_t stored, const char *code, const char *entries,
		const char *files, const char *name)
{
	char *esc = applet_escape(name, strlen(name), false);

	printf("%12" PRIu64 " %12s %8s %6s  %s\n", stored, code, entries, files,
	       esc ? esc : "?");
	free(esc);
}

static void row_sum(const struct sum *s, const char *name)
{
	char b[24], en[24], f[24];

	snprintf(b, sizeof(b), "%" PRIu64, s->bytes);
	snprintf(en, sizeof(en), "%" PRIu64, s->entries);
	snprintf(f, sizeof(f), "%" PRIu64, s->files);
	row(s->stored, b, en, f, name);
}

void du_print_text(const struct options *o)
{
	char f[24];

	printf("%12s %12s %8s %6s  %s\n", "stored", "code", "entries", "files",
	       "target");
	for (size_t i = 0; i < o->n; i++)
		row_sum(&o->t[i].s, o->t[i].name);
	row_sum(&o->host, "host");
	snprintf(f, sizeof(f), "%" PRIu64, o->other_files);
	row(other_bytes(o), "-", "-", f, "no device code");
	snprintf(f, sizeof(f), "%" PRIu64, o->files);
	row(o->total, "-", "-", f, "total");
	if (o->keep.n || o->drop.n) {
		const struct sum *d = &o->drop_sum;
		unsigned pct = o->total ? (unsigned)((unsigned __int128)
				d->stored * 1000 / o->total) : 0;

		printf("prune would drop %" PRIu64 " entr%s, %" PRIu64
		       " bytes stored (%u.%u%% of the total), %" PRIu64
		       " of code; %" PRIu64 " file%s would be left with no "
		       "device code (--remove-files removes them)\n",
		       d->entries, d->entries == 1 ? "y" : "ies", d->stored,
		       pct / 10, pct % 10, d->bytes, d->files,
		       d->files == 1 ? "" : "s");
	}
}
