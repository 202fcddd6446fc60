/* fatbin: the containers of a fat-binary section, one after another; see
 * fatbin.h. */
#include <stdlib.h>
#include <string.h>

#include "bundle.h"
#include "bundle_binary.h"
#include "fatbin.h"
#include "kpack.h"
#include "nvfatbin.h"
#include "package.h"
#include "../core/bytes.h"
#include "ccob_decode.h"

int fatbin_bundle_entries(const uint8_t *buf, size_t avail, uint64_t total,
			  struct fatbin_entry **ents, size_t *n,
			  uint64_t *header_end, uint64_t *extent, struct err *e)
{
	uint64_t count, pos = BUNDLE_MAGIC_LEN + 8, end;
	struct fatbin_entry *v = NULL;

	if (ents)
		*ents = NULL;
	*n = 0;
	if (avail > total)
		avail = (size_t)total;
	if (total < pos)
		return err_cut(e, "header cut short (%llu of %llu bytes)", (unsigned long long)total,
			       (unsigned long long)pos);
	if (avail < pos)
		return 0;
	if (memcmp(buf, BUNDLE_MAGIC, BUNDLE_MAGIC_LEN))
		return err_bad(e, "not an offload bundle");
	count = get_le(buf + BUNDLE_MAGIC_LEN, 8);
	/* Each entry takes 24 header bytes at least. */
	if (count > (total - pos) / 24)
		return err_cut(e, "%llu entries declared, more than its %llu "
			       "bytes can hold",
			       (unsigned long long)count,
			       (unsigned long long)total);
	if (ents && !(v = calloc(count ? (size_t)count : 1, sizeof(*v))))
		return err_nomem(e);
	end = pos;
	for (uint64_t i = 0; i < count; i++) {
		struct fatbin_entry one, *ent = v ? &v[i] : &one;
		uint64_t id_len;

		if (total - pos < 24) {
			err_cut(e, "header entry %llu of %llu is cut short", (unsigned long long)i + 1,
				(unsigned long long)count);
			goto fail;
		}
		if (avail - pos < 24)
			goto more;
		ent->offset = get_le(buf + pos, 8);
		ent->size = get_le(buf + pos + 8, 8);
		id_len = get_le(buf + pos + 16, 8);
		pos += 24;
		if (id_len > total - pos) {
			err_cut(e, "header entry %llu of %llu has an ID that "
				"runs past the end",
				(unsigned long long)i + 1,
				(unsigned long long)count);
			goto fail;
		}
		if (id_len > avail - pos)
			goto more;
		ent->id = (const char *)buf + pos;
		ent->id_len = (size_t)id_len;
		pos += id_len;
		if (ent->offset > total || ent->size > total - ent->offset) {
			err_cut(e, "entry '%.*s' has data past the end (offset "
				"%llu, size %llu, bundle %llu bytes)",
				(int)(ent->id_len > 200 ? 200 : ent->id_len),
				ent->id, (unsigned long long)ent->offset,
				(unsigned long long)ent->size,
				(unsigned long long)total);
			goto fail;
		}
		if (ent->offset + ent->size > end)
			end = ent->offset + ent->size;
	}
	if (ents)
		*ents = v;
	*n = (size_t)count;
	*header_end = pos;
	*extent = end > pos ? end : pos;
	return 1;
more:
	free(v);
	return 0;
fail:
	free(v);
	return -1;
}

/* ---- the spans of each kind ---- */

static int bundle_span(const uint8_t *p, size_t left,
		       const struct ccob_limits *lim, uint64_t *size,
		       struct err *e)
{
	uint64_t header_end;
	size_t n;

	(void)lim;
	/* Its extent only: no entry is held (a header may declare
	 * millions). */
	return fatbin_bundle_entries(p, left, left, NULL, &n, &header_end,
				     size, e) < 0 ? -1 : 0;
}

/* The extent of the CCOB at buf, as every reader finds it. */
static int ccob_span(const uint8_t *buf, size_t len,
		     const struct ccob_limits *lim, uint64_t *size,
		     struct err *e)
{
	struct ccob_header h;

	if (ccob_parse_header(buf, len, &h, e) < 0)
		return -1;
	return ccob_extent(buf, len, &h, lim, size, e);
}

static int package_span(const uint8_t *p, size_t left,
			const struct ccob_limits *lim, uint64_t *size,
			struct err *e)
{
	(void)lim;
	if (left < 16)
		return err_cut(e, "header cut short (%zu of 16 bytes)", left);
	*size = get_le(p + 8, 8);
	if (*size < 16 || *size > left)
		return err_bad(e, "size %llu is not between 16 and the %zu "
			       "bytes left", (unsigned long long)*size, left);
	/* A compressed package is padded to 8 without counting it. */
	while (*size % PACKAGE_ALIGN && *size < left && p[*size] == 0)
		++*size;
	return 0;
}

static int nv_span(const uint8_t *p, size_t left,
		   const struct ccob_limits *lim, uint64_t *size,
		   struct err *e)
{
	struct nvfatbin_header h;

	(void)lim;
	if (nvfatbin_open(p, left, &h, e) < 0)
		return -1;
	*size = h.total;
	return 0;
}

static bool bundle_probe(const uint8_t *p, size_t len)
{
	return len >= BUNDLE_MAGIC_LEN && !memcmp(p, BUNDLE_MAGIC,
						  BUNDLE_MAGIC_LEN);
}

_Static_assert(SECTION_KINDS <= 32, "a section kind is a bit of sections");
#define IN(s) (1u << (s))
/* The codec rows of the kinds this file knows (a new kind's is in its
 * own format file). */
const struct fatbin_codec fatbin_codec_bundle = {
	.what = "offload bundle", .probe = bundle_probe, .span = bundle_span,
	.sections = IN(SECTION_HIP_FATBIN),
};

const struct fatbin_codec fatbin_codec_object_bundle = {
	.what = "object bundle",
	.sections = IN(SECTION_BUNDLE),
};

const struct fatbin_codec fatbin_codec_ccob = {
	.what = "CCOB", .probe = ccob_is, .span = ccob_span,
	.sections = IN(SECTION_HIP_FATBIN),
};

const struct fatbin_codec fatbin_codec_package = {
	.what = "offload package", .probe = package_is, .span = package_span,
	.sections = IN(SECTION_OFFLOADING),
};

const struct fatbin_codec fatbin_codec_nv = {
	.what = "NVIDIA fatbin", .probe = nvfatbin_is, .span = nv_span,
	.sections = IN(SECTION_NV_FATBIN) | IN(SECTION_NV_RELFATBIN),
};

const struct fatbin_codec fatbin_codec_kpack = {
	.what = "kpack archive", .probe = kpack_probe,
	.whole_file = true,
};
#undef IN

/* The table, made from kinds.def: a kind whose row is not defined does
 * not link. */
#define KIND(e, name) extern const struct fatbin_codec fatbin_codec_##name;
#include "kinds.def"
#undef KIND
const struct fatbin_codec *const fatbin_codecs[FATBIN_KINDS] = {
#define KIND(e, name) [FATBIN_##e] = &fatbin_codec_##name,
#include "kinds.def"
#undef KIND
};

bool fatbin_in_section(enum fatbin_kind k, enum section_kind s)
{
	return fatbin_codecs[k]->sections & (1u << s);
}

bool fatbin_section_holds(enum section_kind s)
{
	for (unsigned k = 0; k < FATBIN_KINDS; k++)
		if (fatbin_in_section((enum fatbin_kind)k, s))
			return true;
	return false;
}

bool fatbin_probe(const uint8_t *buf, size_t len, enum fatbin_kind *kind)
{
	for (unsigned k = 0; k < FATBIN_KINDS; k++)
		if (fatbin_codecs[k]->probe && !fatbin_codecs[k]->whole_file &&
		    fatbin_codecs[k]->probe(buf, len)) {
			*kind = (enum fatbin_kind)k;
			return true;
		}
	return false;
}

bool fatbin_probe_file(const uint8_t *buf, size_t len,
		       enum fatbin_kind *kind)
{
	for (unsigned k = 0; k < FATBIN_KINDS; k++)
		if (fatbin_codecs[k]->whole_file &&
		    fatbin_codecs[k]->probe(buf, len)) {
			*kind = (enum fatbin_kind)k;
			return true;
		}
	return fatbin_probe(buf, len, kind) &&
	       (*kind != FATBIN_BUNDLE || bundle_is_binary(buf, len));
}

int fatbin_next(const uint8_t *buf, size_t len, uint64_t *pos,
		const struct ccob_limits *lim, struct fatbin_item *it,
		struct err *e)
{
	uint64_t at = *pos, size = 0;
	const uint8_t *p;
	size_t left;

	while (at < len && buf[at] == 0)
		at++;
	if (at >= len) {
		*pos = len;
		return 0;
	}
	p = buf + at;
	left = len - (size_t)at;
	memset(it, 0, sizeof(*it));
	it->offset = at;
	if (!fatbin_probe(p, left, &it->kind)) {
		it->unknown = true;
		return err_bad(e, "neither zero padding nor an offload bundle, "
			       "CCOB, offload package or NVIDIA fatbin");
	}
	if (fatbin_codecs[it->kind]->span(p, left, lim, &size, e) < 0)
		return -1;
	it->size = size;
	*pos = at + size;
	return 1;
}

const char *fatbin_item_name(const struct fatbin_item *it)
{
	return it->unknown ? "unrecognised bytes" : fatbin_codecs[it->kind]->what;
}
