/* ptx: the kernels of a PTX module: its .version, its .target and the
 * names of its .entry directives.  See kernels.h. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "ptx.h"

/* Past white space and comments from pos. */
static size_t skip_space(const uint8_t *p, size_t len, size_t pos)
{
	while (pos < len) {
		if (isspace(p[pos])) {
			pos++;
		} else if (len - pos >= 2 && p[pos] == '/' && p[pos + 1] == '/') {
			while (pos < len && p[pos] != '\n')
				pos++;
		} else if (len - pos >= 2 && p[pos] == '/' && p[pos + 1] == '*') {
			const uint8_t *end;

			pos += 2;
			end = len - pos >= 2 ? memmem(p + pos, len - pos, "*/", 2)
					     : NULL;
			pos = end ? (size_t)(end - p) + 2 : len;
		} else {
			break;
		}
	}
	return pos;
}

bool ptx_looks(const uint8_t *buf, size_t len)
{
	size_t pos = skip_space(buf, len, 0);

	return len - pos >= 9 && !memcmp(buf + pos, ".version", 8) &&
	       isspace(buf[pos + 8]);
}

static bool ident_char(uint8_t c)
{
	return isalnum(c) || c == '_' || c == '$' || c == '.' || c == '%';
}

/* The token at pos (an identifier, or a run of non-space bytes). */
static size_t token(const uint8_t *p, size_t len, size_t pos)
{
	size_t end = pos;

	while (end < len && ident_char(p[end]))
		end++;
	return end - pos;
}

static void copy_field(char *dst, size_t room, const uint8_t *src, size_t n)
{
	if (n >= room)
		n = room - 1;
	memcpy(dst, src, n);
	dst[n] = 0;
}

int ptx_kernels(const uint8_t *buf, size_t len, struct kernel_list *l,
		struct err *e)
{
	size_t pos = 0, cap = 0;

	memset(l, 0, sizeof(*l));
	l->source = KERNELS_PTX;
	if (!ptx_looks(buf, len))
		return err_code_set(e, ERR_MALFORMED, "PTX does not start with "
				    ".version");
	/* Directives are read where a statement may start: after white
	 * space and comments, at the start of the text or after ';', '{',
	 * '}' or the end of a directive line. */
	while ((pos = skip_space(buf, len, pos)) < len) {
		size_t n = token(buf, len, pos), v;

		if (n == 8 && !memcmp(buf + pos, ".version", 8)) {
			v = skip_space(buf, len, pos + n);
			copy_field(l->ptx_version, sizeof(l->ptx_version),
				   buf + v, token(buf, len, v));
			pos = v;
		} else if (n == 7 && !memcmp(buf + pos, ".target", 7)) {
			size_t end;

			v = skip_space(buf, len, pos + n);
			for (end = v; end < len && buf[end] != '\n' &&
			     buf[end] != '/'; end++)
				;
			while (end > v && isspace(buf[end - 1]))
				end--;
			copy_field(l->target, sizeof(l->target), buf + v, end - v);
			copy_field(l->processor, sizeof(l->processor), buf + v,
				   token(buf, len, v));
			pos = end;
		} else if (n == 6 && !memcmp(buf + pos, ".entry", 6)) {
			size_t m;
			struct kernel *k;

			v = skip_space(buf, len, pos + n);
			m = token(buf, len, v);
			if (!m)
				return kernels_free(l), err_code_set(e,
					ERR_MALFORMED, ".entry without a name at "
					"offset %zu", pos);
			if (l->n == cap) {
				struct kernel *nv;

				cap = cap ? 2 * cap : 16;
				nv = realloc(l->v, cap * sizeof(*nv));
				if (!nv)
					return kernels_free(l), err_code_set(e,
						ERR_NOMEM, "out of memory");
				l->v = nv;
			}
			k = &l->v[l->n];
			memset(k, 0, sizeof(*k));
			k->name = strndup((const char *)buf + v, m);
			if (!k->name)
				return kernels_free(l), err_code_set(e,
					ERR_NOMEM, "out of memory");
			l->n++;
			pos = v + m;
		} else if (buf[pos] == '"') {
			/* A string: skipped whole, so nothing in it counts. */
			for (pos++; pos < len && buf[pos] != '"' &&
			     buf[pos] != '\n'; pos++)
				;
			pos++;
		} else {
			pos += n ? n : 1;
		}
	}
	return 0;
}
