/* Fuzz target: error records wrapped as a chain (core/err.c).  The input
 * is a script: a first record (a reason, a failed call on a path, or a
 * reason about a path), then wraps, each with a context cut from the
 * input and a code, some noting an offset.  Each line printed must read
 * "<context>: <the line before>", cut as snprintf cuts it; the chain must
 * keep the first record's code, errno and offset innermost, its path as
 * cause_path, and at most ERR_CHAIN_MAX links.
 * libFuzzer: -max_len=4096
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "../../core/err.h"

/* The next n bytes of the input as a string (NUL-free), or fewer. */
static size_t take(const uint8_t **p, size_t *left, char *out, size_t cap,
		   size_t n)
{
	size_t k = 0;

	while (k < n && k + 1 < cap && *left) {
		out[k] = (char)(**p ? **p : 'x');
		k++;
		++*p;
		--*left;
	}
	out[k] = 0;
	return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct err e;
	static char before[sizeof(e.msg)], want[ERR_WHY_MAX], ctx[2048];
	static char path[ERR_PATH_MAX + 64];
	const uint8_t *p = data + 2;
	size_t left = size - 2;
	struct err_link first;
	unsigned wraps = 0;

	if (size < 2)
		return 0;
	/* The first record. */
	switch (data[0] % 3) {
	case 0:
		take(&p, &left, ctx, sizeof(ctx), 1 + data[1] % 64);
		err_code_set(&e, ERR_MALFORMED, "%s", ctx);
		break;
	case 1:
		take(&p, &left, path, sizeof(path), 1 + data[1] * 20);
		err_sys(&e, path, ENOENT);
		break;
	default:
		take(&p, &left, path, sizeof(path), 1 + data[1] % 64);
		err_file(&e, path, "cut short");
		break;
	}
	if (left && p[0] & 1)
		err_at(&e, p[0] * 4096u);
	first = err_cause(&e);
	FUZZ_CHECK(first.code == e.code && first.errnum == e.errnum);
	snprintf(path, sizeof(path), "%s", e.path);
	/* The wraps. */
	while (left >= 2) {
		enum err_code code = (enum err_code)(p[0] % (ERR_FATAL + 1));
		size_t n = p[1] % 8 ? p[1] % 40 : 1500;
		struct err_link in;

		p += 2;
		left -= 2;
		take(&p, &left, ctx, sizeof(ctx), n);
		memcpy(before, e.msg, sizeof(before));
		if (snprintf(want, sizeof(want), "%s: %s", ctx, before) < 0)
			abort();
		FUZZ_CHECK(err_wrap(&e, code, "%s", ctx) == -1);
		wraps++;
		FUZZ_CHECK(!strcmp(e.why, want) && !strcmp(e.msg, want));
		FUZZ_CHECK(e.code == code && e.errnum == 0 && !e.path[0]);
		FUZZ_CHECK(e.nchain == (wraps < ERR_CHAIN_MAX ? wraps
							     : ERR_CHAIN_MAX));
		in = err_cause(&e);
		FUZZ_CHECK(in.code == first.code && in.errnum == first.errnum &&
			   in.at == first.at && in.offset == first.offset);
		FUZZ_CHECK(!strcmp(e.cause_path, path));
	}
	/* A new record starts a new chain. */
	err_set(&e, "again");
	FUZZ_CHECK(e.nchain == 0 && !e.cause_path[0] && !e.at &&
		   !strcmp(e.msg, "again"));
	return 0;
}
