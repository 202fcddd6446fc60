/* ls: list the device code in build artefacts, as a tree, from headers. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applets.h"
#include "messages.h"
#include "progress.h"
#include "ls.h"
#include "selection.h"
#include "../core/env.h"
#include "../core/io.h"
#include "../core/uri.h"
#include "../formats/inspect.h"

static const char usage[] =
	"Usage: offload ls [OPTIONS] FILE...\n"
	"List the device code in each FILE (an ELF object, executable or shared\n"
	"library, a COFF object, a PE executable or DLL, an archive, an offload\n"
	"bundle, a CCOB, an offload package or an NVIDIA fatbin; any other file\n"
	"is listed as having no offload code) as a tree: file, section, container\n"
	"(bundle, CCOB, package, fatbin), code object with its target, its size\n"
	"and, where its bytes sit uncompressed in FILE, a file:// URI.  Only\n"
	"headers are read.\n"
	"\n"
	"      --format=FORMAT     text (the default), json, roc-obj (the lines\n"
	"                          ROCm's roc-obj-ls prints, bundle entries only)\n"
	"                          or cuobjdump (the lines cuobjdump -lelf -lptx\n"
	"                          prints, NVIDIA entries only)\n"
	"      --json              same as --format=json\n"
	"      --verify            inflate every CCOB whole and check its hash,\n"
	"                          and decode every NVIDIA entry (a progress line\n"
	"                          on a terminal)\n"
	"  -q, --quiet             no progress line\n"
	"      --kernels           list each code object's kernels and what each\n"
	"                          uses (registers, LDS or shared memory, scratch\n"
	"                          or local memory, occupancy); implies --verify\n"
	"      --no-demangle       print kernel names as the symbols are\n"
	"  -t, --target=PATTERN    only the code objects for PATTERN (a target ID\n"
	"                          as a GPU loads it, a bundle ID or a glob;\n"
	"                          comma-separated, repeatable; see offload(1));\n"
	"                          a container then counts the entries listed\n"
	"  -h, --help              print this help\n"
	"  -V, --version           print the version\n";

enum format { TEXT, JSON, ROC_OBJ, CUOBJDUMP };

#define fail(what, file, ...) applet_fail("ls", what, file, __VA_ARGS__)

#define usage_error(...) applet_usage_error("ls", __VA_ARGS__)

/* ---- collecting the tree ---- */

static int entry_as_text(struct rows *rs, const struct inspect_node *n);

static int keep(void *ctx, const struct inspect_node *n)
{
	struct rows *rs = ctx;
	struct row *r;

	if (n->update) {
		/* A streamed CCOB's hash, known after its entries. */
		for (size_t i = rs->n; i-- > 0;)
			if (rs->v[i].n.kind == INSPECT_CONTAINER &&
			    rs->v[i].n.number == n->number) {
				rs->v[i].n.hash = n->hash;
				rs->v[i].n.computed_hash = n->computed_hash;
				break;
			}
		return 0;
	}
	if (n->kind == INSPECT_ENTRY && !ls_wanted(rs, n)) {
		/* Its container counts the entries listed. */
		for (size_t i = rs->n; i-- > 0;)
			if (rs->v[i].n.depth + 1 == n->depth) {
				rs->v[i].n.entries--;
				break;
			}
		return 0;
	}
	/* NVIDIA entries stay rows: a --verify failure is reported from them
	 * (nv_undecoded). */
	if (rs->entries_as_text && n->kind == INSPECT_ENTRY &&
	    n->container != INSPECT_NV && rs->n &&
	    rs->v[rs->n - 1].n.kind == INSPECT_CONTAINER)
		return entry_as_text(rs, n);
	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? 2 * rs->cap : 64;
		struct row *v = realloc(rs->v, cap * sizeof(*v));

		if (!v)
			return -1;
		rs->v = v;
		rs->cap = cap;
	}
	r = &rs->v[rs->n];
	if (ls_row_fill(r, n) < 0)
		return -1;
	rs->n++;
	if (rs->kernels && n->kind == INSPECT_ENTRY && n->data)
		return ls_entry_kernels(r, n);
	return 0;
}

static void rows_free(struct rows *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		ls_row_free(&rs->v[i]);
	free(rs->v);
	memset(rs, 0, sizeof(*rs));
}

/* ---- text ---- */

enum { MAX_CELLS = LS_MAX_CELLS };

/* One entry line: cells, the size one right-aligned. */
struct line {
	char *cell[MAX_CELLS];
	int ncells, right;
};

static char *dup_text(const char *s, size_t len)
{
	return s ? applet_escape(s, len, false) : strdup("-");
}

static char *fmt_u64(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return strdup(buf);
}

static char *location(const struct inspect_node *n, const char *path)
{
	char buf[96];

	if (n->in_file)
		return uri_file(path, n->offset, n->size);
	if (n->container == INSPECT_NV) {
		snprintf(buf, sizeof(buf), "(%s-compressed, %" PRIu64 " bytes "
			 "uncompressed%s)", n->nv.flags & NVFATBIN_FLAG_ZSTD ?
			 "zstd" : "lz4", n->nv.uncompressed_size,
			 n->hash == INSPECT_HASH_BAD ? ", does not decode" : "");
		return strdup(buf);
	}
	return strdup("(compressed)");
}

static void entry_line(const struct inspect_node *n, const char *path,
		       struct line *l)
{
	struct inspect_target t;
	char sec[16];
	int k = 0;

	inspect_entry_target(n, &t);
	memset(l, 0, sizeof(*l));
	switch (n->container) {
	case INSPECT_PACKAGE:
		l->cell[k++] = dup_text(t.kind, t.kind_len);
		l->cell[k++] = dup_text(t.triple, t.triple_len);
		l->cell[k++] = dup_text(t.arch, t.arch_len);
		l->cell[k++] = dup_text(t.image, t.image_len);
		break;
	case INSPECT_NV:
		l->cell[k++] = dup_text(t.image, t.image_len);
		l->cell[k++] = dup_text(t.arch, t.arch_len);
		break;
	case INSPECT_OBJECT_BUNDLE:
		snprintf(sec, sizeof(sec), "[%u]", (unsigned)n->entry_section);
		l->cell[k++] = strdup(sec);
		/* fall through */
	default:
		l->cell[k++] = dup_text(n->name, n->name_len);
		break;
	}
	l->right = k;
	l->cell[k++] = fmt_u64(n->size);
	l->cell[k++] = location(n, path);
	l->ncells = k;
}

/* Append s and its NUL to t's buffer. */
static int text_add(struct entry_text *t, const char *s, size_t len)
{
	if (len + 1 > t->cap - t->len) {
		size_t cap = t->cap ? 2 * t->cap : 4096;
		char *b;

		while (len + 1 > cap - t->len)
			cap *= 2;
		if (!(b = realloc(t->buf, cap)))
			return -1;
		t->buf = b;
		t->cap = cap;
	}
	memcpy(t->buf + t->len, s, len);
	t->buf[t->len + len] = 0;
	t->len += len + 1;
	return 0;
}

/* With --kernels: the lines under entry n (its kernels, at indent) as
 * text, after its line's cells; why they cannot be read kept for the end
 * of the file. */
static int entry_kernels_text(struct rows *rs, struct entry_text *t,
			      const struct inspect_node *n, int indent)
{
	struct row r;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int rc = -1;

	if (ls_row_fill(&r, n) < 0)
		return -1;
	if (n->data && ls_entry_kernels(&r, n) < 0)
		goto out;
	if (!(f = open_memstream(&text, &len)))
		goto out;
	ls_print_kernels(f, rs, &r, indent);
	if (fclose(f) == 0 && text_add(t, text, len) == 0)
		rc = 0;
	if (r.kernels_why && rs->later) {
		char *why = ls_kernels_unread(&r);

		fprintf(rs->later, "offload ls: error: cannot read kernels in "
			"'%s': %s\n", rs->path, why ? why : "out of memory");
		free(why);
	}
out:
	free(text);
	ls_row_free(&r);
	return rc;
}

/* Format the entry n of the container last kept into that container's
 * text (see struct entry_text). */
static int entry_as_text(struct rows *rs, const struct inspect_node *n)
{
	struct row *c = &rs->v[rs->n - 1];
	struct entry_text *t = c->text;
	struct line l;
	int rc = 0;

	if (!t && !(t = c->text = calloc(1, sizeof(*t))))
		return -1;
	entry_line(n, rs->path, &l);
	t->ncells = l.ncells;
	t->right = l.right;
	for (int k = 0; k < l.ncells; k++) {
		const char *s = l.cell[k] ? l.cell[k] : "?";
		size_t len = strlen(s);

		if (len > t->w[k])
			t->w[k] = len;
		if (!rc)
			rc = text_add(t, s, len);
		free(l.cell[k]);
	}
	t->n++;
	if (!rc && rs->kernels) {
		t->tails = true;
		rc = entry_kernels_text(rs, t, n, 2 * (int)n->depth + 2);
	}
	return rc;
}

/* Entry lines kept as text, printed in their columns. */
static void print_entry_text(const struct entry_text *t, int indent)
{
	const char *s = t->buf;

	for (size_t k = 0; k < t->n; k++) {
		printf("%*s", indent, "");
		for (int c = 0; c < t->ncells; c++) {
			if (c == t->ncells - 1)
				printf("%s\n", s);
			else if (c == t->right)
				printf("%*s  ", (int)t->w[c], s);
			else
				printf("%-*s  ", (int)t->w[c], s);
			s += strlen(s) + 1;
		}
		if (t->tails) {
			fputs(s, stdout);
			s += strlen(s) + 1;
		}
	}
}

/* The entries of the container at rs->v[i], aligned in columns. */
static void print_entries(const struct rows *rs, size_t i, const char *path,
			  int indent)
{
	size_t n = rs->v[i].n.entries, w[MAX_CELLS] = { 0 };
	struct line *l;

	if (rs->v[i].text) {
		print_entry_text(rs->v[i].text, indent);
		return;
	}
	if (!(l = calloc(n ? n : 1, sizeof(*l))))
		return;
	for (size_t k = 0; k < n && i + 1 + k < rs->n; k++) {
		entry_line(&rs->v[i + 1 + k].n, path, &l[k]);
		for (int c = 0; c < l[k].ncells; c++)
			if (l[k].cell[c] && strlen(l[k].cell[c]) > w[c])
				w[c] = strlen(l[k].cell[c]);
	}
	for (size_t k = 0; k < n && i + 1 + k < rs->n; k++) {
		printf("%*s", indent, "");
		for (int c = 0; c < l[k].ncells; c++) {
			const char *s = l[k].cell[c] ? l[k].cell[c] : "?";

			if (c == l[k].ncells - 1)
				printf("%s\n", s);
			else if (c == l[k].right)
				printf("%*s  ", (int)w[c], s);
			else
				printf("%-*s  ", (int)w[c], s);
			free(l[k].cell[c]);
		}
		ls_print_kernels(stdout, rs, &rs->v[i + 1 + k], indent + 2);
	}
	free(l);
}

/* What a raw file's containers are, when all are of one kind. */
static void raw_kind(const struct rows *rs, size_t i)
{
	static const char *const names[] = {
		"offload bundle", "object bundle", "CCOB", "offload package",
		"NVIDIA fatbin",
	};
	int kind = -1;

	for (size_t k = i + 1; k < rs->n && rs->v[k].n.depth > rs->v[i].n.depth;
	     k++) {
		if (rs->v[k].n.kind != INSPECT_CONTAINER)
			continue;
		if (kind >= 0 && kind != (int)rs->v[k].n.container)
			return;
		kind = (int)rs->v[k].n.container;
	}
	if (kind >= 0)
		printf(" (%s)", names[kind]);
}

static void print_input(const struct rows *rs, size_t i, const char *path)
{
	const struct inspect_node *n = &rs->v[i].n;
	char *name = applet_escape(n->depth ? n->name : path,
				   n->depth ? n->name_len : strlen(path), false);
	const char *tname;

	printf("%*s%s%s: ", 2 * n->depth, "", n->depth ? "member " : "",
	       name ? name : "?");
	free(name);
	switch (n->format) {
	case INSPECT_ELF:
		tname = inspect_elf_type_name(n->elf_type);
		printf("ELF %d-bit %s ", n->is64 ? 64 : 32,
		       n->big_endian ? "MSB" : "LSB");
		if (tname)
			printf("%s, ", tname);
		else
			printf("type %u, ", n->elf_type);
		if (inspect_machine_name(n->machine))
			fputs(inspect_machine_name(n->machine), stdout);
		else
			printf("machine %u", n->machine);
		break;
	case INSPECT_COFF:
		printf("COFF %sobject, ", n->bigobj ? "bigobj " : "");
		if (inspect_coff_machine_name(n->machine))
			fputs(inspect_coff_machine_name(n->machine), stdout);
		else
			printf("machine 0x%x", n->machine);
		break;
	case INSPECT_PE:
		printf("PE%s %s, ", n->is64 ? "32+" : "32",
		       n->dll ? "DLL" : "executable");
		if (inspect_coff_machine_name(n->machine))
			fputs(inspect_coff_machine_name(n->machine), stdout);
		else
			printf("machine 0x%x", n->machine);
		break;
	case INSPECT_ARCHIVE:
		fputs("archive", stdout);
		break;
	case INSPECT_RAW:
		fputs("offload data", stdout);
		raw_kind(rs, i);
		break;
	case INSPECT_THIN_MEMBER:
		fputs("thin archive member (not read)", stdout);
		break;
	case INSPECT_TEXT:
		fputs(n->ld_script ? "linker script" : "text", stdout);
		break;
	default:
		fputs(n->size ? "other data" : "empty", stdout);
		break;
	}
	if (rs->v[i].kernels || rs->v[i].kernels_why)
		ls_describe_code(&rs->v[i]);
	else if (!ls_has_children(rs, i) && n->format != INSPECT_THIN_MEMBER)
		fputs(rs->targets && rs->targets->n ? ": nothing selected"
						    : ": no offload code", stdout);
	putchar('\n');
	if (rs->kernels)
		ls_print_kernels(stdout, rs, &rs->v[i], 2 * (n->depth + 1));
}

static void print_container(const struct inspect_node *n)
{
	const char *s = n->entries == 1 ? "y" : "ies";

	printf("%*s%s #%u", 2 * n->depth, "", inspect_container_name(n->container),
	       n->number);
	switch (n->container) {
	case INSPECT_OBJECT_BUNDLE:
		printf(": %zu entr%s in __CLANG_OFFLOAD_BUNDLE__ sections\n",
		       n->entries, s);
		return;
	case INSPECT_CCOB:
		printf(" at %" PRIu64 ": version %u, %s, %" PRIu64 " bytes, %"
		       PRIu64 " uncompressed, hash 0x%016" PRIx64 " %s",
		       n->offset, n->version,
		       n->ccob.method == CCOB_ZSTD ? "zstd" : "zlib", n->size,
		       n->ccob.raw_size, n->ccob.hash, inspect_hash_name(n->hash));
		if (n->hash == INSPECT_HASH_BAD)
			printf(" (computed 0x%016" PRIx64 ")", n->computed_hash);
		printf(", %zu entr%s\n", n->entries, s);
		return;
	case INSPECT_PACKAGE:
		printf(" at %" PRIu64 ": version %u, %zu bytes, %zu image%s\n",
		       n->offset, n->version, (size_t)n->size, n->entries,
		       n->entries == 1 ? "" : "s");
		return;
	default:
		printf(" at %" PRIu64 ": ", n->offset);
		if (n->container == INSPECT_NV)
			printf("version %u, ", n->version);
		printf("%" PRIu64 " bytes, %zu entr%s\n", n->size, n->entries, s);
		return;
	}
}

static void print_text(const struct rows *rs, const char *path)
{
	for (size_t i = 0; i < rs->n; i++) {
		const struct inspect_node *n = &rs->v[i].n;
		char *name;

		if (!ls_shown(rs, i))
			continue;
		switch (n->kind) {
		case INSPECT_INPUT:
			print_input(rs, i, path);
			break;
		case INSPECT_SECTION:
			name = applet_escape(n->name, n->name_len, false);
			printf("%*ssection [%u] %s: offset %" PRIu64 ", %" PRIu64
			       " bytes\n", 2 * n->depth, "", n->section_index,
			       name ? name : "?", n->offset, n->size);
			free(name);
			break;
		case INSPECT_CONTAINER:
			print_container(n);
			print_entries(rs, i, path, 2 * (n->depth + 1));
			break;
		default:
			break;
		}
	}
}

/* ---- roc-obj: roc-obj-ls's lines ---- */

/* Bundles are numbered from 1 across all files, as roc-obj-ls does:
 * *bundles counts them. */
static int print_roc_obj(const struct rows *rs, const char *path,
			 unsigned *bundles)
{
	size_t skipped = 0;

	for (size_t i = 0; i < rs->n; i++) {
		const struct inspect_node *n = &rs->v[i].n;

		if (n->kind != INSPECT_CONTAINER)
			continue;
		if (n->container == INSPECT_CCOB)
			skipped += n->entries;
		if (n->container != INSPECT_BUNDLE &&
		    n->container != INSPECT_OBJECT_BUNDLE)
			continue;
		++*bundles;
		for (size_t k = 1; k <= n->entries && i + k < rs->n; k++) {
			const struct inspect_node *en = &rs->v[i + k].n;
			char *uri = uri_file(path, en->offset, en->size);
			/* One line per entry, three fields, whatever the ID
			 * holds (a newline, a space, a NUL). */
			char *id = applet_escape(en->name, en->name_len, true);

			if (!uri || !id) {
				free(uri);
				free(id);
				return fail("cannot list", path, "out of memory");
			}
			printf("%-8u%-40s%35s%s\n", *bundles, id, "file://",
			       uri + 7);
			free(uri);
			free(id);
		}
	}
	if (skipped) {
		fflush(stdout);
		fprintf(stderr, "offload ls: warning: '%s': %zu code object%s in "
			"compressed bundles (CCOB) %s no file:// URI; use "
			"offload extract\n", path, skipped,
			skipped == 1 ? "" : "s", skipped == 1 ? "has" : "have");
	}
	return 0;
}

/* ---- the command ---- */

struct options {
	enum format format;
	struct inspect_opts walk;
	bool kernels, demangle, quiet;
	struct select targets;
	/* Across the files listed: roc-obj's bundles so far, and whether a
	 * JSON object came before (the next one is after a comma). */
	unsigned roc_bundles;
	bool json_started;
};

/* One line for the NVIDIA container at rs->v[i] if any of its entries
 * does not decode (--verify): how many, which, and why the first. */
static int nv_undecoded(const struct rows *rs, size_t i, const char *path)
{
	const struct row *first = NULL;
	size_t bad = 0, len = 0, n = rs->v[i].n.entries;
	char list[64] = "";

	for (size_t k = i + 1; k <= i + n && k < rs->n; k++) {
		const struct inspect_node *en = &rs->v[k].n;

		if (en->hash != INSPECT_HASH_BAD)
			continue;
		if (!bad++)
			first = &rs->v[k];
		if (len + 16 < sizeof(list))
			len += (size_t)snprintf(list + len, sizeof(list) - len,
						"%s%u", len ? ", " : "",
						en->index);
		else if (!strstr(list, "..."))
			strcpy(list + len, ", ...");
	}
	if (!bad)
		return 0;
	return fail("cannot decode", path, "nv-fatbin #%u at offset %" PRIu64
		    ": %zu of %zu entr%s (%s); entry %u: %s",
		    rs->v[i].n.number, rs->v[i].n.offset, bad, n,
		    n == 1 ? "y" : "ies", list, first->n.index,
		    first->why ? first->why : "?");
}

/* The entry at rs->v[i] is a code object whose kernels cannot be read. */
static int kernels_unread(const struct rows *rs, size_t i, const char *path)
{
	char *why = ls_kernels_unread(&rs->v[i]);
	int rc = fail("cannot read kernels in", path, "%s",
		      why ? why : "out of memory");

	free(why);
	return rc;
}

static uint64_t next_data(const void *in, uint64_t off)
{
	return io_in_next_data(in, off);
}

static void reading(const void *in, uint64_t off, uint64_t len, bool start)
{
	/* Done: the range's pages go, and it is sparse again as the rest. */
	io_in_hint(in, off, off + len, start ? IO_IN_WHOLE : IO_IN_DONE);
	if (!start)
		io_in_hint(in, off, off + len, IO_IN_SPARSE);
}

/* A directory among the files named (a shell glob's, say) is listed as
 * one and is no error; ls reads files, it does not search directories. */
static int list_directory(struct options *o, const char *path)
{
	char *name;

	switch (o->format) {
	case TEXT:
		if (!(name = applet_escape(path, strlen(path), false)))
			return fail("cannot list", path, "out of memory");
		printf("%s: directory: not searched\n", name);
		free(name);
		break;
	case JSON:
		if (o->json_started)
			putchar(',');
		o->json_started = true;
		ls_json_directory(path);
		break;
	case ROC_OBJ:
		break;
	case CUOBJDUMP:		/* cuobjdump fails on one */
		return fail("cannot list", path, "a directory (cuobjdump "
			    "fails too)");
	}
	return 0;
}

/* --json: printed as the walk goes (see ls_json.c); what failed said
 * after the file's object. */
static int list_json(struct options *o, const struct rows *rs,
		     const struct io_in *in, const struct inspect_opts *walk,
		     const char *path)
{
	struct ls_json js = { .rs = rs, .path = path, .data = in->data,
			      .len = in->len, .comma = o->json_started };
	char *errs = NULL;
	size_t errs_len = 0;
	struct err e;
	int walked, rc;

	js.errs = open_memstream(&errs, &errs_len);
	e.msg[0] = 0;
	walked = inspect_walk(in->data, in->len, walk, ls_json_visit, &js, &e);
	progress_end();
	rc = ls_json_end(&js, walked == 0);
	o->json_started |= js.printed;
	if (walked != 0)
		rc = fail("cannot list", path, "%s",
			  e.msg[0] ? e.msg : "out of memory");
	else if (rc < 0)
		rc = fail("cannot list", path, "out of memory");
	if (js.errs && !fclose(js.errs) && errs_len) {
		fflush(stdout);
		fputs(errs, stderr);
	}
	free(errs);
	return rc ? 1 : 0;
}

static int list_one(struct options *o, const char *path)
{
	struct inspect_opts walk = o->walk;
	struct rows rs = { .kernels = o->kernels, .demangle = o->demangle,
			   .targets = (struct select *)&o->targets,
			   .entries_as_text = o->format == TEXT,
			   .path = path };
	char *later = NULL;
	size_t later_len = 0;
	struct io_in in;
	struct err e;
	int rc = 0;

	if (io_in_open(&in, path, &e) < 0) {
		if (e.errnum == EISDIR)
			return list_directory(o, path);
		return applet_fail_err("ls", "cannot read", path, 0, &e);
	}
	/* Headers are read where they are; what the walk inflates (CCOBs,
	 * NVIDIA entries) is read ahead, and let go of after. */
	io_in_hint(&in, 0, in.len, IO_IN_SPARSE);
	walk.reading = reading;
	/* A CCOB's code objects are read one at a time as it inflates. */
	walk.stream = true;
	walk.next_data = next_data;
	walk.data_ctx = &in;
	if (walk.inflate && progress_on()) {
		progress_name(path);
		walk.ccob.progress = progress_show;
	}
	e.msg[0] = 0;
	if (o->format == CUOBJDUMP) {
		/* Printed as the walk goes, nothing kept. */
		rc = ls_cuobjdump(&rs, in.data, in.len, &walk, &e);
		progress_end();
		if (rc < 0)
			rc = fail("cannot list", path, "%s",
				  e.msg[0] ? e.msg : "out of memory");
		else if (rc)
			rc = fail("cannot list", path, "no NVIDIA device code "
				  "(cuobjdump fails too)");
		goto out;
	}
	if (o->format == JSON) {
		rc = list_json(o, &rs, &in, &walk, path);
		goto out;
	}
	if (o->kernels && !(rs.later = open_memstream(&later, &later_len))) {
		rc = fail("cannot list", path, "out of memory");
		goto out;
	}
	if (inspect_walk(in.data, in.len, &walk, keep, &rs, &e) != 0) {
		progress_end();
		rc = fail("cannot list", path, "%s",
			  e.msg[0] ? e.msg : "out of memory");
		goto out;
	}
	if (o->targets.n)
		ls_drop_unselected(&rs);
	progress_end();
	/* A file that is itself a code object (one offload extract wrote,
	 * say) is described, and with --kernels has its kernels listed. */
	if (rs.n == 1 && !ls_has_children(&rs, 0) &&
	    ls_file_kernels(&rs.v[0], in.data, in.len) < 0) {
		rc = fail("cannot list", path, "out of memory");
		goto out;
	}
	switch (o->format) {
	case CUOBJDUMP:		/* printed above */
		break;
	case TEXT:
		print_text(&rs, path);
		break;
	case ROC_OBJ:
		rc = print_roc_obj(&rs, path, &o->roc_bundles);
		break;
	case JSON:		/* printed as walked */
		break;
	}
	for (size_t i = 0; i < rs.n; i++) {
		if (rs.v[i].n.kind == INSPECT_CONTAINER &&
		    rs.v[i].n.hash == INSPECT_HASH_BAD)
			rc = fail("bad hash in", path, "CCOB #%u at offset %" PRIu64
				  ": stored 0x%016" PRIx64 ", computed 0x%016"
				  PRIx64, rs.v[i].n.number, rs.v[i].n.offset,
				  rs.v[i].n.ccob.hash, rs.v[i].n.computed_hash);
		if (rs.v[i].n.kind == INSPECT_CONTAINER &&
		    rs.v[i].n.container == INSPECT_NV)
			rc |= nv_undecoded(&rs, i, path);
		if (rs.v[i].kernels_why && o->kernels)
			rc = kernels_unread(&rs, i, path);
	}
	if (rs.later && !fclose(rs.later) && later_len) {
		fflush(stdout);
		fputs(later, stderr);
		rc = 1;
	}
	rs.later = NULL;
out:
	if (rs.later)
		fclose(rs.later);
	free(later);
	rows_free(&rs);
	io_in_close(&in);
	return rc;
}

/* ls_main, with the options it fills and frees. */
static int ls_run(struct options *o, int argc, char **argv)
{
	enum { OPT_FORMAT = 256, OPT_JSON, OPT_VERIFY, OPT_KERNELS,
	       OPT_NO_DEMANGLE };
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "verify", no_argument, NULL, OPT_VERIFY },
		{ "kernels", no_argument, NULL, OPT_KERNELS },
		{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
		{ "target", required_argument, NULL, 't' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct err e;
	int c, rc = 0;

	if (env_positive_u64("OFFLOAD_CCOB_MAX_SIZE", &o->walk.ccob.max_size, &e) < 0 ||
	    env_positive_u64("OFFLOAD_CCOB_MAX_RATIO", &o->walk.ccob.max_ratio, &e) < 0)
		return usage_error("%s", e.msg);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "hVqt:", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_FORMAT:
			if (!strcmp(optarg, "text"))
				o->format = TEXT;
			else if (!strcmp(optarg, "json"))
				o->format = JSON;
			else if (!strcmp(optarg, "roc-obj"))
				o->format = ROC_OBJ;
			else if (!strcmp(optarg, "cuobjdump"))
				o->format = CUOBJDUMP;
			else
				return usage_error("unknown format '%s' (text, "
						   "json, roc-obj or cuobjdump)",
						   optarg);
			break;
		case OPT_JSON:
			o->format = JSON;
			break;
		case OPT_VERIFY:
			o->walk.inflate = true;
			break;
		case OPT_KERNELS:
			/* The code inside CCOBs and NVIDIA fatbins is needed. */
			o->kernels = o->walk.inflate = true;
			break;
		case OPT_NO_DEMANGLE:
			o->demangle = false;
			break;
		case 't':
			if (select_add(&o->targets, optarg, &e) < 0)
				return usage_error("%s", e.msg);
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		case 'V':
			printf("offload ls %s\n", OFFLOAD_VERSION);
			return 0;
		default:
			if (optopt && optopt < 256)
				return usage_error("unknown option '-%c'", optopt);
			return usage_error("unknown or incomplete option '%s'",
					   argv[optind - 1]);
		}
	}
	if (optind == argc)
		return usage_error("no input file");
	progress_init("ls", o->quiet);
	if (o->format == JSON)
		fputs("{\"version\":4,\"files\":[", stdout);
	for (int i = optind; i < argc; i++)
		rc |= list_one(o, argv[i]);
	if (o->format == JSON)
		fputs("]}\n", stdout);
	return rc | applet_select_unmatched("ls", "--target", NULL, &o->targets);
}

int ls_main(int argc, char **argv)
{
	struct options o = {
		.format = TEXT,
		.demangle = true,
		.walk = {
			.accept_other = true,
			.ccob = { .max_ratio = CCOB_DEFAULT_MAX_RATIO,
				  .max_size = CCOB_DEFAULT_MAX_SIZE },
			.package = { .max_ratio = PACKAGE_DEFAULT_MAX_RATIO,
				     .max_size = PACKAGE_DEFAULT_MAX_SIZE },
		},
	};
	int rc = ls_run(&o, argc, argv);

	select_free(&o.targets);
	return rc;
}
