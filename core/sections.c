/* sections: the rows of the section kinds; see sections.h. */
#include <string.h>

#include "sections.h"

/* In the order of enum section_kind, positionally: the count is checked
 * below, so a kind without its row does not build. */
static const struct section_def sections[] = {
	/* SECTION_OTHER */
	{ NULL, SECTION_EXACT, NULL, NULL, "other", 0 },
	/* SECTION_OFFLOADING: in a PE image cut (MSVC's linker), or merged
	 * into .llvm (MinGW's: the packages come first) */
	{ SECTIONS_OFFLOADING_NAME, SECTION_COFF_PREFIX, ".llvm.of", ".llvm",
	  "llvm-offloading", SECTION_TYPE_LLVM_OFFLOADING },
	/* SECTION_HIP_FATBIN */
	{ ".hip_fatbin", SECTION_EXACT, ".hip_fat", NULL, "hip-fatbin", 0 },
	/* SECTION_BUNDLE */
	{ "__CLANG_OFFLOAD_BUNDLE__", SECTION_ID, NULL, NULL, "bundle", 0 },
	/* SECTION_NV_FATBIN */
	{ ".nv_fatbin", SECTION_EXACT, ".nv_fatb", NULL, "nv-fatbin", 0 },
	/* SECTION_NV_RELFATBIN */
	{ "__nv_relfatbin", SECTION_EXACT, "__nv_rel", NULL, "nv-relfatbin", 0 },
	/* SECTION_HIP_WRAPPERS */
	{ ".hipFatBinSegment", SECTION_EXACT, NULL, NULL, "hip-wrappers", 0 },
	/* SECTION_NV_WRAPPERS */
	{ ".nvFatBinSegment", SECTION_EXACT, NULL, NULL, "nv-wrappers", 0 },
	/* SECTION_KPACK_REF */
	{ ".rocm_kpack_ref", SECTION_EXACT, NULL, NULL, "kpack-ref", 0 },
};
_Static_assert(sizeof(sections) / sizeof(sections[0]) == SECTION_KINDS,
	       "one row for each enum section_kind");

const struct section_def *sections_get(enum section_kind k)
{
	return &sections[k];
}

const char *sections_name(enum section_kind k)
{
	return sections[k].name;
}

static bool is(const char *name, size_t len, const char *s)
{
	return s && strlen(s) == len && !memcmp(name, s, len);
}

bool sections_has_prefix(enum section_kind k, const char *name, size_t len)
{
	const char *p = sections[k].name;
	size_t n = p ? strlen(p) : 0;

	return p && len >= n && !memcmp(name, p, n);
}

bool sections_id(enum section_kind k, const char *name, size_t len,
		 const char **id, size_t *id_len)
{
	size_t n = sections[k].name ? strlen(sections[k].name) : 0;

	if (sections[k].match != SECTION_ID || len <= n ||
	    !sections_has_prefix(k, name, len))
		return false;
	*id = name + n;
	*id_len = len - n;
	return true;
}

/* Whether name (of an object: ELF, or COFF when coff) is of kind k. */
static bool named(enum section_kind k, const char *name, size_t len,
		  bool coff)
{
	const char *id;
	size_t id_len;

	switch (sections[k].match) {
	case SECTION_EXACT:
		return is(name, len, sections[k].name);
	case SECTION_ID:
		return sections_id(k, name, len, &id, &id_len);
	case SECTION_COFF_PREFIX:
		return coff ? sections_has_prefix(k, name, len)
			    : is(name, len, sections[k].name);
	}
	return false;
}

enum section_kind sections_elf_kind(const char *name, size_t len,
				    uint32_t type)
{
	for (unsigned k = 1; k < SECTION_KINDS; k++)
		if ((sections[k].elf_type && type == sections[k].elf_type) ||
		    named((enum section_kind)k, name, len, false))
			return (enum section_kind)k;
	return SECTION_OTHER;
}

enum section_kind sections_coff_kind(const char *name, size_t len,
				     bool image)
{
	for (unsigned k = 1; k < SECTION_KINDS; k++)
		if (named((enum section_kind)k, name, len, true) ||
		    (image && (is(name, len, sections[k].image_name) ||
			       is(name, len, sections[k].image_merged))))
			return (enum section_kind)k;
	return SECTION_OTHER;
}

bool sections_image_merged(const char *name, size_t len)
{
	for (unsigned k = 1; k < SECTION_KINDS; k++)
		if (is(name, len, sections[k].image_merged))
			return true;
	return false;
}
