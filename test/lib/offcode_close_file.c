/* offcode_close_file: an artefact's file let go of, its listing kept
 * (test/libtest.test), built against include/offcode.h and liboffcode.so
 * alone.
 *
 *   offcode_close_file memory|verify|path|fd FILE...
 *        each FILE opened (memory: a malloc'd copy borrowed, written over
 *        and freed once the file is closed; verify: the same with
 *        OFFCODE_OPEN_VERIFY; path; fd: the caller's closed at once), every record read, offcode_close_file, every record
 *        read again and compared byte for byte, the descriptors the
 *        process holds counted, then each call that reads the file
 *   offcode_close_file attack FAT [BARE]
 *        the file closed from the callbacks of the calls that read it,
 *        twice, with kernels handed out, an image kind not yet read, a
 *        lone code object's facts not yet worked out (and whether BARE,
 *        a file of offload code alone, is one)
 *   offcode_close_file package FILE
 *        a package or an image: closed after its open, and from within
 *        its layer walk (its own and a file's handed over) */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <offcode.h>

static const char *closed_reason;	/* "'<path>': the artefact's ..." */

/* ---- every record, as text ---- */

static void text(FILE *f, const char *s, size_t len)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (size_t i = 0; i < len; i++)
		if (s[i] >= 0x20 && s[i] < 0x7f && s[i] != '\\')
			fputc(s[i], f);
		else
			fprintf(f, "\\x%02x", (unsigned char)s[i]);
	fputc('"', f);
}

static void ztext(FILE *f, const char *s)
{
	text(f, s, s ? strlen(s) : 0);
}

static void field(FILE *f, const struct offcode_field *x)
{
	ztext(f, x->key);
	fprintf(f, " %d %" PRIu64 " ", (int)x->type, x->number);
	text(f, x->text, x->text_len);
	fputc(';', f);
}

static void error(FILE *f, const offcode_error *e)
{
	for (; e; e = offcode_error_cause(e)) {
		fprintf(f, " [%s ", offcode_code_name(offcode_error_code(e)));
		ztext(f, offcode_error_message(e));
		fputc(']', f);
	}
}

static void input(FILE *f, const offcode_input *in)
{
	struct offcode_host h = { .size = sizeof(h) };
	const char *s;
	size_t len;
	unsigned arch = 0;

	s = offcode_input_name(in, &len);
	fprintf(f, "input %u ", offcode_input_depth(in));
	text(f, s, len);
	fprintf(f, " parent %s %s %" PRIu64 " %" PRIu64 " ",
		offcode_input_parent(in) ?
		offcode_input_name(offcode_input_parent(in), NULL) : "-",
		offcode_input_format(in), offcode_input_offset(in),
		offcode_input_size(in));
	ztext(f, offcode_input_words(in));
	if (offcode_input_host(in, &h) == 0)
		fprintf(f, " host %s %u %d %s %u %s %u %d %d %s", h.format,
			h.bits, h.big_endian, h.type ? h.type : "-",
			h.type_number, h.machine ? h.machine : "-",
			h.machine_number, h.bigobj, h.dll, h.description);
	if (offcode_input_cubin_arch(in, &arch))
		fprintf(f, " cubin %u", arch);
	fputc('\n', f);
}

static void container(FILE *f, const offcode_container *c)
{
	struct offcode_field x;
	uint64_t off = 0, size = 0;
	unsigned v = 0;
	uint32_t idx = 0;
	const char *name = NULL, *kind = NULL;
	char summary[512];

	fprintf(f, "container %u of ", offcode_container_number(c));
	ztext(f, offcode_input_name(offcode_container_input(c), NULL));
	fprintf(f, " %s", offcode_container_format(c));
	if (offcode_container_offset(c, &off))
		fprintf(f, " at %" PRIu64, off);
	fprintf(f, " size %" PRIu64, offcode_container_size(c));
	if (offcode_container_version(c, &v))
		fprintf(f, " v%u", v);
	if (offcode_container_section(c, &idx, &name, &kind)) {
		fprintf(f, " section %u ", (unsigned)idx);
		ztext(f, name);
		fputc(' ', f);
		ztext(f, kind);
	}
	if (offcode_container_section_extent(c, &off, &size))
		fprintf(f, " extent %" PRIu64 "+%" PRIu64, off, size);
	fprintf(f, " %zu entries:", offcode_container_entry_count(c));
	for (size_t i = 0; i < offcode_container_entry_count(c); i++)
		fprintf(f, " %u", offcode_entry_index(
				offcode_container_entry_at(c, i)));
	fputs(" fields", f);
	for (size_t i = 0; i < offcode_container_field_count(c); i++)
		if (offcode_container_field(c, i, &x) == 0)
			field(f, &x);
	offcode_container_summary(c, offcode_container_entry_count(c),
				  summary, sizeof(summary));
	fprintf(f, " what %s summary \"%s\" roc %d coded %d",
		offcode_container_what(c), summary,
		(int)offcode_container_roc_obj(c),
		offcode_container_coded(c));
	error(f, offcode_container_hash_error(c));
	fputc('\n', f);
}

static void entry(FILE *f, offcode_artifact *a, const offcode_entry *e)
{
	static const char *const rules[] = { "gfx90a", "gfx90a:xnack+",
					     "sm_80", "*host*", "gfx1100" };
	struct offcode_nv_entry nv = { .size = sizeof(nv) };
	struct offcode_field x;
	const char *s;
	size_t len;
	uint64_t off, code, stored;

	fprintf(f, "entry %u of #%u", offcode_entry_index(e),
		offcode_container_number(offcode_entry_container(e)));
	s = offcode_entry_id(e, &len);
	fputs(" id ", f);
	text(f, s, len);
	s = offcode_entry_offload_kind(e, &len);
	fputc(' ', f);
	text(f, s, len);
	s = offcode_entry_triple(e, &len);
	fputc(' ', f);
	text(f, s, len);
	s = offcode_entry_target_id(e, &len);
	fputc(' ', f);
	text(f, s, len);
	fputc(' ', f);
	ztext(f, offcode_entry_processor(e));
	fputc(' ', f);
	ztext(f, offcode_entry_features(e));
	fputc(' ', f);
	ztext(f, offcode_entry_image_kind(e));
	fprintf(f, " size %" PRIu64, offcode_entry_size(e));
	if (offcode_entry_offset(e, &off))
		fprintf(f, " at %" PRIu64, off);
	fputc(' ', f);
	ztext(f, offcode_entry_uri(e));
	fprintf(f, " compressed %d fields", offcode_entry_compressed(e));
	for (size_t i = 0; i < offcode_entry_field_count(e); i++)
		if (offcode_entry_field(e, i, &x) == 0)
			field(f, &x);
	fputs(" cells", f);
	for (size_t i = 0; i < offcode_entry_cell_count(e); i++) {
		s = offcode_entry_cell(e, i, &len);
		fputc(' ', f);
		text(f, s, len);
	}
	fputs(" location ", f);
	ztext(f, offcode_entry_location(e));
	error(f, offcode_entry_decode_error(e));
	if (offcode_entry_nv(e, &nv) == 0) {
		fprintf(f, " nv %u %u %s %" PRIu64 " ", nv.kind, nv.arch,
			nv.variant, nv.flags);
		text(f, nv.identifier, nv.identifier_len);
		fputc(' ', f);
		text(f, nv.ptxas_options, nv.ptxas_options_len);
	}
	offcode_entry_du_sizes(e, &code, &stored);
	fprintf(f, " du %" PRIu64 " %" PRIu64 " rule ", code, stored);
	s = offcode_entry_rule_id(e, &len);
	text(f, s, len);
	fputc(' ', f);
	s = offcode_entry_rule_target(e, &len);
	text(f, s, len);
	fputs(" takes", f);
	for (size_t i = 0; i < sizeof(rules) / sizeof(*rules); i++) {
		bool m = false;
		int rc = offcode_entry_matches(a, e, rules[i], 0, &m);

		fprintf(f, " %s=%s", rules[i], rc ? offcode_code_name(rc)
						  : m ? "yes" : "no");
	}
	fputc('\n', f);
}

/* Every record of a, as text (malloc'd). */
static char *records(offcode_artifact *a)
{
	const char *target = NULL, *triple = NULL;
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);

	fprintf(f, "artefact %s %" PRIu64 " offload-only %d",
		offcode_artifact_path(a), offcode_artifact_size(a),
		offcode_artifact_offload_only(a));
	if (offcode_artifact_code_object(a, &target, &triple))
		fprintf(f, " code object %s %s", target, triple);
	fputc('\n', f);
	for (size_t i = 0; i < offcode_layer_count(a); i++) {
		struct offcode_layer l = { .size = sizeof(l) };

		if (offcode_layer_info(a, i, &l) == 0)
			fprintf(f, "layer %s %s %" PRIu64 "\n", l.name,
				l.compression, l.stored);
	}
	for (size_t i = 0; i < offcode_manifest_count(a); i++) {
		struct offcode_manifest m = { .size = sizeof(m) };

		if (offcode_manifest_info(a, i, &m) == 0) {
			fprintf(f, "manifest %s %s", m.digest, m.platform);
			for (size_t k = 0; k < m.layer_count; k++)
				fprintf(f, " %zu", m.layers[k]);
			fputc('\n', f);
		}
	}
	for (size_t i = 0; i < offcode_input_count(a); i++)
		input(f, offcode_input_at(a, i));
	for (size_t i = 0; i < offcode_container_count(a); i++)
		container(f, offcode_container_at(a, i));
	for (size_t i = 0; i < offcode_entry_count(a); i++)
		entry(f, a, offcode_entry_at(a, i));
	fclose(f);
	return out;
}

/* ---- what reads the file ---- */

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static int never(void *ctx, const offcode_entry *e, const void *code,
		 size_t size)
{
	(void)e, (void)code, (void)size;
	++*(int *)ctx;
	return 0;
}

static int no_path(void *ctx, const offcode_entry *e, const char **path)
{
	(void)e, (void)path;
	++*(int *)ctx;
	return 0;
}

static int no_member(void *ctx, const struct offcode_member *m,
		     offcode_artifact *file, const offcode_error *err)
{
	(void)m, (void)file, (void)err;
	++*(int *)ctx;
	return 0;
}

static int no_bytes(void *ctx, const struct offcode_member *m,
		    const void *bytes, size_t len, int fd)
{
	(void)m, (void)bytes, (void)len, (void)fd;
	++*(int *)ctx;
	return 0;
}

/* One call's code, and whether a's last error is then the closed file's
 * (said when it is not). */
static void said(offcode_artifact *a, const char *what, int rc)
{
	const offcode_error *e = offcode_last_error(a);

	printf(" %s=%s", what, offcode_code_name(rc));
	if (rc == OFFCODE_INVALID &&
	    (!e || strcmp(offcode_error_message(e), closed_reason)))
		printf("(%s)", e ? offcode_error_message(e) : "no record");
}

/* Each call that reads a's file, once closed. */
static void reads(offcode_artifact *a, const char *dir)
{
	const offcode_entry *e = offcode_entry_at(a, 0);
	const offcode_kernels *k = NULL;
	const char *const *paths = NULL;
	const void *bytes;
	char out[4096];
	uint64_t size = 0, len = 7;
	size_t n = 0;
	int calls = 0, fd = open("/dev/null", O_WRONLY);
	unsigned char buf[64];

	snprintf(out, sizeof(out), "%s/out", dir);
	printf("  reads:");
	said(a, "read", offcode_entry_read(a, e, buf, sizeof(buf), &size));
	said(a, "size", offcode_entry_read(a, e, NULL, 0, &size));
	said(a, "write_fd", offcode_entry_write_fd(a, e, fd));
	said(a, "write_path", offcode_entry_write_path(a, e, out));
	said(a, "foreach", offcode_code_foreach(a, never, &calls));
	said(a, "foreach_path", offcode_code_foreach_path(a, no_path, &calls));
	said(a, "kernels", offcode_entry_kernels(a, e, &k));
	said(a, "file_kernels", offcode_artifact_kernels(a, &k));
	said(a, "kpack", offcode_kpack_archives(a, &paths, &n));
	if (offcode_layer_count(a)) {
		said(a, "layer_walk", offcode_layer_walk(a, 0, 0, no_member,
							 &calls, NULL));
		said(a, "layer_bytes", offcode_layer_walk_bytes(a, 0,
								no_bytes,
								&calls));
	}
	bytes = offcode_artifact_bytes(a, &len);
	printf(" bytes=%s/%" PRIu64 " callbacks=%d written=%s\n",
	       bytes ? "some" : "null", len, calls,
	       access(out, F_OK) == 0 ? "yes" : "no");
	close(fd);
}

/* ---- each file, closed ---- */

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	long n;

	*len = 0;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n)) &&
	    fread(buf, 1, (size_t)n, f) == (size_t)n)
		*len = (size_t)n;
	fclose(f);
	return buf;
}

static int one(const char *how, const char *path, const char *dir)
{
	struct offcode_open_options o = { .size = sizeof(o),
					  .flags = OFFCODE_OPEN_BORROW };
	offcode_artifact *a = NULL;
	offcode_error *err = NULL;
	unsigned char *buf = NULL;
	char *before, *after, why[4200];
	size_t len = 0;
	int rc, fds;

	if (!strcmp(how, "memory") || !strcmp(how, "verify")) {
		if (!strcmp(how, "verify"))
			o.flags |= OFFCODE_OPEN_VERIFY;
		buf = slurp(path, &len);
		rc = offcode_open_memory(buf, len, path, &o, &a, &err);
	} else if (!strcmp(how, "fd")) {
		int fd = open(path, O_RDONLY);

		rc = offcode_open_fd(fd, path, NULL, &a, &err);
		close(fd);
	} else {
		rc = offcode_open_path(path, NULL, &a, &err);
	}
	if (rc) {
		printf("%s: %s\n", path, offcode_error_message(err));
		offcode_error_free(err);
		free(buf);
		return 1;
	}
	snprintf(why, sizeof(why), "'%s': the artefact's file is closed",
		 path);
	closed_reason = why;
	before = records(a);
	fds = count_fds();
	offcode_close_file(a);
	fds -= count_fds();
	if (buf) {
		memset(buf, 0xaa, len);
		free(buf);
	}
	after = records(a);
	printf("%s: %zu inputs, %zu containers, %zu entries, %zu layers; "
	       "records after close_file: %s; descriptors let go of: %d\n",
	       path, offcode_input_count(a), offcode_container_count(a),
	       offcode_entry_count(a), offcode_layer_count(a),
	       strcmp(before, after) ? "CHANGED" : "the same", fds);
	if (strcmp(before, after) || getenv("CF_DUMP"))
		printf("--- before\n%s--- after\n%s", before, after);
	reads(a, dir);
	offcode_close_file(a);	/* again: nothing */
	free(after);
	after = records(a);
	printf("  closed again: records %s\n",
	       strcmp(before, after) ? "CHANGED" : "the same");
	free(before);
	free(after);
	offcode_close(a);
	return 0;
}

/* ---- from callbacks ---- */

struct closing {
	offcode_artifact *a;
	int calls;
	int inner;		/* what a call made in the callback returned */
	const char *path;
};

static int close_in_code(void *ctx, const offcode_entry *e, const void *code,
			 size_t size)
{
	struct closing *c = ctx;
	unsigned char b[8];

	(void)e, (void)code, (void)size;
	if (c->calls++ == 0) {
		offcode_close_file(c->a);
		c->inner = offcode_entry_read(c->a, e, b, sizeof(b), NULL);
	}
	return 0;
}

static int close_in_path(void *ctx, const offcode_entry *e, const char **path)
{
	struct closing *c = ctx;

	(void)e;
	if (c->calls++ == 0)
		offcode_close_file(c->a);
	*path = c->path;
	return 0;
}

static void line(const char *what, offcode_artifact *a, int rc, int calls)
{
	const offcode_error *e = offcode_last_error(a);

	printf("%s: %s, %d callback(s)", what, offcode_code_name(rc), calls);
	if (rc && e)
		printf(" (%s)", offcode_error_message(e));
	putchar('\n');
}

static offcode_artifact *open_or_die(const char *path, unsigned flags)
{
	struct offcode_open_options o = { .size = sizeof(o), .flags = flags };
	offcode_artifact *a = NULL;
	offcode_error *err = NULL;

	if (offcode_open_path(path, &o, &a, &err)) {
		fprintf(stderr, "%s\n", offcode_error_message(err));
		exit(1);
	}
	return a;
}

static int attack(const char *fat, const char *dir)
{
	offcode_artifact *a;
	struct closing c;
	const offcode_kernels *k = NULL;
	char out[4096], why[4200];
	uint64_t size = 0;
	unsigned char *code;
	int rc;

	snprintf(why, sizeof(why), "'%s': the artefact's file is closed",
		 fat);
	closed_reason = why;
	snprintf(out, sizeof(out), "%s/from-callback", dir);

	a = open_or_die(fat, 0);
	c = (struct closing){ .a = a };
	rc = offcode_code_foreach(a, close_in_code, &c);
	line("closed in foreach's first callback", a, rc, c.calls);
	printf("  a read in that callback: %s; a foreach after: %s\n",
	       offcode_code_name(c.inner),
	       offcode_code_name(offcode_code_foreach(a, never, &c.calls)));
	offcode_close(a);

	a = open_or_die(fat, 0);
	c = (struct closing){ .a = a, .path = out };
	rc = offcode_code_foreach_path(a, close_in_path, &c);
	line("closed in foreach_path's first callback", a, rc, c.calls);
	printf("  its file written: %s\n",
	       access(out, F_OK) == 0 ? "yes" : "no");
	offcode_close(a);

	/* Kernels handed out stay; an image kind not yet read is NULL. */
	a = open_or_die(fat, 0);
	for (size_t i = 0; !k && i < offcode_entry_count(a); i++)
		offcode_entry_kernels(a, offcode_entry_at(a, i), &k);
	offcode_close_file(a);
	offcode_close_file(a);
	offcode_close_file(NULL);
	printf("kernels handed out before: %s, %zu kernel(s), first %s\n",
	       offcode_kernels_target_id(k), offcode_kernels_count(k),
	       offcode_kernel_name(offcode_kernels_at(k, 0)));
	offcode_kernels_free(a, k);
	offcode_close(a);

	a = open_or_die(fat, 0);
	offcode_close_file(a);
	printf("an image kind not yet read: %s",
	       offcode_entry_image_kind(offcode_entry_at(a, 1)) ?: "NULL");
	/* (apart: the record is replaced by the next failure) */
	printf(" (%s);", offcode_last_error(a) ?
	       offcode_error_message(offcode_last_error(a)) : "no record");
	printf(" offload only, not asked before: %s\n",
	       offcode_artifact_offload_only(a) ? "yes" : "no");
	offcode_close(a);

	/* A lone code object: its facts asked before and not. */
	a = open_or_die(fat, 0);
	offcode_entry_read(a, offcode_entry_at(a, 1), NULL, 0, &size);
	code = malloc(size);
	offcode_entry_read(a, offcode_entry_at(a, 1), code, size, &size);
	offcode_close(a);
	for (int asked = 0; asked < 2; asked++) {
		struct offcode_open_options o = { .size = sizeof(o),
						  .flags = OFFCODE_OPEN_BORROW };
		const char *target = NULL, *triple = NULL;
		unsigned char *copy = malloc(size);
		bool lone;

		memcpy(copy, code, size);
		offcode_open_memory(copy, size, "lone", &o, &a, NULL);
		if (asked) {
			offcode_artifact_code_object(a, NULL, NULL);
			offcode_artifact_kernels(a, &k);
		}
		offcode_close_file(a);
		memset(copy, 0, size);
		free(copy);
		lone = offcode_artifact_code_object(a, &target, &triple);
		printf("a lone code object, %s: %s %s %s; its kernels: %s\n",
		       asked ? "asked before" : "not asked before",
		       lone ? "yes" : "no", lone ? target : "-",
		       lone ? triple : "-",
		       offcode_code_name(offcode_artifact_kernels(a, &k)));
		if (!asked)
			printf("  (%s)\n", offcode_error_message(
					       offcode_last_error(a)));
		offcode_close(a);
	}
	free(code);
	return 0;
}

/* A file of offload code alone: that fact asked before, and not. */
static int bare(const char *path)
{
	for (int asked = 0; asked < 2; asked++) {
		offcode_artifact *a = open_or_die(path, 0);
		bool only;

		if (asked)
			offcode_artifact_offload_only(a);
		offcode_close_file(a);
		only = offcode_artifact_offload_only(a);
		printf("offload code alone, %s: %s",
		       asked ? "asked before" : "not asked before",
		       only ? "yes" : "no");
		if (!asked)
			printf(" (%s)", offcode_error_message(
					        offcode_last_error(a)));
		putchar('\n');
		offcode_close(a);
	}
	return 0;
}

/* ---- packages and images, from their walk ---- */

struct pkg_walk {
	offcode_artifact *pkg;
	int calls;
	bool close_pkg;		/* else the file handed over */
	char line[512];
};

static int close_in_walk(void *ctx, const struct offcode_member *m,
			 offcode_artifact *file, const offcode_error *err)
{
	struct pkg_walk *w = ctx;
	uint64_t size = 0;
	int rc;

	(void)m, (void)err;
	if (w->calls++)
		return 0;
	offcode_close_file(w->close_pkg ? w->pkg : file);
	rc = offcode_entry_read(file, offcode_entry_at(file, 0), NULL, 0,
				&size);
	snprintf(w->line, sizeof(w->line), "the file's read in it: %s%s%s",
		 offcode_code_name(rc), rc ? ", " : "",
		 rc ? offcode_error_reason(offcode_last_error(file)) : "");
	return 0;
}

static int close_in_bytes(void *ctx, const struct offcode_member *m,
			  const void *bytes, size_t len, int fd)
{
	struct pkg_walk *w = ctx;

	(void)m, (void)bytes, (void)len, (void)fd;
	if (w->calls++ == 0)
		offcode_close_file(w->pkg);
	return 0;
}

static int package(const char *path)
{
	offcode_artifact *a;
	struct closing c;
	struct pkg_walk w;
	int rc, fds;

	a = open_or_die(path, 0);
	c = (struct closing){ .a = a };
	fds = count_fds();
	rc = offcode_code_foreach(a, close_in_code, &c);
	fds -= count_fds();
	line("closed in its foreach's first callback", a, rc, c.calls);
	printf("  a read in that callback: %s; descriptors let go of when "
	       "it returned: %d\n", offcode_code_name(c.inner), fds);
	offcode_close(a);
	a = open_or_die(path, OFFCODE_OPEN_STREAM);
	w = (struct pkg_walk){ .pkg = a };
	rc = offcode_layer_walk_bytes(a, offcode_layer_count(a) - 1,
				      close_in_bytes, &w);
	line("closed in its walk of bytes", a, rc, w.calls);
	offcode_close(a);

	for (int pkg = 0; pkg < 2; pkg++) {
		a = open_or_die(path, OFFCODE_OPEN_STREAM);
		w = (struct pkg_walk){ .pkg = a, .close_pkg = pkg };
		rc = offcode_layer_walk(a, offcode_layer_count(a) - 1, 0,
					close_in_walk, &w, NULL);
		line(pkg ? "the package closed in its walk"
			 : "the file handed over closed in the walk", a, rc,
		     w.calls);
		printf("  %s\n", w.line);
		offcode_close(a);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *dir = getenv("SCRATCH") ? getenv("SCRATCH") : ".";
	int bad = 0;

	if (argc < 3)
		return 2;
	if (!strcmp(argv[1], "attack"))
		return attack(argv[2], dir) | (argc > 3 ? bare(argv[3]) : 0);
	if (!strcmp(argv[1], "package"))
		return package(argv[2]);
	for (int i = 2; i < argc; i++)
		bad |= one(argv[1], argv[i], dir);
	return bad;
}
