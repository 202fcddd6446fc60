/* targetid: offload processor names and AMDGPU target IDs.
 *
 * Models, for LLVM 22: clang's StringToOffloadArch table, the target-ID
 * parser of clang/lib/Basic/TargetID.cpp (format check, then the per-processor
 * feature check against the AMDGPU target parser's xnack/sramecc flags), the
 * target-ID half of the bundler's isCodeObjectCompatible, and
 * getConflictTargetIDCombination.
 */
#include "targetid.h"

#include <string.h>

/* Flags of a processor as the AMDGCN target parser sees it. */
#define P_AMDGCN 1u  /* known to the AMDGCN target parser */
#define P_XNACK 2u   /* accepts the xnack target feature */
#define P_SRAMECC 4u /* accepts the sramecc target feature */

#define GX (P_AMDGCN | P_XNACK)
#define GXS (P_AMDGCN | P_XNACK | P_SRAMECC)

struct proc {
	const char *name;
	unsigned flags;
};

/* Every name clang 22 accepts as an offload arch, in its table order.  For the
 * gfx names, the AMDGCN target parser's canonical name is the name itself, so
 * canonicalisation is the identity on everything that survives the
 * known-processor filter; the aliases (tahiti, carrizo, ...) are not offload
 * arch names and never get this far. */
static const struct proc procs[] = {
	{"sm_20", 0},   {"sm_21", 0},   {"sm_30", 0},   {"sm_32", 0},
	{"sm_35", 0},   {"sm_37", 0},   {"sm_50", 0},   {"sm_52", 0},
	{"sm_53", 0},   {"sm_60", 0},   {"sm_61", 0},   {"sm_62", 0},
	{"sm_70", 0},   {"sm_72", 0},   {"sm_75", 0},   {"sm_80", 0},
	{"sm_86", 0},   {"sm_87", 0},   {"sm_88", 0},   {"sm_89", 0},
	{"sm_90", 0},   {"sm_90a", 0},  {"sm_100", 0},  {"sm_100a", 0},
	{"sm_101", 0},  {"sm_101a", 0}, {"sm_103", 0},  {"sm_103a", 0},
	{"sm_110", 0},  {"sm_110a", 0}, {"sm_120", 0},  {"sm_120a", 0},
	{"sm_121", 0},  {"sm_121a", 0},

	{"gfx600", P_AMDGCN},
	{"gfx601", P_AMDGCN},
	{"gfx602", P_AMDGCN},
	{"gfx700", P_AMDGCN},
	{"gfx701", P_AMDGCN},
	{"gfx702", P_AMDGCN},
	{"gfx703", P_AMDGCN},
	{"gfx704", P_AMDGCN},
	{"gfx705", P_AMDGCN},
	{"gfx801", GX},
	{"gfx802", P_AMDGCN},
	{"gfx803", P_AMDGCN},
	{"gfx805", P_AMDGCN},
	{"gfx810", GX},
	{"gfx9-generic", GX},
	{"gfx900", GX},
	{"gfx902", GX},
	{"gfx904", GX},
	{"gfx906", GXS},
	{"gfx908", GXS},
	{"gfx909", GX},
	{"gfx90a", GXS},
	{"gfx90c", GX},
	{"gfx9-4-generic", GXS},
	{"gfx942", GXS},
	{"gfx950", GXS},
	{"gfx10-1-generic", GX},
	{"gfx1010", GX},
	{"gfx1011", GX},
	{"gfx1012", GX},
	{"gfx1013", GX},
	{"gfx10-3-generic", P_AMDGCN},
	{"gfx1030", P_AMDGCN},
	{"gfx1031", P_AMDGCN},
	{"gfx1032", P_AMDGCN},
	{"gfx1033", P_AMDGCN},
	{"gfx1034", P_AMDGCN},
	{"gfx1035", P_AMDGCN},
	{"gfx1036", P_AMDGCN},
	{"gfx11-generic", P_AMDGCN},
	{"gfx1100", P_AMDGCN},
	{"gfx1101", P_AMDGCN},
	{"gfx1102", P_AMDGCN},
	{"gfx1103", P_AMDGCN},
	{"gfx1150", P_AMDGCN},
	{"gfx1151", P_AMDGCN},
	{"gfx1152", P_AMDGCN},
	{"gfx1153", P_AMDGCN},
	{"gfx12-generic", P_AMDGCN},
	{"gfx1200", P_AMDGCN},
	{"gfx1201", P_AMDGCN},
	{"gfx1250", P_AMDGCN},
	{"gfx1251", P_AMDGCN},

	{"amdgcnspirv", 0},
	{"graniterapids", 0},
	{"bmg_g21", 0},
	{"generic", 0},
};

static const struct proc *find_proc(const char *s, size_t len)
{
	size_t i;

	if (len == 0)
		return NULL;
	for (i = 0; i < sizeof procs / sizeof procs[0]; i++) {
		const char *n = procs[i].name;
		if (strlen(n) == len && memcmp(n, s, len) == 0)
			return &procs[i];
	}
	return NULL;
}

bool targetid_known_processor(const char *s, size_t len)
{
	return find_proc(s, len) != NULL;
}

/* Length of the processor part: everything before the first ':'. */
static size_t proc_len(const char *id, size_t len)
{
	const char *c = memchr(id, ':', len);

	return c ? (size_t)(c - id) : len;
}

size_t targetid_effective_len(const char *id, size_t len)
{
	return targetid_known_processor(id, proc_len(id, len)) ? len : 0;
}

/* Walk the feature list of a target ID, i.e. what follows the first ':'.
 * Each call yields one "name<sign>" item; the list may end with one ':'
 * ("gfx906:xnack+:" is accepted), but an empty item in the middle, or an
 * item not ending in '+' or '-', is a format error. */
struct feat_iter {
	const char *p, *end;
};

/* Returns 1 and sets *name, *nlen, *on for the next feature, 0 at the end,
 * -1 on a format error. */
static int feat_next(struct feat_iter *it, const char **name, size_t *nlen,
		     bool *on)
{
	const char *c;
	size_t seglen;
	char sign;

	if (it->p >= it->end)
		return 0;
	c = memchr(it->p, ':', (size_t)(it->end - it->p));
	seglen = c ? (size_t)(c - it->p) : (size_t)(it->end - it->p);
	/* An empty item's "last character" is the ':' before it (that is
	 * what LLVM's unchecked back() reads), which is no sign. */
	if (seglen == 0)
		return -1;
	sign = it->p[seglen - 1];
	if (sign != '+' && sign != '-')
		return -1;
	*name = it->p;
	*nlen = seglen - 1;
	*on = sign == '+';
	it->p = c ? c + 1 : it->end;
	return 1;
}

static void feat_begin(struct feat_iter *it, const char *id, size_t len)
{
	size_t pl = proc_len(id, len);

	it->p = pl < len ? id + pl + 1 : id + len;
	it->end = id + len;
}

/* The result of parseTargetID: features as bits (xnack, sramecc). */
#define F_XNACK 1u
#define F_SRAMECC 2u

struct parsed {
	const char *proc;
	size_t proc_len;
	unsigned present, on;
	unsigned count;
};

static bool name_is(const char *s, size_t len, const char *lit)
{
	return strlen(lit) == len && memcmp(s, lit, len) == 0;
}

/* parseTargetID for triple t, after the bundler's known-processor filter
 * (an ID whose processor is not an offload arch counts as empty, and an empty
 * ID does not parse).  Any feature other than those the processor accepts
 * fails, and so does a repeated one, whether or not it is accepted. */
static bool parse_id(const char *id, size_t len, const struct triple *t,
		     struct parsed *out)
{
	const struct proc *pr;
	struct feat_iter it;
	const char *name;
	size_t nlen;
	bool on;
	int r;
	unsigned allowed = 0;

	out->proc = id;
	out->proc_len = proc_len(id, len);
	out->present = out->on = out->count = 0;
	pr = find_proc(id, out->proc_len);
	if (!pr)
		return false;
	if (triple_is_amdgcn(t)) {
		if (!(pr->flags & P_AMDGCN))
			return false; /* no canonical AMDGCN name */
		if (pr->flags & P_XNACK)
			allowed |= F_XNACK;
		if (pr->flags & P_SRAMECC)
			allowed |= F_SRAMECC;
	}
	feat_begin(&it, id, len);
	while ((r = feat_next(&it, &name, &nlen, &on)) > 0) {
		unsigned bit;

		if (name_is(name, nlen, "xnack"))
			bit = F_XNACK;
		else if (name_is(name, nlen, "sramecc"))
			bit = F_SRAMECC;
		else
			return false;
		if (!(allowed & bit) || (out->present & bit))
			return false;
		out->present |= bit;
		if (on)
			out->on |= bit;
		out->count++;
	}
	return r == 0;
}

bool targetid_compatible(const char *entry, size_t entry_len,
			 const char *request, size_t request_len,
			 const struct triple *t)
{
	struct parsed e, r;

	if (!parse_id(entry, entry_len, t, &e) ||
	    !parse_id(request, request_len, t, &r))
		return false;
	if (e.proc_len != r.proc_len || memcmp(e.proc, r.proc, e.proc_len))
		return false;
	if (e.count > r.count)
		return false;
	/* Each feature the entry pins must be pinned the same way by the
	 * request; a feature the entry leaves open matches anything. */
	if ((e.present & r.present) != e.present)
		return false;
	return ((e.on ^ r.on) & e.present) == 0;
}

/* Format check only (parseTargetIDWithFormatCheckingOnly): a non-empty ID
 * needs a non-empty processor, and its features must each end in a sign and
 * have distinct names.  The empty ID is well formed, with processor "".
 * *fend is set to the end of the features accepted before any error: the
 * parser records them as it goes, and on an error they stay recorded. */
static bool scan_id(const char *id, size_t len, const char **fend)
{
	struct feat_iter it, it2;
	const char *name, *name2;
	size_t nlen, nlen2;
	bool on;
	int r;

	feat_begin(&it, id, len);
	*fend = it.p;
	if (len == 0)
		return true;
	if (proc_len(id, len) == 0)
		return false;
	for (;;) {
		const char *before = it.p;

		r = feat_next(&it, &name, &nlen, &on);
		if (r <= 0)
			return r == 0;
		/* A repeated name fails before it is recorded. */
		feat_begin(&it2, id, len);
		while (it2.p < before &&
		       feat_next(&it2, &name2, &nlen2, &on) > 0)
			if (nlen2 == nlen && memcmp(name2, name, nlen) == 0)
				return false;
		*fend = it.p;
	}
}

static bool well_formed(const char *id)
{
	const char *fend;

	return scan_id(id, strlen(id), &fend);
}

/* Whether feature name (name, nlen) appears in the (well-formed) ID. */
static bool has_feature(const char *id, const char *name, size_t nlen)
{
	size_t len = strlen(id);
	struct feat_iter it;
	const char *n;
	size_t l;
	bool on;

	feat_begin(&it, id, len);
	while (feat_next(&it, &n, &l, &on) > 0)
		if (l == nlen && memcmp(n, name, nlen) == 0)
			return true;
	return false;
}

/* getConflictTargetIDCombination.  Each processor's first ID is remembered;
 * a later ID of the same processor conflicts if it names a feature the
 * remembered one does not.
 *
 * LLVM 22 dereferences the parser's empty result for a malformed ID.  As
 * built (Debian 22.1.8, x86-64), that reads the processor left over from the
 * last ID that did parse, together with the features recorded before the
 * error; with no such ID it reads garbage and crashes.  Measured, and
 * reproduced here; the crash is reported as -1. */
int targetid_conflict_ex(const char *const *ids, size_t n, size_t *first,
			 size_t *second)
{
	size_t i, j, last_ok = 0;
	bool have_ok = false;

	for (i = 0; i < n; i++) {
		const char *id = ids[i], *proc, *fend;
		size_t len = strlen(id), pl;
		struct feat_iter it;
		const char *name;
		size_t nlen;
		bool on;

		if (scan_id(id, len, &fend)) {
			proc = id;
			pl = proc_len(id, len);
			have_ok = true;
			last_ok = i;
		} else if (have_ok) {
			proc = ids[last_ok];
			pl = proc_len(proc, strlen(proc));
		} else {
			*first = *second = i;
			return -1;
		}
		/* The remembered ID: the first well-formed one with this
		 * processor (malformed IDs are never remembered). */
		for (j = 0; j < i; j++) {
			size_t jl = strlen(ids[j]);

			if (proc_len(ids[j], jl) == pl &&
			    memcmp(ids[j], proc, pl) == 0 && well_formed(ids[j]))
				break;
		}
		if (j == i)
			continue;
		feat_begin(&it, id, len);
		it.end = fend;
		while (feat_next(&it, &name, &nlen, &on) > 0) {
			if (!has_feature(ids[j], name, nlen)) {
				*first = j;
				*second = i;
				return 1;
			}
		}
	}
	return 0;
}

bool targetid_conflict(const char *const *ids, size_t n, size_t *first,
		       size_t *second)
{
	size_t a, b;

	if (targetid_conflict_ex(ids, n, &a, &b) != 1)
		return false;
	*first = a;
	*second = b;
	return true;
}

/* A loader's choice: a device has every feature set one way or the other,
 * so a code object fits it when the processors are the same and no feature
 * is set differently on the two sides.  A request that leaves a feature out
 * stands for devices with it either way. */
bool targetid_loadable(const char *entry, size_t entry_len,
		       const char *request, size_t request_len)
{
	struct feat_iter ri, ei;
	const char *rn, *en;
	size_t rl, el;
	bool ron, eon;
	int r, k;

	if (proc_len(entry, entry_len) != proc_len(request, request_len) ||
	    memcmp(entry, request, proc_len(entry, entry_len)))
		return false;
	feat_begin(&ri, request, request_len);
	while ((r = feat_next(&ri, &rn, &rl, &ron)) > 0) {
		feat_begin(&ei, entry, entry_len);
		while ((k = feat_next(&ei, &en, &el, &eon)) > 0)
			if (el == rl && !memcmp(en, rn, rl) && eon != ron)
				return false;
		if (k < 0)
			return false;
	}
	return r == 0;
}

int targetid_check_request(const char *id, size_t len, const char **why)
{
	const struct proc *pr = find_proc(id, proc_len(id, len));
	struct feat_iter it;
	const char *name;
	size_t nlen;
	unsigned seen = 0;
	bool on;
	int r;

	if (!pr) {
		*why = "unknown processor";
		return -1;
	}
	feat_begin(&it, id, len);
	if (proc_len(id, len) < len && it.p == it.end) {
		*why = "empty feature after ':'";
		return -1;
	}
	while ((r = feat_next(&it, &name, &nlen, &on)) > 0) {
		unsigned bit = name_is(name, nlen, "xnack") ? F_XNACK :
			       name_is(name, nlen, "sramecc") ? F_SRAMECC : 0;
		unsigned allowed = (pr->flags & P_XNACK ? F_XNACK : 0) |
				   (pr->flags & P_SRAMECC ? F_SRAMECC : 0);

		if (!(bit & allowed)) {
			*why = bit ? "a feature this processor does not have"
				   : "unknown feature (xnack and sramecc are)";
			return -1;
		}
		if (seen & bit) {
			*why = "a feature given twice";
			return -1;
		}
		seen |= bit;
	}
	if (r < 0) {
		*why = "an empty feature, or one without '+' or '-'";
		return -1;
	}
	return 0;
}
