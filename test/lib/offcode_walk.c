/* offcode_walk: liboffcode's streaming walk (offcode_walk_*) through a
 * client built against include/offcode.h and liboffcode.so alone
 * (test/libtest.test).
 *
 *   offcode_walk FILE...       each file's facts, as offcode_ls prints
 *                              them of an artefact (test/lib/facts.h):
 *                              the walk's records read with the same
 *                              accessors must say the same
 *   offcode_walk -v FILE...    the same walked with OFFCODE_WALK_CODE and
 *                              OFFCODE_WALK_VERIFY (offcode_ls -v's)
 *   offcode_walk -l FILE...    each node on a line, with what `offload ls`
 *                              prints of it (offcode_input_words,
 *                              offcode_container_summary, _what, _roc_obj,
 *                              _hash_error, offcode_entry_cell, _location,
 *                              _decode_error), walked with code and
 *                              hashes checked
 *   offcode_walk -f FILE       -l's lines, walked from a descriptor
 *                              (offcode_walk_fd, no name)
 *   offcode_walk -m FILE       the same from a buffer (offcode_walk_memory,
 *                              no name), with the hints called
 *   offcode_walk -s N FILE     -l's lines, the visitor stopping the walk at
 *                              the Nth node (returning 7)
 *   offcode_walk -t N FILE     -l's lines, the visitor cutting FILE to N
 *                              bytes at the first node, SIGBUS caught
 *                              (offcode_catch_sigbus) when -t, not when -T
 *   offcode_walk -k FILE OWN   -t 8192 FILE under a SIGBUS handler of the
 *                              program's installed first; then a SIGBUS
 *                              sent, and a read of OWN mapped by the
 *                              program and cut: both the handler's
 *   offcode_walk -u FILE       each node under an input with the names and
 *                              words of the inputs open above it, and an
 *                              entry with its container's fields, first
 *                              asked for there (the records fill what is
 *                              asked for when it is: under an input, its
 *                              arena goes with the node)
 *   offcode_walk -n            the walk's refusals of bad arguments
 *   offcode_walk -x FILE       walked as `offload extract` walks
 *                              (OFFCODE_WALK_CCOB_LATER, _KNOWN): each
 *                              container with its hash record and its bytes
 *                              as stored (offcode_container_stored), each
 *                              entry with its head (offcode_entry_head); a
 *                              CCOB inflated again at its end, each entry's
 *                              bytes there checked against its head
 *   offcode_walk -w FILE       the same lines, walked as `offload extract
 *                              -o -` walks (OFFCODE_WALK_CCOB_WHOLE,
 *                              _VERIFY, _KNOWN): each entry's code whole
 *   offcode_walk -b FILE...    each file's kind as its bytes say
 *                              (offcode_memory_kind, named as given), and
 *                              whether its artefact's bytes
 *                              (offcode_artifact_bytes) are the file's
 * A walk that fails: "error: CODE: REASON" on stdout (its path, and each
 * link of its chain), after what was handed over. */
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <offcode.h>

#include "facts.h"

/* ---- facts, as offcode_ls lists an artefact ---- */

struct facts {
	FILE *hosts, *body, *entries;	/* entries: the container's */
	char *ents;
	size_t el;
	unsigned said[64];	/* the depths of the inputs whose host is said */
	size_t nsaid;
};

/* Whether in's host is said: the inputs said are the ones open above
 * the node (an input forgets those at its depth and below), known by
 * their depths (a record lives only through its visit). */
static bool said_host(struct facts *fs, const offcode_input *in)
{
	for (size_t i = 0; i < fs->nsaid; i++)
		if (fs->said[i] == offcode_input_depth(in))
			return true;
	return false;
}

/* The hosts above a container's input, each once, the file's first. */
static void hosts_of(struct facts *fs, const offcode_input *in)
{
	const offcode_input *up[64];
	size_t n = 0;

	for (; in && n < 64; in = offcode_input_parent(in))
		up[n++] = in;
	while (n--) {
		if (!offcode_input_depth(up[n]) || said_host(fs, up[n]))
			continue;
		put_host(fs->hosts, up[n]);
		if (fs->nsaid < 64)
			fs->said[fs->nsaid++] = offcode_input_depth(up[n]);
	}
}

static int fact(void *ctx, const struct offcode_node *n)
{
	struct facts *fs = ctx;

	switch (n->kind) {
	case OFFCODE_NODE_INPUT:
		/* A member's record goes with its visit: forget those at its
		 * depth and below. */
		while (fs->nsaid && fs->said[fs->nsaid - 1] >= n->depth)
			fs->nsaid--;
		if (!n->depth) {
			const char *f = offcode_input_format(n->input);

			fputs("{\"file\":", fs->hosts);
			put_str(fs->hosts, offcode_input_name(n->input, NULL),
				strlen(offcode_input_name(n->input, NULL)));
			put_text(fs->hosts, "format", f, strlen(f));
			fputs("}\n", fs->hosts);
			put_host(fs->hosts, n->input);
		}
		break;
	case OFFCODE_NODE_SECTION:
		break;
	case OFFCODE_NODE_CONTAINER:
		hosts_of(fs, n->input);
		if (!(fs->entries = open_memstream(&fs->ents, &fs->el)))
			return 1;
		break;
	case OFFCODE_NODE_ENTRY:
		put_entry(fs->entries, n->container, n->entry);
		break;
	case OFFCODE_NODE_CONTAINER_END:
		/* all its fields now: its line, then its entries' */
		put_container(fs->body, n->container);
		fclose(fs->entries);
		fs->entries = NULL;
		fputs(fs->ents, fs->body);
		free(fs->ents);
		fs->ents = NULL;
		break;
	}
	return 0;
}

static int said(int rc, offcode_error *err)
{
	printf("error: %s: %s\n", offcode_code_name(rc),
	       err ? offcode_error_reason(err) : "(no record)");
	if (err)
		printf("  path: %s\n", offcode_error_path(err));
	for (const offcode_error *l = err ? offcode_error_cause(err) : NULL; l;
	     l = offcode_error_cause(l))
		printf("  cause: %s: %s\n",
		       offcode_code_name(offcode_error_code(l)),
		       offcode_error_reason(l));
	offcode_error_free(err);
	return 1;
}

static int facts(const char *path, unsigned flags)
{
	struct offcode_walk_options o = { .size = sizeof(o), .flags = flags };
	struct facts fs = { .nsaid = 0 };
	char *hosts = NULL, *body = NULL;
	size_t hl = 0, bl = 0;
	offcode_error *err;
	int rc;

	fs.hosts = open_memstream(&hosts, &hl);
	fs.body = open_memstream(&body, &bl);
	if (!fs.hosts || !fs.body)
		return 1;
	rc = offcode_walk_path(path, &o, fact, &fs, &err);
	fclose(fs.hosts);
	fclose(fs.body);
	if (fs.entries)
		fclose(fs.entries);
	free(fs.ents);
	if (rc) {
		fflush(stdout);
		fprintf(stderr, "error: %s: %s\n", offcode_code_name(rc),
			err ? offcode_error_message(err) : "(no record)");
		offcode_error_free(err);
	} else {
		fputs(hosts, stdout);
		fputs(body, stdout);
	}
	free(hosts);
	free(body);
	return rc ? 1 : 0;
}

/* ---- the lines ---- */

struct lines {
	long stop_at, seen;
};

static void put_err(const char *what, const offcode_error *r)
{
	if (r)
		printf(" %s=%s:'%s'", what,
		       offcode_code_name(offcode_error_code(r)),
		       offcode_error_reason(r));
}

static int line(void *ctx, const struct offcode_node *n)
{
	struct lines *ls = ctx;
	static const char *const roc[] = { "ignored", "listed", "counted" };
	char summary[256];
	size_t len;
	const char *s;

	printf("%*s", 2 * (int)n->depth, "");
	switch (n->kind) {
	case OFFCODE_NODE_INPUT:
		s = offcode_input_name(n->input, &len);
		printf("input %.*s: %s\n", (int)len, s,
		       offcode_input_words(n->input));
		break;
	case OFFCODE_NODE_SECTION:
		printf("section [%u] %.*s %s at %" PRIu64 ", %" PRIu64 "\n",
		       n->section_index, (int)n->section_name_len,
		       n->section_name, n->section_kind, n->section_offset,
		       n->section_size);
		break;
	case OFFCODE_NODE_CONTAINER:
	case OFFCODE_NODE_CONTAINER_END:
		/* A walk keeps no container's entries together: none to look
		 * up, whatever the count says (offcode.h). */
		for (size_t i = 0; i < 3; i++)
			if (offcode_container_entry_at(n->container, i))
				printf("(entry_at %zu is not NULL in a walk) ", i);
		offcode_container_summary(n->container,
					  offcode_container_entry_count(
						  n->container),
					  summary, sizeof(summary));
		printf("%s %s #%u%s (%s, roc-obj %s%s, %zu fields)",
		       n->kind == OFFCODE_NODE_CONTAINER ? "container" : "end",
		       offcode_container_format(n->container),
		       offcode_container_number(n->container), summary,
		       offcode_container_what(n->container),
		       roc[offcode_container_roc_obj(n->container)],
		       offcode_container_coded(n->container) ? ", coded" : "",
		       offcode_container_field_count(n->container));
		put_err("hash", offcode_container_hash_error(n->container));
		putchar('\n');
		break;
	case OFFCODE_NODE_ENTRY:
		for (size_t i = 0; i < 3; i++)
			if (offcode_container_entry_at(n->container, i))
				printf("(entry_at %zu is not NULL in a walk) ", i);
		printf("entry %u:", offcode_entry_index(n->entry));
		for (size_t i = 0; i < offcode_entry_cell_count(n->entry); i++) {
			s = offcode_entry_cell(n->entry, i, &len);
			printf(" [%.*s]", (int)len, s ? s : "-");
		}
		printf(" %s", offcode_entry_location(n->entry));
		if (n->code)
			printf(" code %" PRIu64, n->code_size);
		put_err("decode", offcode_entry_decode_error(n->entry));
		putchar('\n');
		break;
	}
	return ++ls->seen == ls->stop_at ? 7 : 0;
}

static const struct offcode_walk_options code_opts = {
	.size = sizeof(code_opts),
	.flags = OFFCODE_WALK_CODE | OFFCODE_WALK_VERIFY
};

static int lines(const char *path, long stop_at)
{
	struct lines ls = { .stop_at = stop_at };
	offcode_error *err;
	int rc = offcode_walk_path(path, &code_opts, line, &ls, &err);

	if (rc == 7)
		printf("stopped: 7\n");
	else if (rc)
		return said(rc, err);
	return 0;
}

/* A visitor that cuts its file short at the first node, then prints the
 * lines of the nodes still handed over. */
struct cutter {
	struct lines ls;
	const char *path;
	off_t to;
};

static int cut_line(void *ctx, const struct offcode_node *n)
{
	struct cutter *c = ctx;

	if (c->ls.seen == 0 && truncate(c->path, c->to) != 0)
		printf("truncate failed\n");
	return line(&c->ls, n);
}

static int lines_cut(const char *path, long to, bool catch)
{
	struct cutter c = { .ls = { .stop_at = -1 }, .path = path, .to = to };
	offcode_error *err;
	int rc;

	if (catch && (rc = offcode_catch_sigbus()) != 0)
		printf("offcode_catch_sigbus: %d\n", rc);
	/* once more: nothing changes */
	if (catch && (rc = offcode_catch_sigbus()) != 0)
		printf("offcode_catch_sigbus again: %d\n", rc);
	rc = offcode_walk_path(path, &code_opts, cut_line, &c, &err);
	return rc ? said(rc, err) : 0;
}

/* A handler of the program's, installed before offcode_catch_sigbus: it
 * sees every SIGBUS not from a map of the library's, with its siginfo. */
static const volatile char *volatile before_at;

static void before(int sig, siginfo_t *si, void *ctx)
{
	static const char sent[] = "before: SIGBUS sent\n",
			  mine[] = "before: SIGBUS at the program's own map\n",
			  other[] = "before: SIGBUS elsewhere\n";

	const char *say = other;
	size_t n = sizeof(other) - 1;

	(void)ctx;
	if (sig == SIGBUS && si->si_code == SI_USER)
		say = sent, n = sizeof(sent) - 1;
	else if (sig == SIGBUS && si->si_code == BUS_ADRERR &&
		 si->si_addr == (void *)before_at)
		say = mine, n = sizeof(mine) - 1;
	if (write(1, say, n) != (ssize_t)n || say != sent)
		_exit(3);	/* (returning would fault again) */
}

/* -k: a cut walked is the library's; a SIGBUS sent, and one at a map of
 * the program's own (FILE, mapped and cut to nothing), the handler's. */
static int chained(const char *path, const char *own)
{
	struct sigaction sa = { .sa_sigaction = before,
				.sa_flags = SA_SIGINFO };
	struct stat st;
	char *map;
	int fd, rc;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, NULL) != 0 ||
	    (rc = offcode_catch_sigbus()) != 0)
		return 2;
	if ((rc = lines_cut(path, 8192, true)) != 1)
		printf("the walk: %d\n", rc);
	fflush(stdout);
	kill(getpid(), SIGBUS);
	if ((fd = open(own, O_RDONLY)) < 0 || fstat(fd, &st) != 0 ||
	    (map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd,
			0)) == MAP_FAILED || truncate(own, 0) != 0)
		return 2;
	before_at = map + 8192;
	printf("read: %d\n", *before_at);
	return 0;
}

static int lines_fd(const char *path)
{
	struct lines ls = { .stop_at = -1 };
	offcode_error *err;
	int fd = open(path, O_RDONLY), rc;

	if (fd < 0)
		return 1;
	rc = offcode_walk_fd(fd, NULL, &code_opts, line, &ls, &err);
	/* the descriptor is the caller's still */
	if (lseek(fd, 0, SEEK_SET) != 0 || close(fd) != 0)
		printf("the descriptor was closed\n");
	return rc ? said(rc, err) : 0;
}

static uint64_t next_data(void *ctx, uint64_t off)
{
	(void)ctx;
	return off;
}

static void reading(void *ctx, uint64_t off, uint64_t len, bool start)
{
	(void)off;
	(void)len;
	if (start)
		++*(unsigned *)ctx;
}

static int lines_memory(const char *path)
{
	unsigned inflated = 0;
	struct offcode_walk_options o = code_opts;
	struct lines ls = { .stop_at = -1 };
	offcode_error *err;
	struct stat st;
	void *map;
	int fd = open(path, O_RDONLY), rc;

	if (fd < 0 || fstat(fd, &st) < 0)
		return 1;
	map = st.st_size ? mmap(NULL, (size_t)st.st_size, PROT_READ,
				MAP_PRIVATE, fd, 0) : NULL;
	close(fd);
	if (map == MAP_FAILED)
		return 1;
	o.next_data = next_data;
	o.reading = reading;
	o.hint_ctx = &inflated;
	rc = offcode_walk_memory(map, (size_t)st.st_size, NULL, &o, line, &ls,
				 &err);
	if (map)
		munmap(map, (size_t)st.st_size);
	if (!rc)
		printf("ranges read: %u\n", inflated);
	return rc ? said(rc, err) : 0;
}

static int nothing(void *ctx, const struct offcode_node *n)
{
	(void)ctx;
	(void)n;
	return 0;
}

/* -u's visitor: what is read of the inputs above n and of n's
 * container, never at their own visits. */
static int under(void *ctx, const struct offcode_node *n)
{
	(void)ctx;
	if (n->kind == OFFCODE_NODE_INPUT)
		return 0;
	printf("%*s%s", 2 * (int)n->depth, "",
	       n->kind == OFFCODE_NODE_SECTION ? "section" :
	       n->kind == OFFCODE_NODE_CONTAINER ? "container" :
	       n->kind == OFFCODE_NODE_ENTRY ? "entry" : "end");
	if (n->kind == OFFCODE_NODE_ENTRY)	/* (its own, kept first) */
		printf(" %s", offcode_entry_location(n->entry));
	/* (first asked for at an entry's visit: what it keeps goes with
	 * it, what they keep must not) */
	for (const offcode_input *in = n->input;
	     in && (n->kind == OFFCODE_NODE_ENTRY ||
		    n->kind == OFFCODE_NODE_CONTAINER_END);
	     in = offcode_input_parent(in)) {
		size_t len;
		const char *name = offcode_input_name(in, &len);

		printf(" <- %.*s (%s)", (int)len, name,
		       offcode_input_words(in));
	}
	if (n->kind == OFFCODE_NODE_ENTRY) {
		size_t nf = offcode_container_field_count(n->container);
		struct offcode_field f;

		printf(", its container's %zu fields", nf);
		for (size_t i = 0; i < nf; i++)
			if (offcode_container_field(n->container, i, &f) == 0 &&
			    f.type == OFFCODE_FIELD_TEXT)
				printf(" %s=%.*s", f.key, (int)f.text_len,
				       f.text ? f.text : "null");
	}
	putchar('\n');
	return 0;
}

static int unders(const char *path)
{
	offcode_error *err = NULL;
	struct offcode_walk_options o = { .size = sizeof(o),
					  .flags = OFFCODE_WALK_CODE };
	int rc = offcode_walk_path(path, &o, under, NULL, &err);

	return rc ? said(rc, err) : 0;
}

/* What a bad argument gets. */
static int refusals(void)
{
	offcode_error *err;
	int rc;

	rc = offcode_walk_path(NULL, NULL, nothing, NULL, &err);
	said(rc, err);
	rc = offcode_walk_path("/", NULL, NULL, NULL, &err);
	said(rc, err);
	rc = offcode_walk_memory(NULL, 1, NULL, NULL, nothing, NULL, &err);
	said(rc, err);
	rc = offcode_walk_fd(-1, NULL, NULL, nothing, NULL, &err);
	said(rc, err);
	rc = offcode_walk_path("oci:nothere", NULL, nothing, NULL, &err);
	said(rc, err);
	/* no record asked for: the code alone */
	printf("%s\n", offcode_code_name(offcode_walk_path(
			       "/nonexistent", NULL, nothing, NULL, NULL)));
	/* an empty buffer is a file of nothing */
	rc = offcode_walk_memory(NULL, 0, "empty", NULL, line,
				 &(struct lines){ .stop_at = -1 }, &err);
	return rc ? said(rc, err) : 0;
}

/* The file's bytes, whole (NULL for none). */
static unsigned char *slurp(const char *path, size_t *len)
{
	struct stat st;
	unsigned char *buf = NULL;
	FILE *f = fopen(path, "rb");

	*len = 0;
	if (f && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
	    (buf = malloc((size_t)st.st_size + 1)))
		*len = fread(buf, 1, (size_t)st.st_size, f);
	if (f)
		fclose(f);
	return buf;
}

static int bytes(int n, char **paths)
{
	for (int i = 0; i < n; i++) {
		size_t len;
		unsigned char *buf = slurp(paths[i], &len);
		const char *kind = buf ? offcode_memory_kind(buf, len, paths[i])
				       : NULL;
		offcode_artifact *a = NULL;
		const void *got;
		uint64_t glen = 1;

		printf("%s: %s", paths[i], kind ? kind : "-");
		if (offcode_open_path(paths[i], NULL, &a, NULL) == 0) {
			got = offcode_artifact_bytes(a, &glen);
			printf(", %s", !glen ? "no bytes" :
				       glen == len && !memcmp(got, buf, len)
					       ? "its bytes" : "other bytes");
		}
		putchar('\n');
		offcode_close(a);
		free(buf);
	}
	printf("NULL: %s, %s\n", offcode_memory_kind(NULL, 0, "x.whl") ?
	       "a kind" : "none", offcode_artifact_bytes(NULL, NULL) ? "bytes"
							      : "none");
	return 0;
}

/* ---- walked as extract walks ---- */

struct later {
	uint64_t pos;			/* of the CCOB inflated again */
	size_t n;			/* its entries seen */
	uint64_t off[64], size[64];	/* each one's place there */
	unsigned char head[64][20];
	size_t head_len[64];
	size_t same;			/* of them, whose head is there */
};

/* A piece of the CCOB inflated again: each entry's first bytes there. */
static int later_piece(void *ctx, const void *p, size_t n)
{
	struct later *l = ctx;
	const unsigned char *b = p;

	for (size_t i = 0; i < l->n; i++)
		for (size_t k = 0; k < l->head_len[i]; k++) {
			uint64_t at = l->off[i] + k;

			if (at >= l->pos && at < l->pos + n &&
			    b[at - l->pos] != l->head[i][k])
				l->head_len[i] = 0;	/* differs */
		}
	l->pos += n;
	return 0;
}

static void put_bytes(const void *p, size_t n)
{
	for (size_t i = 0; i < n && i < 4; i++)
		printf("%02x", ((const unsigned char *)p)[i]);
}

static int later_node(void *ctx, const struct offcode_node *n)
{
	struct later *l = ctx;
	const void *stored, *head;
	uint64_t len, off;
	size_t hl;
	offcode_error *err = NULL;
	int rc;

	printf("%*s", 2 * (int)n->depth, "");
	switch (n->kind) {
	case OFFCODE_NODE_INPUT:
	case OFFCODE_NODE_SECTION:
		printf("%s\n", n->kind == OFFCODE_NODE_INPUT ? "input"
							     : "section");
		break;
	case OFFCODE_NODE_CONTAINER:
	case OFFCODE_NODE_CONTAINER_END:
		stored = offcode_container_stored(n->container, &len);
		printf("%s %s #%u: stored %" PRIu64 " ",
		       n->kind == OFFCODE_NODE_CONTAINER ? "container" : "end",
		       offcode_container_format(n->container),
		       offcode_container_number(n->container), len);
		put_bytes(stored, (size_t)len);
		put_err("hash", offcode_container_hash_error(n->container));
		putchar('\n');
		if (n->kind == OFFCODE_NODE_CONTAINER) {
			l->n = l->same = 0;
			l->pos = 0;
			break;
		}
		if (!stored)
			break;
		rc = offcode_ccob_inflate(stored, (size_t)len, 0, 0,
					  later_piece, l, &err);
		for (size_t i = 0; i < l->n; i++)
			l->same += l->head_len[i] > 0 || !l->size[i];
		printf("%*s  inflated again: %d, %" PRIu64 " bytes, %zu of %zu "
		       "heads there\n", 2 * (int)n->depth, "", rc, l->pos,
		       l->same, l->n);
		offcode_error_free(err);
		break;
	case OFFCODE_NODE_ENTRY:
		head = offcode_entry_head(n->entry, &hl, &off);
		printf("entry %u: size %" PRIu64 ", code %s, head %zu at %"
		       PRIu64 " ", offcode_entry_index(n->entry),
		       offcode_entry_size(n->entry), n->code ? "yes" : "NULL",
		       hl, off);
		put_bytes(head, hl);
		putchar('\n');
		if (head && l->n < 64) {
			l->off[l->n] = off;
			l->size[l->n] = offcode_entry_size(n->entry);
			memcpy(l->head[l->n], head, hl);
			l->head_len[l->n++] = hl;
		}
		break;
	}
	return 0;
}

static int later(const char *path, unsigned flags)
{
	const struct offcode_walk_options o = {
		.size = sizeof(o),
		.flags = OFFCODE_WALK_CODE | OFFCODE_WALK_KNOWN | flags,
	};
	struct later l = { .n = 0 };
	offcode_error *err;
	int rc = offcode_walk_path(path, &o, later_node, &l, &err);

	return rc ? said(rc, err) : 0;
}

int main(int argc, char **argv)
{
	int rc = 0;

	if (argc == 2 && !strcmp(argv[1], "-n"))
		return refusals();
	if (argc >= 3 && !strcmp(argv[1], "-b"))
		return bytes(argc - 2, argv + 2);
	if (argc == 3 && !strcmp(argv[1], "-f"))
		return lines_fd(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "-m"))
		return lines_memory(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "-u"))
		return unders(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "-x"))
		return later(argv[2], OFFCODE_WALK_CCOB_LATER);
	if (argc == 3 && !strcmp(argv[1], "-w"))
		return later(argv[2], OFFCODE_WALK_CCOB_WHOLE |
					      OFFCODE_WALK_VERIFY);
	if (argc == 4 && !strcmp(argv[1], "-k"))
		return chained(argv[2], argv[3]);
	if (argc == 4 && (!strcmp(argv[1], "-t") || !strcmp(argv[1], "-T")))
		return lines_cut(argv[3], atol(argv[2]), argv[1][1] == 't');
	if (argc == 4 && !strcmp(argv[1], "-s"))
		return lines(argv[3], atol(argv[2]));
	if (argc >= 3 && !strcmp(argv[1], "-l")) {
		for (int i = 2; i < argc; i++)
			rc |= lines(argv[i], -1);
		return rc;
	}
	if (argc >= 3 && !strcmp(argv[1], "-v")) {
		for (int i = 2; i < argc; i++)
			rc |= facts(argv[i], OFFCODE_WALK_CODE |
						     OFFCODE_WALK_VERIFY);
		return rc;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: offcode_walk [-v|-l] FILE... | -f FILE "
			"| -m FILE | -s N FILE | -u FILE | -n\n");
		return 2;
	}
	for (int i = 1; i < argc; i++)
		rc |= facts(argv[i], 0);
	return rc;
}
