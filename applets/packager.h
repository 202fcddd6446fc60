/* packager.h: what the packager's two files share: messages, paths and
 * --image lists (packager.c, with the command line and packaging) and
 * extraction (packager_extract.c). */
#ifndef APPLETS_PACKAGER_H
#define APPLETS_PACKAGER_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/clopt.h"
#include "../core/densemap.h"
#include "../core/err.h"
#include "../formats/package.h"

/* "<argv0>: error: ..." as LLVM's WithColor prints it; returns 1. */
int packager_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "<argv0>: warning: ...". */
void packager_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "warning: ...", as LLVM's libraries warn, without a program name. */
void packager_warn_plain(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
/* e's message without the "'<path>': " io puts in front when a system
 * call on path failed: LLVM names no file when an image or an output
 * cannot be opened.  Our own reasons keep the name. */
const char *packager_why(const struct err *e, const char *path);
/* LLVM's sys::path::stem: the file name without its extension, malloc'd. */
char *packager_stem(const char *path);

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

/* Keys point into spec, which must outlive a.  -1: out of memory. */
int packager_args_parse(const char *spec, struct image_args *a);
void packager_args_free(struct image_args *a);
const struct image_arg *packager_arg(const struct image_args *a,
				     const char *key);
bool packager_is_key(const struct image_arg *arg, const char *key);

/* Extract from input what each --image of images selects (to generated
 * names, to file=, or into an archive at file= with --archive). */
int packager_extract(const char *input, const struct clopt *images,
		     bool archive, const struct package_limits *lim);

#endif
