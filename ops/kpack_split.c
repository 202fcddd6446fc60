/* kpack_split: an install tree split into host binaries and per-GPU kpack
 * archives; see kpack_split.h.  What the reference splitter writes, read
 * in its source (ROCm/rocm-kpack python/rocm_kpack, never copied):
 *   - a file is a fat binary when it is ELF with a .hip_fatbin section
 *     (artifact_utils.is_fat_binary); its code objects are every non-host
 *     entry of every bundle in .hip_fatbin, CCOBs inflated
 *     (ccob_parser.extract_code_objects_from_fatbin), the target the part
 *     of the bundle entry ID after its last "--";
 *   - each gets the TOC key "<prefix>/<path>#<n>", n counting that
 *     file's code objects of that target (process_fat_binaries), and the
 *     metadata {target: <entry ID>, source_prefix: <prefix>};
 *   - one archive per target, ".kpack/<name>_<target>.kpack", group
 *     <name>, family and only arch <target>, "none" (create_kpack_files;
 *     --compress=zstd is ZstdCompressor's level 3);
 *   - the host keeps kernel_name "<prefix>/<path>" and the search path
 *     "../" per directory level, then ".kpack/<name>_@GFXARCH@.kpack"
 *     (compute_kpack_search_pattern), and wrapper i gets reserved1 = i
 *     (elf/kpack_transform.py).
 * Our prefix and name are both NAME.  Since the runtime finds wrapper i's
 * code under "#i", we check what the splitter assumes: wrapper i points at
 * bundle i, and every bundle has one code object of each target. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inspect.h"
#include "kpack_host.h"
#include "kpack_split.h"
#include "../core/elfscan.h"
#include "../core/io_in.h"
#include "../core/io_out.h"
#include "../core/io_scratch.h"
#include "../core/io_write.h"
#include "../core/tree.h"
#include "../formats/kpack_write.h"

struct kern {
	size_t file;		/* index into the tree's files */
	size_t bundle;
	char *id;		/* bundle entry ID */
	char *arch;
	unsigned index;		/* among the file's code objects of arch */
	uint8_t *code;
	uint64_t size;
};

struct fatfile {
	size_t file;
	uint64_t *bundle_addr;	/* each bundle's address */
	size_t nbundles;
};

struct split {
	const struct kpack_split_opts *o;
	struct err *e;
	struct kern *k;
	size_t nk, capk;
	/* The file being walked. */
	size_t file;
	bool elf_exec;		/* a linked ELF file, depth 0 */
	bool in_fat;		/* under its .hip_fatbin */
	unsigned fat_depth;
	uint64_t fat_addr, fat_off;
	size_t nbundles, first_kern;
	uint64_t *bundle_addr;
	bool has_fat;
};

static int fail_file(struct err *e, const char *path)
{
	struct err inner;

	if (e->path[0])
		return -1;
	inner = *e;
	err_file(e, path, "%s", inner.msg);
	e->code = inner.code;
	return -1;
}

/* Bytes a target may have to name an archive file: a target ID's. */
static bool arch_ok(const char *a)
{
	if (!*a || *a == '.')
		return false;
	for (; *a; a++)
		if (!((*a >= 'a' && *a <= 'z') || (*a >= 'A' && *a <= 'Z') ||
		      (*a >= '0' && *a <= '9') || strchr("_:+-.", *a)))
			return false;
	return true;
}

static int visit(void *ctx, const struct inspect_node *n)
{
	struct split *sp = ctx;

	if (n->kind == INSPECT_INPUT) {
		if (n->depth == 0)
			sp->elf_exec = n->format == INSPECT_ELF &&
				       (n->elf_type == 2 || n->elf_type == 3);
		sp->in_fat = false;
		return 0;
	}
	if (n->kind == INSPECT_SECTION) {
		sp->in_fat = sp->elf_exec && n->depth == 1 &&
			     n->section_kind == ELFSCAN_HIP_FATBIN;
		if (sp->in_fat) {
			sp->has_fat = true;
			sp->fat_depth = n->depth;
			sp->fat_off = n->offset;
		}
		return 0;
	}
	if (!sp->in_fat)
		return 0;
	if (n->kind == INSPECT_CONTAINER && n->depth == sp->fat_depth + 1 &&
	    !n->update) {
		uint64_t *v = realloc(sp->bundle_addr, (sp->nbundles + 1) *
				      sizeof(*v));

		if (!v)
			return err_nomem(sp->e);
		sp->bundle_addr = v;
		v[sp->nbundles++] = n->offset - sp->fat_off;
		return 0;
	}
	if (n->kind == INSPECT_ENTRY) {
		const char *id = n->name, *dash = NULL;
		struct kern *k;

		if (n->name_len >= 4 && !memcmp(id, "host", 4))
			return 0;
		for (size_t i = 0; i + 1 < n->name_len; i++)
			if (id[i] == '-' && id[i + 1] == '-')
				dash = id + i;
		/* Our own failures stop the walk with 1, the record
		 * ours (-1 would say out of memory). */
		if (!dash || !n->data || !sp->nbundles) {
			err_code_set(sp->e, ERR_MALFORMED, "bundle entry "
				     "'%.*s' names no target",
				     (int)(n->name_len > 200 ? 200 :
					   n->name_len), id);
			return 1;
		}
		if (sp->nk == sp->capk) {
			size_t cap = sp->capk ? 2 * sp->capk : 16;
			struct kern *v = realloc(sp->k, cap * sizeof(*v));

			if (!v)
				return err_nomem(sp->e);
			sp->k = v;
			sp->capk = cap;
		}
		k = &sp->k[sp->nk];
		memset(k, 0, sizeof(*k));
		k->file = sp->file;
		k->bundle = sp->nbundles - 1;
		k->size = n->size;
		k->id = strndup(id, n->name_len);
		k->arch = strndup(dash + 2, (size_t)(id + n->name_len -
						     dash - 2));
		k->code = malloc(n->size ? (size_t)n->size : 1);
		if (!k->id || !k->arch || !k->code) {
			free(k->id);
			free(k->arch);
			free(k->code);
			return err_nomem(sp->e);
		}
		memcpy(k->code, n->data, (size_t)n->size);
		sp->nk++;
		if (!arch_ok(k->arch) || strlen(k->arch) != n->name_len -
		    (size_t)(dash + 2 - id)) {
			err_code_set(sp->e, ERR_MALFORMED, "bundle entry "
				     "'%.200s': its target cannot name an "
				     "archive file", k->id);
			return 1;
		}
		for (size_t i = sp->first_kern; i + 1 < sp->nk; i++)
			if (!strcmp(sp->k[i].arch, k->arch))
				k->index++;
	}
	return 0;
}

/* What the splitter takes for granted, checked: bundle i is wrapper i's,
 * and holds one code object of each target. */
static int check_indices(struct split *sp, const struct kpack_host *h)
{
	size_t first = sp->first_kern;

	if (h->nwrappers != sp->nbundles)
		return err_code_set(sp->e, ERR_OTHER, "%zu wrapper%s for %zu "
				    "bundle%s in .hip_fatbin", h->nwrappers,
				    h->nwrappers == 1 ? "" : "s",
				    sp->nbundles, sp->nbundles == 1 ? "" : "s");
	for (size_t i = 0; i < h->nwrappers; i++)
		if (h->target[i] != h->fat_addr + sp->bundle_addr[i])
			return err_code_set(sp->e, ERR_OTHER, "wrapper %zu "
					    "points at 0x%llx, not at bundle "
					    "%zu (0x%llx)", i,
					    (unsigned long long)h->target[i], i,
					    (unsigned long long)(h->fat_addr +
						sp->bundle_addr[i]));
	for (size_t i = first; i < sp->nk; i++) {
		size_t per = 0;

		for (size_t j = first; j < sp->nk; j++)
			if (!strcmp(sp->k[j].arch, sp->k[i].arch)) {
				if (sp->k[j].bundle != per)
					return err_code_set(
						sp->e, ERR_OTHER, "bundle %zu "
						"has %s code object for %s, so "
						"the index of wrapper %zu would "
						"find another's",
						sp->k[j].bundle < per ?
						sp->k[j].bundle : per,
						sp->k[j].bundle < per ? "more "
						"than one" : "no",
						sp->k[i].arch,
						sp->k[j].bundle < per ?
						sp->k[j].bundle : per);
				per++;
			}
		if (per != sp->nbundles)
			return err_code_set(sp->e, ERR_OTHER, "bundle %zu has "
					    "no code object for %s", per,
					    sp->k[i].arch);
	}
	return 0;
}

/* A linked file already split, or whose wrappers have no fat binary. */
static int refuse_split(const uint8_t *buf, size_t len, struct err *e)
{
	struct elfscan s;
	int rc = 0;

	if (!elfscan_is_elf(buf, len) || elfscan_open(&s, buf, len, e) < 0)
		return 0;
	bool fat = false, seg = false;

	for (size_t i = 1; i < s.n; i++) {
		if (!strcmp(s.sec[i].name, ".rocm_kpack_ref"))
			rc = err_code_set(e, ERR_OTHER, "already split (it has "
					  ".rocm_kpack_ref)");
		fat |= !strcmp(s.sec[i].name, ".hip_fatbin");
		seg |= !strcmp(s.sec[i].name, ".hipFatBinSegment");
	}
	if (!rc && seg && !fat && (s.e_type == 2 || s.e_type == 3))
		rc = err_code_set(e, ERR_MALFORMED, "HIP wrappers "
				  "(.hipFatBinSegment) but no .hip_fatbin");
	elfscan_free(&s);
	return rc;
}

struct outfile {
	struct io_out o;
	bool open;
};

static char *join(const char *a, const char *b)
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

static int mkparent(const char *path, struct err *e)
{
	char *d = strdup(path), *slash;
	int rc = 0;

	if (!d)
		return err_nomem(e);
	if ((slash = strrchr(d, '/')) && slash != d) {
		*slash = 0;
		rc = io_mkdirs(d, e);
	}
	free(d);
	return rc;
}

static int sink(void *ctx, const void *p, size_t n, struct err *e)
{
	return n ? io_out_write(ctx, p, n, e) : 0;
}

/* The search pattern of a binary at rel (compute_kpack_search_pattern). */
static char *pattern(const char *rel, const char *name)
{
	size_t depth = 0, n;
	char *p;

	for (const char *c = rel; *c; c++)
		depth += *c == '/';
	n = 3 * depth + strlen(name) + sizeof(".kpack/_@GFXARCH@.kpack");
	if (!(p = malloc(n)))
		return NULL;
	p[0] = 0;
	for (size_t i = 0; i < depth; i++)
		strcat(p, "../");
	strcat(p, ".kpack/");
	strcat(p, name);
	strcat(p, "_@GFXARCH@.kpack");
	return p;
}

/* One file of the tree: copied, or split (its code objects into sp->k). */
static int one_file(struct split *sp, struct tree *t, size_t fi,
		    const char *rel, struct outfile *of)
{
	const struct kpack_split_opts *o = sp->o;
	struct inspect_opts wo = {
		.inflate = true, .accept_other = true,
		.ccob = o->ccob, .package = o->package,
	};
	struct kpack_host h = { 0 };
	struct io_in in = { .fd = -1 };
	uint8_t *ref = NULL;
	size_t ref_len = 0;
	char *dest = NULL, *pat = NULL, *kname = NULL;
	int rc = -1;

	sp->file = fi;
	sp->elf_exec = sp->in_fat = sp->has_fat = false;
	sp->nbundles = 0;
	sp->first_kern = sp->nk;
	if (io_in_open(&in, t->file[fi].path, sp->e) < 0)
		return -1;
	if (refuse_split(in.data, in.len, sp->e) < 0 ||
	    inspect_walk(in.data, in.len, &wo, visit, sp, sp->e) != 0)
		goto out;
	if (!(dest = join(o->out, rel))) {
		err_nomem(sp->e);
		goto out;
	}
	if (mkparent(dest, sp->e) < 0 ||
	    io_out_open_in_dir(&of->o, dest, sp->e) < 0)
		goto out;
	of->open = true;
	io_out_keep_mode(&of->o, &in);
	if (!sp->has_fat) {
		rc = in.len ? io_out_copy(&of->o, &in, 0, in.len, sp->e) : 0;
		goto out;
	}
	if (sp->nk == sp->first_kern) {
		err_code_set(sp->e, ERR_NOTHING, ".hip_fatbin holds no "
			     "device code");
		goto out;
	}
	if (kpack_host_plan(in.data, in.len, &h, sp->e) < 0 ||
	    check_indices(sp, &h) < 0)
		goto out;
	{
		const char *paths[1];

		if (!(pat = pattern(rel, o->name)) ||
		    !(kname = join(o->name, rel))) {
			err_nomem(sp->e);
			goto out;
		}
		paths[0] = pat;
		if (kpack_ref_pack(kname, paths, 1, &ref, &ref_len, sp->e) < 0)
			goto out;
	}
	rc = kpack_host_write(in.data, in.len, &h, ref, ref_len, &of->o,
			      sp->e);
out:
	/* Committed now, renamed into place with the others at the end. */
	if (rc == 0 && of->open) {
		of->open = false;
		rc = io_out_commit(&of->o, sp->e);
	}
	if (rc < 0)
		fail_file(sp->e, t->file[fi].path);
	kpack_host_free(&h);
	free(ref);
	free(pat);
	free(kname);
	free(dest);
	io_in_close(&in);
	return rc;
}

/* The archives, one per target in the order each first came. */
static int archives(struct split *sp, struct tree *t, size_t skip,
		    struct outfile **aof, size_t *naof,
		    struct kpack_split_stats *st)
{
	const struct kpack_split_opts *o = sp->o;
	struct kpack_new *v = NULL;
	uint8_t **meta = NULL;
	char **keys = NULL;
	bool *done = NULL;
	size_t nv;
	int rc = -1;

	if (!(v = calloc(sp->nk + 1, sizeof(*v))) ||
	    !(meta = calloc(sp->nk + 1, sizeof(*meta))) ||
	    !(keys = calloc(sp->nk + 1, sizeof(*keys))) ||
	    !(done = calloc(sp->nk + 1, sizeof(*done))) ||
	    !(*aof = calloc(sp->nk + 1, sizeof(**aof)))) {
		err_nomem(sp->e);
		goto out;
	}
	for (size_t i = 0; i < sp->nk; i++) {
		const struct kern *k = &sp->k[i];
		const char *rel = t->file[k->file].path + skip;
		const char *kv[4] = { "target", k->id, "source_prefix",
				      o->name };
		size_t ml;
		int len = snprintf(NULL, 0, "%s/%s#%u", o->name, rel, k->index);

		if (len < 0 || !(keys[i] = malloc((size_t)len + 1))) {
			err_nomem(sp->e);
			goto out;
		}
		snprintf(keys[i], (size_t)len + 1, "%s/%s#%u", o->name, rel,
			 k->index);
		if (kpack_meta_strings(kv, 2, &meta[i], &ml, sp->e) < 0)
			goto out;
		v[i] = (struct kpack_new){ keys[i], k->arch, k->code, k->size,
					   meta[i], ml };
	}
	for (size_t i = 0; i < sp->nk; i++) {
		struct kpack_new *g;
		struct kpack_write_opts wo = {
			.group_name = o->name, .arch_family = sp->k[i].arch,
			.arches = (const char *const *)&sp->k[i].arch,
			.narches = 1, .scheme = o->scheme, .level = 3,
		};
		struct outfile *of = &(*aof)[*naof];
		char *file, *dest;

		if (done[i])
			continue;
		g = calloc(sp->nk, sizeof(*g));
		if (!g) {
			err_nomem(sp->e);
			goto out;
		}
		nv = 0;
		for (size_t j = i; j < sp->nk; j++)
			if (!done[j] && !strcmp(sp->k[j].arch, sp->k[i].arch)) {
				g[nv++] = v[j];
				done[j] = true;
			}
		file = malloc(strlen(o->name) + strlen(sp->k[i].arch) + 16);
		if (!file) {
			free(g);
			err_nomem(sp->e);
			goto out;
		}
		sprintf(file, ".kpack/%s_%s.kpack", o->name, sp->k[i].arch);
		for (size_t f = 0; f < t->n; f++)
			if (!strcmp(t->file[f].path + skip, file)) {
				free(g);
				err_file(sp->e, t->file[f].path, "is where the "
					 "archive for %s goes", sp->k[i].arch);
				free(file);
				goto out;
			}
		dest = join(o->out, file);
		free(file);
		rc = !dest ? err_nomem(sp->e) :
		     mkparent(dest, sp->e) < 0 ||
		     io_out_open_in_dir(&of->o, dest, sp->e) < 0 ? -1 : 0;
		if (rc == 0) {
			of->open = true;
			(*naof)++;
			rc = kpack_write(g, nv, &wo, sink, &of->o, sp->e);
			if (rc == 0) {
				of->open = false;
				rc = io_out_commit(&of->o, sp->e);
			}
			if (rc < 0)
				fail_file(sp->e, dest);
		}
		free(dest);
		free(g);
		if (rc < 0)
			goto out;
		st->archives++;
		rc = -1;
	}
	rc = 0;
out:
	for (size_t i = 0; i < sp->nk; i++) {
		free(keys ? keys[i] : NULL);
		free(meta ? meta[i] : NULL);
	}
	free(keys);
	free(meta);
	free(v);
	free(done);
	return rc;
}

/* The symbolic links of the tree, made in out once all else is there. */
static int links(const struct tree *t, const char *out, size_t skip,
		 struct err *e)
{
	for (size_t i = 0; i < t->nsymlink; i++) {
		char target[PATH_MAX + 1], *dest;
		ssize_t n = readlink(t->symlink[i], target, PATH_MAX);

		if (n < 0)
			return err_sys(e, t->symlink[i], errno);
		target[n] = 0;
		if (!(dest = join(out, t->symlink[i] + skip)))
			return err_nomem(e);
		if (mkparent(dest, e) < 0 || symlink(target, dest) < 0) {
			if (!e->msg[0] || errno)
				err_sys(e, dest, errno);
			free(dest);
			return -1;
		}
		free(dest);
	}
	return 0;
}

int kpack_split(const struct kpack_split_opts *o, struct kpack_split_stats *st,
		struct err *e)
{
	struct split sp = { .o = o, .e = e };
	struct tree t = { .keep_symlinks = true };
	struct outfile *of = NULL, *aof = NULL;
	size_t skip = strlen(o->tree) + 1, naof = 0;
	struct stat sb;
	int rc = -1;

	memset(st, 0, sizeof(*st));
	if (stat(o->tree, &sb) < 0)
		return err_sys(e, o->tree, errno);
	if (!S_ISDIR(sb.st_mode))
		return err_file(e, o->tree, "is not a directory");
	if (tree_add(&t, o->tree, true) < 0) {
		err_nomem(e);
		goto done;
	}
	if (t.nerr) {
		*e = t.err[0];
		goto done;
	}
	for (size_t i = 0; i < t.n; i++)
		if (strchr(t.file[i].path + skip, '\\')) {
			err_file(e, t.file[i].path, "a '\\' in its path would "
				 "be '/' in the TOC key rocm-kpack writes");
			goto done;
		}
	if (!(of = calloc(t.n + 1, sizeof(*of)))) {
		err_nomem(e);
		goto done;
	}
	io_out_together();
	for (size_t i = 0; i < t.n; i++) {
		size_t before = sp.nk;

		if (one_file(&sp, &t, i, t.file[i].path + skip, &of[i]) < 0)
			goto out;
		st->files++;
		st->hosts += sp.nk > before;
		free(sp.bundle_addr);
		sp.bundle_addr = NULL;
	}
	st->kernels = sp.nk;
	if (archives(&sp, &t, skip, &aof, &naof, st) < 0)
		goto out;
	rc = 0;
out:
	if (rc < 0) {
		for (size_t i = 0; i < t.n; i++)
			if (of[i].open)
				io_out_discard(&of[i].o);
		for (size_t i = 0; aof && i < naof; i++)
			if (aof[i].open)
				io_out_discard(&aof[i].o);
		io_out_together_end(false, NULL);
	} else {
		rc = io_out_together_end(true, e);
		if (rc == 0 && (rc = links(&t, o->out, skip, e)) == 0)
			st->symlinks = t.nsymlink;
	}
done:
	for (size_t i = 0; i < sp.nk; i++) {
		free(sp.k[i].id);
		free(sp.k[i].arch);
		free(sp.k[i].code);
	}
	free(sp.k);
	free(sp.bundle_addr);
	free(of);
	free(aof);
	tree_free(&t);
	return rc;
}
