/* target: offload bundle entry IDs, parsed, standardised and matched. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "target.h"
#include "targetid.h"
#include "triple_normalize.h"

int target_parse(struct target *tg, const char *s, size_t len,
		 enum llvm_release r)
{
	char *dash[5] = { 0 };
	size_t ndash = 0;
	char *p, *tid;

	memset(tg, 0, sizeof(*tg));
	for (size_t i = 0; i < len && ndash < 5; i++)
		if (s[i] == '-')
			ndash++;
	if (ndash < 4)
		return -1;
	/* Room for the ID with the kind cut off by a NUL. */
	tg->buf = malloc(len + 2);
	if (!tg->buf) {
		errno = ENOMEM;
		return -1;
	}
	memcpy(tg->buf, s, len);
	tg->buf[len] = 0;
	ndash = 0;
	for (p = tg->buf; *p && ndash < 5; p++)
		if (*p == '-')
			dash[ndash++] = p;
	if (memchr(tg->buf, 0, len)) {
		/* An embedded NUL would cut the C strings below short. */
		free(tg->buf);
		tg->buf = NULL;
		return -1;
	}
	tg->kind = tg->buf;
	*dash[0] = 0;
	tg->triple = dash[0] + 1;
	tid = "";
	if (ndash == 5) {
		*dash[4] = 0;
		tid = dash[4] + 1;
	}
	{
		const char *colon = strchr(tid, ':');
		size_t proc = colon ? (size_t)(colon - tid) : strlen(tid);

		tg->tid = proc && targetid_known_processor(tid, proc) ? tid : "";
	}
	tg->release = r;
	triple_parse(tg->triple, strlen(tg->triple), r, &tg->t);
	return 0;
}

int target_parse_entry(struct target *tg, const char *s, size_t len,
		       enum llvm_release r)
{
	size_t ndash = 0;
	char *five;
	int rc;

	if (target_parse(tg, s, len, r) == 0)
		return 0;
	for (size_t i = 0; i < len; i++)
		ndash += s[i] == '-';
	if (ndash != 3 || len < 5 || memcmp(s, "host-", 5) ||
	    memchr(s, 0, len) || s[len - 1] == '-')
		return -1;
	/* Read as the same ID with an empty environment. */
	five = malloc(len + 2);
	if (!five) {
		errno = ENOMEM;
		return -1;
	}
	memcpy(five, s, len);
	five[len] = '-';
	rc = target_parse(tg, five, len + 1, r);
	free(five);
	if (rc == 0)
		tg->any_env = true;
	return rc;
}

void target_free(struct target *tg)
{
	free(tg->buf);
	memset(tg, 0, sizeof(*tg));
}

char *target_standard(const struct target *tg, struct err *e)
{
	bool amdhsa = triple_os_is_amdhsa(&tg->t);
	char *norm = triple_normalize(tg->triple, strlen(tg->triple),
				      amdhsa ? 3 : 4, tg->release, e);
	char *out;
	size_t len;

	if (!norm)
		return NULL;
	len = strlen(tg->kind) + strlen(norm) + strlen(tg->tid) + 4;
	out = malloc(len);
	if (out) {
		strcpy(out, tg->kind);
		strcat(out, "-");
		strcat(out, norm);
		strcat(out, amdhsa ? "--" : "-");
		strcat(out, tg->tid);
	} else {
		err_nomem(e);
	}
	free(norm);
	return out;
}

bool target_kind_valid(const struct target *tg)
{
	return !strcmp(tg->kind, "host") || !strcmp(tg->kind, "openmp") ||
	       target_is_hip(tg);
}

bool target_triple_valid(const struct target *tg)
{
	return tg->triple[0] && triple_arch_known(&tg->t);
}

bool target_is_host(const struct target *tg)
{
	return !strcmp(tg->kind, "host");
}

bool target_is_hip(const struct target *tg)
{
	return !strcmp(tg->kind, "hip") || !strcmp(tg->kind, "hipv4");
}

static bool kind_compatible(const char *entry, const char *req, bool hip_omp)
{
	bool hip_pair = (!strcmp(entry, "hip") && !strcmp(req, "hipv4")) ||
			(!strcmp(entry, "hipv4") && !strcmp(req, "hip"));

	if (!strcmp(entry, req) || hip_pair)
		return true;
	if (!hip_omp)
		return false;
	return (!strncasecmp(entry, "hip", 3) && !strcmp(req, "openmp")) ||
	       (!strcmp(entry, "openmp") && !strncasecmp(req, "hip", 3));
}

bool target_compatible(const struct target *entry, const struct target *request,
		       bool hip_openmp_compatible)
{
	struct triple et = entry->t;
	bool triples;

	/* An old host ID names no environment: the request's fits. */
	if (entry->any_env) {
		et.env = request->t.env;
		et.objfmt = request->t.objfmt;
	}
	triples = triple_compatible(&et, &request->t);

	if (!strcmp(entry->kind, request->kind) && triples &&
	    !strcmp(entry->tid, request->tid))
		return true;
	if (!kind_compatible(entry->kind, request->kind, hip_openmp_compatible)
	    || !triples)
		return false;
	return targetid_compatible(entry->tid, strlen(entry->tid), request->tid,
				   strlen(request->tid), &request->t);
}

/* The sixth part of an ID as written (target.tid keeps only known
 * processors). */
static const char *raw_tid(const char *id, size_t len, size_t *tid_len)
{
	size_t dashes = 0;

	for (size_t i = 0; i < len; i++)
		if (id[i] == '-' && ++dashes == 5) {
			*tid_len = len - i - 1;
			return id + i + 1;
		}
	*tid_len = 0;
	return id + len;
}

char *target_amdgcn_spelling(const char *id, size_t len, size_t *out_len)
{
	const char *kind_end = memchr(id, '-', len), *arch, *arch_end;
	char *buf;

	if (!kind_end)
		return NULL;
	arch = kind_end + 1;
	arch_end = memchr(arch, '-', len - (size_t)(arch - id));
	if (!arch_end || arch_end - arch < 6 || memcmp(arch, "amdgpu", 6) ||
	    !(buf = malloc(len + 7)))
		return NULL;
	memcpy(buf, id, (size_t)(arch - id));
	memcpy(buf + (arch - id), "amdgcn", 6);
	memcpy(buf + (arch - id) + 6, arch_end, len - (size_t)(arch_end - id));
	*out_len = (size_t)(arch - id) + 6 + (len - (size_t)(arch_end - id));
	buf[*out_len] = 0;
	return buf;
}

/* id itself, or its amdgcn spelling (*buf, malloc'd). */
static const char *amdgcn_spelled(const char *id, size_t *len, char **buf)
{
	*buf = target_amdgcn_spelling(id, *len, len);
	return *buf ? *buf : id;
}

bool target_loadable(const char *entry, size_t entry_len, const char *request,
		     size_t request_len)
{
	struct target e, r;
	const char *etid, *rtid;
	char *ebuf, *rbuf;
	size_t elen, rlen;
	bool ok = false;

	entry = amdgcn_spelled(entry, &entry_len, &ebuf);
	request = amdgcn_spelled(request, &request_len, &rbuf);
	if (target_parse(&e, entry, entry_len, LLVM_NEWEST) < 0)
		goto out;
	if (target_parse(&r, request, request_len, LLVM_NEWEST) < 0) {
		target_free(&e);
		goto out;
	}
	etid = raw_tid(entry, entry_len, &elen);
	rtid = raw_tid(request, request_len, &rlen);
	ok = kind_compatible(e.kind, r.kind, false) &&
	     triple_compatible(&e.t, &r.t) &&
	     (rlen == 0 ? elen == 0 : targetid_loadable(etid, elen, rtid, rlen));
	target_free(&e);
	target_free(&r);
out:
	free(ebuf);
	free(rbuf);
	return ok;
}
