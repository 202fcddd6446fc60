/* msgp: MessagePack checked before libmsgpack (msgpack-c) decodes it, and
 * small readers over what it decodes.  Shared by amdgpu_co.c (code object
 * metadata) and kpack.c (archive TOCs, host-binary references). */
#ifndef FORMATS_MSGP_H
#define FORMATS_MSGP_H

#include <msgpack.h>
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
/* The value of map's key (a string key), or NULL (also when map is no
 * map). */
const msgpack_object *msgp_get(const msgpack_object *map, const char *key);
/* A string object copied NUL-terminated into *out; what names it in the
 * error ("<what> is missing" / "is not a string"). */
int msgp_string(const msgpack_object *o, const char *what, char **out,
		struct err *e);

#endif
