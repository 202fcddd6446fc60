/* bundle_text: the text __CLANG_OFFLOAD_BUNDLE__ layout, planned and read
 * (bundle_text.c). */
#ifndef FORMATS_BUNDLE_TEXT_H
#define FORMATS_BUNDLE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "bundle.h"

/* A text bundle as LLVM's bundler writes it, "\n<comment>
 * __CLANG_OFFLOAD_BUNDLE____START__ " first: the comment ("//", ";", "#")
 * in cap, or NULL when buf starts otherwise (or the comment does not fit
 * in cap_len bytes with its NUL). */
enum { BUNDLE_TEXT_COMMENT_MAX = 16 };
const char *bundle_text_comment(const uint8_t *buf, size_t len, char *cap,
				size_t cap_len);
/* Text layout: "\n<comment> __CLANG_OFFLOAD_BUNDLE____START__ <id>\n",
 * the input, "\n<comment> __CLANG_OFFLOAD_BUNDLE____END__ <id>\n". */
int bundle_plan_text(const char *comment, const char *const *ids,
		     const uint64_t *sizes, size_t n, struct bundle_plan *plan,
		     struct err *e);
void bundle_open_text(struct bundle_reader *r, const char *comment,
		      const uint8_t *buf, size_t len);
/* This layout's half of bundle_next, bundle_content and bundle_skip
 * (bundle_reader.h). */
int bundle_next_text(struct bundle_reader *r, struct bundle_entry *ent);
int bundle_content_text(struct bundle_reader *r, uint64_t *off, uint64_t *size,
			struct err *e);
void bundle_skip_text(struct bundle_reader *r);

#endif
