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

/* In the order of enum host_format, positionally: the count is checked
 * below, so a format without its row does not build. */
static const struct host hosts[] = {
	/* HOST_ELF */
	{ "ELF file", elfscan_is_elf, inspect_walk_elf, prune_elf,
	  false },
	/* HOST_PE */
	{ "PE image", coff_is_image, inspect_walk_pe, prune_coff,
	  false },
	/* HOST_COFF: by its magic, so that a damaged one is said to be
	 * damaged, not unknown (coff_probe) */
	{ "COFF object", coff_probe, inspect_walk_coff, prune_coff,
	  false },
	/* HOST_BITCODE */
	{ "bitcode module", magic_is_bitcode, inspect_walk_bitcode,
	  prune_bitcode, false },
	/* HOST_ARCHIVE */
	{ "archive", ar_is_archive, inspect_walk_archive, prune_archive,
	  false },
	/* HOST_CONTAINER: kpack archives, then the kinds found in sections */
	{ NULL, container_probe, inspect_walk_bare, prune_bare, true },
	/* HOST_TEXT_BUNDLE */
	{ "offload bundle in text", text_bundle_probe,
	  inspect_walk_text_bundle, prune_text_bundle, true },
};
_Static_assert(sizeof(hosts) / sizeof(hosts[0]) == HOST_FORMATS,
	       "one row for each enum host_format");

const struct host *hosts_get(enum host_format f)
{
	return &hosts[f];
}

bool hosts_probe(const uint8_t *buf, size_t len, enum host_format *f)
{
	for (unsigned i = 0; i < HOST_FORMATS; i++)
		if (hosts[i].probe(buf, len)) {
			*f = (enum host_format)i;
			return true;
		}
	return false;
}

bool hosts_is(const uint8_t *buf, size_t len, enum host_format f)
{
	enum host_format g;

	return hosts_probe(buf, len, &g) && g == f;
}

bool hosts_offload_only(const uint8_t *buf, size_t len)
{
	enum host_format f;

	return hosts_probe(buf, len, &f) && hosts[f].offload_only;
}

/* Each row's name, and each container kind's that a file may be (those
 * with a probe), in probe order. */
int hosts_none(struct err *e)
{
	const char *name[HOST_FORMATS + FATBIN_KINDS];
	char list[512];
	size_t n = 0, at = 0;

	for (unsigned i = 0; i < HOST_FORMATS; i++) {
		if (hosts[i].what) {
			name[n++] = hosts[i].what;
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
