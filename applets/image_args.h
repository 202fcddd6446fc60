/* image_args: the keys and values of one --image of llvm-offload-binary
 * (packaging and extraction both read them). */
#ifndef APPLETS_IMAGE_ARGS_H
#define APPLETS_IMAGE_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/densemap.h"

/* The keys and values of one --image, in LLVM's DenseMap order: every ','
 * ends a key=value token (a token without '=' has an empty value), and a
 * repeated key gets the values joined by ','. */
struct image_args {
	struct densemap map;
	struct image_arg {
		const char *key;
		size_t key_len;
		char *value;
		size_t value_len;
		/* Given once, as a key without '=': LLVM's StringRef has
		 * no data then, and splits into no names at all. */
		bool no_value;
	} *v;
	size_t n;
};

/* Keys point into spec, which must outlive a; llvm23: in LLVM 23's map
 * order.  -1: out of memory. */
int image_args_parse(const char *spec, bool llvm23, struct image_args *a);
void image_args_free(struct image_args *a);
const struct image_arg *image_arg(const struct image_args *a, const char *key);
bool image_arg_is(const struct image_arg *arg, const char *key);

#endif
