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
 * A plain tree is an artifact of one prefix, NAME, which is also its
 * artifact prefix; an artifact directory's prefixes are its manifest's
 * (ops/kpack_artifact.h).  Per target (artifact_splitter.split): the
 * generic artifact NAME_generic/<prefix>/... and its manifest of the
 * prefixes that exist; NAME_<gfx>/<first prefix>/.kpack/NAME_<gfx>.kpack,
 * the first in byte order of those whose code it holds; database files
 * (ops/kpack_databases.h) at NAME_<gfx>/<prefix>/<path> instead of in the
 * generic artifact; NAME_<gfx>/artifact_manifest.txt: the prefixes of its
 * database files in the order met, or, with an archive, those and the
 * archive's sorted.  Installed: each prefix's files where they were, the
 * archive under the same first prefix.  Since the runtime finds wrapper i's
 * code under "#i", we check what the splitter assumes: wrapper i points at
 * bundle i, and every bundle has one code object of each target. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hosts.h"
#include "kpack_artifact.h"
#include "inspect.h"
#include "kpack_host.h"
#include "kpack_outs.h"
#include "kpack_split.h"
#include "kpack_split_out.h"
#include "../core/elfscan.h"
#include "../core/io_in.h"
#include "../core/io_out.h"
#include "../core/io_write.h"
#include "../core/tree.h"
#include "../formats/kpack_write.h"

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

/* A code object of the file: filed under its target, written to that
 * target's archive at once, keyed NAME/<path>#<index>. */
static int add_code(struct split *sp, const struct inspect_node *n,
		    const char *dash)
{
	const char *id = n->name, *arch = dash + 2;
	size_t alen = (size_t)(id + n->name_len - arch);
	struct archive *a;
	struct kern *k;
	char *key = NULL, *idz = NULL;
	uint8_t *meta = NULL;
	size_t ix = 0, meta_len;
	unsigned index = 0;
	int rc = -1;

	{
		char *z = strndup(arch, alen);
		bool ok = z && strlen(z) == alen && arch_ok(z);

		free(z);
		if (!z)
			return err_nomem(sp->e);
		if (!ok) {
			err_code_set(sp->e, ERR_MALFORMED, "bundle entry "
				     "'%.*s': its target cannot name an "
				     "archive file", (int)(n->name_len > 200 ?
				     200 : n->name_len), id);
			return 1;
		}
	}
	if (kpack_split_archive_for(sp, arch, alen, &ix) < 0)
		return 1;
	a = &sp->a[ix];
	for (size_t i = 0; i < sp->nk; i++)
		index += sp->k[i].arch == ix;
	if (sp->nk == sp->capk) {
		size_t cap = sp->capk ? 2 * sp->capk : 16;
		struct kern *v = realloc(sp->k, cap * sizeof(*v));

		if (!v)
			return err_nomem(sp->e);
		sp->k = v;
		sp->capk = cap;
	}
	k = &sp->k[sp->nk++];
	k->bundle = sp->nbundles - 1;
	k->arch = ix;
	k->index = index;
	{
		const char *key_prefix = sp->src[sp->isrc].key;
		int len = snprintf(NULL, 0, "%s/%s#%u", key_prefix, sp->rel,
				   index);
		const char *kv[4] = { "target", NULL, "source_prefix",
				      key_prefix };

		if (len < 0 || !(key = malloc((size_t)len + 1)) ||
		    !(idz = strndup(id, n->name_len))) {
			err_nomem(sp->e);
			goto out;
		}
		snprintf(key, (size_t)len + 1, "%s/%s#%u", key_prefix,
			 sp->rel, index);
		kv[1] = idz;
		if (kpack_meta_strings(kv, 2, &meta, &meta_len, sp->e) < 0)
			goto out;
	}
	{
		struct kpack_new kn = { key, a->arch, n->data, n->size, meta,
					meta_len };

		if (kpack_stream_add(&a->st, &kn, kpack_split_sink, &a->o, sp->e) < 0)
			goto out;
	}
	sp->kernels++;
	rc = 0;
out:
	free(key);
	free(idz);
	free(meta);
	return rc < 0 ? 1 : 0;
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
			     n->section_kind == SECTION_HIP_FATBIN;
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
		return add_code(sp, n, dash);
	}
	return 0;
}

/* What the splitter takes for granted, checked: bundle i is wrapper i's,
 * and holds one code object of each target. */
static int check_indices(struct split *sp, const struct kpack_host *h)
{
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
	for (size_t i = 0; i < sp->nk; i++) {
		const char *arch = sp->a[sp->k[i].arch].arch;
		size_t per = 0;

		for (size_t j = 0; j < sp->nk; j++) {
			size_t b = sp->k[j].bundle;

			if (sp->k[j].arch != sp->k[i].arch)
				continue;
			if (b < per)
				return err_code_set(sp->e, ERR_OTHER, "bundle "
						    "%zu has more than one code "
						    "object for %s", b, arch);
			if (b > per)
				break;
			per++;
		}
		if (per != sp->nbundles)
			return err_code_set(sp->e, ERR_OTHER, "bundle %zu has "
					    "no code object for %s", per, arch);
	}
	return 0;
}

/* A linked file already split, or whose wrappers have no fat binary. */
static int refuse_split(const uint8_t *buf, size_t len, struct err *e)
{
	struct elfscan s;
	int rc = 0;

	if (!hosts_is(buf, len, HOST_ELF) || elfscan_open(&s, buf, len, e) < 0)
		return 0;
	bool fat = false, seg = false;

	for (size_t i = 1; i < s.n; i++) {
		if (s.sec[i].kind == SECTION_KPACK_REF)
			rc = err_code_set(e, ERR_OTHER, "already split (it has "
					  ".rocm_kpack_ref)");
		fat |= s.sec[i].kind == SECTION_HIP_FATBIN;
		seg |= s.sec[i].kind == SECTION_HIP_WRAPPERS;
	}
	if (!rc && seg && !fat && (s.e_type == 2 || s.e_type == 3))
		rc = err_code_set(e, ERR_MALFORMED, "HIP wrappers "
				  "(.hipFatBinSegment) but no .hip_fatbin");
	elfscan_free(&s);
	return rc;
}

/* One file of the tree: copied, or split (its code objects into the
 * archives as they come). */
static int one_file(struct split *sp, size_t fi)
{
	const struct tree_file *f = &sp->t->file[fi];
	const char *path = f->path, *rel = path + sp->skip;
	struct inspect_opts wo = {
		.inflate = true, .accept_other = true,
		.ccob = sp->o->ccob, .package = sp->o->package,
	};
	struct kpack_host h = { 0 };
	struct io_in in = { .fd = -1 };
	struct io_out out = { .fd = -1 };
	uint8_t *ref = NULL;
	size_t ref_len = 0;
	char *pat = NULL, *kname = NULL;
	bool open = false;
	int rc = -1;

	sp->rel = rel;
	sp->elf_exec = sp->in_fat = sp->has_fat = false;
	sp->nbundles = sp->nk = 0;
	/* The file walked, through the directories walked, or an error. */
	{
		int fd = tree_file_open(sp->t, &sp->cur, f, sp->e);

		if (fd < 0 || io_in_open_fd(&in, fd, path, sp->e) < 0)
			return -1;
	}
	if (refuse_split(in.data, in.len, sp->e) < 0 ||
	    inspect_walk(in.data, in.len, &wo, visit, sp, sp->e) != 0)
		goto out;
	if (kpack_split_open_output(sp, sp->has_fat ? kpack_split_file_out(sp, rel, NULL) :
			kpack_split_plain_out(sp, rel), path, &in, &out) < 0)
		goto out;
	open = true;
	if (!sp->has_fat) {
		rc = in.len ? io_out_copy(&out, &in, 0, in.len, sp->e) : 0;
		goto out;
	}
	if (!sp->nk) {
		err_code_set(sp->e, ERR_NOTHING, ".hip_fatbin holds no "
			     "device code");
		goto out;
	}
	if (kpack_host_plan(in.data, in.len, &h, sp->e) < 0 ||
	    check_indices(sp, &h) < 0)
		goto out;
	{
		const char *paths[1];

		if (!(pat = pattern(rel, sp->name)) ||
		    !(kname = kpack_split_join(sp->src[sp->isrc].key, rel))) {
			err_nomem(sp->e);
			goto out;
		}
		paths[0] = pat;
		if (kpack_ref_pack(kname, paths, 1, &ref, &ref_len, sp->e) < 0)
			goto out;
	}
	rc = kpack_host_write(in.data, in.len, &h, ref, ref_len, &out,
			      sp->e);
out:
	/* Committed now, renamed into place with the others at the end. */
	if (rc == 0 && open) {
		open = false;
		rc = io_out_commit(&out, sp->e);
	}
	if (open)
		io_out_discard(&out);
	if (rc < 0)
		kpack_split_fail(sp->e, path);
	kpack_host_free(&h);
	free(ref);
	free(pat);
	free(kname);
	io_in_close(&in);
	return rc;
}

/* The symbolic links of the tree, made in OUT with the rest (each read
 * in the directory walked). */
static int links(struct split *sp)
{
	const struct tree *t = sp->t;

	for (size_t i = 0; i < t->nsymlink; i++) {
		const struct tree_link *l = &t->symlink[i];
		char target[PATH_MAX + 1], *dest, *orel;
		int dfd = tree_dir_fd(t, &sp->cur, l->dir, l->path, sp->e);
		ssize_t n = dfd < 0 ? 0 : readlinkat(dfd, l->name, target,
						      PATH_MAX);

		if (dfd < 0)
			return -1;
		if (n < 0)
			return errno == EINVAL ?
			       err_code_file(sp->e, ERR_CHANGED, 0, l->path,
					     "changed since it was walked: no "
					     "symbolic link now") :
			       err_sys(sp->e, l->path, errno);
		target[n] = 0;
		if (!(orel = kpack_split_file_out(sp, l->path + sp->skip, NULL)))
			return err_nomem(sp->e);
		if (kpack_split_claim(sp, orel, l->path, NULL) < 0)
			return -1;
		if (!(dest = kpack_split_join(sp->o->out, orel)))
			return err_nomem(sp->e);
		if (io_out_symlink_under(sp->outfd, orel, target, dest,
					 sp->e) < 0) {
			free(dest);
			return -1;
		}
		free(dest);
	}
	return 0;
}

/* The current source's tree walked: its files and links. */
static int split_tree(struct split *sp, struct kpack_split_stats *st)
{
	const char *dir = sp->src[sp->isrc].path;
	struct tree t = { .keep_symlinks = true };
	int rc = -1;

	sp->t = &t;
	sp->skip = strlen(dir) + 1;
	if (tree_add(&t, dir, true) < 0) {
		err_nomem(sp->e);
		goto out;
	}
	if (t.nerr) {
		*sp->e = t.err[0];
		goto out;
	}
	/* The prefix walked is the directory looked at, not a link put
	 * there since. */
	if (sp->src[sp->isrc].checked &&
	    (!t.ndir || t.dir[0].dev != sp->src[sp->isrc].dev ||
	     t.dir[0].ino != sp->src[sp->isrc].ino)) {
		err_code_file(sp->e, ERR_CHANGED, 0, dir, "changed since the "
			      "artifact's manifest was read: not followed");
		goto out;
	}
	/* OUT is the tree installed again: a FIFO, device or socket in it
	 * cannot be copied, and leaving it out would lose it silently. */
	if (t.others) {
		err_file(sp->e, dir, "holds %llu file%s neither regular, "
			 "directory nor symbolic link (a FIFO, device or "
			 "socket), which cannot be copied",
			 (unsigned long long)t.others, t.others == 1 ? "" : "s");
		goto out;
	}
	for (size_t i = 0; i < t.n; i++)
		if (strchr(t.file[i].path + sp->skip, '\\')) {
			err_file(sp->e, t.file[i].path, "a '\\' in its path "
				 "would be '/' in the TOC key rocm-kpack writes");
			goto out;
		}
	for (size_t i = 0; i < t.n; i++) {
		if (one_file(sp, i) < 0)
			goto out;
		st->files++;
		st->hosts += sp->nk > 0;
	}
	if (links(sp) < 0)
		goto out;
	st->symlinks += t.nsymlink;
	rc = 0;
out:
	tree_cursor_close(&sp->cur);
	sp->cur = (struct tree_cursor)TREE_CURSOR_INIT;
	tree_free(&t);
	sp->t = NULL;
	return rc;
}

/* One artifact: its sources walked, its archives and manifests written. */
static int split_sources(struct split *sp, struct kpack_split_stats *st)
{
	int rc = -1;

	for (sp->isrc = 0; sp->isrc < sp->nsrc; sp->isrc++)
		if (split_tree(sp, st) < 0)
			goto out;
	if (kpack_split_finish(sp) < 0)
		goto out;
	st->kernels += sp->kernels;
	for (size_t i = 0; i < sp->na; i++)
		st->archives += sp->a[i].started;
	rc = 0;
out:
	kpack_split_free_archives(sp);
	sp->kernels = 0;
	return rc;
}

/* The artifact directory dir of artifact prefix name: the prefixes of
 * its manifest that exist, split together. */
static int split_artifact(struct split *sp, const char *dir, const char *name,
			  struct kpack_split_stats *st)
{
	char **prefix = NULL;
	size_t n = 0;
	int rc = -1;

	if (kpack_manifest_read(dir, &prefix, &n, sp->e) < 0)
		return -1;
	if (!(sp->src = calloc(n + 1, sizeof(*sp->src)))) {
		err_nomem(sp->e);
		goto out;
	}
	sp->name = name;
	sp->nsrc = 0;
	for (size_t i = 0; i < n; i++) {
		struct source *src = &sp->src[sp->nsrc];
		struct stat sb;
		int found;

		if (!(src->path = kpack_split_join(dir, prefix[i]))) {
			err_nomem(sp->e);
			goto out;
		}
		/* A prefix that has no directory had no files (the
		 * splitter skips it); one that is no directory, or a
		 * symbolic link on the way to it, is wrong. */
		if ((found = kpack_prefix_dir(dir, prefix[i], src->path, &sb,
					      sp->e)) <= 0) {
			free(src->path);
			if (found < 0)
				goto out;
			continue;
		}
		src->key = src->out = prefix[i];
		src->dev = sb.st_dev;
		src->ino = sb.st_ino;
		src->checked = true;
		sp->nsrc++;
	}
	rc = split_sources(sp, st);
out:
	for (size_t i = 0; sp->src && i < sp->nsrc; i++)
		free(sp->src[i].path);
	free(sp->src);
	sp->src = NULL;
	sp->nsrc = 0;
	kpack_strings_free(prefix, n);
	return rc;
}

/* A batch: each artifact directory in dir, split in name order, none of
 * two sharing an artifact prefix (their outputs would meet). */
static int split_batch(struct split *sp, struct kpack_split_stats *st)
{
	const char *dir = sp->o->tree;
	char **names = NULL, **prefix = NULL;
	size_t n = 0, seen = 0;
	int rc = -1;

	if (kpack_batch_list(dir, &names, &n, &seen, sp->e) < 0)
		return -1;
	if (!n) {
		err_code_file(sp->e, ERR_NOTHING, 0, dir, "holds no artifact "
			      "directory (NAME_GPU "
			 "with an " KPACK_MANIFEST ") to split");
		goto out;
	}
	if (!(prefix = calloc(n, sizeof(*prefix)))) {
		err_nomem(sp->e);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		bool generic;
		char *path;

		if (!(prefix[i] = kpack_artifact_prefix(names[i], &generic)) ||
		    !(path = kpack_split_join(dir, names[i]))) {
			err_nomem(sp->e);
			goto out;
		}
		for (size_t j = 0; j < i; j++)
			if (!strcmp(prefix[i], prefix[j])) {
				err_code_file(sp->e, ERR_MALFORMED, 0, path, "has "
					      "the artifact prefix "
					 "'%s' of '%s' too: their outputs "
					 "would meet", prefix[i], names[j]);
				free(path);
				goto out;
			}
		rc = split_artifact(sp, path, prefix[i], st);
		free(path);
		if (rc < 0)
			goto out;
		rc = -1;
	}
	rc = 0;
out:
	kpack_strings_free(prefix, prefix ? n : 0);
	kpack_strings_free(names, n);
	return rc;
}

int kpack_split(const struct kpack_split_opts *o, struct kpack_split_stats *st,
		struct err *e)
{
	struct split sp = { .o = o, .e = e, .cur = TREE_CURSOR_INIT,
			    .outfd = -1 };
	struct stat sb;
	int rc = -1;

	memset(st, 0, sizeof(*st));
	sp.per_target = o->per_target;
	sp.out = o->out;
	sp.scheme = o->scheme;
	sp.databases = o->databases;
	sp.ndatabases = o->ndatabases;
	if (stat(o->tree, &sb) < 0)
		return err_sys(e, o->tree, errno);
	if (!S_ISDIR(sb.st_mode))
		return err_file(e, o->tree, "is not a directory");
	/* OUT opened once (made if need be): what is made in it is made
	 * under that descriptor, a name at a time, never through a link
	 * another may put there (OUT may be theirs). */
	io_out_together();
	if (io_mkdirs(o->out, e) < 0)
		goto out;
	if ((sp.outfd = open(o->out, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
		err_sys(e, o->out, errno);
		goto out;
	}
	switch (o->input) {
	case KPACK_INPUT_TREE: {
		struct source src = { .key = o->name,
				      .out = o->per_target ? o->name : "" };

		if (!(src.path = strdup(o->tree))) {
			err_nomem(e);
			goto out;
		}
		sp.src = &src;
		sp.nsrc = 1;
		sp.name = o->name;
		rc = split_sources(&sp, st);
		free(src.path);
		sp.src = NULL;
		break;
	}
	case KPACK_INPUT_ARTIFACT:
		rc = split_artifact(&sp, o->tree, o->name, st);
		break;
	case KPACK_INPUT_BATCH:
		rc = split_batch(&sp, st);
		break;
	}
out:
	if (rc < 0)
		io_out_together_end(false, NULL);
	else
		rc = io_out_together_end(true, e);
	if (sp.outfd >= 0)
		close(sp.outfd);
	kpack_outs_free(&sp.outs);
	free(sp.k);
	free(sp.bundle_addr);
	return rc;
}
