/* msgp: MessagePack checked before libmsgpack decodes it (see msgp.h). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "msgp.h"
#include "../core/bytes.h"

enum {
	/* MessagePack nested deeper than this is refused (LLVM's is 4). */
	MAX_DEPTH = 32,
};

int msgp_read(struct msgp_cur *c, struct msgp_item *it, struct err *e)
{
	const uint8_t *p = c->p;
	size_t at = c->pos, left, head = 1;
	uint64_t bytes = 0;	/* after the head: a string's, a number's */
	unsigned per = 0;	/* objects per element: 1 array, 2 map */
	uint8_t b;

	memset(it, 0, sizeof(*it));
	it->at = at;
	if (at >= c->len)
		return err_code_set(e, ERR_TRUNCATED, "MessagePack cut short "
				    "at offset %zu", at);
	left = c->len - at;
	b = p[at];
	if (b <= 0x7f) {
		it->type = MSGP_UINT, it->n = b;
	} else if (b >= 0xe0) {
		it->type = MSGP_INT, it->i = (int8_t)b;
	} else if (b <= 0x8f) {
		it->type = MSGP_MAP, it->n = b & 0xf, per = 2;
	} else if (b <= 0x9f) {
		it->type = MSGP_ARRAY, it->n = b & 0xf, per = 1;
	} else if (b <= 0xbf) {
		it->type = MSGP_STR, bytes = b & 0x1f;
	} else if (b == 0xc0) {
		it->type = MSGP_NIL;
	} else if (b == 0xc2 || b == 0xc3) {
		it->type = MSGP_BOOL, it->n = b & 1;
	} else if (b >= 0xca && b <= 0xd8) {
		static const uint8_t fixed[] = {	/* 0xca..0xd8 */
			4, 8, 1, 2, 4, 8, 1, 2, 4, 8, 2, 3, 5, 9, 17,
		};
		bytes = fixed[b - 0xca];
	} else {
		/* A length (or count) of 1, 2 or 4 bytes after the type. */
		static const uint8_t len[] = {	/* 0xc4..0xc9, 0xd9..0xdf */
			1, 2, 4, 1, 2, 4,   1, 2, 4, 2, 4, 2, 4,
		};
		uint64_t v;

		if (b == 0xc1)
			return err_code_set(e, ERR_MALFORMED, "MessagePack byte "
					    "0x%02x at offset %zu is no type", b,
					    at);
		head = 1 + len[b <= 0xc9 ? b - 0xc4 : b - 0xd9 + 6];
		if (head > left)
			return err_code_set(e, ERR_TRUNCATED, "MessagePack cut "
					    "short at offset %zu", at);
		v = get_endian(p + at + 1, (int)head - 1, true);
		if (b <= 0xc6)
			it->type = MSGP_BIN, bytes = v;
		else if (b <= 0xc9)	/* ext: its type byte, then v bytes */
			it->type = MSGP_EXT, bytes = v + 1;
		else if (b <= 0xdb)
			it->type = MSGP_STR, bytes = v;
		else
			it->type = b <= 0xdd ? MSGP_ARRAY : MSGP_MAP, it->n = v,
			per = b <= 0xdd ? 1 : 2;
	}
	if (head > left || bytes > left - head)
		return err_code_set(e, ERR_TRUNCATED, "MessagePack object at "
				    "offset %zu runs past the end", at);
	/* Each element takes at least a byte: a count is checked before
	 * anyone allocates for it. */
	if (per && it->n * per > left - head)
		return err_code_set(e, ERR_MALFORMED, "MessagePack %s at offset "
				    "%zu declares %llu elements, more than its "
				    "%zu bytes can hold", per == 2 ? "map" : "array",
				    at, (unsigned long long)it->n, left - head);
	c->pos = at + head + (size_t)bytes;
	if (b >= 0xca && b <= 0xd8) {	/* the numbers, fixext */
		const uint8_t *v = p + at + 1;

		if (b == 0xca) {
			union { uint32_t u; float f; } x = {
				(uint32_t)get_endian(v, 4, true) };
			it->type = MSGP_FLOAT32, it->f = x.f;
		} else if (b == 0xcb) {
			union { uint64_t u; double f; } x = {
				get_endian(v, 8, true) };
			it->type = MSGP_FLOAT64, it->f = x.f;
		} else if (b <= 0xcf) {
			it->type = MSGP_UINT, it->n = get_endian(v, (int)bytes, true);
		} else if (b <= 0xd3) {
			uint64_t u = get_endian(v, (int)bytes, true);
			int sh = 64 - 8 * (int)bytes;
			int64_t s = sh ? (int64_t)(u << sh) >> sh : (int64_t)u;

			if (s < 0)
				it->type = MSGP_INT, it->i = s;
			else
				it->type = MSGP_UINT, it->n = (uint64_t)s;
		} else {
			it->type = MSGP_EXT;
		}
	}
	if (it->type == MSGP_STR || it->type == MSGP_BIN) {
		it->n = bytes, it->p = p + at + head;
	} else if (it->type == MSGP_EXT) {
		it->ext = (int8_t)p[at + head];
		it->n = bytes - 1, it->p = p + at + head + 1;
	}
	return 0;
}

/* Whether b is a whole object of one byte, in its smallest form already:
 * a fixint, nil, a bool, "", [] or {}.  Runs of them (what a hostile TOC
 * is made of) are walked and copied without a call each. */
static bool one_byte(uint8_t b)
{
	return b <= 0x7f || b >= 0xe0 || b == 0xc0 || b == 0xc2 ||
	       b == 0xc3 || b == 0xa0 || b == 0x90 || b == 0x80;
}

/* libmsgpack allocates an array or map's whole element table as soon as
 * it reads the count, so five bytes declaring 4 billion elements would ask
 * for 64 GB.  This walk checks the structure first: every count against
 * the bytes left (each element takes at least one), every length inside
 * the buffer, the nesting bounded.  It decodes nothing. */
static int skip(struct msgp_cur *c, unsigned depth, struct err *e)
{
	struct msgp_item it;
	uint64_t n;

	if (depth > MAX_DEPTH)
		return err_code_set(e, ERR_MALFORMED, "MessagePack nested "
				    "deeper than %d", MAX_DEPTH);
	if (msgp_read(c, &it, e) < 0)
		return -1;
	if (it.type != MSGP_ARRAY && it.type != MSGP_MAP)
		return 0;
	n = it.type == MSGP_MAP ? 2 * it.n : it.n;
	for (uint64_t i = 0; i < n; i++) {
		if (depth < MAX_DEPTH && c->pos < c->len &&
		    one_byte(c->p[c->pos]))
			c->pos++;
		else if (skip(c, depth + 1, e) < 0)
			return -1;
	}
	return 0;
}

int msgp_skip(struct msgp_cur *c, struct err *e)
{
	return skip(c, 0, e);
}

int msgp_check(const uint8_t *p, size_t len, size_t *pos, struct err *e)
{
	struct msgp_cur c = { p, len, *pos };

	if (skip(&c, 0, e) < 0)
		return -1;
	*pos = c.pos;
	return 0;
}

int msgp_fields(struct msgp_cur *c, uint64_t pairs, const char *const *names,
		size_t n, size_t *at, struct err *e)
{
	for (size_t i = 0; i < n; i++)
		at[i] = SIZE_MAX;
	for (uint64_t k = 0; k < pairs; k++) {
		struct msgp_item key;

		if (msgp_read(c, &key, e) < 0)
			return -1;
		if (key.type == MSGP_ARRAY || key.type == MSGP_MAP) {
			c->pos = key.at;
			if (msgp_skip(c, e) < 0)
				return -1;
		} else if (key.type == MSGP_STR) {
			for (size_t i = 0; i < n; i++)
				if (at[i] == SIZE_MAX && strlen(names[i]) == key.n &&
				    !memcmp(names[i], key.p, key.n)) {
					at[i] = c->pos;
					break;
				}
		}
		if (msgp_skip(c, e) < 0)
			return -1;
	}
	return 0;
}

static int repack(struct msgp_cur *c, msgpack_packer *pk, unsigned depth,
		  struct err *e)
{
	struct msgp_item it;
	uint64_t n = 0;
	int r = 0;

	if (depth > MAX_DEPTH)
		return err_code_set(e, ERR_MALFORMED, "MessagePack nested "
				    "deeper than %d", MAX_DEPTH);
	if (msgp_read(c, &it, e) < 0)
		return -1;
	switch (it.type) {
	case MSGP_NIL:
		r = msgpack_pack_nil(pk);
		break;
	case MSGP_BOOL:
		r = it.n ? msgpack_pack_true(pk) : msgpack_pack_false(pk);
		break;
	case MSGP_UINT:
		r = msgpack_pack_uint64(pk, it.n);
		break;
	case MSGP_INT:
		r = msgpack_pack_int64(pk, it.i);
		break;
	case MSGP_FLOAT32:
		r = msgpack_pack_float(pk, (float)it.f);
		break;
	case MSGP_FLOAT64:
		r = msgpack_pack_double(pk, it.f);
		break;
	case MSGP_STR:
		r = msgpack_pack_str(pk, (size_t)it.n) ||
		    msgpack_pack_str_body(pk, it.p, (size_t)it.n);
		break;
	case MSGP_BIN:
		r = msgpack_pack_bin(pk, (size_t)it.n) ||
		    msgpack_pack_bin_body(pk, it.p, (size_t)it.n);
		break;
	case MSGP_EXT:
		r = msgpack_pack_ext(pk, (size_t)it.n, it.ext) ||
		    msgpack_pack_ext_body(pk, it.p, (size_t)it.n);
		break;
	case MSGP_ARRAY:
		r = msgpack_pack_array(pk, (size_t)it.n);
		n = it.n;
		break;
	case MSGP_MAP:
		r = msgpack_pack_map(pk, (size_t)it.n);
		n = 2 * it.n;
		break;
	}
	if (r)
		return err_nomem(e);
	for (uint64_t i = 0; i < n;) {
		size_t run = 0;

		while (depth < MAX_DEPTH && i + run < n &&
		       c->pos + run < c->len && one_byte(c->p[c->pos + run]))
			run++;
		if (run) {
			if (pk->callback(pk->data, (const char *)c->p + c->pos,
					 run))
				return err_nomem(e);
			c->pos += run;
			i += run;
		} else if (repack(c, pk, depth + 1, e) < 0) {
			return -1;
		} else {
			i++;
		}
	}
	return 0;
}

int msgp_repack(struct msgp_cur *c, msgpack_packer *pk, struct err *e)
{
	return repack(c, pk, 0, e);
}

int msgp_decode(const uint8_t *p, size_t len, msgpack_unpacked *u,
		struct err *e)
{
	size_t pos = 0;

	msgpack_unpacked_init(u);
	if (msgp_check(p, len, &pos, e) < 0)
		return -1;
	pos = 0;
	if (msgpack_unpack_next(u, (const char *)p, len, &pos) !=
	    MSGPACK_UNPACK_SUCCESS)
		return err_code_set(e, ERR_MALFORMED, "MessagePack does not "
				    "decode");
	return 0;
}

int msgp_str_check(const struct msgp_item *it, bool present, const char *what,
		   struct err *e)
{
	const uint8_t *nul;

	if (!present || it->type != MSGP_STR)
		return err_code_set(e, ERR_MALFORMED, "%s is %s", what,
				    present ? "not a string" : "missing");
	if ((nul = memchr(it->p, 0, (size_t)it->n)))
		return err_code_set(e, ERR_MALFORMED, "%s holds a NUL byte "
				    "(byte %zu of its %llu)", what,
				    (size_t)(nul - it->p) + 1,
				    (unsigned long long)it->n);
	return 0;
}

const msgpack_object *msgp_get(const msgpack_object *map, const char *key)
{
	size_t klen = strlen(key);

	if (map->type != MSGPACK_OBJECT_MAP)
		return NULL;
	for (uint32_t i = 0; i < map->via.map.size; i++) {
		const msgpack_object *k = &map->via.map.ptr[i].key;

		if (k->type == MSGPACK_OBJECT_STR && k->via.str.size == klen &&
		    !memcmp(k->via.str.ptr, key, klen))
			return &map->via.map.ptr[i].val;
	}
	return NULL;
}

int msgp_string(const msgpack_object *o, const char *what, char **out,
		struct err *e)
{
	if (!o || o->type != MSGPACK_OBJECT_STR)
		return err_code_set(e, ERR_MALFORMED, "%s is %s", what,
				    o ? "not a string" : "missing");
	*out = strndup(o->via.str.ptr, o->via.str.size);
	return *out ? 0 : err_nomem(e);
}
