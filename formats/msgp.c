/* msgp: MessagePack checked before libmsgpack decodes it (see msgp.h). */
#include <stdlib.h>
#include <string.h>

#include "msgp.h"
#include "../core/bytes.h"

enum {
	/* MessagePack nested deeper than this is refused (LLVM's is 4). */
	MAX_DEPTH = 32,
};

/* libmsgpack allocates an array or map's whole element table as soon as
 * it reads the count, so five bytes declaring 4 billion elements would ask
 * for 64 GB.  This walk checks the structure first: every count against
 * the bytes left (each element takes at least one), every length inside
 * the buffer, the nesting bounded.  It decodes nothing; libmsgpack does. */
static int skip(const uint8_t *p, size_t len, size_t *pos, unsigned depth,
		struct err *e)
{
	size_t at = *pos, left = len - at, head = 1;
	uint64_t n = 0, bytes = 0;	/* elements to skip; raw bytes */
	unsigned per = 0;		/* objects per element: 1 array, 2 map */
	uint8_t c;

	if (depth > MAX_DEPTH)
		return err_code_set(e, ERR_MALFORMED, "MessagePack nested "
				    "deeper than %d", MAX_DEPTH);
	if (!left)
		return err_code_set(e, ERR_TRUNCATED, "MessagePack cut short "
				    "at offset %zu", at);
	c = p[at];
	if (c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3) {
		head = 1;	/* fixint, nil, bool */
	} else if (c >= 0x80 && c <= 0x8f) {
		n = c & 0xf, per = 2;
	} else if (c >= 0x90 && c <= 0x9f) {
		n = c & 0xf, per = 1;
	} else if (c >= 0xa0 && c <= 0xbf) {
		bytes = c & 0x1f;
	} else {
		static const uint8_t fixed[] = {	/* 0xca..0xd8 */
			4, 8, 1, 2, 4, 8, 1, 2, 4, 8, 2, 3, 5, 9, 17,
		};
		switch (c) {
		case 0xc4: case 0xd9: head = 2; break;	/* bin8, str8 */
		case 0xc5: case 0xda: head = 3; break;
		case 0xc6: case 0xdb: head = 5; break;
		case 0xc7: head = 2; break;		/* ext8 */
		case 0xc8: head = 3; break;
		case 0xc9: head = 5; break;
		case 0xdc: case 0xde: head = 3; break;	/* array16, map16 */
		case 0xdd: case 0xdf: head = 5; break;
		default:
			if (c == 0xc1 || c < 0xca || c > 0xd8)
				return err_code_set(e, ERR_MALFORMED, "MessagePack "
						    "byte 0x%02x at offset %zu is "
						    "no type", c, at);
			head = 1, bytes = fixed[c - 0xca];
		}
		if (head > left)
			return err_code_set(e, ERR_TRUNCATED, "MessagePack cut "
					    "short at offset %zu", at);
		switch (c) {
		case 0xc4: case 0xd9: bytes = p[at + 1]; break;
		case 0xc5: case 0xda: bytes = get_endian(p + at + 1, 2, true); break;
		case 0xc6: case 0xdb: bytes = get_endian(p + at + 1, 4, true); break;
		case 0xc7: bytes = p[at + 1] + 1u; break;
		case 0xc8: bytes = get_endian(p + at + 1, 2, true) + 1u; break;
		case 0xc9: bytes = get_endian(p + at + 1, 4, true) + 1u; break;
		case 0xdc: n = get_endian(p + at + 1, 2, true), per = 1; break;
		case 0xdd: n = get_endian(p + at + 1, 4, true), per = 1; break;
		case 0xde: n = get_endian(p + at + 1, 2, true), per = 2; break;
		case 0xdf: n = get_endian(p + at + 1, 4, true), per = 2; break;
		default: break;
		}
	}
	if (head > left || bytes > left - head)
		return err_code_set(e, ERR_TRUNCATED, "MessagePack object at "
				    "offset %zu runs past the end", at);
	if (per && n * per > left - head)
		return err_code_set(e, ERR_MALFORMED, "MessagePack %s at offset "
				    "%zu declares %llu elements, more than its "
				    "%zu bytes can hold", per == 2 ? "map" : "array",
				    at, (unsigned long long)n, left - head);
	*pos = at + head + (size_t)bytes;
	for (uint64_t i = 0; i < n * per; i++)
		if (skip(p, len, pos, depth + 1, e) < 0)
			return -1;
	return 0;
}

int msgp_check(const uint8_t *p, size_t len, size_t *pos, struct err *e)
{
	return skip(p, len, pos, 0, e);
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
