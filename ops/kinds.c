/* kinds: the rows of the container kinds; see kinds.h and kind.h.  The
 * table is made from formats/kinds.def: each row is `kind_<name>`,
 * defined here for the kinds this tool began with, in its own ops file
 * for a kind added since. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "kinds.h"
#include "inspect_containers.h"
#include "inspect_kpack.h"
#include "inspect_nv.h"
#include "kind_present.h"
#include "prune_bundle.h"
#include "prune_containers.h"
#include "prune_impl.h"
#include "prune_kpack.h"
#include "../formats/package.h"

static const char laid_out[] =
	"its entries are laid out as the bundler does not";

/* A file of offload packages: the packages, then zeros (padding, as the
 * walk reads them: they stay); anything else and the file is one run. */
static int package_file(struct pruner *p, const uint8_t *buf, size_t len,
			struct prune_patch *pt, size_t *end)
{
	size_t run = package_run(buf, len), at;

	for (at = run; at < len && !buf[at]; at++)
		;
	if (!run || at < len)
		run = len;
	*end = run;
	return prune_packages(p, buf, run, 0, pt);
}

/* A kpack archive: a whole file, written again. */
static int kpack_file(struct pruner *p, const uint8_t *buf, size_t len,
		      struct prune_patch *pt, size_t *end)
{
	*end = len;
	return prune_kpack(p, buf, len, pt);
}

const struct kind kind_bundle = {
	.name = "bundle", .walk = inspect_walk_bundle,
	.entry_bytes = entry_bytes_stored, .prune = prune_kind_bundle,
	.compress = prune_compress_bundle, .grown = laid_out, .ids = true,
	.compress_hash = prune_compress_bundle_hash,
	.summary = kind_present_summary_plain,
	.roc_obj_lists = true,
};

const struct kind kind_object_bundle = {
	.name = "object-bundle", .entry_bytes = entry_bytes_stored,
	.grown = laid_out, .ids = true,
	.cells = kind_present_object_bundle_cells,
	.summary = kind_present_object_bundle_summary,
	.entry_json = kind_present_object_bundle_entry_json,
	.roc_obj_lists = true,
};

const struct kind kind_ccob = {
	.name = "ccob", .walk = inspect_walk_ccob,
	.entry_bytes = entry_bytes_ccob, .prune = prune_kind_ccob,
	.grown = "a higher --compression-level may fit", .ids = true,
	.versioned = true,
	.summary = kind_present_ccob_summary,
	.container_json_end = kind_present_ccob_container_json_end,
	.packed = kind_present_ccob_packed,
	.bad_hash = kind_present_ccob_bad_hash,
	.roc_obj_counts = true,
};

const struct kind kind_package = {
	.name = "package", .walk = inspect_walk_package,
	.entry_bytes = entry_bytes_stored, .grown = laid_out,
	.versioned = true,
	.target = kind_present_package_target,
	.entry_id = kind_present_package_id,
	.cells = kind_present_package_cells,
	.summary = kind_present_package_summary,
	.prune_file = package_file,
};

const struct kind kind_nv = {
	.name = "nv-fatbin", .walk = inspect_walk_nv,
	.entry_bytes = entry_bytes_nv, .prune = prune_kind_nv,
	.compress = prune_compress_nv, .grown = laid_out, .versioned = true,
	.entry_coded = true, .compress_entries = true,
	.target = kind_present_nv_target,
	.entry_id = kind_present_nv_id,
	.select_arch = kind_present_nv_select_arch,
	.cells = kind_present_nv_cells,
	.summary = kind_present_nv_summary,
	.where = kind_present_nv_where,
	.details = kind_present_nv_details,
	.entry_json = kind_present_nv_entry_json,
	.sizes = kind_present_nv_sizes,
};

/* A whole file (pruned as one, not in a region); "none" entries' code in
 * the file, zstd-per-kernel ones' inflated by the walk (when it
 * inflates). */
const struct kind kind_kpack = {
	.name = "kpack", .walk = inspect_walk_kpack,
	.entry_bytes = entry_bytes_stored, .grown = laid_out, .ids = true,
	.versioned = true,
	.target = kind_present_kpack_target,
	.entry_id = kind_present_kpack_id,
	.cells = kind_present_kpack_cells,
	.summary = kind_present_kpack_summary,
	.container_json = kind_present_kpack_container_json,
	.sizes = kind_present_kpack_sizes,
	.prune_file = kpack_file,
};

/* The table, made from kinds.def: a kind whose row is not defined does
 * not link. */
#define KIND(e, name) extern const struct kind kind_##name;
#include "../formats/kinds.def"
#undef KIND
static const struct kind *const kinds[FATBIN_KINDS] = {
#define KIND(e, name) [FATBIN_##e] = &kind_##name,
#include "../formats/kinds.def"
#undef KIND
};

const struct kind *kinds_get(enum fatbin_kind k)
{
	return kinds[k];
}

const char *kinds_name(enum fatbin_kind k)
{
	return kinds[k]->name;
}

enum entry_code kinds_entry_bytes(const struct inspect_node *n,
				  enum inspect_hash container_hash,
				  struct entry_bytes *b)
{
	return kinds[n->container]->entry_bytes(n, container_hash, b);
}

void kinds_entry_target(const struct inspect_node *n,
			struct inspect_target *t)
{
	const struct kind *k = kinds[n->container];

	memset(t, 0, sizeof(*t));
	if (k->target)
		k->target(n, t);
	else
		kind_present_target_from_id(n, t);
}

char *kinds_entry_id(const struct inspect_node *n,
		     const struct inspect_target *t, size_t *len)
{
	const struct kind *k = kinds[n->container];

	return k->entry_id ? k->entry_id(n, t, len)
			   : kind_present_id_as_is(n, len);
}

const char *kinds_select_arch(const struct inspect_node *n,
			      const struct inspect_target *t, char *buf,
			      size_t cap, size_t *len)
{
	const struct kind *k = kinds[n->container];
	const char *a;

	if (!k->select_arch && t->arch == t->arch_buf) {
		/* t may go before what is made from it */
		snprintf(buf, cap, "%.*s", (int)t->arch_len, t->arch);
		*len = strlen(buf);
		return buf;
	}
	if (!k->select_arch) {
		*len = t->arch_len;
		return t->arch;
	}
	a = k->select_arch(n, buf, cap);
	*len = strlen(a);
	return a;
}

void kinds_entry_cells(const struct inspect_node *n,
		       const struct inspect_target *t, struct kind_cells *c)
{
	const struct kind *k = kinds[n->container];

	memset(c, 0, sizeof(*c));
	if (k->cells)
		k->cells(n, t, c);
	else
		c->v[c->n++] = (struct kind_text){ n->name, n->name_len };
}

void kinds_summary(const struct inspect_node *n, char *buf, size_t cap)
{
	const struct kind *k = kinds[n->container];

	(k->summary ? k->summary : kind_present_summary_plain)(n, buf, cap);
}

void kinds_bad_hash(const struct inspect_node *c, char *buf, size_t cap)
{
	const struct kind *k = kinds[c->container];

	if (k->bad_hash)
		k->bad_hash(c, buf, cap);
	else
		snprintf(buf, cap, "%s #%u at offset %" PRIu64 ": hash "
			 "mismatch", k->name, c->number, c->offset);
}
