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
#include "selection.h"
#include "../ops/inspect.h"
#include "../formats/fatbin.h"
#include "../core/bytes.h"

enum { EM_CUDA_MACHINE = 190 };

struct nv_line {
	bool ptx;
	unsigned arch;
	const char *suffix;	/* "", "a", "f": static strings */
	char *ident;		/* the identifier's base name, or NULL */
};

struct list {
	struct nv_line *v;
	size_t n, cap;
};

struct state {
	const struct rows *rs;	/* for -t only */
	const uint8_t *buf;
	const char *path;
	char *base;		/* the file's name as cuobjdump cuts it */
	unsigned elf_n, ptx_n;
	bool device_code;
	enum section_kind section;	/* of the entries that follow */
	bool in_section;
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

static void print_line(struct state *st, bool ptx, unsigned arch,
		       const char *suffix, const char *ident)
{
	unsigned n = ptx ? ++st->ptx_n : ++st->elf_n;

	if (ident)
		printf("%s file %4u: %s.sm_%u%s.%s\n", ptx ? "PTX" : "ELF", n,
		       ident, arch, suffix, ptx ? "ptx" : "cubin");
	else
		printf("%s file %4u: %s.%u.sm_%u%s.%s\n", ptx ? "PTX" : "ELF",
		       n, st->base, n, arch, suffix, ptx ? "ptx" : "cubin");
	st->device_code = true;
}

/* The input walked so far is over: its executable fatbins' entries, or
 * when it has none its relocatable ones. */
static void flush(struct state *st)
{
	struct list *l = st->exec.n ? &st->exec : &st->rel;

	for (size_t i = 0; i < l->n; i++)
		print_line(st, l->v[i].ptx, l->v[i].arch, l->v[i].suffix,
			   l->v[i].ident);
	list_free(&st->exec);
	list_free(&st->rel);
}

static int add(struct state *st, const struct inspect_node *n)
{
	struct list *l = st->in_section && st->section == SECTION_NV_RELFATBIN
			 ? &st->rel : &st->exec;
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
	e->ptx = n->nv.kind == NVFATBIN_PTX;
	e->arch = n->nv.arch;
	e->suffix = nvfatbin_arch_suffix(&n->nv);
	e->ident = NULL;
	if (n->nv.ident_len &&
	    !(e->ident = cut_name((const char *)n->nv_base + n->nv.ident_offset,
				  n->nv.ident_len)))
		return -1;
	l->n++;
	return 0;
}

/* A lone cubin's SM, from its ELF header's e_flags (bits 0-7, or 8-15
 * from ABI version 8: CUDA 12.8 and later); 0 when it is no cubin. */
static unsigned cubin_sm(const uint8_t *p, uint64_t len)
{
	uint64_t flags;

	if (len < 52 || memcmp(p, "\x7f" "ELF", 4) || p[5] != 1 ||
	    get_le(p + 18, 2) != EM_CUDA_MACHINE)
		return 0;
	if (p[4] == 2 && len < 64)
		return 0;
	flags = get_le(p + (p[4] == 2 ? 48 : 36), 4);
	return (unsigned)(p[8] >= 8 ? (flags >> 8) & 0xff : flags & 0xff);
}

/* Whether what is walked now is where cuobjdump looks: an NVIDIA fatbin
 * section, or a file of fatbins. */
static bool nv_place(const struct state *st)
{
	return !st->in_section || fatbin_in_section(FATBIN_NV, st->section);
}

/* Whether -t takes the entry (all do without -t; host entries never
 * with it), as ls_kernels.h's ls_wanted_entry of the public walk's.  Out
 * of memory, it is left out. */
static bool wanted(const struct rows *rs, const struct inspect_node *n)
{
	struct applet_entry ae;
	bool take;

	if (!rs->targets || !rs->targets->n)
		return true;
	if (applet_entry_of(&ae, n) < 0)
		return false;
	take = !ae.en.host && select_match(rs->targets, &ae.en);
	applet_entry_free(&ae);
	return take;
}

static int visit(void *ctx, const struct inspect_node *n)
{
	struct state *st = ctx;
	char *name;
	unsigned sm;

	switch (n->kind) {
	case INSPECT_INPUT:
		flush(st);
		st->in_section = false;
		if (n->depth == 1) {
			name = applet_escape(n->name, n->name_len, false);
			if (!name)
				return st->oom = true, -1;
			printf("\nmember %s:%s:\n", st->path, name);
			free(name);
		}
		if (n->format == INSPECT_ELF && n->in_file &&
		    (sm = cubin_sm(st->buf + n->offset, n->size))) {
			name = cut_name(n->depth ? n->name : st->path,
					n->depth ? n->name_len : strlen(st->path));
			if (!name)
				return st->oom = true, -1;
			print_line(st, false, sm, "", name);
			free(name);
		}
		break;
	case INSPECT_SECTION:
		st->in_section = true;
		st->section = n->section_kind;
		break;
	case INSPECT_CONTAINER:
		/* A fatbin with no entries left (nvprune's, when nothing
		 * matched) is device code to cuobjdump: it lists nothing and
		 * succeeds. */
		if (n->container == FATBIN_NV && nv_place(st))
			st->device_code = true;
		break;
	case INSPECT_ENTRY:
		if (n->container != FATBIN_NV ||
		    (n->nv.kind != NVFATBIN_PTX && n->nv.kind != NVFATBIN_ELF) ||
		    !nv_place(st) || !wanted(st->rs, n))
			break;
		if (add(st, n) < 0)
			return st->oom = true, -1;
		break;
	default:
		break;
	}
	return 0;
}

int ls_cuobjdump(const struct rows *rs, const uint8_t *buf, size_t len,
		 const struct ls_cuobjdump_opts *o, struct err *e)
{
	struct state st = { .rs = rs, .buf = buf, .path = rs->path };
	struct inspect_opts walk = {
		.inflate = o->inflate, .no_hash = !o->verify,
		/* a CCOB's code objects read one at a time as it inflates */
		.stream = true, .accept_other = true,
		.ccob = { .max_ratio = o->ccob_max_ratio ? o->ccob_max_ratio
							 : CCOB_DEFAULT_MAX_RATIO,
			  .max_size = o->ccob_max_size ? o->ccob_max_size
						       : CCOB_DEFAULT_MAX_SIZE,
			  .progress = o->progress },
		.package = { .max_ratio = PACKAGE_DEFAULT_MAX_RATIO,
			     .max_size = PACKAGE_DEFAULT_MAX_SIZE },
		.next_data = o->next_data, .reading = o->reading,
		.data_ctx = o->hint_ctx,
	};
	int rc;

	if (!(st.base = cut_name(rs->path, strlen(rs->path))))
		return err_nomem(e);
	rc = inspect_walk(buf, len, &walk, visit, &st, e);
	if (st.oom)
		rc = err_nomem(e);
	if (!rc)
		flush(&st);
	list_free(&st.exec);
	list_free(&st.rel);
	free(st.base);
	if (rc)
		return -1;
	return st.device_code ? 0 : 1;
}
