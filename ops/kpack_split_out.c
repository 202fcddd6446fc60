/* kpack_split_out: where kpack split's outputs go, its archives and
 * manifests; see kpack_split_out.h and, for what the splitter does that
 * this follows, kpack_split.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kpack_artifact.h"
#include "kpack_databases.h"
#include "kpack_split_out.h"
#include "../core/io_out.h"
#include "../core/io_write.h"

int kpack_split_fail(struct err *e, const char *path)
{
	struct err inner;

	if (e->path[0])
		return -1;
	inner = *e;
	err_file(e, path, "%s", inner.msg);
	e->code = inner.code;
	return -1;
}

char *kpack_split_join(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *p = malloc(la + lb + 2);

	if (p) {
		memcpy(p, a, la);
		p[la] = '/';
		memcpy(p + la + 1, b, lb + 1);
	}
	return p;
}

int kpack_split_sink(void *ctx, const void *p, size_t n, struct err *e)
{
	return n ? io_out_write(ctx, p, n, e) : 0;
}

/* rel, a path in OUT, taken by from: an error if another took it (arch:
 * the archive of arch). */
int kpack_split_claim(struct split *sp, char *rel, const char *from,
		 const char *arch)
{
	const char *by;
	int rc = kpack_outs_claim(&sp->outs, rel, from, &by);

	if (rc < 0)
		return err_nomem(sp->e);
	if (rc && arch)
		return err_code_file(sp->e, ERR_MALFORMED, 0, by, "is where "
				     "the archive for %s goes", arch);
	if (rc)
		return err_code_file(sp->e, ERR_MALFORMED, 0, from, "goes "
				     "where '%s' goes too", by);
	return 0;
}

/* A path in OUT: the parts given, '/' between, empty ones left out. */
static char *out_path(const char *a, const char *b, const char *c,
		      const char *d)
{
	const char *part[4] = { a, b, c, d };
	size_t n = 1;
	char *p;

	for (int i = 0; i < 4; i++)
		n += part[i] ? strlen(part[i]) + 1 : 0;
	if (!(p = malloc(n)))
		return NULL;
	p[0] = 0;
	for (int i = 0; i < 4; i++)
		if (part[i] && *part[i]) {
			if (*p)
				strcat(p, "/");
			strcat(p, part[i]);
		}
	return p;
}

/* The artifact directory of a GPU, or the generic one (arch NULL). */
static char *artifact_dir(const struct split *sp, const char *arch)
{
	char *p = malloc(strlen(sp->name) + (arch ? strlen(arch) : 7) + 2);

	if (p)
		sprintf(p, "%s_%s", sp->name, arch ? arch : "generic");
	return p;
}

/* Where the archive of a goes when source s is its first. */
static char *archive_path(const struct split *sp, const struct archive *a,
			  size_t s)
{
	char *dir = sp->per_target ? artifact_dir(sp, a->arch) : NULL;
	char *file = malloc(strlen(sp->name) + strlen(a->arch) + 16), *p = NULL;

	if (file && (dir || !sp->per_target)) {
		sprintf(file, ".kpack/%s_%s.kpack", sp->name, a->arch);
		p = out_path(dir, sp->per_target ? sp->src[s].key :
			     sp->src[s].out, file, NULL);
	}
	free(dir);
	free(file);
	return p;
}

/* The GPU arch of the artifact, made when first met. */
static int target(struct split *sp, const char *arch, size_t len, size_t *ix)
{
	struct archive *a;

	for (size_t i = 0; i < sp->na; i++)
		if (strlen(sp->a[i].arch) == len &&
		    !memcmp(sp->a[i].arch, arch, len)) {
			*ix = i;
			return 0;
		}
	if (sp->na == sp->capa) {
		size_t cap = sp->capa ? 2 * sp->capa : 8;
		struct archive *v = realloc(sp->a, cap * sizeof(*v));

		if (!v)
			return err_nomem(sp->e);
		sp->a = v;
		sp->capa = cap;
	}
	a = &sp->a[sp->na];
	memset(a, 0, sizeof(*a));
	a->o.fd = -1;
	if (!(a->arch = strndup(arch, len)) ||
	    !(a->code_from = calloc(sp->nsrc, sizeof(bool))) ||
	    !(a->db_from = calloc(sp->nsrc, sizeof(size_t)))) {
		free(a->arch);
		free(a->code_from);
		return err_nomem(sp->e);
	}
	sp->na++;
	*ix = sp->na - 1;
	return 0;
}

/* The archive of arch, opened and begun when its first code object
 * comes. */
int kpack_split_archive_for(struct split *sp, const char *arch, size_t len,
		       size_t *ix)
{
	struct archive *a;
	char *file = NULL, *dest = NULL;
	int rc = -1;

	if (target(sp, arch, len, ix) < 0)
		return -1;
	a = &sp->a[*ix];
	a->code_from[sp->isrc] = true;
	if (a->started)
		return 0;
	/* Opened at OUT/NAME_<gfx>.kpack, no directory made, and moved
	 * to its place at the end, when its prefixes are known. */
	if (!(file = malloc(strlen(sp->name) + len + 8))) {
		err_nomem(sp->e);
		goto out;
	}
	sprintf(file, "%s_%s.kpack", sp->name, a->arch);
	if (!(dest = kpack_split_join(sp->out, file))) {
		err_nomem(sp->e);
		goto out;
	}
	if (io_out_open_under(&a->o, sp->outfd, file, dest, sp->e) < 0)
		goto out;
	a->open = true;
	{
		const char *arches[1] = { a->arch };
		struct kpack_write_opts wo = {
			.group_name = sp->name, .arch_family = a->arch,
			.arches = arches, .narches = 1,
			.scheme = sp->scheme, .level = 3,
		};

		if (kpack_stream_begin(&a->st, &wo, kpack_split_sink, &a->o, sp->e) < 0)
			goto out;
	}
	a->started = true;
	rc = 0;
out:
	free(file);
	free(dest);
	return rc;
}

/* Where a file of the current source at rel goes, with database files
 * (db_arch set) in the artifact of their GPU. */
char *kpack_split_file_out(const struct split *sp, const char *rel,
		      const char *db_arch)
{
	const struct source *src = &sp->src[sp->isrc];
	char *dir, *p;

	if (!sp->per_target)
		return out_path(src->out, rel, NULL, NULL);
	if (!(dir = artifact_dir(sp, db_arch)))
		return NULL;
	p = out_path(dir, src->key, rel, NULL);
	free(dir);
	return p;
}

/* The GPU of a database file at rel, by the first of the databases
 * asked for that takes it (arch, n bytes), or false. */
static bool database_of(const struct split *sp, const char *rel, char *arch,
			size_t n)
{
	if (!sp->per_target)
		return false;
	for (size_t i = 0; i < sp->ndatabases; i++)
		if (sp->databases[i]->detect(rel, arch, n))
			return true;
	return false;
}

/* A file of the current source that is not a fat binary, at rel: where
 * it goes (a database file noted as its GPU's). */
char *kpack_split_plain_out(struct split *sp, const char *rel)
{
	char arch[256];
	size_t ix;

	if (!database_of(sp, rel, arch, sizeof(arch)))
		return kpack_split_file_out(sp, rel, NULL);
	if (target(sp, arch, strlen(arch), &ix) < 0)
		return NULL;
	{
		struct archive *a = &sp->a[ix];
		bool seen = false;

		for (size_t i = 0; i < a->ndb; i++)
			seen |= a->db_from[i] == sp->isrc;
		if (!seen)
			a->db_from[a->ndb++] = sp->isrc;
	}
	return kpack_split_file_out(sp, rel, arch);
}

/* The bytes of in written to the output at orel (a path in OUT) for the
 * file path: claimed, opened, the mode kept. */
int kpack_split_open_output(struct split *sp, char *orel, const char *path,
		       const struct io_in *in, struct io_out *out)
{
	char *dest;
	int rc;

	if (!orel)
		return err_nomem(sp->e);
	if (kpack_split_claim(sp, orel, path, NULL) < 0)
		return -1;
	if (!(dest = kpack_split_join(sp->out, orel)))
		return err_nomem(sp->e);
	rc = io_out_open_under(out, sp->outfd, orel, dest, sp->e);
	free(dest);
	if (rc == 0)
		io_out_keep_mode(out, in);
	return rc;
}

/* A manifest, its lines the keys of the sources listed. */
static int manifest(struct split *sp, const char *arch, const size_t *list,
		    size_t n)
{
	struct io_out out = { .fd = -1 };
	char *dir = artifact_dir(sp, arch), *rel, *dest = NULL;
	int rc = -1;

	rel = dir ? out_path(dir, KPACK_MANIFEST, NULL, NULL) : NULL;
	free(dir);
	if (!rel || !(dest = kpack_split_join(sp->out, rel))) {
		free(rel);
		return err_nomem(sp->e);
	}
	if (kpack_split_claim(sp, rel, dest, NULL) < 0 ||
	    io_out_open_under(&out, sp->outfd, rel, dest, sp->e) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const char *key = sp->src[list[i]].key;

		if (io_out_write(&out, key, strlen(key), sp->e) < 0 ||
		    io_out_write(&out, "\n", 1, sp->e) < 0) {
			io_out_discard(&out);
			goto out;
		}
	}
	rc = io_out_commit(&out, sp->e);
out:
	free(dest);
	return rc;
}

/* The sources of a GPU's manifest: its database files' in the order met,
 * and, with an archive, those and the archive's in byte order. */
static size_t manifest_of(const struct split *sp, const struct archive *a,
			  size_t *list)
{
	size_t n = 0;

	for (size_t i = 0; i < a->ndb; i++)
		list[n++] = a->db_from[i];
	if (!a->started)
		return n;
	for (size_t s = 0; s < sp->nsrc; s++) {
		bool seen = false;

		for (size_t i = 0; i < a->ndb; i++)
			seen |= a->db_from[i] == s;
		if (a->code_from[s] && !seen)
			list[n++] = s;
	}
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && strcmp(sp->src[list[j - 1]].key,
						   sp->src[list[j]].key) > 0;
		     j--) {
			size_t t = list[j];

			list[j] = list[j - 1];
			list[j - 1] = t;
		}
	return n;
}

/* Each archive's TOC, then its header and count put in, and the archive
 * moved under its first prefix in byte order; the manifests. */
int kpack_split_finish(struct split *sp)
{
	size_t *list = malloc((sp->nsrc + 1) * sizeof(*list));

	if (!list)
		return err_nomem(sp->e);
	for (size_t i = 0; i < sp->na; i++) {
		struct archive *a = &sp->a[i];
		uint8_t head[KPACK_HEADER_SIZE], count[4];
		size_t first = sp->nsrc;
		char *rel = NULL, *dest = NULL;

		for (size_t s = 0; a->started && s < sp->nsrc; s++)
			if (a->code_from[s] && (first == sp->nsrc ||
			    strcmp(sp->src[s].key, sp->src[first].key) < 0))
				first = s;
		if (a->started &&
		    (kpack_stream_end(&a->st, kpack_split_sink, &a->o, head, count,
				      sp->e) < 0 ||
		     io_out_pwrite(&a->o, head, sizeof(head), 0, sp->e) < 0 ||
		     (sp->scheme == KPACK_ZSTD &&
		      io_out_pwrite(&a->o, count, 4, 64, sp->e) < 0))) {
			free(list);
			return kpack_split_fail(sp->e, a->o.path);
		}
		if (a->started && (!(rel = archive_path(sp, a, first)) ||
				   !(dest = kpack_split_join(sp->out, rel)))) {
			free(rel);
			free(list);
			return err_nomem(sp->e);
		}
		/* claim takes rel over, whatever it returns; a move that
		 * fails leaves it to us. */
		if (a->started && io_out_move_under(&a->o, rel, dest,
						    sp->e) < 0) {
			free(rel);
			free(dest);
			free(list);
			return -1;
		}
		if (a->started && kpack_split_claim(sp, rel, dest, a->arch) < 0) {
			free(dest);
			free(list);
			return -1;
		}
		free(dest);
		a->open = false;
		if (a->started && io_out_commit(&a->o, sp->e) < 0) {
			free(list);
			return kpack_split_fail(sp->e, a->o.path);
		}
		if (sp->per_target &&
		    manifest(sp, a->arch, list, manifest_of(sp, a, list)) < 0) {
			free(list);
			return -1;
		}
	}
	for (size_t s = 0; s < sp->nsrc; s++)
		list[s] = s;
	if (sp->per_target && manifest(sp, NULL, list, sp->nsrc) < 0) {
		free(list);
		return -1;
	}
	free(list);
	return 0;
}

void kpack_split_free_archives(struct split *sp)
{
	for (size_t i = 0; i < sp->na; i++) {
		if (sp->a[i].open)
			io_out_discard(&sp->a[i].o);
		kpack_stream_free(&sp->a[i].st);
		free(sp->a[i].arch);
		free(sp->a[i].code_from);
		free(sp->a[i].db_from);
	}
	free(sp->a);
	sp->a = NULL;
	sp->na = sp->capa = 0;
}
