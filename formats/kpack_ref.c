/* kpack_ref: what a kpack-split host binary carries (see kpack_ref.h).
 * The spec points cited are from ROCm/rocm-kpack
 * docs/multi_arch_packaging_with_kpack.md. */
#include <stdlib.h>
#include <string.h>

#include "kpack_ref.h"
#include "msgp.h"
#include "../core/bytes.h"

void kpack_ref_free(struct kpack_ref *r)
{
	free(r->kernel_name);
	for (size_t i = 0; i < r->npaths; i++)
		free(r->paths[i]);
	free(r->paths);
	memset(r, 0, sizeof(*r));
}

/* A string of the .rocm_kpack_ref map, malloc'd. */
static int ref_str(struct msgp_cur *c, size_t at, const char *what, char **out,
		   struct err *e)
{
	struct msgp_item it = { 0 };

	if (at != SIZE_MAX) {
		c->pos = at;
		if (msgp_read(c, &it, e) < 0)
			return -1;
	}
	if (msgp_str_check(&it, at != SIZE_MAX, what, e) < 0)
		return -1;
	*out = strndup((const char *)it.p, (size_t)it.n);
	return *out ? 0 : err_nomem(e);
}

/* "Add .rocm_kpack_ref Marker Section": {kernel_name, kpack_search_paths},
 * the paths a non-empty array of strings (as the runtime requires). */
int kpack_ref_parse(const uint8_t *buf, size_t len, struct kpack_ref *r,
		    struct err *e)
{
	static const char *const names[] = {
		"kernel_name", "kpack_search_paths",
	};
	struct msgp_cur c = { buf, 0, 0 };
	struct msgp_item m, a = { 0 };
	size_t f[2], pos = 0, item;

	memset(r, 0, sizeof(*r));
	/* The section may be padded after its one object. */
	if (msgp_check(buf, len, &pos, e) < 0)
		return -1;
	c.len = pos;
	if (msgp_read(&c, &m, e) < 0)
		return -1;
	if (m.type != MSGP_MAP)
		return err_code_set(e, ERR_MALFORMED, ".rocm_kpack_ref is not "
				    "a map");
	if (msgp_fields(&c, m.n, names, 2, f, e) < 0 ||
	    ref_str(&c, f[0], ".rocm_kpack_ref kernel_name", &r->kernel_name,
		    e) < 0)
		goto bad;
	if (f[1] != SIZE_MAX) {
		c.pos = f[1];
		if (msgp_read(&c, &a, e) < 0)
			goto bad;
	}
	if (f[1] == SIZE_MAX || a.type != MSGP_ARRAY || !a.n) {
		err_code_set(e, ERR_MALFORMED, ".rocm_kpack_ref "
			     "kpack_search_paths is %s", f[1] == SIZE_MAX ?
			     "missing" : a.type != MSGP_ARRAY ? "not an array" :
			     "empty");
		goto bad;
	}
	if (a.n > KPACK_PATHS_MAX) {
		err_code_set(e, ERR_OTHER, ".rocm_kpack_ref has %llu search "
			     "paths, more than the %d offload takes",
			     (unsigned long long)a.n, KPACK_PATHS_MAX);
		goto bad;
	}
	if (!(r->paths = calloc((size_t)a.n, sizeof(*r->paths)))) {
		err_nomem(e);
		goto bad;
	}
	item = c.pos;
	for (size_t i = 0; i < a.n; i++) {
		size_t next;

		c.pos = item;
		if (msgp_skip(&c, e) < 0)
			goto bad;
		next = c.pos;
		if (ref_str(&c, item, ".rocm_kpack_ref a search path",
			    &r->paths[i], e) < 0)
			goto bad;
		r->npaths++;
		item = next;
	}
	return 0;
bad:
	kpack_ref_free(r);
	return -1;
}

/* "Rewrite Magic (HIPF -> HIPK)": the wrapper keeps its layout, u32 magic,
 * u32 version, then two pointers, reserved1 the code object's index. */
int kpack_wrappers(const uint8_t *p, uint64_t n, bool is64, bool big_endian,
		   uint64_t **index, size_t *nhipk, size_t *nhipf,
		   struct err *e)
{
	unsigned ptr = is64 ? 8 : 4, size = 8 + 2 * ptr;

	*index = NULL;
	*nhipk = *nhipf = 0;
	if (n % size)
		return err_code_set(e, ERR_MALFORMED, ".hipFatBinSegment: %llu "
				    "bytes, not a whole number of %u-byte "
				    "wrappers", (unsigned long long)n, size);
	*index = calloc(n / size ? (size_t)(n / size) : 1, sizeof(**index));
	if (!*index)
		return err_nomem(e);
	for (uint64_t at = 0; at < n; at += size) {
		uint32_t magic = (uint32_t)get_endian(p + at, 4, big_endian);

		if (magic == KPACK_HIPK) {
			(*index)[(*nhipk)++] =
				get_endian(p + at + 8 + ptr, (int)ptr, big_endian);
		} else if (magic == KPACK_HIPF) {
			(*nhipf)++;
		} else {
			free(*index);
			*index = NULL;
			*nhipk = 0;
			return err_code_set(e, ERR_MALFORMED, ".hipFatBinSegment: "
					    "wrapper at offset %llu has magic "
					    "0x%08x, neither HIPF nor HIPK",
					    (unsigned long long)at, magic);
		}
	}
	return 0;
}

static const char placeholder[] = "@GFXARCH@";

char *kpack_expand(const char *pattern, const char *target)
{
	const char *at = strstr(pattern, placeholder);
	size_t head, plen = sizeof(placeholder) - 1;
	char *out;

	if (!at)
		return strdup(pattern);
	head = (size_t)(at - pattern);
	out = malloc(strlen(pattern) - plen + strlen(target) + 1);
	if (!out)
		return NULL;
	memcpy(out, pattern, head);
	strcpy(out + head, target);
	strcat(out, at + plen);
	return out;
}

bool kpack_name_matches(const char *pattern, const char *name, char **target)
{
	const char *at = strstr(pattern, placeholder);
	size_t head, tail, n = strlen(name), plen = sizeof(placeholder) - 1;

	*target = NULL;
	if (!at)
		return false;
	head = (size_t)(at - pattern);
	tail = strlen(at + plen);
	/* A target ID: "gfx" and more, with no '/' (a file name). */
	if (n < head + tail + 4 || memcmp(name, pattern, head) ||
	    memcmp(name + n - tail, at + plen, tail) ||
	    memcmp(name + head, "gfx", 3))
		return false;
	*target = strndup(name + head, n - head - tail);
	return *target != NULL;
}
