/* extract: write the device code objects of build artefacts to files,
 * decompressed, chosen by target. */
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "applets.h"
#include "messages.h"
#include "../core/env.h"
#include "../core/io.h"
#include "../core/outnames.h"
#include "../core/target.h"
#include "../core/targetid.h"
#include "../core/uri.h"
#include "../formats/inspect.h"

static const char usage[] =
	"Usage: offload extract [OPTIONS] FILE|URI...\n"
	"Write the device code objects in each FILE, decompressed, one file each,\n"
	"named FILE.N.TARGET.EXT (FILE.MEMBER.N.TARGET.EXT for an archive member;\n"
	"N: the container number offload ls shows; bytes unsafe in a file name,\n"
	"':' among them, as '_'), or one of them to standard output.\n"
	"A file://PATH#offset=N&size=N URI (as offload ls and roc-obj-ls print\n"
	"them) writes those bytes of PATH to NAME-offsetN-sizeN.co, as\n"
	"roc-obj-extract does.\n"
	"\n"
	"  -o, --output=DIR        write into DIR, made (parents too) if missing\n"
	"                          (default: the current directory);\n"
	"                          - writes the one code object selected to\n"
	"                          standard output\n"
	"  -t, --target=PATTERN    only code objects for PATTERN (repeatable): a\n"
	"                          target ID (gfx90a, gfx90a:xnack+, sm_80) matched\n"
	"                          as a loader would, a bundle entry ID, or a glob\n"
	"                          (*, ?, [) on the ID, target ID or triple\n"
	"      --all               every entry, host and empty ones too (without\n"
	"                          --target: every device code object)\n"
	"  -v, --verbose           print the name of each file written\n"
	"  -h, --help              print this help\n"
	"  -V, --version           print the version\n";

struct options {
	const char *dir;		/* NULL: standard output */
	const char **pattern;
	size_t npatterns;
	bool *pattern_hit;
	bool all, verbose;
	struct inspect_opts walk;
	struct outnames *names;	/* written in this run */
};

#define fail(what, file, ...) applet_fail("extract", what, file, __VA_ARGS__)

#define usage_error(...) applet_usage_error("extract", __VA_ARGS__)


/* ---- what an entry is called ---- */

static char *cat(const char *a, size_t alen, const char *sep, const char *b,
		 size_t blen)
{
	size_t slen = strlen(sep);
	char *s = malloc(alen + slen + blen + 1);

	if (s) {
		if (alen)
			memcpy(s, a, alen);
		memcpy(s + alen, sep, slen);
		if (blen)
			memcpy(s + alen + slen, b, blen);
		s[alen + slen + blen] = 0;
	}
	return s;
}

/* The entry's bundle ID; for a package one made the bundler's way
 * (<kind>-<triple>-<target ID>, a three-part triple given its empty
 * environment); for an NVIDIA entry its arch.  malloc'd; *len is its
 * length, which a NUL inside a bundle's ID does not cut short. */
static char *entry_id(const struct inspect_node *n,
		      const struct inspect_target *t, size_t *len)
{
	char *a, *b;

	*len = 0;
	if (n->container == INSPECT_NV) {
		b = strdup(t->arch_buf);
	} else if (n->container != INSPECT_PACKAGE) {
		b = cat(n->name, n->name_len, "", "", 0);
		*len = n->name_len;
		return b;
	} else {
		const char *kind = t->kind ? t->kind : "none";
		size_t dashes = 0;

		for (size_t i = 0; i < t->triple_len; i++)
			dashes += t->triple[i] == '-';
		a = cat(kind, strlen(kind), "-", t->triple ? t->triple : "",
			t->triple_len);
		if (!a)
			return NULL;
		b = cat(a, strlen(a), dashes == 2 ? "--" : "-",
			t->arch ? t->arch : "", t->arch_len);
		free(a);
	}
	if (b)
		*len = strlen(b);
	return b;
}

/* The extension, from the code's first bytes, else from what the
 * container says. */
static const char *extension(const uint8_t *p, uint64_t len,
			     const struct inspect_target *t)
{
	if (len >= 20 && !memcmp(p, "\x7f" "ELF", 4)) {
		unsigned machine = p[5] == 2 ? p[18] << 8 | p[19]
					     : p[19] << 8 | p[18];

		return machine == 224 ? "co" : machine == 190 ? "cubin" : "o";
	}
	if (len >= 4 && (!memcmp(p, "BC\xc0\xde", 4) ||
			 !memcmp(p, "\xde\xc0\x17\x0b", 4)))
		return "bc";
	if (len >= 4 && !memcmp(p, "\x50\xed\x55\xba", 4))
		return "fatbin";
	if (t->image && t->image_len == 3 && !memcmp(t->image, "ptx", 3))
		return "ptx";
	if (t->image && t->image_len == 5 && !memcmp(t->image, "spirv", 5))
		return "spv";
	return "bin";
}

/* Bytes that may stay in a file name; the rest (a NUL too) become '_'. */
static void make_safe(char *s, size_t len)
{
	for (; len--; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || (*s && strchr("-_.+=,", *s))))
			*s = '_';
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!strcmp(path, "-"))
		return "stdin";
	return slash && slash[1] ? slash + 1 : path;
}

/* ---- selection ---- */

/* A string with a NUL inside matches no glob: fnmatch would see only
 * what comes before it. */
static bool glob_any(const char *pattern, const char *const *cand,
		     const size_t *len, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (cand[i] && strlen(cand[i]) == len[i] &&
		    !fnmatch(pattern, cand[i], 0))
			return true;
	return false;
}

static bool whole_id(const char *p)
{
	size_t dashes = 0;

	for (; *p; p++)
		dashes += *p == '-';
	return dashes >= 4;
}

/* Whether the entry is selected; marks the patterns it matches.  IDs
 * are compared with their whole length: "gfx90a\0EVIL" is not gfx90a. */
static bool selected(const struct options *o, const struct inspect_node *n,
		     const struct inspect_target *t, const char *id,
		     size_t id_len)
{
	bool any = false;
	char *arch, *triple;

	if (!o->npatterns) {
		bool host = t->kind && t->kind_len == 4 &&
			    !memcmp(t->kind, "host", 4);

		return o->all || (!host && n->size > 0);
	}
	arch = t->arch ? cat(t->arch, t->arch_len, "", "", 0) : NULL;
	triple = t->triple ? cat(t->triple, t->triple_len, "", "", 0) : NULL;
	for (size_t i = 0; i < o->npatterns; i++) {
		const char *p = o->pattern[i];
		const char *cand[] = { id, arch, triple };
		const size_t len[] = { id_len, t->arch_len, t->triple_len };
		bool hit;

		if (strpbrk(p, "*?["))
			hit = glob_any(p, cand, len, 3);
		else if (whole_id(p))
			hit = id && n->container != INSPECT_NV &&
			      target_loadable(id, id_len, p, strlen(p));
		else
			hit = arch && targetid_loadable(arch, t->arch_len, p,
							strlen(p));
		if (hit)
			o->pattern_hit[i] = any = true;
	}
	free(arch);
	free(triple);
	return any;
}

/* ---- writing ---- */

enum { MAX_DEPTH = 16 };

struct job {
	const struct options *o;
	const struct io_in *in;
	const char *path;
	unsigned ccob_number;		/* the last CCOB walked, */
	enum inspect_hash ccob_hash;	/* whether its hash held, */
	bool ccob_reported;		/* and whether that was said */
	/* NVIDIA entries that cannot be decoded, said once per container
	 * (a library has thousands): which container, how many entries it
	 * has, which of them failed, and why the first did. */
	unsigned nv_number;
	size_t nv_entries, nv_failed;
	char nv_list[64];
	struct err nv_first;
	char nv_first_what[48];
	size_t count;			/* entries selected */
	bool counting;			/* only count them */
	int rc;
	/* The archive members the walk is in: member[1..depth], the
	 * member of an archive inside an archive after its archive's. */
	char *member[MAX_DEPTH];
	unsigned depth;
};

static bool same_file(const char *a, const struct io_in *in)
{
	struct stat sa, sb;

	return in->fd >= 0 && stat(a, &sa) == 0 && fstat(in->fd, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Write len bytes: from the input at off when code is NULL, else code. */
static int write_out(const struct options *o, const struct io_in *in,
		     const char *name, const uint8_t *code, uint64_t off,
		     uint64_t len)
{
	struct io_out out = { .fd = -1 };
	char *path = NULL;
	struct err e;
	int rc = 1;

	if (!o->dir) {
		path = strdup("-");
	} else {
		char *n = strdup(name);

		if (!n || !(n = outnames_unique(o->names, n)))
			return fail("cannot write", name, "out of memory");
		path = cat(o->dir, strlen(o->dir), "/", n, strlen(n));
	}
	if (!path)
		return fail("cannot write", name, "out of memory");
	if (o->dir && same_file(path, in)) {
		rc = fail("cannot write", path, "it is the input");
		goto out;
	}
	/* In DIR a name is never followed: a link planted there would
	 * send the bytes elsewhere. */
	if ((o->dir ? io_out_open_in_dir : io_out_open)(&out, path, &e) < 0) {
		rc = applet_fail_io("extract", path, &e);
		goto out;
	}
	if ((code ? io_out_write(&out, code, (size_t)len, &e)
		  : io_out_copy(&out, in, off, len, &e)) < 0 ||
	    io_out_commit(&out, &e) < 0) {
		io_out_discard(&out);
		rc = applet_fail_io("extract", path, &e);
		goto out;
	}
	if (o->verbose)
		fprintf(o->dir ? stdout : stderr, "%s\n", path);
	rc = 0;
out:
	free(path);
	return rc;
}

/* One line for the NVIDIA container whose entries failed, if any. */
static void nv_report(struct job *j)
{
	if (!j->nv_failed)
		return;
	fail("cannot extract from", j->path, "nv-fatbin #%u: %zu of %zu "
	     "entr%s not extracted (%s); %s: %s", j->nv_number, j->nv_failed,
	     j->nv_entries, j->nv_entries == 1 ? "y" : "ies", j->nv_list,
	     j->nv_first_what, j->nv_first.msg);
	j->nv_failed = 0;
}

static void nv_note(struct job *j, const struct inspect_node *n,
		    const struct inspect_target *t, const struct err *e)
{
	size_t len = strlen(j->nv_list);

	if (j->nv_failed && j->nv_number != n->number)
		nv_report(j);
	if (!j->nv_failed++) {
		j->nv_number = n->number;
		j->nv_first = *e;
		snprintf(j->nv_first_what, sizeof(j->nv_first_what),
			 "entry %u, %s %.*s", n->index, t->arch_buf,
			 (int)t->image_len, t->image ? t->image : "");
		len = 0;
		j->nv_list[0] = 0;
	}
	/* The indices, as many as fit. */
	if (len + 16 < sizeof(j->nv_list))
		snprintf(j->nv_list + len, sizeof(j->nv_list) - len, "%s%u",
			 len ? ", " : "", n->index);
	else if (!strstr(j->nv_list, "..."))
		strcpy(j->nv_list + len, ", ...");
}

static int extract_entry(struct job *j, const struct inspect_node *n)
{
	struct inspect_target t;
	const uint8_t *code = n->data;
	uint64_t size = n->size;
	char *id, *name = NULL;
	size_t id_len;
	int rc = 0;

	inspect_entry_target(n, &t);
	id = entry_id(n, &t, &id_len);
	if (!id)
		return fail("cannot extract from", j->path, "out of memory");
	if (!selected(j->o, n, &t, id, id_len))
		goto out;
	j->count++;
	if (j->counting)
		goto out;
	if (n->container == INSPECT_CCOB && j->ccob_hash == INSPECT_HASH_BAD) {
		rc = 1;
		if (!j->ccob_reported)
			fail("cannot extract from", j->path, "CCOB #%u: hash "
			     "mismatch: the bundle inside is damaged",
			     j->ccob_number);
		j->ccob_reported = true;
		goto out;
	}
	/* NVIDIA entries: inflated, PTX without its padding; one that cannot
	 * be decoded is noted for its container's line (nv_report). */
	if (n->container == INSPECT_NV && n->decode_err) {
		nv_note(j, n, &t, n->decode_err);
		rc = 1;
		goto out;
	}
	if (n->container == INSPECT_NV)
		size = n->code_size;
	if (!code) {
		rc = fail("cannot extract from", j->path, "entry %u of #%u: its "
			  "code is not at hand", n->index, n->number);
		goto out;
	}
	{
		const char *ext = extension(code, size, &t);
		const char *base = base_name(j->path);
		size_t cap = strlen(base) + id_len + 32, head = 0;

		for (unsigned d = 1; d <= j->depth; d++)
			cap += strlen(j->member[d]) + 1;
		/* A file name is at most 255 bytes: the ID gives way. */
		name = malloc(cap);
		if (!name) {
			rc = fail("cannot extract from", j->path, "out of memory");
			goto out;
		}
		/* file[.member...].N.ID */
		head += (size_t)snprintf(name, cap, "%s", base);
		for (unsigned d = 1; d <= j->depth; d++)
			head += (size_t)snprintf(name + head, cap - head, ".%s",
						 j->member[d]);
		head += (size_t)snprintf(name + head, cap - head, ".%u.",
					 n->number);
		memcpy(name + head, id, id_len);
		name[head + id_len] = 0;
		make_safe(name + strlen(base), head + id_len - strlen(base));
		if (strlen(name) > 250 - strlen(ext))
			name[250 - strlen(ext)] = 0;
		strcat(name, ".");
		strcat(name, ext);
	}
	/* Bytes in the file are copied from it, the rest written. */
	rc = write_out(j->o, j->in, name, n->in_file ? NULL : code,
		       n->offset, size);
out:
	free(name);
	free(id);
	return rc;
}

static int visit(void *ctx, const struct inspect_node *n)
{
	struct job *j = ctx;

	if (n->kind != INSPECT_ENTRY)
		nv_report(j);
	if (n->kind == INSPECT_CONTAINER)
		j->nv_entries = n->entries;
	if (n->kind == INSPECT_INPUT && n->depth < MAX_DEPTH) {
		j->depth = n->depth;
		if (n->depth) {
			free(j->member[n->depth]);
			j->member[n->depth] = cat(n->name, n->name_len, "", "", 0);
			if (!j->member[n->depth])
				return j->rc = fail("cannot extract from", j->path,
						    "out of memory");
		}
	}
	if (n->kind == INSPECT_CONTAINER && n->container == INSPECT_CCOB) {
		j->ccob_number = n->number;
		j->ccob_hash = n->hash;
		j->ccob_reported = false;
	}
	if (n->kind == INSPECT_ENTRY)
		j->rc |= extract_entry(j, n);
	return 0;
}

static uint64_t next_data(const void *in, uint64_t off)
{
	return io_in_next_data(in, off);
}

/* Walk path: count the entries selected, from headers only, which also
 * finds a damaged file before anything is written; then, unless only
 * counting, walk it again inflating, and write them. */
static int run_file(const struct options *o, const char *path, bool counting,
		    size_t *count)
{
	struct job j = { .o = o, .path = path, .counting = true };
	struct inspect_opts walk = o->walk;
	struct io_in in;
	struct err e;

	if (io_in_open(&in, path, &e) < 0)
		return applet_fail_err("extract", "cannot read", path, 0, &e);
	j.in = &in;
	walk.inflate = false;
	walk.next_data = next_data;
	walk.data_ctx = &in;
	if (inspect_walk(in.data, in.len, &walk, visit, &j, &e) != 0) {
		j.rc = fail("cannot extract from", path, "%s", e.msg);
		goto out;
	}
	if (!j.count && !o->npatterns && !counting)
		fprintf(stderr, "offload extract: warning: '%s': no device code\n",
			path);
	if (counting || !j.count) {
		*count += j.count;
		goto out;
	}
	j.counting = false;
	j.count = 0;
	walk.inflate = true;
	if (inspect_walk(in.data, in.len, &walk, visit, &j, &e) != 0)
		j.rc = fail("cannot extract from", path, "%s", e.msg);
	nv_report(&j);
	*count += j.count;
out:
	for (unsigned d = 0; d < MAX_DEPTH; d++)
		free(j.member[d]);
	io_in_close(&in);
	return j.rc;
}

static int run_uri(const struct options *o, const char *s, bool counting,
		   size_t *count)
{
	struct uri u;
	struct io_in in;
	struct err e;
	char *name = NULL;
	int rc = 1;

	if (uri_parse(s, &u, &e) < 0)
		return fail("cannot read", s, "%s", e.msg);
	/* A device or a pipe is read only as far as the URI needs. */
	if ((u.has_size && u.offset <= UINT64_MAX - u.size && u.offset + u.size
	     ? io_in_open_part(&in, u.path, u.offset + u.size, &e)
	     : io_in_open(&in, u.path, &e)) < 0) {
		applet_fail_err("extract", "cannot read", u.path, 0, &e);
		uri_free(&u);
		return 1;
	}
	if (!u.has_size)
		u.size = u.offset <= in.len ? in.len - u.offset : 0;
	if (u.offset > in.len || u.size > in.len - u.offset) {
		fail("cannot read", s, "offset %" PRIu64 " and size %" PRIu64
		     " run past the end of '%s' (%zu bytes)", u.offset, u.size,
		     u.path, in.len);
		goto out;
	}
	if (!u.size) {
		fprintf(stderr, "offload extract: warning: '%s': size 0, "
			"nothing to extract\n", s);
		rc = 0;
		goto out;
	}
	(*count)++;
	rc = 0;
	if (counting)
		goto out;
	name = malloc(strlen(base_name(u.path)) + 64);
	if (!name) {
		rc = fail("cannot read", s, "out of memory");
		goto out;
	}
	sprintf(name, "%s-offset%" PRIu64 "-size%" PRIu64 ".co",
		base_name(u.path), u.offset, u.size);
	rc = write_out(o, &in, name, NULL, u.offset, u.size);
out:
	free(name);
	io_in_close(&in);
	uri_free(&u);
	return rc;
}

static int run_all(const struct options *o, char **args, int n, bool counting,
		   size_t *count)
{
	int rc = 0;

	for (int i = 0; i < n; i++)
		rc |= uri_is_uri(args[i]) ? run_uri(o, args[i], counting, count)
					  : run_file(o, args[i], counting, count);
	return rc;
}

int extract_main(int argc, char **argv)
{
	enum { OPT_ALL = 256 };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "target", required_argument, NULL, 't' },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct options o = {
		.dir = ".",
		.walk = {
			.ccob = { .max_ratio = CCOB_DEFAULT_MAX_RATIO,
				  .max_size = CCOB_DEFAULT_MAX_SIZE },
			.package = { .max_ratio = PACKAGE_DEFAULT_MAX_RATIO,
				     .max_size = PACKAGE_DEFAULT_MAX_SIZE },
		},
	};
	struct outnames names = { 0 };
	struct err e;
	size_t count = 0;
	int c, rc = 0;

	o.names = &names;
	if (env_positive_u64("OFFLOAD_CCOB_MAX_SIZE", &o.walk.ccob.max_size, &e) < 0 ||
	    env_positive_u64("OFFLOAD_CCOB_MAX_RATIO", &o.walk.ccob.max_ratio, &e) < 0)
		return usage_error("%s", e.msg);
	o.pattern = calloc((size_t)argc, sizeof(*o.pattern));
	o.pattern_hit = calloc((size_t)argc, sizeof(*o.pattern_hit));
	if (!o.pattern || !o.pattern_hit) {
		rc = usage_error("out of memory");
		goto out;
	}
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:t:vhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o.dir = strcmp(optarg, "-") ? optarg : NULL;
			break;
		case 't':
			if (!*optarg) {
				rc = usage_error("empty --target");
				goto out;
			}
			o.pattern[o.npatterns++] = optarg;
			break;
		case OPT_ALL:
			o.all = true;
			break;
		case 'v':
			o.verbose = true;
			break;
		case 'h':
			fputs(usage, stdout);
			goto out;
		case 'V':
			printf("offload extract %s\n", OFFLOAD_VERSION);
			goto out;
		default:
			if (optopt && optopt < 256)
				rc = usage_error("unknown option '-%c' or it "
						 "needs a value", optopt);
			else
				rc = usage_error("unknown or incomplete option "
						 "'%s'", argv[optind - 1]);
			goto out;
		}
	}
	if (optind == argc) {
		rc = usage_error("no input file");
		goto out;
	}
	if (o.dir && io_mkdirs(o.dir, &e) < 0) {
		rc = applet_fail_err("extract", "cannot write into", o.dir, 1, &e);
		goto out;
	}
	if (!o.dir) {
		/* Standard output takes one code object: count first. */
		rc = run_all(&o, argv + optind, argc - optind, true, &count);
		if (rc)
			goto out;
		if (count != 1) {
			fprintf(stderr, "offload extract: error: %zu code objects "
				"selected; -o - writes exactly one (choose with "
				"--target)\n", count);
			rc = 1;
			goto out;
		}
		memset(o.pattern_hit, 0, (size_t)argc * sizeof(*o.pattern_hit));
		count = 0;
	}
	rc = run_all(&o, argv + optind, argc - optind, false, &count);
	for (size_t i = 0; i < o.npatterns; i++)
		if (!o.pattern_hit[i]) {
			fprintf(stderr, "offload extract: error: no code object "
				"matches --target '%s'\n", o.pattern[i]);
			rc = 1;
		}
out:
	outnames_free(&names);
	free(o.pattern);
	free(o.pattern_hit);
	return rc;
}
