/* unpack-archive: split heterogeneous device archives (archives of bundled
 * objects, as -fgpu-rdc builds make) into one archive per GPU target, the
 * archives LLVM's clang-offload-bundler --unbundle --type=a writes, with a
 * command line that needs no knowledge of the bundler's. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "applets.h"
#include "messages.h"
#include "selection.h"
#include "../core/io.h"
#include "../core/outnames.h"
#include "../core/select.h"
#include "../core/target.h"
#include "../formats/devarchive.h"

static const char usage[] =
	"Usage: offload unpack-archive [-o DIR] [-t PATTERN]... [-l] [-v] ARCHIVE...\n"
	"Split each ARCHIVE of bundled objects (or bundles) into one archive per\n"
	"GPU target, as clang-offload-bundler --unbundle --type=a writes them.\n"
	"\n"
	"  -l, --list          list the targets each ARCHIVE holds, with the\n"
	"                      number of code objects for each, and write nothing\n"
	"  -t, --target=PATTERN\n"
	"                      write the archives of the targets ARCHIVE holds\n"
	"                      that PATTERN selects: a target ID (gfx90a) as a\n"
	"                      GPU loads it, or a glob (see offload(1)); or\n"
	"                      write the archive for a bundle ID (for example\n"
	"                      hip-amdgcn-amd-amdhsa--gfx90a) of every code\n"
	"                      object compatible with it, as the bundler does;\n"
	"                      comma-separated, repeatable.  Default: every\n"
	"                      target ARCHIVE holds\n"
	"  -o, --output=DIR    write into DIR (made, parents too, if missing;\n"
	"                      default: .), as <archive>-<target>.a with ':' as\n"
	"                      '_' (-2, -3... added to names taken twice)\n"
	"  -v, --verbose       name each archive written\n"
	"      --hip-openmp-compatible\n"
	"                      let hip and openmp code objects serve each other\n"
	"  -h, --help          print this help\n"
	"  -V, --version       print the version\n";

struct options {
	const char *dir;
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

/* Every entry of the archive: counted per target, and for the archive of
 * request (when not NULL) kept if compatible. */
static int read_archive(const struct options *o, const char *path,
			const struct io_in *in, struct held *held,
			const struct target *request, const char *request_id,
			struct devarchive_member **m, size_t *n)
{
	struct devarchive_reader r;
	struct devarchive_entry ent;
	struct err e;
	int more, rc = 1;

	if (devarchive_open(&r, in->data, in->len, &o->limits, &e) < 0)
		return fail(path, "%s", e.msg);
	devarchive_set_path(&r, path);
	while ((more = devarchive_next(&r, &ent, &e)) == 1) {
		struct target got;
		char *std;

		if (target_parse_entry(&got, ent.id, ent.id_len) < 0) {
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
		if (request && target_compatible(&got, request, o->hip_openmp)) {
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
		} else if (io_out_open_in_dir(&out, dest, &e) < 0 ||
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
		size_t n = 0;
		char *id;
		int failed;

		if (target_parse(&req, want[i], strlen(want[i])) < 0) {
			fail(path, "'%s' is not a bundle ID "
			     "(<kind>-<arch>-<vendor>-<os>-<env>[-<target id>])",
			     want[i]);
			goto out;
		}
		if (!(id = target_standard(&req, &e))) {
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
		return err_code_set(e, ERR_NOMEM, "out of memory");
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

int unpack_archive_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "list", no_argument, NULL, 'l' },
		{ "target", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "hip-openmp-compatible", no_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct outnames names = { 0 };
	struct options o = {
		.dir = ".",
		.limits = { .max_ratio = CCOB_DEFAULT_MAX_RATIO,
			    .max_size = CCOB_DEFAULT_MAX_SIZE },
		.names = &names,
	};
	struct err e;
	int c, rc = 0;

	o.targets = calloc((size_t)argc + 1, sizeof(*o.targets));
	if (!o.targets)
		return fail("-", "out of memory");
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":lt:o:vhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'l': o.list = true; break;
		case 't':
			if (add_targets(&o, optarg, &e) < 0) {
				options_free(&o);
				return usage_error("%s", e.msg);
			}
			break;
		case 'o': o.dir = optarg; break;
		case 'v': o.verbose = true; break;
		case 'H': o.hip_openmp = true; break;
		case 'h':
			fputs(usage, stdout);
			options_free(&o);
			return 0;
		case 'V':
			printf("offload unpack-archive %s\n", OFFLOAD_VERSION);
			options_free(&o);
			return 0;
		default:
			options_free(&o);
			return applet_option_error("unpack-archive", c, argv,
						   longopts);
		}
	}
	if (optind == argc) {
		options_free(&o);
		return usage_error("no archive given");
	}
	/* The archives of one command are written together or not at all: a
	 * failure removes them, and the directories made for them. */
	if (!o.list)
		io_out_together();
	if (!o.list && io_mkdirs(o.dir, &e) < 0) {
		rc = applet_fail_err("unpack-archive", "cannot write into",
				     o.dir, 1, &e);
		io_out_together_end(false, &e);
		options_free(&o);
		return rc;
	}
	for (int i = optind; i < argc; i++)
		rc |= unpack(&o, argv[i]);
	if (!o.list && io_out_together_end(rc == 0, &e) < 0)
		rc = applet_fail_err("unpack-archive", "cannot write", NULL, 1,
				     &e);
	outnames_free(&names);
	options_free(&o);
	return rc;
}
