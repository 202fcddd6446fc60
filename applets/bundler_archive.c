/* bundler_archive: --unbundle -type=a, as LLVM 22 does it: every bundle
 * entry of every archive member goes to the device archive of each
 * requested target it is compatible with (the command line is in
 * bundler.c, the format in ops/devarchive.c). */
#include <stdlib.h>
#include <string.h>

#include "bundler_archive.h"
#include "llvmtool.h"
#include "../core/io_in.h"
#include "../core/io_out.h"
#include "../core/io_write.h"
#include "../core/target.h"
#include "../core/targetid.h"
#include "../ops/devarchive.h"

struct device_archive {
	struct devarchive_member *m;
	size_t n, cap;
};

static int add_member(struct device_archive *a, char *name, const uint8_t *data,
		      size_t len)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 8;
		struct devarchive_member *m = realloc(a->m, cap * sizeof(*m));

		if (!m)
			return -1;
		a->m = m;
		a->cap = cap;
	}
	a->m[a->n++] = (struct devarchive_member){ name, data, len };
	return 0;
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* -check-input-archive: a member's bundle IDs, as full IDs whose part
 * before the first ':' stands for the processor, must not conflict. */
static int check_member(void *ctx, const char *file, size_t file_len,
			char **ids, size_t n)
{
	const struct config *c = ctx;
	char **set = calloc(n + 1, sizeof(*set));
	size_t m = 0, a, b;
	int rc = 0;

	if (!set)
		return llvm_fail("out of memory");
	memcpy(set, ids, n * sizeof(*set));
	qsort(set, n, sizeof(*set), by_string);
	for (size_t i = 0; i < n; i++)
		if (!m || strcmp(set[m - 1], set[i]))
			set[m++] = set[i];
	if (targetid_conflict((const char *const *)set, m, &a, &b))
		rc = llvm_fail("conflicting TargetIDs [%s, %s] found in %.*s of "
			  "%s", set[a], set[b], (int)file_len, file,
			  c->inputs[0]);
	free(set);
	return rc;
}

/* One entry, to every compatible requested target: to the archive of the
 * first target of its name (key), once per compatible target, as LLVM's
 * map of archives by name is filled (two targets that standardise alike
 * get each entry twice). */
static int route_entry(const struct config *c, const struct target *req,
		       const size_t *key, struct device_archive *out,
		       struct devarchive_reader *r,
		       struct devarchive_entry *ent)
{
	struct target got;
	struct err e;
	int rc = 1;

	if (target_parse_entry(&got, ent->id, ent->id_len, c->llvm) < 0)
		return llvm_fail("Invalid bundle id read from code object");
	for (size_t i = 0; i < c->ntargets; i++) {
		const uint8_t *data;
		size_t len;
		char *name;

		if (!target_compatible(&got, &req[i], c->hip_openmp))
			continue;
		if (devarchive_bytes(r, ent, &data, &len, &e) < 0) {
			llvm_fail("'%s': %s", c->inputs[0], e.msg);
			goto out;
		}
		name = devarchive_member_name(ent->file, ent->file_len, ent->id,
					      ent->id_len, got.tid);
		if (!name || add_member(&out[key[i]], name, data, len) < 0) {
			free(name);
			llvm_fail("out of memory");
			goto out;
		}
	}
	rc = 0;
out:
	target_free(&got);
	return rc;
}

/* Write every archive out (to its temporary), then rename them all into
 * place: one that cannot be written leaves every output as it was.  A name
 * several targets standardise to has one archive (key), written to the
 * last of their outputs (LLVM's map of output files by name); the others
 * are not written. */
static int write_archives(const struct config *c, const size_t *key,
			  const struct device_archive *a)
{
	struct io_out *out = calloc(c->ntargets + 1, sizeof(*out));
	struct err e;
	int rc = 1;

	if (!out)
		return llvm_fail("out of memory");
	for (size_t i = 0; i < c->ntargets; i++)
		out[i].fd = -1;
	for (size_t i = 0; i < c->ntargets; i++) {
		bool last = true;

		for (size_t j = i + 1; j < c->ntargets; j++)
			last &= key[j] != key[i];
		if (!last)
			continue;
		/* (LLVM's archive writer makes its temporary beside the
		 * output: where it cannot, it fails, and so do we) */
		if (io_out_open_replace(&out[i], c->outputs[i], &e) < 0 ||
		    devarchive_write(&out[i], a[key[i]].m, a[key[i]].n,
				     &e) < 0 ||
		    io_out_flush(&out[i], &e) < 0) {
			llvm_fail("%s", e.msg);
			goto out;
		}
	}
	io_out_together();
	for (size_t i = 0; i < c->ntargets; i++)
		if (io_out_commit(&out[i], &e) < 0) {
			io_out_together_end(false, NULL);
			llvm_fail("%s", e.msg);
			goto out;
		}
	if (io_out_together_end(true, &e) < 0) {
		llvm_fail("%s", e.msg);
		goto out;
	}
	rc = 0;
out:
	for (size_t i = 0; i < c->ntargets; i++)
		io_out_discard(&out[i]);
	free(out);
	return rc;
}

int bundler_unbundle_archive(const struct config *c)
{
	struct target *req = calloc(c->ntargets + 1, sizeof(*req));
	struct device_archive *out = calloc(c->ntargets + 1, sizeof(*out));
	size_t *key = calloc(c->ntargets + 1, sizeof(*key));
	struct devarchive_reader r = { 0 };
	struct devarchive_entry ent;
	struct io_in in = { .fd = -1 };
	struct err e;
	int rc = 1, more;

	if (!req || !out || !key) {
		llvm_fail("out of memory");
		goto out;
	}
	for (size_t i = 0; i < c->ntargets; i++)
		for (key[i] = 0; key[i] < i; key[i]++)
			if (!strcmp(c->std_targets[key[i]], c->std_targets[i]))
				break;
	for (size_t i = 0; i < c->ntargets; i++)
		if (target_parse(&req[i], c->std_targets[i],
				 strlen(c->std_targets[i]), c->llvm) < 0) {
			llvm_fail("invalid bundle id from bundle config");
			goto out;
		}
	if (io_in_open(&in, c->inputs[0], &e) < 0) {
		llvm_fail("%s", e.msg);
		goto out;
	}
	if (c->check_archive) {
		more = devarchive_member_ids(in.data, in.len, check_member,
					     (void *)c, c->llvm, &e);
		if (more < 0)
			llvm_fail("%s", e.msg);
		if (more)
			goto out;
	}
	/* LLVM's own messages for what is not an archive name no file. */
	if (devarchive_open(&r, in.data, in.len, &c->limits, c->llvm,
			    &e) < 0) {
		llvm_fail("%s", e.msg);
		goto out;
	}
	devarchive_set_path(&r, c->inputs[0]);
	while ((more = devarchive_next(&r, &ent, &e)) == 1)
		if (route_entry(c, req, key, out, &r, &ent))
			goto out;
	if (more < 0) {
		if (e.llvm_words)
			llvm_fail("%s", e.msg);
		else
			llvm_fail("'%s': %s", c->inputs[0], e.msg);
		goto out;
	}
	/* Only when every archive has its code is any of them written. */
	for (size_t i = 0; i < c->ntargets; i++)
		if (!out[key[i]].n && !c->allow_missing) {
			llvm_fail("no compatible code object found for the target "
				     "'%s' in heterogeneous archive library: %s",
				     c->std_targets[i], c->inputs[0]);
			goto out;
		}
	rc = write_archives(c, key, out);
out:
	for (size_t i = 0; out && i < c->ntargets; i++) {
		for (size_t j = 0; j < out[i].n; j++)
			free(out[i].m[j].name);
		free(out[i].m);
	}
	for (size_t i = 0; req && i < c->ntargets; i++)
		target_free(&req[i]);
	free(req);
	free(out);
	free(key);
	devarchive_close(&r);
	io_in_close(&in);
	return rc;
}
