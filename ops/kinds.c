/* kinds: the rows of the container kinds; see kinds.h. */
#include "kinds.h"
#include "inspect_containers.h"
#include "inspect_kpack.h"
#include "inspect_nv.h"
#include "prune_bundle.h"
#include "prune_containers.h"
#include "prune_impl.h"

static const char laid_out[] =
	"its entries are laid out as the bundler does not";

/* In the order of enum fatbin_kind, positionally: the count is checked
 * below, so a kind without its row does not build. */
static const struct kind kinds[] = {
	/* FATBIN_BUNDLE */
	{ "bundle", inspect_walk_bundle, entry_bytes_stored, prune_kind_bundle,
	  prune_compress_bundle, laid_out, .ids = true,
	  .compress_hash = prune_compress_bundle_hash },
	/* FATBIN_OBJECT_BUNDLE */
	{ "object-bundle", NULL, entry_bytes_stored, NULL, NULL, laid_out,
	  .ids = true },
	/* FATBIN_CCOB */
	{ "ccob", inspect_walk_ccob, entry_bytes_ccob, prune_kind_ccob, NULL,
	  "a higher --compression-level may fit", .ids = true,
	  .versioned = true },
	/* FATBIN_PACKAGE */
	{ "package", inspect_walk_package, entry_bytes_stored, NULL, NULL,
	  laid_out, .versioned = true },
	/* FATBIN_NV */
	{ "nv-fatbin", inspect_walk_nv, entry_bytes_nv, prune_kind_nv,
	  prune_compress_nv, laid_out, .versioned = true,
	  .entry_coded = true, .compress_entries = true },
	/* FATBIN_KPACK: a whole file (pruned by prune.c, prune_kpack.c, not
	 * in a region); "none" entries' code in the file,
	 * zstd-per-kernel ones' inflated by the walk (when it inflates) */
	{ "kpack", inspect_walk_kpack, entry_bytes_stored, NULL, NULL,
	  laid_out, .ids = true, .versioned = true },
};
_Static_assert(sizeof(kinds) / sizeof(kinds[0]) == FATBIN_KINDS,
	       "one row for each enum fatbin_kind");

const struct kind *kinds_get(enum fatbin_kind k)
{
	return &kinds[k];
}

const char *kinds_name(enum fatbin_kind k)
{
	return kinds[k].name;
}

enum entry_code kinds_entry_bytes(const struct inspect_node *n,
				  enum inspect_hash container_hash,
				  struct entry_bytes *b)
{
	return kinds[n->container].entry_bytes(n, container_hash, b);
}
