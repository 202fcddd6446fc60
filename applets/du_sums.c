/* du_sums.c: one file's device code, as liboffcode lists it (an entry's
 * figures, offcode_entry_du_sizes), counted into du's sums (per target
 * ID, host entries, what --keep or --drop would drop), and the sums
 * printed as du's table or its JSON. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "du_sums.h"
#include "messages.h"
#include "../core/json.h"
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

/* One entry of the library's (include/offcode.h), as selection sees it
 * and with du's figures. */
static int count_entry(struct scan *sc, const offcode_entry *e)
{
	struct select_entry en = { .id = NULL };
	uint64_t bytes, stored;
	size_t kind_len;
	const char *kind = offcode_entry_offload_kind(e, &kind_len);

	en.id = offcode_entry_rule_id(e, &en.id_len);
	en.arch = offcode_entry_rule_target(e, &en.arch_len);
	en.triple = offcode_entry_triple(e, &en.triple_len);
	en.host = kind && kind_len == 4 && !memcmp(kind, "host", 4);
	offcode_entry_du_sizes(e, &bytes, &stored);
	return count(sc, &en, bytes, stored);
}

/* A file that is itself one code object: counted as one entry. */
static int lone_code(struct scan *sc, const offcode_artifact *a)
{
	struct select_entry en;
	const char *target, *triple;
	uint64_t len = offcode_artifact_size(a);

	if (!offcode_artifact_code_object(a, &target, &triple))
		return 0;
	memset(&en, 0, sizeof(en));
	en.id = en.arch = target;
	en.id_len = en.arch_len = strlen(target);
	en.triple = triple;
	en.triple_len = strlen(triple);
	sc->children = true;
	return count(sc, &en, len, len) < 0 ? -1 : 1;
}

int du_fail(const char *what, const char *path, const offcode_artifact *a,
	    const offcode_error *err)
{
	const char *epath = err ? offcode_error_path(err) : "";

	if (!err)
		return fail(what, path, "out of memory");
	/* Opening: the file the record names, and why.  Reading: the file
	 * opened, and the record's message (a file of its own named). */
	if (!a)
		return fail(what, epath[0] ? epath : path, "%s",
			    offcode_error_reason(err));
	return fail(what, path, "%s", strcmp(epath, offcode_artifact_path(a))
				     ? offcode_error_message(err)
				     : offcode_error_reason(err));
}

int du_walk(struct options *o, struct scan *sc, const char *path,
	    offcode_artifact *a, const offcode_error *err)
{
	size_t n = a ? offcode_entry_count(a) : 0;
	int rc = 0, lone = 0;

	sc->children = a && (offcode_input_count(a) > 1 ||
			     offcode_container_count(a) > 0);
	for (size_t i = 0; i < n && !sc->oom; i++)
		if (count_entry(sc, offcode_entry_at(a, i)) < 0)
			sc->oom = 1;
	if (sc->oom) {
		o->errors++;
		rc = fail("cannot read", path, "out of memory");
	} else if (err || !a) {
		o->errors++;
		rc = du_fail("cannot read", path, a, err);
	} else if (!sc->children && (lone = lone_code(sc, a)) < 0) {
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
	    (lone > 0 || (a && offcode_artifact_offload_only(a))))
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
