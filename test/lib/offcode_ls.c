/* offcode_ls: liboffcode's test client (test/libtest.test), built against
 * include/offcode.h and liboffcode.so alone.
 *
 *   offcode_ls FILE...            each file's facts, one JSON object a line:
 *                                 its containers and entries as ls --json
 *                                 names them (test/lib/ls_facts.py prints
 *                                 the same from ls --json)
 *   offcode_ls -v FILE            the same, opened with OFFCODE_OPEN_VERIFY
 *   offcode_ls -c DIR FILE        each entry's code written to DIR/N (N its
 *                                 place in the file), read three ways (into
 *                                 a buffer, foreach, write_path) that must
 *                                 agree
 *   offcode_ls -w DIR FILE        each entry's code written to DIR/N in one
 *                                 walk (offcode_code_foreach_path)
 *   offcode_ls -m RULES FILE      each entry: whether RULES take it
 *   offcode_ls -k FILE            each entry's kernels and resources
 *   offcode_ls -p KEEP IN OUT     IN pruned to OUT, keeping what KEEP takes
 *                                 (prune --keep KEEP IN -o OUT)
 *   offcode_ls -f FILE            every entry's code hashed, as foreach
 *                                 hands it over
 *   offcode_ls -r FILE            the same, each entry read into a buffer
 *                                 of its own (test/libtest.test bounds the
 *                                 memory both take of a large file)
 *   offcode_ls -t FILE            two threads, each with its own handle,
 *                                 list and read FILE at once: their outputs
 *                                 must be the same
 * A file that cannot be opened: "error: CODE: MESSAGE" on stderr, each
 * link of its chain after, and exit status 1. */
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <offcode.h>

#include "facts.h"

/* The "elf", "coff" or "pe" object of each input that ls lists (the
 * file, and the members that hold code), as ls --json writes it. */
static void list_hosts(FILE *f, offcode_artifact *a)
{
	size_t n = offcode_input_count(a);
	bool *listed = calloc(n ? n : 1, 1);

	if (!listed)
		return;
	listed[0] = true;
	for (size_t i = 0; i < offcode_container_count(a); i++)
		for (const offcode_input *in = offcode_container_input(
			     offcode_container_at(a, i));
		     in; in = offcode_input_parent(in))
			for (size_t j = 0; j < n; j++)
				if (offcode_input_at(a, j) == in)
					listed[j] = true;
	for (size_t j = 0; j < n; j++) {
		const offcode_input *in = offcode_input_at(a, j);

		if (listed[j])
			put_host(f, in);
	}
	free(listed);
}

static void list(FILE *f, offcode_artifact *a)
{
	const offcode_input *top = offcode_input_at(a, 0);

	fputs("{\"file\":", f);
	put_str(f, offcode_artifact_path(a), strlen(offcode_artifact_path(a)));
	put_text(f, "format", offcode_input_format(top),
		 strlen(offcode_input_format(top)));
	fputs("}\n", f);
	list_hosts(f, a);
	for (size_t i = 0; i < offcode_container_count(a); i++) {
		const offcode_container *c = offcode_container_at(a, i);

		put_container(f, c);
		for (size_t j = 0; j < offcode_container_entry_count(c); j++)
			put_entry(f, c, offcode_container_entry_at(c, j));
	}
}

/* ---- the error of a file that cannot be opened ---- */

static int said(const char *path, int rc, offcode_error *err)
{
	const offcode_error *l;

	fprintf(stderr, "error: %s: %s\n", offcode_code_name(rc),
		err ? offcode_error_message(err) : "(no record)");
	for (l = err ? offcode_error_cause(err) : NULL; l;
	     l = offcode_error_cause(l)) {
		uint64_t off;

		fprintf(stderr, "  cause: %s", offcode_code_name(
				offcode_error_code(l)));
		if (offcode_error_offset(l, &off))
			fprintf(stderr, " at %" PRIu64, off);
		fprintf(stderr, ": %s\n", offcode_error_message(l));
	}
	offcode_error_free(err);
	(void)path;
	return 1;
}

static int open_it(const char *path, offcode_artifact **a)
{
	offcode_error *err;
	int rc = offcode_open_path(path, NULL, a, &err);

	return rc ? said(path, rc, err) : 0;
}

static int open_verified(const char *path, offcode_artifact **a)
{
	struct offcode_open_options o = { .size = sizeof(o),
					  .flags = OFFCODE_OPEN_VERIFY };
	offcode_error *err;
	int rc = offcode_open_path(path, &o, a, &err);

	return rc ? said(path, rc, err) : 0;
}

/* ---- code, three ways ---- */

struct seen {
	offcode_artifact *a;
	const char *dir;
	size_t n;
	int bad;
};

static int each(void *ctx, const offcode_entry *e, const void *code,
		size_t size)
{
	struct seen *s = ctx;
	uint64_t len;
	char path[4096];
	unsigned char *buf;
	FILE *f;
	int rc;

	/* The same bytes into a buffer, after a size query. */
	if ((rc = offcode_entry_read(s->a, e, NULL, 0, &len)) ||
	    len != size || !(buf = malloc(size ? size : 1)))
		return s->bad = 1;
	if ((rc = offcode_entry_read(s->a, e, buf, size, &len)) ||
	    memcmp(buf, code, size))
		s->bad = 1;
	/* A buffer one byte short is refused. */
	if (size && offcode_entry_read(s->a, e, buf, size - 1, &len) !=
	    OFFCODE_RANGE)
		s->bad = 1;
	free(buf);
	snprintf(path, sizeof(path), "%s/%zu", s->dir, s->n++);
	if (offcode_entry_write_path(s->a, e, path))
		return s->bad = 1;
	/* And what was written is the code. */
	if (!(f = fopen(path, "rb")))
		return s->bad = 1;
	buf = malloc(size + 1);
	if (!buf || fread(buf, 1, size + 1, f) != size ||
	    memcmp(buf, code, size))
		s->bad = 1;
	free(buf);
	fclose(f);
	return 0;
}

static int codes(const char *dir, const char *path)
{
	offcode_artifact *a;
	struct seen s = { .dir = dir };
	int rc;

	if (open_it(path, &a))
		return 1;
	s.a = a;
	rc = offcode_code_foreach(a, each, &s);
	if (rc && !s.bad)
		fprintf(stderr, "error: %s: %s\n", offcode_code_name(rc),
			offcode_error_message(offcode_last_error(a)));
	else if (s.bad)
		fprintf(stderr, "error: the three ways disagree\n");
	else
		printf("%zu entries\n", s.n);
	offcode_close(a);
	return rc || s.bad;
}

/* ---- code to files, in one walk ---- */

struct named {
	const char *dir;
	size_t n;
	char path[4096];
};

static int name_next(void *ctx, const offcode_entry *e, const char **path)
{
	struct named *w = ctx;

	(void)e;
	snprintf(w->path, sizeof(w->path), "%s/%zu", w->dir, w->n++);
	*path = w->path;
	return 0;
}

static int write_all_codes(const char *dir, const char *path)
{
	offcode_artifact *a;
	struct named w = { .dir = dir };
	int rc;

	if (open_it(path, &a))
		return 1;
	rc = offcode_code_foreach_path(a, name_next, &w);
	if (rc)
		fprintf(stderr, "error: %s: %s\n", offcode_code_name(rc),
			offcode_error_message(offcode_last_error(a)));
	else
		printf("%zu entries\n", w.n);
	offcode_close(a);
	return rc != 0;
}

/* ---- matching, kernels ---- */

static int matches(const char *rules, const char *path)
{
	offcode_artifact *a;
	int rc = 0;

	if (open_it(path, &a))
		return 1;
	for (size_t i = 0; i < offcode_entry_count(a) && !rc; i++) {
		const offcode_entry *e = offcode_entry_at(a, i);
		const char *arch = offcode_entry_target_id(e, NULL);
		bool m;

		if ((rc = offcode_entry_matches(a, e, rules, 0, &m)))
			fprintf(stderr, "error: %s: %s\n", offcode_code_name(rc),
				offcode_error_message(offcode_last_error(a)));
		else
			printf("%s %s\n", arch ? arch : "-", m ? "yes" : "no");
	}
	offcode_close(a);
	return rc != 0;
}

/* One list of kernels (or why there is none), after its label. */
static void print_kernels(offcode_artifact *a, int rc, const offcode_kernels *k)
{
	if (rc) {
		printf(" %s\n", offcode_code_name(rc));
		return;
	}
	printf(" %s %zu kernels\n", offcode_kernels_source(k),
	       offcode_kernels_count(k));
	for (size_t j = 0; j < offcode_kernels_count(k); j++) {
		const offcode_kernel *kn = offcode_kernels_at(k, j);

		printf("  %s", offcode_kernel_name(kn));
		for (int r = 0; r < OFFCODE_RESOURCES; r++) {
			uint64_t v;

			if (offcode_kernel_resource(kn, r, &v))
				printf(" %s=%" PRIu64,
				       offcode_resource_name(r), v);
		}
		putchar('\n');
	}
	offcode_kernels_free(a, k);
}

/* -k: each entry's kernels, then the file's own (a code object's). */
static int kernels(const char *path)
{
	offcode_artifact *a;
	const offcode_kernels *k;
	int rc;

	if (open_it(path, &a))
		return 1;
	for (size_t i = 0; i < offcode_entry_count(a); i++) {
		const offcode_entry *e = offcode_entry_at(a, i);
		const char *arch = offcode_entry_target_id(e, NULL);

		rc = offcode_entry_kernels(a, e, &k);
		printf("entry %zu %s:", i, arch ? arch : "-");
		print_kernels(a, rc, k);
	}
	rc = offcode_artifact_kernels(a, &k);
	fputs("file:", stdout);
	print_kernels(a, rc, k);
	offcode_close(a);
	return 0;
}

/* ---- prune ---- */

static int prune(const char *keep, const char *in, const char *out)
{
	struct offcode_prune_options o = { .size = sizeof(o), .keep = keep };
	struct offcode_prune_result r = { .size = sizeof(r) };
	offcode_error *err;
	int rc = offcode_prune(in, out, &o, &r, &err);

	if (rc)
		return said(in, rc, err);
	printf("%" PRIu64 " -> %" PRIu64 " bytes, %zu kept, %zu dropped\n",
	       r.size_before, r.size_after, r.entries_kept,
	       r.entries_dropped);
	return 0;
}

/* ---- two threads ---- */

struct job {
	const char *path;
	char *out;
	size_t len;
	int rc;
};

static int sum(void *ctx, const offcode_entry *e, const void *code,
	       size_t size)
{
	uint64_t *h = ctx;

	(void)e;
	for (size_t i = 0; i < size; i++)
		*h = (*h ^ ((const unsigned char *)code)[i]) * 1099511628211u;
	return 0;
}

static void *run(void *arg)
{
	struct job *j = arg;
	FILE *f = open_memstream(&j->out, &j->len);
	offcode_artifact *a;
	offcode_error *err = NULL;
	uint64_t h = 14695981039346656037u;

	if (!f || (j->rc = offcode_open_path(j->path, NULL, &a, &err))) {
		offcode_error_free(err);
		if (f)
			fclose(f);
		return NULL;
	}
	list(f, a);
	j->rc = offcode_code_foreach(a, sum, &h);
	fprintf(f, "code %016" PRIx64 "\n", h);
	offcode_close(a);
	fclose(f);
	return NULL;
}

/* Each entry's code read into a buffer (one, grown as needed: what is
 * measured is the library's memory, not the allocator's), hashed into *h. */
static int read_each(offcode_artifact *a, uint64_t *h)
{
	void *buf = NULL;
	uint64_t cap = 0;
	int rc = 0;

	for (size_t i = 0; !rc && i < offcode_entry_count(a); i++) {
		const offcode_entry *e = offcode_entry_at(a, i);
		uint64_t size;

		if ((rc = offcode_entry_read(a, e, NULL, 0, &size)))
			break;
		if (size > cap) {
			void *p = realloc(buf, size);

			if (!p) {
				rc = OFFCODE_NOMEM;
				break;
			}
			buf = p;
			cap = size;
		}
		if (!(rc = offcode_entry_read(a, e, buf, cap, &size)))
			sum(h, e, buf, size);
	}
	free(buf);
	return rc;
}

/* Every entry's code hashed, by foreach (walk) or read one by one. */
static int sums(const char *path, bool walk)
{
	uint64_t h = 14695981039346656037u;
	offcode_artifact *a;
	int rc;

	if (open_it(path, &a))
		return 1;
	rc = walk ? offcode_code_foreach(a, sum, &h) : read_each(a, &h);
	if (rc)
		fprintf(stderr, "error: %s: %s\n", offcode_code_name(rc),
			offcode_error_message(offcode_last_error(a)));
	else
		printf("%zu entries, code %016" PRIx64 "\n",
		       offcode_entry_count(a), h);
	offcode_close(a);
	return rc != 0;
}

static int threads(const char *path)
{
	struct job j[2] = { { .path = path }, { .path = path } };
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, run, &j[i]))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	if (j[0].rc || j[1].rc || !j[0].out || !j[1].out ||
	    j[0].len != j[1].len || memcmp(j[0].out, j[1].out, j[0].len)) {
		printf("threads: differ\n");
		return 1;
	}
	printf("threads: the same, %zu bytes\n", j[0].len);
	free(j[0].out);
	free(j[1].out);
	return 0;
}

/* -d: each file's headers in the words ls prints after its name, or "-"
 * for a file of another format. */
static int describe(int n, char **paths)
{
	int rc = 0;

	for (int i = 0; i < n; i++) {
		offcode_artifact *a;
		struct offcode_host h = { .size = sizeof(h) };

		if (open_it(paths[i], &a)) {
			rc = 1;
			continue;
		}
		if (offcode_input_host(offcode_input_at(a, 0), &h))
			printf("%s: -\n", paths[i]);
		else
			printf("%s: %s\n", paths[i], h.description);
		offcode_close(a);
	}
	return rc;
}

int main(int argc, char **argv)
{
	int rc = 0;

	if (argc == 4 && !strcmp(argv[1], "-c"))
		return codes(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "-w"))
		return write_all_codes(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "-m"))
		return matches(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "-k"))
		return kernels(argv[2]);
	if (argc == 5 && !strcmp(argv[1], "-p"))
		return prune(argv[2], argv[3], argv[4]);
	if (argc == 3 && (!strcmp(argv[1], "-f") || !strcmp(argv[1], "-r")))
		return sums(argv[2], argv[1][1] == 'f');
	if (argc == 3 && !strcmp(argv[1], "-t"))
		return threads(argv[2]);
	if (argc >= 2 && !strcmp(argv[1], "-d"))
		return describe(argc - 2, argv + 2);
	if (argc == 3 && !strcmp(argv[1], "-v")) {
		offcode_artifact *a;

		if (open_verified(argv[2], &a))
			return 1;
		list(stdout, a);
		offcode_close(a);
		return 0;
	}
	for (int i = 1; i < argc; i++) {
		offcode_artifact *a;

		if (open_it(argv[i], &a)) {
			rc = 1;
			continue;
		}
		list(stdout, a);
		offcode_close(a);
	}
	return rc;
}
