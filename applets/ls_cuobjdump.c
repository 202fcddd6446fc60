/* ls --format=cuobjdump: the lines `cuobjdump -lelf -lptx FILE` prints, so
 * scripts that parse them can switch over.
 *
 * What cuobjdump 11.8 was measured to print (test/files/nv118/make.sh
 * keeps the goldens):
 *   PTX file    1: k4.1.sm_80.ptx
 *   ELF file    1: k4.1.sm_80.cubin
 * one line per PTX (kind 1) and ELF (kind 2) entry, in the order of the
 * fatbin, counted apart ("%4d") across the whole file, archive members
 * too.  The name is the file's name without its directory and last
 * extension (libcublasLt.so.11 -> libcublasLt.so), the entry's count of its
 * kind, and the arch, which is sm_XX for PTX as well; an entry with an
 * identifier (nvcc -G writes the source path) is named by the identifier's
 * name without its extension and has no count (a.sm_80.ptx).  An archive
 * member starts with an empty line and "member ARCHIVE:MEMBER:", device
 * code or not.  Of an object with both, only the executable fatbin
 * (.nv_fatbin) is listed, else the relocatable one (__nv_relfatbin), as
 * cuobjdump does without -all.  A lone cubin is one ELF line, named as
 * with an identifier.  A file without any fatbin (or cubin) fails.
 *
 * Arch variants (CUDA 12's sm_90a, 13's sm_100a, sm_103f) postdate 11.8
 * and no newer cuobjdump is at hand; their letter follows the number as
 * nvcc spells it (variants.fatbin in cuobjdump.test).  Public evidence for
 * newer versions:
 *  - an ELF entry keeps its letter: `cuobjdump --extract-elf all` of a
 *    library wrote libpplx_kernels.1.sm_90a.cubin, the name -lelf lists
 *    (https://github.com/Willy-Chan/pplx-kernels/blob/5850e668d5a511e2366b983d4a00377e322a05ac/tests/test_all_to_all.py);
 *  - PTX is still named sm_XX, not compute_XX, by CUDA 12's cuobjdump
 *    (`PTX file    1: _C.cpython-310-x86_64-linux-gnu.1.sm_90.ptx`,
 *    https://github.com/vllm-project/vllm/issues/1936).
 * None was found for PTX with a letter (compute_90a) or for an f variant;
 * those stay as for ELF, unconfirmed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "messages.h"
#include "ls_cuobjdump.h"
#include "ls_kernels.h"

struct nv_line {
	bool ptx;
	unsigned arch;
	const char *variant;	/* "", "a", "f": static strings */
	char *ident;		/* the identifier's base name, or NULL */
};

struct list {
	struct nv_line *v;
	size_t n, cap;
};

struct state {
	const struct rows *rs;	/* for -t only */
	const char *path;
	char *base;		/* the file's name as cuobjdump cuts it */
	size_t base_len;
	unsigned elf_n, ptx_n;
	bool device_code;
	/* The section the containers that follow are in: whether it is
	 * __nv_relfatbin, and whether cuobjdump reads it (.nv_fatbin too). */
	bool in_section, rel_section, nv_section;
	/* The container open is an NVIDIA fatbin where cuobjdump looks. */
	bool nv_container;
	struct list exec, rel;	/* of the input being walked */
	bool oom;
};

/* A path's last component without its last extension ("a" of
 * "/tmp/a.cu"; ".hid" of ".hid.o"): malloc'd, escaped for one line. */
static char *cut_name(const char *s, size_t len)
{
	const char *dot;
	size_t i = len;

	while (i && s[i - 1] != '/')
		i--;
	s += i;
	len -= i;
	dot = len ? memrchr(s, '.', len) : NULL;
	if (dot && dot > s)
		len = (size_t)(dot - s);
	return applet_escape(s, len, false);
}

static void list_free(struct list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].ident);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* A line is made by hand in a buffer written at once (printf's parsing
 * was half of a listing's instructions, issue 37). */
enum {
	LINE_MAX_BYTES = 256,
	/* what a line puts between two texts, and after the last: no more
	 * than ".4294967295.sm_4294967295" or ".cubin\n" */
	LINE_SLACK = 32,
};

/* len bytes at s after the n in buf (no more than LINE_MAX_BYTES -
 * LINE_SLACK after the text before put_text, and LINE_SLACK since): where
 * the line is now, no more than LINE_MAX_BYTES - LINE_SLACK.  A text that
 * would leave less goes out with what is before it. */
static size_t put_text(char *buf, size_t n, const char *s, size_t len)
{
	if (n + len > LINE_MAX_BYTES - LINE_SLACK) {
		fwrite(buf, 1, n, stdout);
		fwrite(s, 1, len, stdout);
		return 0;
	}
	memcpy(buf + n, s, len);
	return n + len;
}

/* v in decimal at out, at least width characters (spaces before), as
 * "%*u" prints it: the count (10 at most, for a width of 4). */
static size_t put_uint(char *out, unsigned v, size_t width)
{
	size_t digits = 1, len;
	char *p;

	for (unsigned t = v; t >= 10; t /= 10)
		digits++;
	len = digits < width ? width : digits;
	for (p = out; p < out + len - digits; p++)
		*p = ' ';
	p = out + len;
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return len;
}

/* "ELF file   12: NAME.12.sm_80a.cubin", or, named by an identifier,
 * "ELF file   12: IDENT.sm_80a.cubin". */
static void print_line(struct state *st, bool ptx, unsigned arch,
		       const char *variant, const char *ident)
{
	unsigned count = ptx ? ++st->ptx_n : ++st->elf_n;
	char buf[LINE_MAX_BYTES];
	size_t n;

	memcpy(buf, ptx ? "PTX file " : "ELF file ", 9);
	n = 9 + put_uint(buf + 9, count, 4);
	buf[n++] = ':';
	buf[n++] = ' ';
	if (ident)
		n = put_text(buf, n, ident, strlen(ident));
	else {
		n = put_text(buf, n, st->base, st->base_len);
		buf[n++] = '.';
		n += put_uint(buf + n, count, 0);
	}
	memcpy(buf + n, ".sm_", 4);
	n += 4;
	n += put_uint(buf + n, arch, 0);
	n = put_text(buf, n, variant, strlen(variant));
	if (ptx) {
		memcpy(buf + n, ".ptx\n", 5);
		n += 5;
	} else {
		memcpy(buf + n, ".cubin\n", 7);
		n += 7;
	}
	fwrite(buf, 1, n, stdout);
	st->device_code = true;
}

/* The input walked so far is over: its executable fatbins' entries, or
 * when it has none its relocatable ones. */
static void flush(struct state *st)
{
	struct list *l = st->exec.n ? &st->exec : &st->rel;

	for (size_t i = 0; i < l->n; i++)
		print_line(st, l->v[i].ptx, l->v[i].arch, l->v[i].variant,
			   l->v[i].ident);
	list_free(&st->exec);
	list_free(&st->rel);
}

static int add(struct state *st, const struct offcode_nv_entry *nv)
{
	struct list *l = st->in_section && st->rel_section ? &st->rel
							   : &st->exec;
	struct nv_line *e;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct nv_line *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	e = &l->v[l->n];
	e->ptx = nv->kind == OFFCODE_NV_PTX;
	e->arch = nv->arch;
	e->variant = nv->variant;
	e->ident = NULL;
	if (nv->identifier_len &&
	    !(e->ident = cut_name(nv->identifier, nv->identifier_len)))
		return -1;
	l->n++;
	return 0;
}

/* Whether a section is one cuobjdump reads, by its kind. */
static bool nv_section(const char *kind)
{
	return kind && (!strcmp(kind, "nv-fatbin") ||
			!strcmp(kind, "nv-relfatbin"));
}

/* Whether what is walked now is where cuobjdump looks: an NVIDIA fatbin
 * section, or a file of fatbins; and c an NVIDIA fatbin. */
static bool nv_place(const struct state *st, const offcode_container *c)
{
	return (!st->in_section || st->nv_section) &&
	       !strcmp(offcode_container_format(c), "nv-fatbin");
}

static int visit_input(struct state *st, const struct offcode_node *n)
{
	const char *name;
	size_t len;
	char *cut;
	unsigned sm;

	flush(st);
	st->in_section = st->nv_container = false;
	name = offcode_input_name(n->input, &len);
	if (n->depth == 1) {
		if (!(cut = applet_escape(name, len, false)))
			return -1;
		printf("\nmember %s:%s:\n", st->path, cut);
		free(cut);
	}
	/* A lone cubin, named as with an identifier. */
	if (offcode_input_cubin_arch(n->input, &sm)) {
		if (!(cut = n->depth ? cut_name(name, len)
				     : cut_name(st->path, strlen(st->path))))
			return -1;
		print_line(st, false, sm, "", cut);
		free(cut);
	}
	return 0;
}

static int visit(void *ctx, const struct offcode_node *n)
{
	struct state *st = ctx;
	struct offcode_nv_entry nv = { .size = sizeof(nv) };
	int rc;

	switch (n->kind) {
	case OFFCODE_NODE_INPUT:
		if (visit_input(st, n) < 0)
			return st->oom = true, -1;
		break;
	case OFFCODE_NODE_SECTION:
		st->in_section = true;
		st->nv_container = false;
		st->nv_section = nv_section(n->section_kind);
		st->rel_section = n->section_kind &&
				  !strcmp(n->section_kind, "nv-relfatbin");
		break;
	case OFFCODE_NODE_CONTAINER:
		/* A fatbin with no entries left (nvprune's, when nothing
		 * matched) is device code to cuobjdump: it lists nothing and
		 * succeeds. */
		st->nv_container = nv_place(st, n->container);
		if (st->nv_container)
			st->device_code = true;
		break;
	case OFFCODE_NODE_ENTRY:
		if (!st->nv_container)
			break;
		rc = offcode_entry_nv(n->entry, &nv);
		if (rc == OFFCODE_NOMEM)
			return st->oom = true, -1;
		if (rc || (nv.kind != OFFCODE_NV_PTX &&
			   nv.kind != OFFCODE_NV_ELF) ||
		    !ls_wanted_entry(st->rs, n->entry))
			break;
		if (add(st, &nv) < 0)
			return st->oom = true, -1;
		break;
	case OFFCODE_NODE_CONTAINER_END:
		break;
	}
	return 0;
}

int ls_cuobjdump(const struct rows *rs, const uint8_t *buf, size_t len,
		 const struct ls_cuobjdump_opts *o, offcode_error **err)
{
	struct state st = { .rs = rs, .path = rs->path };
	struct offcode_walk_options wo = {
		.size = sizeof(wo),
		/* a CCOB's code objects read one at a time as it inflates */
		.flags = (o->inflate ? OFFCODE_WALK_CODE : 0) |
			 (o->verify ? OFFCODE_WALK_VERIFY : 0),
		.ccob_max_size = o->ccob_max_size,
		.ccob_max_ratio = o->ccob_max_ratio,
		.progress = o->progress, .next_data = o->next_data,
		.reading = o->reading, .hint_ctx = o->hint_ctx,
	};
	int rc;

	*err = NULL;
	if (!(st.base = cut_name(rs->path, strlen(rs->path))))
		return -1;
	st.base_len = strlen(st.base);
	rc = offcode_walk_memory(buf, len, rs->path, &wo, visit, &st, err);
	if (!rc)
		flush(&st);
	list_free(&st.exec);
	list_free(&st.rel);
	free(st.base);
	/* (stopped by visit: out of memory, with no record, as the
	 * library's own) */
	if (rc)
		return -1;
	return st.device_code ? 0 : 1;
}
