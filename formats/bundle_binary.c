/* bundle_binary: the binary __CLANG_OFFLOAD_BUNDLE__ layout (bc, gch, ast). */
#include <stdlib.h>
#include <string.h>

#include "bundle.h"
#include "bundle_binary.h"
#include "../core/bytes.h"

static void put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

int bundle_plan_binary(const char *const *ids, const uint64_t *sizes, size_t n,
		       uint64_t align, struct bundle_plan *plan, struct err *e)
{
	uint64_t head = BUNDLE_MAGIC_LEN + 8, pos;
	uint64_t *offset = NULL;
	struct strmap last = { 0 };
	uint8_t *p;

	memset(plan, 0, sizeof(*plan));
	if (!align)
		return err_set(e, "bundle alignment must not be 0");
	for (size_t i = 0; i < n; i++)
		head += 24 + strlen(ids[i]);
	offset = calloc(n ? n : 1, sizeof(*offset));
	plan->piece = calloc(n + 1, sizeof(*plan->piece));
	plan->storage = malloc(head);
	if (!offset || !plan->piece || !plan->storage)
		goto nomem;

	p = plan->storage;
	memcpy(p, BUNDLE_MAGIC, BUNDLE_MAGIC_LEN);
	put_u64(p + BUNDLE_MAGIC_LEN, n);
	p += BUNDLE_MAGIC_LEN + 8;
	pos = head;
	for (size_t i = 0; i < n; i++) {
		size_t id_len = strlen(ids[i]);

		if (pos % align && pos / align == UINT64_MAX / align)
			goto overflow;
		pos = (pos + align - 1) / align * align;
		offset[i] = pos;
		if (sizes[i] > UINT64_MAX - pos)
			goto overflow;
		pos += sizes[i];
		put_u64(p, offset[i]);
		put_u64(p + 8, sizes[i]);
		put_u64(p + 16, id_len);
		memcpy(p + 24, ids[i], id_len);
		p += 24 + id_len;
		/* LLVM pads each input up to the offset it recorded for that
		 * ID; when two targets standardise to the same ID the later
		 * offset wins for both (a corrupt bundle, byte for byte). */
		if (strmap_set(&last, ids[i], id_len, i) < 0)
			goto nomem;
	}

	plan->piece[0] = (struct bundle_piece){ plan->storage, head, 0, -1 };
	plan->n = 1;
	pos = head;
	for (size_t i = 0; i < n; i++) {
		uint32_t b = strmap_find(&last, ids[i], strlen(ids[i]));
		uint64_t at = offset[last.b[b].value];
		uint64_t pad = at > pos ? at - pos : 0;

		plan->piece[plan->n++] = (struct bundle_piece){ NULL, 0, pad,
								(long)i };
		pos += pad + sizes[i];
	}
	plan->total = pos;
	free(offset);
	strmap_free(&last);
	return 0;
overflow:
	free(offset);
	strmap_free(&last);
	bundle_plan_free(plan);
	return err_set(e, "bundle size overflows 64 bits");
nomem:
	free(offset);
	strmap_free(&last);
	bundle_plan_free(plan);
	return err_nomem(e);
}

bool bundle_is_binary(const uint8_t *buf, size_t len)
{
	return len > BUNDLE_MAGIC_LEN && !memcmp(buf, BUNDLE_MAGIC,
						 BUNDLE_MAGIC_LEN);
}

/* Read order is LLVM's: the header fills a StringMap (a repeated ID keeps its
 * first slot and takes the later offset), then the map is walked. */
int bundle_open_binary(struct bundle_reader *r, const uint8_t *buf, size_t len,
		       struct err *e)
{
	size_t need;

	return bundle_open_binary_part(r, buf, len, len, &need, e);
}

int bundle_open_binary_part(struct bundle_reader *r, const uint8_t *buf,
			    size_t got, size_t len, size_t *need, struct err *e)
{
	uint64_t count, pos = BUNDLE_MAGIC_LEN + 8;
	size_t cap = 0, have = 0;

	memset(r, 0, sizeof(*r));
	r->buf = buf;
	r->len = len;
	/* The magic and the count, or the bytes to tell they are not. */
	if (got < pos && len > got) {
		*need = pos < len ? pos : len;
		return 1;
	}
	if (!bundle_is_binary(buf, len) || len < pos)
		return 0;
	count = get_le(buf + BUNDLE_MAGIC_LEN, 8);
	for (uint64_t i = 0; i < count; i++) {
		uint64_t off, size, id_len;
		const char *why = NULL;
		enum err_code code = ERR_TRUNCATED;	/* what why says */
		bool wrapped = false;

		if (len - pos >= 24 && got - pos < 24) {
			bundle_close(r);
			*need = (size_t)pos + 24;
			return 1;
		}
		if (len - pos < 24) {
			why = "is cut short";
		} else if (get_le(buf + pos + 16, 8) <= len - pos - 24 &&
			   get_le(buf + pos + 16, 8) > got - pos - 24) {
			bundle_close(r);
			*need = (size_t)(pos + 24 + get_le(buf + pos + 16, 8));
			return 1;
		} else {
			off = get_le(buf + pos, 8);
			size = get_le(buf + pos + 8, 8);
			id_len = get_le(buf + pos + 16, 8);
			if (id_len > len - pos - 24) {
				why = "has an ID that runs past the end of the file";
				/* LLVM's test of the ID wraps at 2^64 for a
				 * length near it; with a sound offset it then
				 * reads the ID past the end (and crashes). */
				wrapped = id_len > UINT64_MAX - (pos + 24) &&
					  off && off + size <= len;
			} else if (!off) {
				why = "has offset 0";
				code = ERR_MALFORMED;
			} else if (off + size > len)
				/* LLVM's own test, wrapping at 2^64; a wrapped
				 * entry passes here and is caught on reading. */
				why = "has data past the end of the file";
		}
		if (why) {
			/* LLVM treats a bad first entry as "no bundles" and
			 * crashes on a later one; we report the later one. */
			if (i == 0 && !wrapped) {
				bundle_close(r);
				r->buf = buf;
				r->len = len;
				return 0;
			}
			bundle_close(r);
			return err_code_set(e, code, "bundle header entry %llu "
					    "of %llu %s", (unsigned long long)i + 1,
					    (unsigned long long)count, why);
		}
		/* A repeated ID takes the later offset in its first slot:
		 * memory in proportion to the IDs, not to the entries. */
		{
			uint32_t b = strmap_find(&r->entries,
						 (const char *)buf + pos + 24,
						 (size_t)id_len);

			if (b < r->entries.nb) {
				r->off[r->entries.b[b].value] = off;
				r->size[r->entries.b[b].value] = size;
				pos += 24 + id_len;
				continue;
			}
		}
		if (have == cap) {
			size_t ncap = cap ? cap * 2 : 8;
			uint64_t *noff = realloc(r->off, ncap * sizeof(*noff));
			uint64_t *nsize;

			if (noff)
				r->off = noff;
			nsize = noff ? realloc(r->size, ncap * sizeof(*nsize)) : NULL;
			if (!nsize) {
				bundle_close(r);
				return err_nomem(e);
			}
			r->size = nsize;
			cap = ncap;
		}
		r->off[have] = off;
		r->size[have] = size;
		if (strmap_set(&r->entries, (const char *)buf + pos + 24,
			       (size_t)id_len, have) < 0) {
			bundle_close(r);
			return err_nomem(e);
		}
		have++;
		pos += 24 + id_len;
	}
	return 0;
}

int bundle_next_binary(struct bundle_reader *r, struct bundle_entry *ent)
{
	if (r->processed == r->entries.items)
		return 0;
	r->cur = strmap_next(&r->entries, r->processed ? r->cur + 1 : 0);
	r->processed++;
	ent->id = r->entries.b[r->cur].key;
	ent->id_len = r->entries.b[r->cur].len;
	return 1;
}

int bundle_content_binary(const struct bundle_reader *r, uint64_t *off,
			  uint64_t *size, struct err *e)
{
	size_t i = r->entries.b[r->cur].value;

	*off = r->off[i];
	*size = r->size[i];
	if (*off > r->len || *size > r->len - *off)
		return err_cut(e, "bundle entry '%.*s' has data past the end of "
			       "the file (offset %llu, size %llu)",
			       (int)r->entries.b[r->cur].len,
			       r->entries.b[r->cur].key,
			       (unsigned long long)*off,
			       (unsigned long long)*size);
	return 0;
}

size_t bundle_binary_extent(const struct bundle_reader *r)
{
	uint64_t end = BUNDLE_MAGIC_LEN + 8;

	for (uint32_t b = strmap_next(&r->entries, 0); b < r->entries.nb;
	     b = strmap_next(&r->entries, b + 1)) {
		size_t i = r->entries.b[b].value;

		if (r->off[i] + r->size[i] > end)
			end = r->off[i] + r->size[i];
	}
	/* Open already rejected entries past the end, except wrapped ones. */
	return end > r->len ? r->len : (size_t)end;
}
