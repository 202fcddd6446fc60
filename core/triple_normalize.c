/* triple_normalize: llvm::Triple::normalize (see triple.h): the
 * components of a triple put in their places and spelled as LLVM 22
 * spells them. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "triple_impl.h"
#include "triple_normalize.h"

/* Canonical format names, indexed by F_*, for normalize's output. */
static const char *const fmt_text[] = {
	"", "coff", "dxcontainer", "elf", "goff", "macho", "spirv", "wasm",
	"xcoff",
};

/* VersionTuple::tryParse + withoutBuild, reduced to what the DXIL rule
 * needs.  Fields keep VersionTuple's widths: minor is 31 bits. */
struct version {
	uint32_t major, minor, sub, build;
	bool has_minor;
};

static bool parse_uint(struct sv *in, uint32_t *v)
{
	if (in->n == 0 || in->p[0] < '0' || in->p[0] > '9')
		return false;
	*v = 0;
	while (in->n && in->p[0] >= '0' && in->p[0] <= '9') {
		*v = *v * 10 + (uint32_t)(in->p[0] - '0');
		in->p++;
		in->n--;
	}
	return true;
}

static struct version parse_version(struct sv in)
{
	struct version none = { 0, 0, 0, 0, false }, v = none;
	uint32_t *parts[4] = { &v.major, &v.minor, &v.sub, &v.build };

	for (int i = 0; i < 4; i++) {
		if (i > 0) {
			if (in.p[0] != '.')
				return none;
			in.p++;
			in.n--;
		}
		if (!parse_uint(&in, parts[i]))
			return none;
		if (i == 1)
			v.has_minor = true;
		if (in.n == 0)
			break;
		if (i == 3)
			return none;	/* trailing junk */
	}
	v.minor &= 0x7fffffff;
	v.sub &= 0x7fffffff;
	v.build = 0;
	return v;
}

/* The DXIL version matching "shadermodelX.Y", or NULL where LLVM stops
 * with "Unsupported Shader Model version". */
static const char *dxil_arch_for(struct sv os)
{
	static const char *const names[] = {
		"dxilv1.0", "dxilv1.1", "dxilv1.2", "dxilv1.3", "dxilv1.4",
		"dxilv1.5", "dxilv1.6", "dxilv1.7", "dxilv1.8", "dxilv1.9",
	};
	struct version v = parse_version(sv_sub(os, 11, (size_t)-1));

	if (v.major || v.minor || v.sub) {
		if (v.major == 6 && v.has_minor)
			return v.minor < COUNT(names) ? names[v.minor] : NULL;
	} else if (sv_eq(os, "shadermodel6.x")) {
		return names[COUNT(names) - 1];
	}
	return names[0];
}

static const struct sv empty_sv = { "", 0 };

/* Normalize's component list: views into the input or static strings. */
struct comps {
	struct sv *v;
	size_t n;
};

static void comps_resize(struct comps *c, size_t n, struct sv fill)
{
	while (c->n < n)
		c->v[c->n++] = fill;
	c->n = n;
}

static void sv_swap(struct sv *a, struct sv *b)
{
	struct sv t = *a;
	*a = *b;
	*b = t;
}

/* What normalize learnt of the components: the parse results of every
 * component tried (valid or not) land in arch/vendor/os/env/fmt, as in
 * LLVM, and the special cases read them; found: which of the first four
 * positions hold a valid component. */
struct norm {
	enum llvm_release release;	/* whose arch names */
	int arch, vendor, os, env, fmt;
	bool mingw, cygwin, found[4];
};

static void parse_os_into(struct norm *st, struct sv comp)
{
	st->os = triple_parse_os(comp);
	st->cygwin = sv_starts(comp, "cygwin") || sv_starts(comp, "msys");
	st->mingw = sv_starts(comp, "mingw");
}

/* Components already valid in their own position stay put. */
static void parse_in_place(const struct comps *c, enum llvm_release r,
			   struct norm *st)
{
	*st = (struct norm){ r, A_UNKNOWN, V_UNKNOWN, O_UNKNOWN, E_UNKNOWN,
			     F_UNKNOWN, false, false, { false } };
	if (c->n > 0)
		st->arch = triple_parse_arch(c->v[0], r);
	if (c->n > 1)
		st->vendor = triple_parse_vendor(c->v[1]);
	if (c->n > 2)
		parse_os_into(st, c->v[2]);
	if (c->n > 3)
		st->env = triple_parse_env(c->v[3]);
	if (c->n > 4)
		st->fmt = triple_parse_format(c->v[4]);
	st->found[0] = st->arch != A_UNKNOWN;
	st->found[1] = st->vendor != V_UNKNOWN;
	st->found[2] = st->os != O_UNKNOWN;
	st->found[3] = st->env != E_UNKNOWN;
}

/* Whether comp is valid in position pos (0 arch, 1 vendor, 2 OS, 3
 * environment or object format). */
static bool valid_at(struct norm *st, size_t pos, struct sv comp)
{
	switch (pos) {
	case 0:
		st->arch = triple_parse_arch(comp, st->release);
		return st->arch != A_UNKNOWN;
	case 1:
		st->vendor = triple_parse_vendor(comp);
		return st->vendor != V_UNKNOWN;
	case 2:
		parse_os_into(st, comp);
		return st->os != O_UNKNOWN || st->cygwin || st->mingw;
	default:
		st->env = triple_parse_env(comp);
		if (st->env != E_UNKNOWN)
			return true;
		st->fmt = triple_parse_format(comp);
		return st->fmt != F_UNKNOWN;
	}
}

/* Move component idx to pos < idx: take it out, then insert it at pos,
 * shifting non-fixed components right into the hole (or into the first
 * empty one). */
static void move_left(struct comps *c, const bool *found, size_t pos,
		      size_t idx)
{
	struct sv cur = c->v[idx];

	c->v[idx] = empty_sv;
	for (size_t i = pos; cur.n; i++) {
		while (i < 4 && found[i])
			i++;
		sv_swap(&cur, &c->v[i]);
	}
}

/* Move component idx to pos > idx: insert empty components before it
 * until it reaches pos, skipping fixed ones. */
static void move_right(struct comps *c, const bool *found, size_t pos,
		       size_t idx)
{
	do {
		struct sv cur = empty_sv;
		size_t i = idx;

		while (i < c->n) {
			sv_swap(&cur, &c->v[i]);
			if (!cur.n)
				break;
			while (++i < 4 && found[i])
				;
		}
		if (cur.n)
			c->v[c->n++] = cur;
		while (++idx < 4 && found[idx])
			;
	} while (idx < pos);
}

/* Move the first component valid for each unfilled position there. */
static void reorder(struct comps *c, struct norm *st)
{
	for (size_t pos = 0; pos < 4; pos++) {
		if (st->found[pos])
			continue;
		for (size_t idx = 0; idx < c->n; idx++) {
			if (idx < 4 && st->found[idx])
				continue;
			if (!valid_at(st, pos, c->v[idx]))
				continue;
			if (pos < idx)
				move_left(c, st->found, pos, idx);
			else if (pos > idx)
				move_right(c, st->found, pos, idx);
			st->found[pos] = true;
			break;
		}
	}
}

/* androideabi[N] is spelled android[N]: *android holds the new text when
 * there is an N.  -1 when out of memory. */
static int android_spelling(struct comps *c, const struct norm *st,
			    char **android)
{
	struct sv ver;

	if (st->env != E_ANDROID || !sv_starts(c->v[3], "androideabi"))
		return 0;
	ver = sv_sub(c->v[3], 11, (size_t)-1);
	if (ver.n == 0) {
		c->v[3] = sv_lit("android");
		return 0;
	}
	*android = malloc(7 + ver.n);
	if (!*android)
		return -1;
	memcpy(*android, "android", 7);
	memcpy(*android + 7, ver.p, ver.n);
	c->v[3].p = *android;
	c->v[3].n = 7 + ver.n;
	return 0;
}

/* Windows spells its OS "windows" and its environment msvc, gnu (MinGW)
 * or cygnus, with an object format other than COFF after them. */
static void windows_spelling(struct comps *c, const struct norm *st)
{
	if (st->os == O_WIN32) {
		comps_resize(c, 4, empty_sv);
		c->v[2] = sv_lit("windows");
		if (st->env == E_UNKNOWN) {
			if (st->fmt == F_UNKNOWN || st->fmt == F_COFF)
				c->v[3] = sv_lit("msvc");
			else
				c->v[3] = sv_lit(fmt_text[st->fmt]);
		}
	} else if (st->mingw) {
		comps_resize(c, 4, empty_sv);
		c->v[2] = sv_lit("windows");
		c->v[3] = sv_lit("gnu");
	} else if (st->cygwin) {
		comps_resize(c, 4, empty_sv);
		c->v[2] = sv_lit("windows");
		c->v[3] = sv_lit("cygnus");
	}
	if ((st->mingw || st->cygwin ||
	     (st->os == O_WIN32 && st->env != E_UNKNOWN)) &&
	    st->fmt != F_UNKNOWN && st->fmt != F_COFF) {
		comps_resize(c, 5, empty_sv);
		c->v[4] = sv_lit(fmt_text[st->fmt]);
	}
}

/* The components joined by '-', malloc'd. */
static char *join(const struct comps *c)
{
	size_t total = 1;
	char *out, *o;

	for (size_t i = 0; i < c->n; i++)
		total += c->v[i].n + 1;
	out = malloc(total);
	if (!out)
		return NULL;
	o = out;
	for (size_t i = 0; i < c->n; i++) {
		if (i)
			*o++ = '-';
		memcpy(o, c->v[i].p, c->v[i].n);
		o += c->v[i].n;
	}
	*o = '\0';
	return out;
}

char *triple_normalize(const char *s, size_t len, int form,
		       enum llvm_release r, struct err *e)
{
	struct sv str = { s, len };
	size_t ndash = 0;
	struct comps c;
	struct norm st;
	char *android = NULL, *out = NULL;
	const struct sv unknown = sv_lit("unknown");

	for (size_t i = 0; i < len; i++)
		ndash += s[i] == '-';
	/* Pushing components right appends at most six in all, the fixed
	 * resizes below need five, and form pads to its own size. */
	c.v = malloc((ndash + 1 + 8 + (form > 0 ? (size_t)form : 0)) *
		     sizeof(*c.v));
	if (!c.v)
		goto nomem;
	c.n = triple_split_dash(str, c.v, -1);
	parse_in_place(&c, r, &st);
	reorder(&c, &st);

	/* In arch-none-env, "none" is the OS, not the vendor. */
	if (st.found[0] && !st.found[1] && !st.found[2] && st.found[3] &&
	    sv_eq(c.v[1], "none") && c.v[2].n == 0)
		sv_swap(&c.v[1], &c.v[2]);
	for (size_t i = 0; i < c.n; i++)
		if (c.v[i].n == 0)
			c.v[i] = unknown;
	if (android_spelling(&c, &st, &android) < 0)
		goto nomem;
	/* SUSE's gnueabi means hard float. */
	if (st.vendor == V_SUSE && st.env == E_GNUEABI)
		c.v[3] = sv_lit("gnueabihf");
	windows_spelling(&c, &st);

	/* A plain "dxil" takes its version from the shader model. */
	if (sv_eq(c.v[0], "dxil")) {
		if (c.n > 4)
			comps_resize(&c, 4, empty_sv);
		if (st.os == O_SHADERMODEL) {
			const char *a = dxil_arch_for(c.v[2]);

			if (!a) {
				err_llvm(e, ERR_FATAL,
					 "Unsupported Shader Model version");
				goto out;
			}
			c.v[0] = sv_lit(a);
		}
	}
	if (form > 0)
		comps_resize(&c, (size_t)form, unknown);
	out = join(&c);
	if (!out)
		goto nomem;
	goto out;
nomem:
	err_nomem(e);
out:
	free(android);
	free(c.v);
	return out;
}

