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
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hosts.h"
#include "inspect.h"
#include "kpack_host.h"
#include "kpack_split.h"
#include "../core/elfscan.h"
#include "../core/io_in.h"
#include "../core/io_out.h"
#include "../core/io_write.h"
#include "../core/tree.h"
#include "../formats/kpack_write.h"

/* A code object of the file being walked: its bundle and target. */
struct kern {
	size_t bundle;
	size_t arch;		/* index into split.arch */
	unsigned index;		/* among the file's code objects of arch */
};

/* One archive, written as its code objects come. */
struct archive {
	char *arch;
	struct kpack_stream st;
	struct io_out o;
	bool open, started;
};

struct outfile {
	struct io_out o;
	bool open;
};

struct split {
	const struct kpack_split_opts *o;
	struct err *e;
	const struct tree *t;
	struct tree_cursor cur;	/* the walked directories, reached again */
	int outfd;		/* OUT, opened once: every output made under it */
	size_t skip;		/* of a tree path, to its path in the tree */
	struct archive *a;	/* in the order their first code came */
	size_t na, capa;
	size_t kernels;
	/* The file being walked. */
	const char *rel;
	struct kern *k;
	size_t nk, capk;
	bool elf_exec;		/* a linked ELF file, depth 0 */
	bool in_fat;		/* under its .hip_fatbin */
	bool has_fat;
	unsigned fat_depth;
	uint64_t fat_off;
	size_t nbundles;
	uint64_t *bundle_addr;	/* each bundle's offset in .hip_fatbin */
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

/* The archive of arch, opened and begun when its first code object comes
 * (its place in the tree must not be a file of the tree). */
static int archive_for(struct split *sp, const char *arch, size_t len,
		       size_t *ix)
{
	const struct kpack_split_opts *o = sp->o;
	struct archive *a;
	char *file = NULL, *dest = NULL;
	int rc = -1;

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
	if (!(a->arch = strndup(arch, len)))
		return err_nomem(sp->e);
	sp->na++;
	*ix = sp->na - 1;
	if (!(file = malloc(strlen(o->name) + len + 16))) {
		err_nomem(sp->e);
		goto out;
	}
	sprintf(file, ".kpack/%s_%s.kpack", o->name, a->arch);
	for (size_t f = 0; f < sp->t->n; f++)
		if (!strcmp(sp->t->file[f].path + sp->skip, file)) {
			err_file(sp->e, sp->t->file[f].path, "is where the "
				 "archive for %s goes", a->arch);
			goto out;
		}
	if (!(dest = join(o->out, file))) {
		err_nomem(sp->e);
		goto out;
	}
	if (io_out_open_under(&a->o, sp->outfd, file, dest, sp->e) < 0)
		goto out;
	a->open = true;
	{
		const char *arches[1] = { a->arch };
		struct kpack_write_opts wo = {
			.group_name = o->name, .arch_family = a->arch,
			.arches = arches, .narches = 1, .scheme = o->scheme,
			.level = 3,
		};

		if (kpack_stream_begin(&a->st, &wo, sink, &a->o, sp->e) < 0)
			goto out;
	}
	a->started = true;
	rc = 0;
out:
	free(file);
	free(dest);
	return rc;
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
	if (archive_for(sp, arch, alen, &ix) < 0)
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
		int len = snprintf(NULL, 0, "%s/%s#%u", sp->o->name, sp->rel,
				   index);
		const char *kv[4] = { "target", NULL, "source_prefix",
				      sp->o->name };

		if (len < 0 || !(key = malloc((size_t)len + 1)) ||
		    !(idz = strndup(id, n->name_len))) {
			err_nomem(sp->e);
			goto out;
		}
		snprintf(key, (size_t)len + 1, "%s/%s#%u", sp->o->name,
			 sp->rel, index);
		kv[1] = idz;
		if (kpack_meta_strings(kv, 2, &meta, &meta_len, sp->e) < 0)
			goto out;
	}
	{
		struct kpack_new kn = { key, a->arch, n->data, n->size, meta,
					meta_len };

		if (kpack_stream_add(&a->st, &kn, sink, &a->o, sp->e) < 0)
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
static int one_file(struct split *sp, size_t fi, struct outfile *of)
{
	const struct kpack_split_opts *o = sp->o;
	const char *path = sp->t->file[fi].path, *rel = path + sp->skip;
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

	sp->rel = rel;
	sp->elf_exec = sp->in_fat = sp->has_fat = false;
	sp->nbundles = sp->nk = 0;
	/* The file walked, through the directories walked, or an error. */
	{
		int fd = tree_file_open(sp->t, &sp->cur, &sp->t->file[fi], sp->e);

		if (fd < 0 || io_in_open_fd(&in, fd, path, sp->e) < 0)
			return -1;
	}
	if (refuse_split(in.data, in.len, sp->e) < 0 ||
	    inspect_walk(in.data, in.len, &wo, visit, sp, sp->e) != 0)
		goto out;
	if (!(dest = join(o->out, rel))) {
		err_nomem(sp->e);
		goto out;
	}
	if (io_out_open_under(&of->o, sp->outfd, rel, dest, sp->e) < 0)
		goto out;
	of->open = true;
	io_out_keep_mode(&of->o, &in);
	if (!sp->has_fat) {
		rc = in.len ? io_out_copy(&of->o, &in, 0, in.len, sp->e) : 0;
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
		fail_file(sp->e, path);
	kpack_host_free(&h);
	free(ref);
	free(pat);
	free(kname);
	free(dest);
	io_in_close(&in);
	return rc;
}

/* Each archive's TOC, then its header and count put in. */
static int finish_archives(struct split *sp)
{
	for (size_t i = 0; i < sp->na; i++) {
		struct archive *a = &sp->a[i];
		uint8_t head[KPACK_HEADER_SIZE], count[4];

		if (kpack_stream_end(&a->st, sink, &a->o, head, count,
				     sp->e) < 0 ||
		    io_out_pwrite(&a->o, head, sizeof(head), 0, sp->e) < 0 ||
		    (sp->o->scheme == KPACK_ZSTD &&
		     io_out_pwrite(&a->o, count, 4, 64, sp->e) < 0))
			return fail_file(sp->e, a->o.path);
		a->open = false;
		if (io_out_commit(&a->o, sp->e) < 0)
			return fail_file(sp->e, a->o.path);
	}
	return 0;
}

/* The symbolic links of the tree, made in OUT with the rest (each read
 * in the directory walked). */
static int links(const struct tree *t, struct tree_cursor *cur, int outfd,
		 const char *out, size_t skip, struct err *e)
{
	for (size_t i = 0; i < t->nsymlink; i++) {
		const struct tree_link *l = &t->symlink[i];
		char target[PATH_MAX + 1], *dest;
		int dfd = tree_dir_fd(t, cur, l->dir, l->path, e);
		ssize_t n = dfd < 0 ? 0 : readlinkat(dfd, l->name, target,
						      PATH_MAX);

		if (dfd < 0)
			return -1;
		if (n < 0)
			return errno == EINVAL ?
			       err_code_file(e, ERR_CHANGED, 0, l->path,
					     "changed since it was walked: no "
					     "symbolic link now") :
			       err_sys(e, l->path, errno);
		target[n] = 0;
		if (!(dest = join(out, l->path + skip)))
			return err_nomem(e);
		if (io_out_symlink_under(outfd, l->path + skip, target, dest,
					 e) < 0) {
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
	struct split sp = { .o = o, .e = e, .cur = TREE_CURSOR_INIT,
			    .outfd = -1 };
	struct tree t = { .keep_symlinks = true };
	struct outfile *of = NULL;
	struct stat sb;
	int rc = -1;

	memset(st, 0, sizeof(*st));
	sp.t = &t;
	sp.skip = strlen(o->tree) + 1;
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
	/* OUT is the tree installed again: a FIFO, device or socket in it
	 * cannot be copied, and leaving it out would lose it silently. */
	if (t.others) {
		err_file(e, o->tree, "holds %llu file%s neither regular, "
			 "directory nor symbolic link (a FIFO, device or "
			 "socket), which cannot be copied",
			 (unsigned long long)t.others, t.others == 1 ? "" : "s");
		goto done;
	}
	for (size_t i = 0; i < t.n; i++)
		if (strchr(t.file[i].path + sp.skip, '\\')) {
			err_file(e, t.file[i].path, "a '\\' in its path would "
				 "be '/' in the TOC key rocm-kpack writes");
			goto done;
		}
	if (!(of = calloc(t.n + 1, sizeof(*of)))) {
		err_nomem(e);
		goto done;
	}
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
	for (size_t i = 0; i < t.n; i++) {
		if (one_file(&sp, i, &of[i]) < 0)
			goto out;
		st->files++;
		st->hosts += sp.nk > 0;
	}
	if (finish_archives(&sp) < 0 ||
	    links(&t, &sp.cur, sp.outfd, o->out, sp.skip, e) < 0)
		goto out;
	st->kernels = sp.kernels;
	st->archives = sp.na;
	st->symlinks = t.nsymlink;
	rc = 0;
out:
	if (rc < 0) {
		for (size_t i = 0; i < t.n; i++)
			if (of[i].open)
				io_out_discard(&of[i].o);
		for (size_t i = 0; i < sp.na; i++)
			if (sp.a[i].open)
				io_out_discard(&sp.a[i].o);
		io_out_together_end(false, NULL);
	} else {
		rc = io_out_together_end(true, e);
	}
	if (sp.outfd >= 0)
		close(sp.outfd);
done:
	for (size_t i = 0; i < sp.na; i++) {
		kpack_stream_free(&sp.a[i].st);
		free(sp.a[i].arch);
	}
	free(sp.a);
	free(sp.k);
	free(sp.bundle_addr);
	free(of);
	tree_cursor_close(&sp.cur);
	tree_free(&t);
	return rc;
}
