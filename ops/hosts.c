/* hosts: the rows of the host formats; see hosts.h. */
#include <stdio.h>

#include "../formats/ar.h"
#include "../formats/bundle_text.h"
#include "../formats/coff.h"
#include "../formats/fatbin.h"
#include "../formats/magic.h"
#include "../core/elfscan.h"
#include "hosts.h"
#include "inspect_hosts.h"
#include "prune_bitcode.h"
#include "prune_coff.h"
#include "prune_impl.h"

static bool container_probe(const uint8_t *buf, size_t len)
{
	enum fatbin_kind k;

	return fatbin_probe_file(buf, len, &k);
}

static bool text_bundle_probe(const uint8_t *buf, size_t len)
{
	char comment[BUNDLE_TEXT_COMMENT_MAX];

	return bundle_text_comment(buf, len, comment, sizeof(comment));
}

/* The rows of the formats this file knows; a new format's is in its ops
 * file.  Fields by name: a column left out is NULL, false or none. */
const struct host host_elf = {
	.what = "ELF file", .probe = elfscan_is_elf,
	.walk = inspect_walk_elf, .prune = prune_elf,
	.llvm = HOST_LLVM_ELF,
};
const struct host host_pe = {
	.what = "PE image", .probe = coff_is_image,
	.walk = inspect_walk_pe, .prune = prune_coff,
};
/* An object of no sections: a file that starts with twenty zero bytes
 * is one, as LLVM's identify_magic takes it (a disk image, a sparse
 * file, a tensor), and holds no offload section. */
static bool coff_barren(const uint8_t *head, size_t len)
{
	struct coff_header h;
	struct err e;

	return !coff_is_image(head, len) &&
	       coff_read_header(head, len, &h, &e) == 0 && h.nsec == 0 &&
	       !h.import_library;
}

/* By its magic, so that a damaged one is said to be damaged, not
 * unknown (coff_probe). */
const struct host host_coff = {
	.what = "COFF object", .probe = coff_probe,
	.walk = inspect_walk_coff, .prune = prune_coff,
	.barren = coff_barren,
	.llvm = HOST_LLVM_COFF,
};
const struct host host_bitcode = {
	.what = "bitcode module", .probe = magic_is_bitcode,
	.walk = inspect_walk_bitcode, .prune = prune_bitcode,
	.ls_word = "LLVM bitcode", .json_format = "bitcode",
	.llvm = HOST_LLVM_BITCODE,
};
const struct host host_archive = {
	.what = "archive", .probe = ar_is_archive,
	.walk = inspect_walk_archive, .prune = prune_archive,
	.llvm = HOST_LLVM_ARCHIVE,
};
/* kpack archives, then the kinds found in sections; named by its
 * container kinds. */
const struct host host_container = {
	.probe = container_probe, .walk = inspect_walk_bare,
	.prune = prune_bare, .offload_only = true,
	.llvm = HOST_LLVM_CONTAINER,
};
const struct host host_text_bundle = {
	.what = "offload bundle in text", .probe = text_bundle_probe,
	.walk = inspect_walk_text_bundle, .prune = prune_text_bundle,
	.offload_only = true,
};

/* The table, made from hosts.def: a format whose row is not defined does
 * not link. */
#define HOST(e, name) extern const struct host host_##name;
#include "hosts.def"
#undef HOST
static const struct host *const hosts[HOST_FORMATS] = {
#define HOST(e, name) [HOST_##e] = &host_##name,
#include "hosts.def"
#undef HOST
};

const struct host *hosts_get(enum host_format f)
{
	return hosts[f];
}

bool hosts_probe(const uint8_t *buf, size_t len, enum host_format *f)
{
	for (unsigned i = 0; i < HOST_FORMATS; i++)
		if (hosts[i]->probe(buf, len)) {
			*f = (enum host_format)i;
			return true;
		}
	return false;
}

bool hosts_member_prunable(void *ctx, const uint8_t *head, size_t len)
{
	enum host_format f;

	(void)ctx;
	return hosts_probe(head, len, &f) &&
	       !(hosts[f]->barren && hosts[f]->barren(head, len));
}

bool hosts_is(const uint8_t *buf, size_t len, enum host_format f)
{
	enum host_format g;

	return hosts_probe(buf, len, &g) && g == f;
}

bool hosts_offload_only(const uint8_t *buf, size_t len)
{
	enum host_format f;

	return hosts_probe(buf, len, &f) && hosts[f]->offload_only;
}

/* Each row's name, and each container kind's that a file may be (those
 * with a probe), in probe order. */
int hosts_none(struct err *e)
{
	const char *name[HOST_FORMATS + FATBIN_KINDS];
	char list[512];
	size_t n = 0, at = 0;

	for (unsigned i = 0; i < HOST_FORMATS; i++) {
		if (hosts[i]->what) {
			name[n++] = hosts[i]->what;
			continue;
		}
		for (unsigned k = 0; k < FATBIN_KINDS; k++)
			if (fatbin_codecs[k]->probe)
				name[n++] = fatbin_codecs[k]->what;
	}
	list[0] = 0;
	for (size_t i = 0; i < n && at < sizeof(list); i++)
		at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%s",
				       !i ? "" : i + 1 < n ? ", " : " or ",
				       name[i]);
	return err_code_set(e, ERR_NOTHING, "not a file of a known format "
			    "(%s)", list);
}

bool hosts_member_wanted(void *ctx, const uint8_t *head, size_t len)
{
	enum host_format f;

	(void)ctx;
	return hosts_probe(head, len, &f);
}
