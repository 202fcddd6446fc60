/* select: the one target selection; see select.h. */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "select.h"
#include "target.h"
#include "targetid.h"

static bool whole_id(const char *p)
{
	size_t dashes = 0;

	for (; *p; p++)
		dashes += *p == '-';
	return dashes >= 4;
}

int select_add(struct select *s, const char *list, struct err *e)
{
	const char *p = list;

	for (;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		struct select_rule *grown, *r;

		if (!len)
			return err_set(e, "empty target in '%s'", list);
		grown = realloc(s->rule, (s->n + 1) * sizeof(*grown));
		if (!grown)
			return err_nomem(e);
		s->rule = grown;
		r = &s->rule[s->n];
		r->text = strndup(p, len);
		if (!r->text)
			return err_nomem(e);
		r->glob = strpbrk(r->text, "*?[") != NULL;
		r->bundle_id = !r->glob && whole_id(r->text);
		r->hit = false;
		s->n++;
		if (!end)
			return 0;
		p = end + 1;
	}
}

void select_free(struct select *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->rule[i].text);
	for (size_t i = 0; i < s->nseen; i++)
		free(s->seen[i]);
	free(s->rule);
	free(s->seen);
	s->rule = NULL;
	s->seen = NULL;
	s->n = s->nseen = 0;
}

void select_reset(struct select *s)
{
	for (size_t i = 0; i < s->n; i++)
		s->rule[i].hit = false;
	for (size_t i = 0; i < s->nseen; i++)
		free(s->seen[i]);
	free(s->seen);
	s->seen = NULL;
	s->nseen = 0;
}

void select_entry_from_id(struct select_entry *en, const char *id,
			  size_t len)
{
	size_t dash[5], nd = 0;

	memset(en, 0, sizeof(*en));
	en->id = id;
	en->id_len = len;
	for (size_t i = 0; i < len && nd < 5; i++)
		if (id[i] == '-')
			dash[nd++] = i;
	/* ROCm 5.x writes host IDs with three dashes
	 * ("host-x86_64-unknown-linux"): a host entry all the same. */
	en->host = nd && dash[0] == 4 && !memcmp(id, "host", 4);
	if (nd < 4) {
		if (en->host) {
			en->triple = id + 5;
			en->triple_len = len - 5;
		}
		return;
	}
	en->triple = id + dash[0] + 1;
	en->triple_len = (nd == 5 ? dash[4] : len) - dash[0] - 1;
	/* "amdgcn-amd-amdhsa-": the empty environment is no part of it. */
	if (nd == 5 && dash[4] == dash[3] + 1)
		en->triple_len--;
	if (nd == 5 && dash[4] + 1 < len) {
		en->arch = id + dash[4] + 1;
		en->arch_len = len - dash[4] - 1;
	}
}

/* The name an entry's target goes by in a list: its target ID or arch,
 * else its triple, else its ID. */
static void note_seen(struct select *s, const struct select_entry *en)
{
	const char *name = en->arch ? en->arch : en->triple ? en->triple : en->id;
	size_t len = en->arch ? en->arch_len : en->triple ? en->triple_len
							  : en->id_len;
	char **grown, *copy;

	if (en->host || !name || !len || s->nseen >= 64)
		return;
	for (size_t i = 0; i < s->nseen; i++)
		if (strlen(s->seen[i]) == len && !memcmp(s->seen[i], name, len))
			return;
	if (!(copy = malloc(len + 1)))
		return;
	for (size_t i = 0; i < len; i++)
		copy[i] = name[i] > 0x20 && name[i] < 0x7f ? name[i] : '?';
	copy[len] = 0;
	grown = realloc(s->seen, (s->nseen + 1) * sizeof(*grown));
	if (!grown) {
		free(copy);
		return;
	}
	s->seen = grown;
	s->seen[s->nseen++] = copy;
}

char *select_seen_text(const struct select *s)
{
	size_t len = 1;
	char *text;

	for (size_t i = 0; i < s->nseen; i++)
		len += strlen(s->seen[i]) + 2;
	if (!(text = malloc(len)))
		return NULL;
	text[0] = 0;
	for (size_t i = 0; i < s->nseen; i++) {
		if (i)
			strcat(text, ", ");
		strcat(text, s->seen[i]);
	}
	return text;
}

/* fnmatch wants C strings: a piece with a NUL inside matches no glob. */
static bool glob_on(const char *pattern, const char *s, size_t len)
{
	char buf[512];

	if (!s || len >= sizeof(buf) || memchr(s, 0, len))
		return false;
	memcpy(buf, s, len);
	buf[len] = 0;
	return !fnmatch(pattern, buf, 0);
}

/* Generic processors and the processors they serve: LLVM's AMDGPUUsage,
 * table "AMDGPU Generic Processors" (LLVM 22). */
static const struct {
	const char *generic;
	const char *serves[9];
} generics[] = {
	{ "gfx9-generic", { "gfx900", "gfx902", "gfx904", "gfx906",
			    "gfx909", "gfx90c" } },
	{ "gfx9-4-generic", { "gfx940", "gfx941", "gfx942", "gfx950" } },
	{ "gfx10-1-generic", { "gfx1010", "gfx1011", "gfx1012", "gfx1013" } },
	{ "gfx10-3-generic", { "gfx1030", "gfx1031", "gfx1032", "gfx1033",
			       "gfx1034", "gfx1035", "gfx1036" } },
	{ "gfx11-generic", { "gfx1100", "gfx1101", "gfx1102", "gfx1103",
			     "gfx1150", "gfx1151", "gfx1152", "gfx1153" } },
	{ "gfx12-generic", { "gfx1200", "gfx1201" } },
	{ "gfx12-5-generic", { "gfx1250", "gfx1251" } },
};

static size_t processor_len(const char *id, size_t len)
{
	const char *colon = memchr(id, ':', len);

	return colon ? (size_t)(colon - id) : len;
}

/* The generic processor an entry's ID starts with, if it serves the
 * request's processor. */
static bool generic_serves(const char *arch, size_t alen, const char *req,
			   size_t rlen)
{
	size_t ap = processor_len(arch, alen), rp = processor_len(req, rlen);

	for (size_t i = 0; i < sizeof(generics) / sizeof(generics[0]); i++) {
		if (strlen(generics[i].generic) != ap ||
		    memcmp(generics[i].generic, arch, ap))
			continue;
		for (size_t j = 0; generics[i].serves[j]; j++)
			if (strlen(generics[i].serves[j]) == rp &&
			    !memcmp(generics[i].serves[j], req, rp))
				return true;
	}
	return false;
}

/* An NVIDIA arch: "sm_86" (SASS), "compute_80" (PTX), with nvcc's
 * variant letter ("sm_90a" arch-specific, "sm_103f" family). */
struct nv_arch {
	bool ptx;
	unsigned major, minor;
	char variant;		/* 0, 'a' or 'f' */
};

static bool nv_parse(const char *s, size_t len, struct nv_arch *a)
{
	size_t i, n = 0;
	unsigned num = 0;

	if (len > 3 && !memcmp(s, "sm_", 3))
		i = 3, a->ptx = false;
	else if (len > 8 && !memcmp(s, "compute_", 8))
		i = 8, a->ptx = true;
	else
		return false;
	for (; i < len && s[i] >= '0' && s[i] <= '9' && n < 4; i++, n++)
		num = num * 10 + (unsigned)(s[i] - '0');
	if (n < 2)
		return false;
	a->variant = 0;
	if (i < len && (s[i] == 'a' || s[i] == 'f'))
		a->variant = s[i++];
	a->major = num / 10;
	a->minor = num % 10;
	return i == len;
}

/* What a GPU of compute capability req runs, by the CUDA driver's rules
 * (NVIDIA's CUDA C++ Programming Guide, "Binary Compatibility" and
 * "Feature Availability"): SASS of the same major version and a minor
 * no higher; arch-specific SASS or PTX ('a') only on that very version;
 * family code ('f') on the same major and a minor no lower; plain PTX of
 * any version no higher, compiled by the driver (JIT). */
static bool nv_loads(const struct nv_arch *code, const struct nv_arch *gpu)
{
	unsigned c = code->major * 10 + code->minor;
	unsigned g = gpu->major * 10 + gpu->minor;

	if (code->variant == 'a')
		return c == g;
	if (code->variant == 'f' || !code->ptx)
		return code->major == gpu->major && code->minor <= gpu->minor;
	return c <= g;
}

int select_check_ids(const struct select *s, struct err *e)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct select_rule *r = &s->rule[i];
		struct nv_arch nv;
		const char *why;

		if (r->glob || r->bundle_id ||
		    nv_parse(r->text, strlen(r->text), &nv) ||
		    targetid_check_request(r->text, strlen(r->text), &why) == 0)
			continue;
		return err_set(e, "'%s' is not a valid target ID (%s)", r->text,
			       why);
	}
	return 0;
}

/* An AMD GPU of the target ID req loads the entry's code. */
static bool amd_loads(const char *arch, size_t alen, const char *req)
{
	size_t rlen = strlen(req), ap, rp;
	char buf[256];

	if (targetid_loadable(arch, alen, req, rlen))
		return true;
	if (!generic_serves(arch, alen, req, rlen))
		return false;
	/* Features as for the processor itself: the request's, put on the
	 * generic processor's name. */
	ap = processor_len(arch, alen);
	rp = processor_len(req, rlen);
	if (ap + rlen - rp >= sizeof(buf))
		return false;
	memcpy(buf, arch, ap);
	memcpy(buf + ap, req + rp, rlen - rp);
	return targetid_loadable(arch, alen, buf, ap + rlen - rp);
}

/* A GPU of the target ID req (an AMD one, or "sm_86") loads the entry's
 * code; "sm_90a" and "sm_103f" name code: that built for them. */
static bool loads(const char *arch, size_t alen, const char *req)
{
	struct nv_arch code, gpu;

	if (nv_parse(req, strlen(req), &gpu)) {
		if (!nv_parse(arch, alen, &code))
			return false;
		if (gpu.variant)
			return code.variant == gpu.variant &&
			       code.major == gpu.major &&
			       code.minor == gpu.minor && (!gpu.ptx || code.ptx);
		if (!gpu.ptx)
			return nv_loads(&code, &gpu);
	}
	return amd_loads(arch, alen, req);
}

/* A request for an AMD processor ("gfx90a", "gfx11-generic:xnack+"). */
static bool amd_request(const char *req)
{
	size_t len = processor_len(req, strlen(req));

	return len > 3 && !memcmp(req, "gfx", 3) &&
	       targetid_known_processor(req, len);
}

/* Whether s (len bytes) is the rule's text, byte for byte. */
static bool same(const struct select_rule *r, const char *s, size_t len)
{
	return s && len == strlen(r->text) && !memcmp(s, r->text, len);
}

static bool rule_takes(const struct select *sel, const struct select_rule *r,
		       const struct select_entry *en)
{
	if (sel->exact && !r->glob)
		return r->bundle_id ? same(r, en->id, en->id_len)
				    : same(r, en->arch, en->arch_len);
	if (r->glob)
		return glob_on(r->text, en->id, en->id_len) ||
		       glob_on(r->text, en->arch, en->arch_len) ||
		       glob_on(r->text, en->triple, en->triple_len);
	if (r->bundle_id)
		return en->id &&
		       target_loadable(en->id, en->id_len, r->text,
				       strlen(r->text));
	if (!en->host && en->arch && en->arch_len == 11 &&
	    !memcmp(en->arch, "amdgcnspirv", 11))
		return amd_request(r->text);
	return en->arch && loads(en->arch, en->arch_len, r->text);
}

bool select_match(struct select *s, const struct select_entry *en)
{
	bool any = false;

	note_seen(s, en);

	for (size_t i = 0; i < s->n; i++)
		if (rule_takes(s, &s->rule[i], en))
			s->rule[i].hit = any = true;
	return any;
}

bool select_is_portable(const struct select_entry *en)
{
	static const char spirv_arch[] = "amdgcnspirv";

	return (en->arch && en->arch_len == sizeof(spirv_arch) - 1 &&
		!memcmp(en->arch, spirv_arch, en->arch_len)) ||
	       (en->triple && en->triple_len >= 5 &&
		!memcmp(en->triple, "spirv", 5));
}
