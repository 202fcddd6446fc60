/* msgp: MessagePack checked before libmsgpack (msgpack-c) decodes it, and
 * small readers over what it decodes.  Shared by amdgpu_co.c (code object
 * metadata) and kpack.c (archive TOCs, host-binary references). */
#ifndef FORMATS_MSGP_H
#define FORMATS_MSGP_H

#include <msgpack.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"

/* Walk the one object at p[*pos..len) without decoding it: every count
 * against the bytes left, every length inside the buffer, nesting at most
 * 32 deep.  On success *pos is just past it.  libmsgpack allocates an
 * array's whole table from its count, so nothing reaches it unchecked. */
int msgp_check(const uint8_t *p, size_t len, size_t *pos, struct err *e);
/* Check, then decode the object at p[0..len) into u (initialised here;
 * the caller destroys it with msgpack_unpacked_destroy either way). */
int msgp_decode(const uint8_t *p, size_t len, msgpack_unpacked *u,
		struct err *e);
/* A cursor over MessagePack bytes, for a reader that takes what it needs
 * as it goes and allocates nothing per element (libmsgpack's decode costs
 * 24 bytes an object, a one-byte nil as much as a map): p[0..len), pos the
 * next object.  Run msgp_check over the whole first; every read is bounded
 * all the same. */
struct msgp_cur {
	const uint8_t *p;
	size_t len, pos;
};

enum msgp_type {
	MSGP_NIL, MSGP_BOOL, MSGP_UINT, MSGP_INT, MSGP_FLOAT32, MSGP_FLOAT64,
	MSGP_STR, MSGP_BIN, MSGP_EXT, MSGP_ARRAY, MSGP_MAP,
};

/* One object's head, as msgp_read reads it.  An integer is MSGP_UINT when
 * not negative, whatever its encoding (as libmsgpack decodes it). */
struct msgp_item {
	enum msgp_type type;
	size_t at;		/* its offset */
	/* MSGP_BOOL 0 or 1; MSGP_UINT the value; MSGP_STR, MSGP_BIN,
	 * MSGP_EXT its bytes; MSGP_ARRAY its elements, MSGP_MAP its pairs */
	uint64_t n;
	int64_t i;		/* MSGP_INT (negative) */
	double f;		/* MSGP_FLOAT32, MSGP_FLOAT64 */
	int8_t ext;		/* MSGP_EXT's type */
	const uint8_t *p;	/* MSGP_STR, MSGP_BIN, MSGP_EXT: the bytes */
};

/* The object at c->pos: a scalar, string, bin or ext whole (the cursor
 * past it), an array's or map's head (the cursor at its first element;
 * its count checked against the bytes left).  -1 with e filled when cut
 * short or no type. */
int msgp_read(struct msgp_cur *c, struct msgp_item *it, struct err *e);
/* Past the whole object at c->pos (nested at most as msgp_check allows). */
int msgp_skip(struct msgp_cur *c, struct err *e);
/* A map's pairs, the cursor at its first key (after msgp_read of its
 * head): at[i] the offset of the value of the first string key names[i]
 * (SIZE_MAX when none), of n names; the cursor past the map.  One pass,
 * the other values skipped. */
int msgp_fields(struct msgp_cur *c, uint64_t pairs, const char *const *names,
		size_t n, size_t *at, struct err *e);
/* The object at c->pos written again to pk in the smallest form of each
 * value (what libmsgpack's decode then msgpack_pack_object gives), the
 * cursor past it.  -1 with e filled (a sink that fails: ERR_NOMEM). */
int msgp_repack(struct msgp_cur *c, msgpack_packer *pk, struct err *e);

/* A string read to keep as a C string: there (present), a string, and
 * with no NUL byte, which would cut it short (two names apart only after
 * a NUL would read the same).  what names it in the error ("<what> is
 * missing", "is not a string", "holds a NUL byte"). */
int msgp_str_check(const struct msgp_item *it, bool present, const char *what,
		   struct err *e);

/* The value of map's key (a string key), or NULL (also when map is no
 * map). */
const msgpack_object *msgp_get(const msgpack_object *map, const char *key);
/* A string object copied NUL-terminated into *out; what names it in the
 * error ("<what> is missing" / "is not a string"). */
int msgp_string(const msgpack_object *o, const char *what, char **out,
		struct err *e);

#endif
