/* unpack-archive: split heterogeneous device archives (archives of bundled
 * objects, as -fgpu-rdc builds make) into one archive per GPU target, the
 * archives LLVM's clang-offload-bundler --unbundle --type=a writes, with a
 * command line that needs no knowledge of the bundler's; and archives of
 * objects carrying offload packages (LLVM 23's -fgpu-rdc, OpenMP) as
 * LLVM 23's llvm-offload-binary --archive writes their images. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "applets.h"
#include "messages.h"
#include "opts.h"
#include "selection.h"
#include "../core/io_in.h"
#include "../core/io_out.h"
#include "../core/outnames.h"
#include "../core/select.h"
#include "../core/target.h"
#include "../core/triple.h"
#include "../core/triple_normalize.h"
#include "../formats/package.h"
#include "../ops/devarchive.h"

static const char usage[] =
	"Usage: offload unpack-archive [-o DIR] [-t PATTERN]... [-l] [-v] ARCHIVE...\n"
	"Split each ARCHIVE of bundled objects (or bundles) into one archive per\n"
	"GPU target, as clang-offload-bundler --unbundle --type=a writes them;\n"
	"the images of objects' offload packages as llvm-offload-binary writes\n"
	"an archive of them.\n"
	"\n";

struct options {
	const char *dir;
	int dirfd;		/* dir, opened once: each output made in it */
	const char **targets;	/* -t bundle IDs */
	size_t ntargets;
	struct select pats;	/* -t target IDs and globs */
	bool list, verbose, hip_openmp;
	struct ccob_limits limits;
	struct outnames *names;	/* written in this run */
};

#define fail(file, ...) applet_fail("unpack-archive", NULL, file, __VA_ARGS__)

#define usage_error(...) applet_usage_error("unpack-archive", __VA_ARGS__)

/* The targets an archive holds: standardised IDs in order of first
 * appearance, each with how many code objects it has. */
struct held {
	char **id;
	size_t *count, n;
};

static int held_add(struct held *h, const char *id)
{
	char **ids;
	size_t *count;

	for (size_t i = 0; i < h->n; i++)
		if (!strcmp(h->id[i], id)) {
			h->count[i]++;
			return 0;
		}
	ids = realloc(h->id, (h->n + 1) * sizeof(*ids));
	if (!ids)
		return -1;
	h->id = ids;
	count = realloc(h->count, (h->n + 1) * sizeof(*count));
	if (!count)
		return -1;
	h->count = count;
	if (!(h->id[h->n] = strdup(id)))
		return -1;
	h->count[h->n++] = 1;
	return 0;
}

static void held_free(struct held *h)
{
	for (size_t i = 0; i < h->n; i++)
		free(h->id[i]);
	free(h->id);
	free(h->count);
}

/* A file name from a target ID: only letters, digits and "._+-" are kept
 * (':' and anything else become '_'), so an ID read from the archive can
 * never name a path outside the output directory.  Two names alike (two
 * IDs that differ in what became '_', two archives of one name) are told
 * apart by the caller (outnames). */
static char *output_name(const char *dir, const char *archive, const char *id)
{
	const char *base = strrchr(archive, '/') ? strrchr(archive, '/') + 1
						 : archive;
	size_t stem = strlen(base);
	char *name;

	if (stem > 2 && !strcmp(base + stem - 2, ".a"))
		stem -= 2;
	if (asprintf(&name, "%s/%.*s-%s.a", dir, (int)stem, base, id) < 0)
		return NULL;
	for (char *p = name + strlen(dir) + 1; *p; p++)
		if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') &&
		    !(*p >= '0' && *p <= '9') && !strchr("._+-", *p))
			*p = '_';
	if (name[strlen(dir) + 1] == '.')
		name[strlen(dir) + 1] = '_';
	return name;
}

/* Whether the bundler takes the entry of ID id for request, a triple of
 * LLVM 24's amdgpu with a sub-architecture read as amdgcn (as LLVM 23's
 * and 24's bundlers read it; the request is parsed so already). */
/* Not an LLVM-named tool: bundle IDs and triples are read as the newest
 * release reads them, whatever OFFLOAD_LLVM says. */
static const enum llvm_release id_rules = LLVM_NEWEST;

static bool compatible(const char *id, size_t len, const struct target *request,
		       bool hip_openmp)
{
	size_t n = len;
	char *spelled = target_amdgcn_spelling(id, len, &n);
	struct target t;
	bool ok;

	if (target_parse_entry(&t, spelled ? spelled : id, n, id_rules) < 0) {
		free(spelled);
		return false;
	}
	ok = target_compatible(&t, request, hip_openmp);
	target_free(&t);
	free(spelled);
	return ok;
}

/* What read_archive's walk of the package images needs. */
struct walk {
	const struct options *o;
	const char *path;
	struct held *held;
	const struct target *request;
	struct devarchive_member **m;
	size_t *n;
};

/* A package image's ID made the bundler's way, standardised
 * (<kind>-<triple>--<target ID> for AMDHSA): malloc'd, or NULL with e
 * set. */
static char *image_id(const struct devarchive_image *im, struct err *e)
{
	size_t tlen = 0, alen = 0;
	const char *triple = package_get(im->img, "triple", 6, &tlen);
	const char *arch = package_get(im->img, "arch", 4, &alen);
	const char *kind = im->img->offload_kind == PACKAGE_OFK_HIP_LLVM20
			   ? "hip"
			   : package_offload_kind_describe(im->img->offload_kind);
	char *norm, *id, *std;
	struct target tg;

	if (!triple || !tlen || memchr(triple, 0, tlen) ||
	    (arch && memchr(arch, 0, alen))) {
		err_set(e, "member '%.*s': an image without a triple",
			(int)im->file_len, im->file);
		return NULL;
	}
	if (!(norm = triple_normalize(triple, tlen, 4, id_rules, e)))
		return NULL;
	if (asprintf(&id, "%s-%s-%.*s", kind, norm, (int)alen,
		     arch ? arch : "") < 0) {
		free(norm);
		err_nomem(e);
		return NULL;
	}
	free(norm);
	if (target_parse(&tg, id, strlen(id), id_rules) < 0) {
		err_set(e, "member '%.*s': an image's ID '%s' does not split as "
			"a bundle ID", (int)im->file_len, im->file, id);
		free(id);
		return NULL;
	}
	std = target_standard(&tg, e);
	target_free(&tg);
	free(id);
	return std;
}

/* One package image: counted, and kept for w->request when compatible
 * (named as its member, as llvm-offload-binary --archive names it). */
static int walk_image(void *ctx, const struct devarchive_image *im,
		      struct err *e)
{
	struct walk *w = ctx;
	char *std = image_id(im, e);
	int rc = -1;

	if (!std)
		return -1;
	if (w->held && held_add(w->held, std) < 0) {
		err_nomem(e);
		goto out;
	}
	if (w->request && compatible(std, strlen(std), w->request,
				     w->o->hip_openmp)) {
		struct devarchive_member *grown =
			realloc(*w->m, (*w->n + 1) * sizeof(**w->m));

		if (!grown) {
			err_nomem(e);
			goto out;
		}
		*w->m = grown;
		grown[*w->n] = (struct devarchive_member){
			strndup(im->file, im->file_len), im->data, im->len };
		if (!grown[(*w->n)++].name) {
			err_nomem(e);
			goto out;
		}
	}
	rc = 0;
out:
	free(std);
	return rc;
}

/* Every entry of the archive: counted per target, and for the archive of
 * request (when not NULL) kept if compatible.  Bundle entries first, as
 * the bundler reads them, then the images of offload packages, as
 * llvm-offload-binary does. */
static int read_archive(const struct options *o, const char *path,
			const struct io_in *in, struct held *held,
			const struct target *request, const char *request_id,
			struct devarchive_member **m, size_t *n)
{
	struct devarchive_reader r, images;
	struct devarchive_entry ent;
	bool images_open = false;
	struct err e;
	int more, rc = 1;

	/* Our own applet reads CCOB members as the newest LLVM does. */
	if (devarchive_open(&r, in->data, in->len, &o->limits,
			    LLVM_NEWEST, &e) < 0)
		return fail(path, "%s", e.msg);
	devarchive_set_path(&r, path);
	while ((more = devarchive_next(&r, &ent, &e)) == 1) {
		struct target got;
		char *std;

		if (target_parse_entry(&got, ent.id, ent.id_len, id_rules) < 0) {
			fail(path, "member '%.*s': invalid bundle ID '%.*s'",
			     (int)ent.file_len, ent.file, (int)ent.id_len, ent.id);
			goto out;
		}
		std = target_standard(&got, &e);
		if (!std || (held && held_add(held, std) < 0)) {
			fail(path, "%s", std ? "out of memory" : e.why);
			free(std);
			target_free(&got);
			goto out;
		}
		free(std);
		if (request && compatible(ent.id, ent.id_len, request,
					  o->hip_openmp)) {
			const uint8_t *data;
			size_t len;
			struct devarchive_member *grown =
				realloc(*m, (*n + 1) * sizeof(**m));

			if (grown)
				*m = grown;
			if (!grown || devarchive_bytes(&r, &ent, &data, &len, &e) < 0) {
				target_free(&got);
				fail(path, "%s", grown ? e.msg : "out of memory");
				goto out;
			}
			(*m)[*n] = (struct devarchive_member){
				devarchive_member_name(ent.file, ent.file_len,
						       ent.id, ent.id_len, got.tid),
				data, len,
			};
			if (!(*m)[(*n)++].name) {
				target_free(&got);
				fail(path, "out of memory");
				goto out;
			}
		}
		target_free(&got);
	}
	if (more < 0) {
		fail(path, "%s", e.msg);
		goto out;
	}
	{
		struct walk w = { o, path, held, request, m, n };

		if (devarchive_open(&images, in->data, in->len, &o->limits,
				    LLVM_NEWEST, &e) < 0) {
			fail(path, "%s", e.msg);
			goto out;
		}
		images_open = true;
		devarchive_set_path(&images, path);
		if (devarchive_images(&images, walk_image, &w, &e) < 0) {
			fail(path, "%s", e.msg);
			goto out;
		}
	}
	rc = 0;
out:
	/* The members' bytes may live in r: write before closing it. */
	if (!rc && request && *n) {
		char *dest = output_name(o->dir, path, request_id);
		struct io_out out = { .fd = -1 };

		/* dest belongs to o->names from here. */
		if (dest)
			dest = outnames_unique(o->names, dest);
		if (!dest) {
			rc = fail(path, "out of memory");
		} else if (io_out_open_at(&out, o->dirfd, dest + strlen(o->dir) +
					  1, dest, &e) < 0 ||
			   devarchive_write(&out, *m, *n, &e) < 0 ||
			   io_out_commit(&out, &e) < 0) {
			rc = applet_fail_io("unpack-archive", dest, &e);
		} else if (o->verbose) {
			printf("%s: %zu code object%s\n", dest, *n,
			       *n == 1 ? "" : "s");
		}
		io_out_discard(&out);
	}
	devarchive_close(&r);
	if (images_open)
		devarchive_close(&images);
	return rc;
}

static void free_members(struct devarchive_member *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(m[i].name);
	free(m);
}

/* A bundle ID with no code: said with the targets the archive holds. */
static int no_code(const char *path, const char *id, const struct held *h)
{
	size_t len = 1;
	char *there;

	for (size_t i = 0; i < h->n; i++)
		len += strlen(h->id[i]) + 2;
	if (!(there = malloc(len)))
		return fail(path, "out of memory");
	there[0] = 0;
	for (size_t i = 0; i < h->n; i++)
		strcat(strcat(there, i ? ", " : ""), h->id[i]);
	fail(path, "no code object for '%s' (there: %s)", id,
	     h->n ? there : "no code object at all");
	free(there);
	return 1;
}

/* The bundle IDs of -t, then the held targets the patterns select (a
 * new array, the strings borrowed); each pattern's hits and the targets
 * seen are those of this archive. */
static const char **pattern_targets(struct options *o, const struct held *h,
				    const char **ids, size_t *n)
{
	const char **want = malloc((*n + h->n + 1) * sizeof(*want));

	if (!want)
		return NULL;
	memcpy(want, ids, *n * sizeof(*want));
	select_reset(&o->pats);
	for (size_t i = 0; i < h->n; i++) {
		struct select_entry en;

		select_entry_from_id(&en, h->id[i], strlen(h->id[i]));
		if (select_match(&o->pats, &en))
			want[(*n)++] = h->id[i];
	}
	return want;
}

static int unpack(struct options *o, const char *path)
{
	struct io_in in = { .fd = -1 };
	struct held held = { 0 };
	struct err e;
	const char **want = o->targets;
	size_t nwant = o->ntargets;
	int rc = 1, missing = 0;

	if (io_in_open(&in, path, &e) < 0) {
		return applet_fail_err("unpack-archive", "cannot read", path, 0,
				       &e);
	}
	if (read_archive(o, path, &in, &held, NULL, NULL, NULL, NULL))
		goto out;
	if (o->list) {
		size_t w = 0;

		for (size_t i = 0; i < held.n; i++)
			if (strlen(held.id[i]) > w)
				w = strlen(held.id[i]);
		printf("%s:\n", path);
		for (size_t i = 0; i < held.n; i++)
			printf("  %-*s  %zu code object%s\n", (int)w, held.id[i],
			       held.count[i], held.count[i] == 1 ? "" : "s");
		rc = 0;
		goto out;
	}
	if (!nwant && !o->pats.n) {
		want = (const char **)held.id;
		nwant = held.n;
	}
	/* Patterns: the archives of the held targets they select. */
	if (o->pats.n && !(want = pattern_targets(o, &held, want,
						   &nwant))) {
		fail(path, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < nwant; i++) {
		struct target req;
		struct devarchive_member *m = NULL;
		size_t n = 0, slen;
		char *id, *spelled;
		int failed;

		if (target_parse(&req, want[i], strlen(want[i]), id_rules) < 0) {
			fail(path, "'%s' is not a bundle ID "
			     "(<kind>-<arch>-<vendor>-<os>-<env>[-<target id>])",
			     want[i]);
			goto out;
		}
		id = target_standard(&req, &e);
		/* Matched as amdgcn, named as asked. */
		if ((spelled = target_amdgcn_spelling(want[i], strlen(want[i]),
						      &slen))) {
			target_free(&req);
			if (target_parse(&req, spelled, slen, id_rules) < 0) {
				free(spelled);
				free(id);
				fail(path, "out of memory");
				goto out;
			}
			free(spelled);
		}
		if (!id) {
			target_free(&req);
			fail(path, "%s", e.why);
			goto out;
		}
		failed = read_archive(o, path, &in, NULL, &req, id, &m, &n);
		/* A target with no code gets no archive; the others still do. */
		if (!failed && !n)
			missing = no_code(path, id, &held);
		free_members(m, n);
		free(id);
		target_free(&req);
		if (failed)
			goto out;
	}
	rc = missing | applet_select_unmatched("unpack-archive", "--target",
					       path, &o->pats);
out:
	if (want != o->targets && want != (const char **)held.id)
		free(want);
	held_free(&held);
	io_in_close(&in);
	return rc;
}

static void options_free(struct options *o)
{
	for (size_t i = 0; i < o->ntargets; i++)
		free((char *)o->targets[i]);
	free(o->targets);
	select_free(&o->pats);
}

/* -t's comma-separated words: bundle IDs (four dashes or more) as the
 * bundler takes them, the rest as the one selection's patterns. */
static int add_targets(struct options *o, const char *list, struct err *e)
{
	struct select all = { 0 };
	const char **grown;

	if (select_add(&all, list, e) < 0) {
		select_free(&all);
		return -1;
	}
	grown = realloc(o->targets, (o->ntargets + all.n + 1) * sizeof(*grown));
	if (!grown) {
		select_free(&all);
		return err_nomem(e);
	}
	o->targets = grown;
	for (size_t i = 0; i < all.n; i++) {
		if (all.rule[i].bundle_id) {
			o->targets[o->ntargets++] = all.rule[i].text;
			all.rule[i].text = NULL;	/* o->targets owns it */
		} else if (select_add(&o->pats, all.rule[i].text, e) < 0) {
			select_free(&all);
			return -1;
		}
	}
	select_free(&all);
	return 0;
}

/* ---- options ---- */

static int set_target(void *options, const char *value)
{
	struct err e;

	if (add_targets(options, value, &e) < 0)
		return usage_error("%s", e.msg);
	return 0;
}

#define AT(member) offsetof(struct options, member)

static const struct opt rows[] = {
	OPT_FLAG('l', "list", "list the targets each ARCHIVE holds, with the\n"
		 "number of code objects for each, and write nothing",
		 AT(list)),
	OPT_CALLBACK('t', "target", OPT_VALUE, "PATTERN",
		     "write the archives of the targets ARCHIVE holds\n"
		     "that PATTERN selects: a target ID (gfx90a) as a\n"
		     "GPU loads it, or a glob (see offload(1)); or\n"
		     "write the archive for a bundle ID (for example\n"
		     "hip-amdgcn-amd-amdhsa--gfx90a) of every code\n"
		     "object compatible with it, as the bundler does;\n"
		     "comma-separated, repeatable.  Default: every\n"
		     "target ARCHIVE holds", set_target),
	OPT_STRING('o', "output", "DIR",
		   "write into DIR (made, parents too, if missing;\n"
		   "default: .), as <archive>-<target>.a with ':' as\n"
		   "'_' (-2, -3... added to names taken twice)", AT(dir)),
	OPT_FLAG('v', "verbose", "name each archive written", AT(verbose)),
	OPT_FLAG(0, "hip-openmp-compatible",
		 "let hip and openmp code objects serve each other",
		 AT(hip_openmp)),
};

static const struct opts table = {
	.applet = "unpack-archive", .usage = usage, .column = 22,
	OPTS_ROWS(rows), .no_operand = "no archive given",
};

int unpack_archive_main(int argc, char **argv)
{
	struct outnames names = { 0 };
	struct options o = {
		.dir = ".",
		.dirfd = -1,
		.limits = { .max_ratio = CCOB_DEFAULT_MAX_RATIO,
			    .max_size = CCOB_DEFAULT_MAX_SIZE },
		.names = &names,
	};
	struct err e;
	int rc = 0, first;

	o.targets = calloc((size_t)argc + 1, sizeof(*o.targets));
	if (!o.targets)
		return fail("-", "out of memory");
	if ((rc = opts_parse(&table, &o, argc, argv, &first)) >= 0) {
		options_free(&o);
		return rc;
	}
	rc = 0;
	/* The archives of one command are written together or not at all: a
	 * failure removes them, and the directories made for them. */
	if (!o.list)
		io_out_together();
	if (!o.list && (io_mkdirs(o.dir, &e) < 0 ||
			((o.dirfd = open(o.dir, O_PATH | O_DIRECTORY |
					 O_CLOEXEC)) < 0 &&
			 err_sys(&e, o.dir, errno)))) {
		rc = applet_fail_err("unpack-archive", "cannot write into",
				     o.dir, 1, &e);
		io_out_together_end(false, &e);
		options_free(&o);
		return rc;
	}
	for (int i = first; i < argc; i++)
		rc |= unpack(&o, argv[i]);
	if (!o.list && io_out_together_end(rc == 0, &e) < 0)
		rc = applet_fail_err("unpack-archive", "cannot write", NULL, 1,
				     &e);
	if (o.dirfd >= 0)
		close(o.dirfd);
	outnames_free(&names);
	options_free(&o);
	return rc;
}
