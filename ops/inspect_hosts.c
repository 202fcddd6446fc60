/* inspect_hosts: the walk of each host format (ops/hosts.c calls them):
 * an ELF file's or a COFF object's offload sections and object bundle, a
 * bitcode module's packages, an archive's members, a file of containers,
 * a text bundle; and the containers of a region, one after another. */
#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/ar.h"
#include "../formats/bitcode_embed.h"
#include "../formats/bundle_reader.h"
#include "../formats/bundle_text.h"
#include "../formats/coff.h"
#include "../formats/fatbin.h"
#include "../formats/package.h"
#include "inspect_containers.h"
#include "inspect_hosts.h"
#include "inspect_nv.h"
#include "inspect_walk.h"
#include "kinds.h"
#include "../core/bytes.h"
#include "../core/elfscan.h"
#include "../core/sections.h"

/* Archives inside archives are walked this deep, no deeper. */
enum { MAX_NESTING = 8 };

static int name_width(size_t len)
{
	return len > 200 ? 200 : (int)len;
}

/* The first byte of buf[pos, stop) that is not zero, or stop: a word at
 * a time. */
static uint64_t zeros_end(const uint8_t *buf, uint64_t pos, uint64_t stop)
{
	for (; stop - pos >= 8; pos += 8) {
		uint64_t word;

		memcpy(&word, buf + pos, 8);
		if (word)
			break;
	}
	while (pos < stop && !buf[pos])
		pos++;
	return pos;
}

/* Past the zero padding at buf[pos] (buf starts at file offset base).
 * Padding up to the next container's alignment is looked at to the end of
 * the page it is in, with no system call (a question about holes for each
 * container cost one each); a run of zeros that goes on into the next
 * page asks where the data go on: holes of a sparse file are skipped
 * unread, the rest looked at in steps of PAD_STEP between two questions. */
enum { PAD_PAGE = 4096, PAD_STEP = 1 << 20 };
static uint64_t skip_padding(struct walk *w, const uint8_t *buf, size_t len,
			     uint64_t base, uint64_t pos)
{
	while (pos < len && !buf[pos]) {
		uint64_t stop = PAD_PAGE - (base + pos) % PAD_PAGE;

		if (stop == PAD_PAGE && w->o->next_data) {
			uint64_t d = w->o->next_data(w->o->data_ctx, base + pos);

			if (d > base + pos) {
				pos = d - base < len ? d - base : len;
				continue;
			}
			stop = PAD_STEP;
		}
		pos = zeros_end(buf, pos, len - pos > stop ? pos + stop : len);
	}
	return pos;
}

int inspect_walk_containers(struct walk *w, const uint8_t *buf, size_t len,
			    uint64_t base, unsigned depth)
{
	struct fatbin_item it;
	struct nv_ahead *outer = w->nv;
	uint64_t pos = 0;
	int rc;

	w->nv = NULL;
	for (;;) {
		const uint8_t *p;
		struct inspect_node c;
		enum fatbin_kind k;

		pos = skip_padding(w, buf, len, base, pos);
		/* The first NVIDIA fatbin (entries each compressed on their
		 * own): its entries and those of the fatbins after it are
		 * decoded ahead. */
		if (w->o->inflate && !w->nv &&
		    fatbin_probe(buf + pos, len - pos, &k) &&
		    kinds_get(k)->entry_coded)
			w->nv = inspect_nv_ahead_start(w, buf, len, base, pos);
		rc = fatbin_next(buf, len, &pos, &w->o->ccob, &it, w->e);
		if (rc <= 0)
			break;
		p = buf + it.offset;
		c = (struct inspect_node){
			.kind = INSPECT_CONTAINER, .depth = depth,
			.number = w->containers++, .offset = base + it.offset,
			.size = it.size, .in_file = true,
			.container = it.kind,
		};
		rc = kinds_get(it.kind)->walk(w, &c, p, it.size);
		if (rc < 0)
			break;
	}
	inspect_nv_ahead_end(w->nv);
	w->nv = outer;
	if (rc < 0)
		return inspect_where(w, "%s at offset %llu",
				     fatbin_item_name(&it),
				     (unsigned long long)(base + it.offset));
	return 0;
}

/* ---- the formats ---- */

/* A section that carries offload code, in an ELF or COFF object. */
struct offload_section {
	uint32_t index;
	const char *name;
	size_t name_len;
	enum section_kind kind;
	uint64_t offset, size;	/* offset 0 for NOBITS */
};

/* The sections of an object, then its object bundle (one entry per
 * __CLANG_OFFLOAD_BUNDLE__ section, in section order) if it has one. */
static int walk_sections(struct walk *w, const struct inspect_node *in,
			 const uint8_t *buf, size_t len, uint64_t base,
			 const struct offload_section *sec, size_t n)
{
	size_t nbundle = 0;

	for (size_t i = 0; i < n; i++) {
		struct inspect_node sn = {
			.kind = INSPECT_SECTION, .depth = in->depth + 1,
			.name = sec[i].name, .name_len = sec[i].name_len,
			.section_index = sec[i].index,
			.section_kind = sec[i].kind,
			.offset = base + sec[i].offset, .size = sec[i].size,
			.in_file = true,
		};
		bool entry = fatbin_in_section(FATBIN_OBJECT_BUNDLE,
					       sec[i].kind);

		nbundle += entry;
		if (entry || !sec[i].size)
			continue;
		if (inspect_emit(w, &sn) < 0)
			return -1;
		if (inspect_walk_containers(w, buf + sec[i].offset,
					    (size_t)sec[i].size,
					    base + sec[i].offset,
					    in->depth + 2) < 0)
			return inspect_where(w, "section %.*s",
				     name_width(sec[i].name_len), sec[i].name);
	}
	if (nbundle) {
		struct inspect_node c = {
			.kind = INSPECT_CONTAINER, .depth = in->depth + 1,
			.container = FATBIN_OBJECT_BUNDLE,
			.number = w->containers++, .entries = nbundle,
			.in_file = true, .offset = base, .size = len,
		};
		unsigned k = 0;

		if (inspect_emit(w, &c) < 0)
			return -1;
		for (size_t i = 0; i < n; i++) {
			struct inspect_node en = {
				.kind = INSPECT_ENTRY, .depth = c.depth + 1,
				.container = FATBIN_OBJECT_BUNDLE,
				.number = c.number, .index = k,
				.entry_section = sec[i].index, .in_file = true,
				.offset = base + sec[i].offset,
				.size = sec[i].size,
				.data = buf + sec[i].offset,
			};

			if (!fatbin_in_section(FATBIN_OBJECT_BUNDLE,
					       sec[i].kind) ||
			    !sections_id(sec[i].kind, sec[i].name,
					 sec[i].name_len, &en.name,
					 &en.name_len))
				continue;
			if (w->o->image_kinds)
				en.image_kind = inspect_sniff_image(en.data,
								    en.size);
			k++;
			if (inspect_emit(w, &en) < 0)
				return -1;
		}
	}
	return 0;
}

int inspect_walk_elf(struct walk *w, struct inspect_node *in,
		     const uint8_t *buf, size_t len, uint64_t base)
{
	struct offload_section *sec;
	struct elfscan s;
	size_t n = 0;
	int rc = -1;

	in->format = INSPECT_ELF;
	if (elfscan_open(&s, buf, len, w->e) < 0)
		return -1;
	in->is64 = s.is64;
	in->big_endian = s.big_endian;
	in->elf_type = s.e_type;
	in->machine = s.machine;
	sec = calloc(s.n ? s.n : 1, sizeof(*sec));
	if (!sec) {
		err_nomem(w->e);
		goto out;
	}
	for (size_t i = 1; i < s.n; i++) {
		uint64_t size;

		if (!fatbin_section_holds(s.sec[i].kind))
			continue;
		(void)elfscan_bytes(&s, buf, i, &size);
		sec[n++] = (struct offload_section){
			.index = s.sec[i].index, .name = s.sec[i].name,
			.name_len = s.sec[i].name_len, .kind = s.sec[i].kind,
			.offset = s.sec[i].type == SHT_NOBITS ? 0
				  : s.sec[i].offset,
			.size = size,
		};
	}
	if (inspect_emit(w, in) == 0)
		rc = walk_sections(w, in, buf, len, base, sec, n);
out:
	free(sec);
	elfscan_free(&s);
	return rc;
}

struct coff_list {
	struct offload_section *v;
	size_t n, cap;
	bool image;
	const uint8_t *buf;
};

static bool coff_wanted(void *ctx, const char *name, size_t len)
{
	const struct coff_list *l = ctx;

	return fatbin_section_holds(sections_coff_kind(name, len, l->image));
}

static int coff_add(void *ctx, const struct coff_section *cs, struct err *e)
{
	struct coff_list *l = ctx;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 8;
		struct offload_section *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return err_nomem(e);
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n] = (struct offload_section){
		.index = cs->index, .name = cs->name, .name_len = cs->name_len,
		.kind = sections_coff_kind(cs->name, cs->name_len, l->image),
		.offset = cs->offset, .size = cs->size,
	};
	/* A MinGW image's .llvm: its packages alone, when it starts with
	 * them. */
	if (l->image && sections_image_merged(cs->name, cs->name_len) &&
	    !(l->v[l->n].size = package_run(l->buf + cs->offset,
					    (size_t)cs->size)))
		return 0;
	l->n++;
	return 0;
}

static int walk_coff_file(struct walk *w, struct inspect_node *in,
			  const uint8_t *buf, size_t len, uint64_t base)
{
	struct coff_list l = { .image = in->format == INSPECT_PE, .buf = buf };
	int rc = -1;

	if (in->format == INSPECT_PE) {
		struct coff_header h;

		if (coff_read_header(buf, len, &h, w->e) < 0)
			return -1;
		in->is64 = h.pe32plus;
		in->dll = h.characteristics & 0x2000;	/* IMAGE_FILE_DLL */
	}
	if (coff_sections(buf, len, coff_wanted, coff_add, &l, &in->machine,
			  &in->bigobj, w->e) == 0 && inspect_emit(w, in) == 0)
		rc = walk_sections(w, in, buf, len, base, l.v, l.n);
	free(l.v);
	return rc;
}

int inspect_walk_pe(struct walk *w, struct inspect_node *in,
		    const uint8_t *buf, size_t len, uint64_t base)
{
	in->format = INSPECT_PE;
	return walk_coff_file(w, in, buf, len, base);
}

int inspect_walk_coff(struct walk *w, struct inspect_node *in,
		      const uint8_t *buf, size_t len, uint64_t base)
{
	in->format = INSPECT_COFF;
	return walk_coff_file(w, in, buf, len, base);
}

/* The packages a bitcode module embeds (clang -flto), each a container
 * whose bytes are the module's array's (formats/bitcode.h), not the
 * file's. */
struct bitcode_walk {
	struct walk *w;
	unsigned depth;
	uint64_t base;
};

static int bitcode_object(void *ctx, uint8_t *data, size_t len)
{
	struct bitcode_walk *bw = ctx;
	struct walk *w = bw->w;
	size_t pos = 0;
	int rc = 0;

	if (!package_is(data, len)) {
		w->containers++;
		goto out;
	}
	/* Each package of the array a container, as a section's are (clang
	 * -flto of LLVM 22 embeds one per image); zeros may end it. */
	while (pos < len && rc >= 0) {
		struct inspect_node c = {
			.kind = INSPECT_CONTAINER, .depth = bw->depth,
			.number = w->containers++, .container = FATBIN_PACKAGE,
			.in_bitcode = true,
		};
		uint64_t size = len - pos >= 16 ? get_le(data + pos + 8, 8) : 0;
		size_t span = len - pos;

		if (pos && !package_is(data + pos, len - pos)) {
			size_t z = pos;

			while (z < len && !data[z])
				z++;
			if (z == len) {
				w->containers--;
				break;
			}
		} else if (size && size <= len - pos) {
			size = (size + 7) & ~(uint64_t)7;
			span = size < len - pos ? (size_t)size : len - pos;
		}
		c.size = span;
		rc = kinds_get(FATBIN_PACKAGE)->walk(w, &c, data + pos, span);
		pos += span;
	}
	if (rc < 0)
		inspect_where(w, "the package embedded in the module");
out:
	free(data);
	return rc < 0 ? -1 : 0;
}

int inspect_walk_bitcode(struct walk *w, struct inspect_node *in,
			 const uint8_t *buf, size_t len, uint64_t base)
{
	struct bitcode_walk bw = { w, in->depth + 1, base };

	in->format = INSPECT_HOST;
	if (inspect_emit(w, in) < 0)
		return -1;
	return bitcode_embedded_objects(buf, len, bitcode_object, &bw, w->e);
}

/* Each member walked as an input (w->input), its header checked whole;
 * archives nested deeper than MAX_NESTING are files of no format. */
int inspect_walk_archive(struct walk *w, struct inspect_node *in,
			 const uint8_t *buf, size_t len, uint64_t base)
{
	struct ar_reader r;
	struct ar_member m;
	int rc;

	if (in->depth >= MAX_NESTING)
		return inspect_walk_other(w, in, buf, len);
	in->format = INSPECT_ARCHIVE;
	if (ar_open(&r, buf, len, w->e) < 0 || inspect_emit(w, in) < 0)
		return -1;
	while ((rc = ar_next(&r, &m, w->e)) > 0) {
		struct ar_attrs a;

		/* Its header whole, as prune, which writes it again, reads
		 * it. */
		if (ar_member_attrs(&r, &m, &a, w->e) < 0)
			return -1;
		if (m.thin) {
			struct inspect_node t = {
				.kind = INSPECT_INPUT, .depth = in->depth + 1,
				.format = INSPECT_THIN_MEMBER, .name = m.name,
				.name_len = m.name_len, .size = m.size,
			};

			if (inspect_emit(w, &t) < 0)
				return -1;
			continue;
		}
		if (w->input(w, buf + m.offset, (size_t)m.size, base + m.offset,
			       in->depth + 1, m.name, m.name_len) < 0)
			return inspect_where(w, "member %.*s",
					     name_width(m.name_len), m.name);
	}
	return rc;
}

/* Text, as far as its first 4 KiB tell: printable ASCII, tabs and line
 * ends (a linker script such as libc.so, a .def file). */
static bool is_text(const uint8_t *buf, size_t len)
{
	if (!len)
		return false;
	for (size_t i = 0; i < len && i < 4096; i++)
		if (!((buf[i] >= 0x20 && buf[i] < 0x7f) || buf[i] == '\n' ||
		      buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\f'))
			return false;
	return true;
}

/* A linker script, as the ones glibc installs as libc.so: a GNU ld
 * command that names inputs (GROUP, INPUT) or the output format. */
static bool is_ld_script(const uint8_t *buf, size_t len)
{
	static const char *const cmds[] = { "GROUP", "INPUT", "OUTPUT_FORMAT" };
	size_t n = len < 4096 ? len : 4096;

	for (size_t i = 0; i < n; i++)
		for (size_t c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++) {
			size_t k = strlen(cmds[c]), j = i + k;

			if (n - i < k || memcmp(buf + i, cmds[c], k) ||
			    (i && buf[i - 1] != '\n' && buf[i - 1] != ' ' &&
			     buf[i - 1] != '\t'))
				continue;
			while (j < n && (buf[j] == ' ' || buf[j] == '\t'))
				j++;
			if (j < n && buf[j] == '(')
				return true;
		}
	return false;
}

/* A file that is one container of a whole-file kind (a kpack archive). */
static int walk_whole(struct walk *w, enum fatbin_kind kind,
		      const uint8_t *buf, size_t len, uint64_t base,
		      unsigned depth)
{
	struct inspect_node c = {
		.kind = INSPECT_CONTAINER, .depth = depth,
		.number = w->containers++, .offset = base, .size = len,
		.in_file = true, .container = kind,
	};

	if (kinds_get(kind)->walk(w, &c, buf, len) < 0)
		return inspect_where(w, "%s", fatbin_codecs[kind]->what);
	return 0;
}

int inspect_walk_bare(struct walk *w, struct inspect_node *in,
		      const uint8_t *buf, size_t len, uint64_t base)
{
	enum fatbin_kind kind;

	in->format = INSPECT_RAW;
	/* (the host table's probe found a container: none now is bytes
	 * changed since, a buffer another thread writes or a file rewritten
	 * in place under its map) */
	if (!fatbin_probe_file(buf, len, &kind))
		return err_code_set(w->e, ERR_CHANGED, "changed while it was read");
	if (inspect_emit(w, in) < 0)
		return -1;
	if (!fatbin_codecs[kind]->whole_file)
		return inspect_walk_containers(w, buf, len, base,
					       in->depth + 1);
	return walk_whole(w, kind, buf, len, base, in->depth + 1);
}

/* A text bundle: one bundle of entries in the file, each the bytes
 * between its START and END lines; checked whole before it is visited
 * (its node says how many entries), as prune reads it. */
int inspect_walk_text_bundle(struct walk *w, struct inspect_node *in,
			     const uint8_t *buf, size_t len, uint64_t base)
{
	char comment[BUNDLE_TEXT_COMMENT_MAX];
	struct inspect_node c = {
		.kind = INSPECT_CONTAINER, .depth = in->depth + 1,
		.container = FATBIN_BUNDLE, .offset = base, .size = len,
		.in_file = true,
	};
	struct bundle_reader r;
	struct bundle_entry ent;
	uint64_t off, size;

	in->format = INSPECT_RAW;
	if (!bundle_text_comment(buf, len, comment, sizeof(comment)))
		return err_code_set(w->e, ERR_MALFORMED, "no text bundle");
	bundle_open_text(&r, comment, buf, len);
	while (bundle_next_text(&r, &ent) == 1) {
		if (bundle_content_text(&r, &off, &size, w->e) < 0)
			return -1;
		c.entries++;
	}
	c.number = w->containers++;
	if (inspect_emit(w, in) < 0 || inspect_emit(w, &c) < 0)
		return -1;
	bundle_open_text(&r, comment, buf, len);
	for (unsigned i = 0; bundle_next_text(&r, &ent) == 1; i++) {
		struct inspect_node en = {
			.kind = INSPECT_ENTRY, .depth = c.depth + 1,
			.container = FATBIN_BUNDLE, .number = c.number,
			.index = i, .name = ent.id, .name_len = ent.id_len,
			.in_file = true,
		};

		if (bundle_content_text(&r, &off, &size, w->e) < 0)
			return -1;
		en.offset = base + off;
		en.size = size;
		en.data = buf + off;
		if (inspect_emit(w, &en) < 0)
			return -1;
	}
	return 0;
}

int inspect_walk_other(struct walk *w, struct inspect_node *in,
		       const uint8_t *buf, size_t len)
{
	in->format = is_text(buf, len) ? INSPECT_TEXT : INSPECT_OTHER;
	in->ld_script = in->format == INSPECT_TEXT && is_ld_script(buf, len);
	return inspect_emit(w, in);
}

