/* extract: write the device code objects of build artefacts to files,
 * decompressed, chosen by target. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "applets.h"
#include "messages.h"
#include "opts.h"
#include "progress.h"
#include "selection.h"
#include "extract_impl.h"
#include "extract_kpack.h"
#include "extract_write.h"
#include "../core/io_out.h"
#include "../core/io_write.h"

#include "../core/strjoin.h"

static const char usage[] =
	"Usage: offload extract [OPTIONS] FILE|URI...\n"
	"Write the device code objects in each FILE, decompressed, one file each,\n"
	"named FILE.N.TARGET.EXT (FILE.MEMBER.N.TARGET.EXT for an archive member;\n"
	"N: the container number offload ls shows; bytes unsafe in a file name,\n"
	"':' among them, as '_'; for a kpack archive TARGET is the TOC key and\n"
	"target, KEY-TARGET; a kpack-split binary's code objects, read from its\n"
	"archives, are named as in the fat binary), or one of them to standard\n"
	"output.\n"
	"A file://PATH#offset=N&size=N URI (as offload ls and roc-obj-ls print\n"
	"them) writes those bytes of PATH to NAME-offsetN-sizeN.co, as\n"
	"roc-obj-extract does.\n"
	"An IMAGE (oci:DIR[:TAG], oci-archive:FILE, docker-archive:FILE, or a\n"
	"path that is one): each file of its layers that holds device code, as\n"
	"a FILE of its name there.  A PKG (a Debian package, a wheel, a conda\n"
	"package): each of its files that holds device code, the same way.\n"
	"\n";

/* With -o -, each input as the counting pass left it for the writing
 * pass: a pipe or device, read into memory, is kept (it cannot be read
 * twice); a file is opened again, and must be the one counted. */
struct held {
	offcode_source *src;
	bool kept;
	bool mapped;		/* and then st is what it was */
	struct stat st;
};


#define usage_error(...) applet_usage_error("extract", __VA_ARGS__)


/* ---- selection ---- */

/* Entry e as the target rules see it (selection.h's applet_entry_of). */
static void entry_of(struct select_entry *en, const offcode_entry *e)
{
	size_t kind_len;
	const char *kind = offcode_entry_offload_kind(e, &kind_len);

	memset(en, 0, sizeof(*en));
	en->id = offcode_entry_rule_id(e, &en->id_len);
	en->arch = offcode_entry_rule_target(e, &en->arch_len);
	en->triple = offcode_entry_triple(e, &en->triple_len);
	en->host = kind && kind_len == 4 && !memcmp(kind, "host", 4);
}

/* Whether the entry is selected (see core/select.h); marks the rules it
 * matches.  Without rules: device code, not empty (--all: everything). */
static bool selected(struct options *o, const offcode_entry *e,
		     const struct select_entry *en)
{
	if (!o->targets.n)
		return o->all || (!en->host && offcode_entry_size(e) > 0);
	return select_match(&o->targets, en);
}

/* One line for the NVIDIA container whose entries failed, if any. */
static void nv_report(struct job *j)
{
	if (!j->nv_failed)
		return;
	fail("cannot extract from", j->path, "nv-fatbin #%u: %zu of %zu "
	     "entr%s not extracted (%s); %s: %s", j->nv_number, j->nv_failed,
	     j->nv_entries, j->nv_entries == 1 ? "y" : "ies", j->nv_list,
	     j->nv_first_what, j->nv_first);
	j->nv_failed = 0;
}

/* Entry e (of container number) could not be decoded: why says why. */
static int nv_note(struct job *j, unsigned number, const offcode_entry *e,
		   const offcode_error *why)
{
	size_t len = strlen(j->nv_list);
	unsigned index = offcode_entry_index(e);

	if (j->nv_failed && j->nv_number != number)
		nv_report(j);
	if (!j->nv_failed) {
		const char *arch = offcode_entry_target_id(e, NULL);
		const char *image = offcode_entry_image_kind(e);
		char *first = strdup(offcode_error_message(why));

		if (!first)
			return fail("cannot extract from", j->path,
				    "out of memory");
		free(j->nv_first);
		j->nv_first = first;
		j->nv_number = number;
		snprintf(j->nv_first_what, sizeof(j->nv_first_what),
			 "entry %u, %s %s", index, arch ? arch : "",
			 image ? image : "");
		len = 0;
		j->nv_list[0] = 0;
	}
	j->nv_failed++;
	/* The indices, as many as fit. */
	if (len + 16 < sizeof(j->nv_list))
		snprintf(j->nv_list + len, sizeof(j->nv_list) - len, "%s%u",
			 len ? ", " : "", index);
	else if (!strstr(j->nv_list, "..."))
		strcpy(j->nv_list + len, ", ...");
	return 1;
}

/* Whether entry e of the file (a kpack archive) is claimed. */
static bool claimed(const struct job *j, const struct offcode_node *n)
{
	struct claim key = { .dev = j->dev, .ino = j->ino,
			     .entry = offcode_entry_index(n->entry) };

	return j->has_id && j->o->nclaims && !j->depth &&
	       !strcmp(offcode_container_format(n->container), "kpack") &&
	       bsearch(&key, j->o->claims, j->o->nclaims, sizeof(key),
		       extract_cmp_claim);
}

/* A CCOB whose hash does not match, said as prune says it: where it is
 * (the archive members, the section) and its offset there. */
static void ccob_damaged(struct job *j)
{
	char where[512] = "";
	size_t at = 0;

	for (unsigned d = 1; d <= j->depth && d < MAX_DEPTH; d++)
		if (j->member[d] && at < sizeof(where))
			at += (size_t)snprintf(where + at, sizeof(where) - at,
					       "member %s: ", j->member[d]);
	if (j->section[0] && at < sizeof(where))
		snprintf(where + at, sizeof(where) - at, "section %s: ",
			 j->section);
	fail("cannot extract from", j->path, "%sCCOB at offset %llu: hash "
	     "mismatch: the bundle inside is damaged", where,
	     (unsigned long long)j->ccob_offset);
}

/* The file extension of entry e, whose code's first bytes are at code
 * (all of them, size, or its head). */
static const char *extension(const offcode_entry *e, const void *code,
			     uint64_t size)
{
	const char *ext = extract_extension(code, size, NULL, 0), *image;

	/* (what the entry's image kind says, when its bytes do not) */
	if (strcmp(ext, "bin") || !(image = offcode_entry_image_kind(e)))
		return ext;
	return extract_extension(code, size, image, strlen(image));
}

static int extract_entry(struct job *j, const struct offcode_node *n)
{
	const offcode_entry *e = n->entry;
	const offcode_error *undecoded;
	struct select_entry en;
	const void *code = n->code, *head;
	uint64_t size = n->code_size, at = 0;
	size_t head_len;
	char *name = NULL;
	bool stream = false, in_file;
	int rc = 0;

	entry_of(&en, e);
	if (claimed(j, n)) {
		j->claimed++;
		return 0;
	}
	if (!selected(j->o, e, &en))
		return 0;
	j->count++;
	if (j->counting)
		return 0;
	if (j->in_ccob && j->ccob_bad) {
		if (!j->ccob_reported)
			ccob_damaged(j);
		j->ccob_reported = true;
		return 1;
	}
	/* One that cannot be decoded is noted for its container's line
	 * (nv_report). */
	if ((undecoded = offcode_entry_decode_error(e)))
		return nv_note(j, offcode_container_number(n->container), e,
			       undecoded);
	if (!code && (head = offcode_entry_head(e, &head_len, &at)) &&
	    j->pend && j->pend->on) {
		/* Its first bytes, for the name; the rest streamed. */
		stream = true;
		code = head;
		size = offcode_entry_size(e);
	} else if (!code) {
		return fail("cannot extract from", j->path, "entry %u of #%u: "
			    "its code is not at hand", offcode_entry_index(e),
			    offcode_container_number(n->container));
	}
	in_file = !stream && offcode_entry_offset(e, &at);
	if (!(name = extract_entry_name(j, offcode_container_number(n->container),
					en.id, en.id_len,
					extension(e, code, size))))
		return fail("cannot extract from", j->path, "out of memory");
	/* Bytes in the file are copied from it, the rest written; those of
	 * a CCOB streamed, once the walk leaves it. */
	if (stream)
		rc = extract_pend_open(j, name, at, size);
	else
		rc = extract_write_out(j->o, j->in, name, in_file ? NULL : code,
				       at, size);
	free(name);
	return rc;
}

/* An input: the archive members the walk is in, for names and messages. */
static int enter_input(struct job *j, const struct offcode_node *n)
{
	const char *name;
	size_t len;

	if (n->depth >= MAX_DEPTH)
		return 0;
	j->depth = n->depth;
	j->member_offset[n->depth] = offcode_input_offset(n->input);
	j->section[0] = 0;
	if (!n->depth)
		return 0;
	name = offcode_input_name(n->input, &len);
	free(j->member[n->depth]);
	if (!(j->member[n->depth] = strjoin(name, len, "", "", 0)))
		return j->rc = fail("cannot extract from", j->path,
				    "out of memory");
	return 0;
}

/* A container: a CCOB's place, its hash, its bytes to stream again. */
static void enter_container(struct job *j, const struct offcode_node *n)
{
	const offcode_container *c = n->container;
	const void *stored;
	uint64_t off = 0, len;

	j->nv_entries = offcode_container_entry_count(c);
	j->in_ccob = !strcmp(offcode_container_format(c), "ccob");
	if (!j->in_ccob)
		return;
	offcode_container_offset(c, &off);
	j->ccob_offset = off - j->member_offset[j->depth];
	j->ccob_bad = offcode_container_hash_error(c) != NULL;
	j->ccob_reported = false;
	stored = offcode_container_stored(c, &len);
	if (stored && j->pend && !j->counting)
		extract_pend_begin(j, stored, len);
}

static int visit(void *ctx, const struct offcode_node *n)
{
	struct job *j = ctx;

	if (n->depth)
		j->below = true;
	switch (n->kind) {
	case OFFCODE_NODE_ENTRY:
		j->rc |= extract_entry(j, n);
		if (!j->counting)
			progress_show(j->count, j->total);
		return 0;
	case OFFCODE_NODE_CONTAINER_END:
		/* The walk leaves it: its selected entries are written. */
		extract_pend_finish(j);
		return 0;
	case OFFCODE_NODE_INPUT:
	case OFFCODE_NODE_SECTION:
	case OFFCODE_NODE_CONTAINER:
		break;
	}
	nv_report(j);
	if (n->kind == OFFCODE_NODE_INPUT)
		return enter_input(j, n);
	if (n->kind == OFFCODE_NODE_SECTION)
		snprintf(j->section, sizeof(j->section), "%.*s",
			 (int)n->section_name_len, n->section_name);
	if (n->kind == OFFCODE_NODE_CONTAINER)
		enter_container(j, n);
	return 0;
}

/* Walk the len bytes at data (the file path): 0, or 1 said. */
static int walk(struct job *j, const void *data, size_t len,
		const struct offcode_walk_options *wo)
{
	offcode_error *why = NULL;
	int rc = offcode_walk_memory(data, len, j->path, wo, visit, j, &why);

	if (rc) {
		extract_pend_finish(j);
		j->rc = fail("cannot extract from", j->path, "%s",
			     why ? offcode_error_reason(why) : "out of memory");
	}
	offcode_error_free(why);
	return rc ? 1 : 0;
}

static bool unchanged_since(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	       a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* Open path for a pass (its first want bytes, for a URI: see
 * offcode_source_open_part; 0: all), or take it from h (see struct
 * held).  A file the counting pass mapped must come back mapped and the
 * same: replaced by an empty file or a FIFO, it was not checked. */
static int open_input(offcode_source **src, const char *path, uint64_t want,
		      bool counting, struct held *h)
{
	offcode_error *why = NULL;
	struct stat st;
	uint64_t len;
	int fd, rc;

	if (h && h->kept) {
		*src = h->src;
		h->kept = false;
		return 0;
	}
	if (want ? offcode_source_open_part(path, want, src, &why)
		 : offcode_source_open_path(path, src, &why)) {
		rc = extract_fail_record("cannot read", path, why);
		offcode_error_free(why);
		return rc;
	}
	/* (a descriptor: a file mapped) */
	fd = offcode_source_fd(*src);
	if (!h || (fd < 0 && (counting || !h->mapped)))
		return 0;
	if (fd >= 0 && fstat(fd, &st) < 0) {
		rc = fail("cannot read", path, "%s", strerror(errno));
		offcode_source_close(*src);
		return rc;
	}
	if (counting) {
		h->st = st;
		h->mapped = true;
	} else if (fd < 0 || !unchanged_since(&h->st, &st)) {
		bool resized;

		offcode_source_bytes(*src, &len);
		resized = (uint64_t)h->st.st_size !=
			  (fd >= 0 ? (uint64_t)st.st_size : len);
		offcode_source_close(*src);
		return fail("cannot read", path, "file changed%s while being "
			    "read", resized ? " size" : "");
	}
	return 0;
}

/* The end of a pass over src: closed, or kept in h for the next pass
 * (bytes read into memory: a pipe cannot be read twice). */
static void close_input(offcode_source *src, bool counting, struct held *h)
{
	if (h && counting && offcode_source_fd(src) < 0) {
		h->src = src;
		h->kept = true;
		return;
	}
	offcode_source_close(src);
}

/* The bytes src holds, as a walk and the outputs read them. */
static struct extract_input input_of(offcode_source *src, const char *path)
{
	uint64_t len;
	struct extract_input in = { .path = path };

	in.data = offcode_source_bytes(src, &len);
	in.len = (size_t)len;
	in.fd = offcode_source_fd(src);
	return in;
}

/* Walk path: count the entries selected, from headers only, which also
 * finds a damaged file before anything is written; then, unless only
 * counting, walk it again inflating, and write them. */
static int run_in(struct options *o, const char *path,
		  const struct extract_input *in, offcode_source *src,
		  bool counting, size_t *count, bool inner);

static int run_file(struct options *o, const char *path, bool counting,
		    size_t *count, struct held *held)
{
	offcode_source *src;
	struct extract_input in;
	int rc;

	if (open_input(&src, path, 0, counting, held) != 0)
		return 1;
	in = input_of(src, path);
	rc = run_in(o, path, &in, src, counting, count, false);
	close_input(src, counting, held);
	return rc;
}

/* The file path whose bytes in holds (see run_file); src, when they
 * are a source's, gives the walk its hints.  inner: path is a file's
 * name inside a package or an image, not one the user gave (its bytes
 * unsafe in a name are made safe too). */
static int run_in(struct options *o, const char *path,
		  const struct extract_input *in, offcode_source *src,
		  bool counting, size_t *count, bool inner)
{
	struct job j = { .o = o, .path = path, .counting = true,
			 .inner = inner };
	struct pending pend = { 0 };
	/* Headers first: a file of no format is an error, as it is not
	 * for ls. */
	struct offcode_walk_options wo = {
		.size = sizeof(wo), .flags = OFFCODE_WALK_KNOWN,
		.ccob_max_size = o->open.ccob_max_size,
		.ccob_max_ratio = o->open.ccob_max_ratio,
		.next_data = offcode_source_next_data,
		.reading = offcode_source_reading, .hint_ctx = src,
	};
	struct stat st;

	j.in = in;
	if (in->fd >= 0 && fstat(in->fd, &st) == 0) {
		j.has_id = true;
		j.dev = st.st_dev;
		j.ino = st.st_ino;
	}
	if (walk(&j, in->data, in->len, &wo))
		goto out;
	/* A file of a package or an image with no offload code in it: none
	 * of its own (what is wrong with one is said by the walk above). */
	if (inner && !j.below)
		goto out;
	if ((j.rc |= extract_split_file(&j, in->data, in->len)))
		goto out;
	if (!j.count && !j.claimed && !o->targets.n && !counting)
		fprintf(stderr, "offload extract: warning: '%s': no device code\n",
			path);
	if (counting || !j.count) {
		*count += j.count;
		goto out;
	}
	j.counting = false;
	j.total = j.count;
	j.count = 0;
	/* Then the code, a CCOB's hash checked before its entries: into a
	 * directory, its selected entries stream to their files when the
	 * walk leaves it; to standard output, the one selected is written
	 * as it comes, its CCOB inflated whole. */
	wo.flags |= OFFCODE_WALK_CODE | (o->dir ? OFFCODE_WALK_CCOB_LATER
						: OFFCODE_WALK_CCOB_WHOLE |
						  OFFCODE_WALK_VERIFY);
	j.pend = &pend;
	progress_name(path);
	walk(&j, in->data, in->len, &wo);
	extract_pend_finish(&j);
	j.rc |= extract_split_file(&j, in->data, in->len);
	progress_end();
	nv_report(&j);
	*count += j.count;
out:
	for (unsigned d = 0; d < MAX_DEPTH; d++)
		free(j.member[d]);
	free(j.nv_first);
	free(pend.v);
	return j.rc;
}

/* The files of a package's or an image's layers that hold offload code,
 * each as a file of its name in its layer (a package's without "./"). */
struct image_run {
	struct options *o;
	bool counting;
	size_t *count;
	bool nomem;
	int rc;
};

static int layer_file(void *ctx, const struct offcode_member *m,
		      const void *bytes, size_t len, int fd)
{
	struct image_run *ir = ctx;
	struct extract_input in = { .data = bytes, .len = len, .fd = fd };
	char *path;

	if (!(path = strndup(m->name, m->name_len))) {
		ir->nomem = true;
		return 1;
	}
	in.path = path;
	ir->rc |= run_in(ir->o, path, &in, NULL, ir->counting, ir->count,
			 true);
	free(path);
	return 0;
}

/* The package or image at path (what: "image" or "package"), its
 * layers walked in turn through liboffcode. */
static int run_layers(struct options *o, const char *path, const char *what,
		      bool counting, size_t *count)
{
	struct offcode_open_options oo = { .size = sizeof(oo),
					   .flags = OFFCODE_OPEN_STREAM };
	char fail_what[32];
	offcode_artifact *a = NULL;
	offcode_error *why = NULL;
	int rc = 0;

	snprintf(fail_what, sizeof(fail_what), "cannot read %s", what);
	if (offcode_open_path(path, &oo, &a, &why)) {
		rc = extract_fail_record(fail_what, path, why);
		offcode_error_free(why);
		return rc;
	}
	for (size_t i = 0; i < offcode_layer_count(a); i++) {
		struct image_run ir = { .o = o, .counting = counting,
					.count = count };

		if (offcode_layer_walk_bytes(a, i, layer_file, &ir)) {
			rc = ir.nomem ? fail(fail_what, path, "out of memory")
				      : extract_fail_record(fail_what, path,
							    offcode_last_error(a));
			break;
		}
		rc |= ir.rc;
	}
	offcode_close(a);
	return rc;
}

static int run_uri(struct options *o, const char *s, bool counting,
		   size_t *count, struct held *held)
{
	struct offcode_uri u = { .size = sizeof(u) };
	offcode_error *why = NULL;
	offcode_source *src;
	struct extract_input in;
	char *name = NULL;
	int rc = 1;

	if (offcode_uri_parse(s, &u, &why)) {
		rc = fail("cannot read", s, "%s", offcode_error_reason(why));
		offcode_error_free(why);
		return rc;
	}
	/* A device or a pipe is read only as far as the URI needs. */
	if (open_input(&src, u.path, u.has_length && u.offset <= UINT64_MAX -
		       u.length ? u.offset + u.length : 0, counting, held) != 0) {
		offcode_uri_free(&u);
		return 1;
	}
	in = input_of(src, u.path);
	if (!u.has_length)
		u.length = u.offset <= in.len ? in.len - u.offset : 0;
	if (u.offset > in.len || u.length > in.len - u.offset) {
		fail("cannot read", s, "offset %" PRIu64 " and size %" PRIu64
		     " run past the end of '%s' (%zu bytes)", u.offset, u.length,
		     u.path, in.len);
		goto out;
	}
	if (!u.length) {
		/* Said once: with -o -, in the writing pass. */
		if (!counting)
			fprintf(stderr, "offload extract: warning: '%s': size 0, "
				"nothing to extract\n", s);
		rc = 0;
		goto out;
	}
	(*count)++;
	rc = 0;
	if (counting)
		goto out;
	name = malloc(strlen(extract_base_name(u.path)) + 64);
	if (!name) {
		rc = fail("cannot read", s, "out of memory");
		goto out;
	}
	sprintf(name, "%s-offset%" PRIu64 "-size%" PRIu64 ".co",
		extract_base_name(u.path), u.offset, u.length);
	rc = extract_write_out(o, &in, name, NULL, u.offset, u.length);
out:
	free(name);
	close_input(src, counting, held);
	offcode_uri_free(&u);
	return rc;
}

static int run_all(struct options *o, char **args, int n, bool counting,
		   size_t *count, struct held *held)
{
	int rc = 0;

	for (int i = 0; i < n; i++) {
		const char *kind = offcode_path_kind(args[i]);

		rc |= kind ? run_layers(o, args[i], strcmp(kind, "image") ?
					"package" : "image", counting, count)
		      : (offcode_uri_is(args[i]) ? run_uri : run_file)(
			o, args[i], counting, count, held ? &held[i] : NULL);
	}
	return rc;
}

/* ---- options ---- */

static int set_output(void *options, const char *value)
{
	((struct options *)options)->dir = strcmp(value, "-") ? value : NULL;
	return 0;
}

#define AT(member) offsetof(struct options, member)

static const struct opt rows[] = {
	OPT_CALLBACK('o', "output", OPT_VALUE, "DIR",
		     "write into DIR, made (parents too) if missing\n"
		     "(default: the current directory);\n"
		     "- writes the one code object selected to\n"
		     "standard output", set_output),
	OPT_SELECT('t', "target", "PATTERN",
		   "only code objects for PATTERN (repeatable): a\n"
		   "target ID (gfx90a, gfx90a:xnack+, sm_80) matched\n"
		   "as a loader would, a bundle entry ID, or a glob\n"
		   "(*, ?, [) on the ID, target ID or triple", AT(targets)),
	OPT_FLAG(0, "all", "every entry, host and empty ones too (without\n"
		 "--target: every device code object)", AT(all)),
	OPT_FLAG('v', "verbose", "print the name of each file written",
		 AT(verbose)),
	OPT_FLAG('q', "quiet", "no progress line (shown on a terminal, without\n"
		 "-v)", AT(quiet)),
};

static const struct opts table = {
	.applet = "extract", .usage = usage, .column = 26, OPTS_ROWS(rows),
	.no_operand = "no input file",
	.ccob_env = true, .ccob_at = AT(open), .ccob_offcode = true,
};

int extract_main(int argc, char **argv)
{
	struct options o = {
		.dir = ".",
		.dirfd = -1,
		.open = { .size = sizeof(o.open) },
	};
	struct held *held = NULL;
	struct err e;
	size_t count = 0;
	int rc = 0, first;

	if ((rc = opts_parse(&table, &o, argc, argv, &first)) >= 0)
		goto out;
	rc = 0;
	if (offcode_names_new(&o.names)) {
		rc = fail("cannot read", argv[first], "out of memory");
		goto out;
	}
	/* -v's names are the progress then. */
	progress_init("extract", o.quiet || o.verbose);
	/* The files of one command are written together or not at all: a
	 * failure removes them, and the directories made for them. */
	if (o.dir)
		io_out_together();
	if (o.dir && (io_mkdirs(o.dir, &e) < 0 ||
		      ((o.dirfd = open(o.dir, O_PATH | O_DIRECTORY |
				       O_CLOEXEC)) < 0 &&
		       err_sys(&e, o.dir, errno)))) {
		rc = applet_fail_err("extract", "cannot write into", o.dir, 1, &e);
		goto out;
	}
	if (extract_claim_splits(&o, argv + first, argc - first) < 0) {
		rc = fail("cannot read", argv[first], "out of memory");
		goto out;
	}
	if (!o.dir) {
		/* Standard output takes one code object: count first. */
		held = calloc((size_t)(argc - first), sizeof(*held));
		if (!held) {
			rc = fail("cannot read", argv[first], "out of memory");
			goto out;
		}
		rc = run_all(&o, argv + first, argc - first, true, &count,
			     held);
		if (rc)
			goto out;
		if (count != 1) {
			fprintf(stderr, "offload extract: error: %zu code objects "
				"selected; -o - writes exactly one (choose with "
				"--target)\n", count);
			rc = 1;
			goto out;
		}
		/* The rules' hits stay the counting pass's: a writing pass
		 * that stops at a file changed since must not add "no code
		 * object matches" for the rules it did not reach. */
		count = 0;
	}
	rc = run_all(&o, argv + first, argc - first, false, &count, held);
	rc |= applet_select_unmatched("extract", "--target", NULL, &o.targets);
out:
	if (o.dir && io_out_together_end(rc == 0, &e) < 0)
		rc = applet_fail_err("extract", "cannot write", NULL, 1, &e);
	if (o.dirfd >= 0)
		close(o.dirfd);
	for (int i = 0; held && i < argc - first; i++)
		if (held[i].kept)
			offcode_source_close(held[i].src);
	free(held);
	offcode_names_free(o.names);
	select_free(&o.targets);
	free(o.claims);
	return rc;
}
