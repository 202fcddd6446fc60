/* image_args: one --image=<key>=<value>,... as LLVM 22's offload binary
 * tool reads it; see image_args.h. */
#include <stdlib.h>
#include <string.h>

#include "image_args.h"

void image_args_free(struct image_args *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i].value);
	free(a->v);
	densemap_free(&a->map);
	*a = (struct image_args){ 0 };
}

int image_args_parse(const char *spec, bool llvm23, struct image_args *a)
{
	const char *tok = spec;

	*a = (struct image_args){ 0 };
	a->map.llvm23 = llvm23;
	for (;;) {
		const char *end = strchr(tok, ','), *eq;
		size_t len = end ? (size_t)(end - tok) : strlen(tok);
		size_t klen, vlen;
		uint32_t b;

		eq = memchr(tok, '=', len);
		klen = eq ? (size_t)(eq - tok) : len;
		vlen = eq ? len - klen - 1 : 0;
		b = densemap_find(&a->map, tok, klen);
		if (b != a->map.nb) {
			struct image_arg *arg = &a->v[a->map.b[b].value];
			char *joined = realloc(arg->value, arg->value_len + vlen + 2);

			if (!joined)
				return -1;
			joined[arg->value_len] = ',';
			memcpy(joined + arg->value_len + 1, eq ? eq + 1 : "", vlen);
			arg->value_len += vlen + 1;
			joined[arg->value_len] = 0;
			arg->value = joined;
			arg->no_value = false;
		} else {
			struct image_arg *v = realloc(a->v, (a->n + 1) * sizeof(*v));
			char *value = strndup(eq ? eq + 1 : "", vlen);

			if (v)
				a->v = v;
			if (!v || !value ||
			    densemap_insert(&a->map, tok, klen, a->n) < 0) {
				free(value);
				return -1;
			}
			a->v[a->n++] = (struct image_arg){ tok, klen, value, vlen,
							   !eq };
		}
		if (!end)
			return 0;
		tok = end + 1;
	}
}

const struct image_arg *image_arg(const struct image_args *a, const char *key)
{
	uint32_t b = densemap_find(&a->map, key, strlen(key));

	return b == a->map.nb ? NULL : &a->v[a->map.b[b].value];
}

bool image_arg_is(const struct image_arg *arg, const char *key)
{
	return arg->key_len == strlen(key) && !memcmp(arg->key, key, arg->key_len);
}
