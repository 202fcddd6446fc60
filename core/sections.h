/* sections: the one table of the sections that carry offload code, or
 * point at it, and their names in ELF objects, COFF objects and PE images.
 * elfscan gives each ELF section its kind from here, the COFF walks theirs;
 * a new section kind is one enum member and one row.  Which container
 * kinds each holds is said on the container kinds' rows
 * (formats/fatbin.h, fatbin_in_section), the layer that knows them. */
#ifndef CORE_SECTIONS_H
#define CORE_SECTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The name of SECTION_OFFLOADING's sections, for the messages that name
 * it in a constant string (sections_name gives it otherwise). */
#define SECTIONS_OFFLOADING_NAME ".llvm.offloading"

/* An ELF section of this type holds offload packages whatever its name. */
enum { SECTION_TYPE_LLVM_OFFLOADING = 0x6fff4c0b };

/* Switches on it have no default, so the compiler names each place a new
 * kind needs. */
enum section_kind {
	SECTION_OTHER,		/* none of these */
	SECTION_OFFLOADING,	/* .llvm.offloading: offload packages */
	SECTION_HIP_FATBIN,	/* .hip_fatbin: bundles and CCOBs */
	SECTION_BUNDLE,		/* __CLANG_OFFLOAD_BUNDLE__<id>: one entry */
	SECTION_NV_FATBIN,	/* .nv_fatbin */
	SECTION_NV_RELFATBIN,	/* __nv_relfatbin */
	/* .hipFatBinSegment: the HIP runtime's wrappers, each pointing at
	 * its translation unit's container in .hip_fatbin */
	SECTION_HIP_WRAPPERS,
	SECTION_NV_WRAPPERS,	/* .nvFatBinSegment: the same, of CUDA */
	/* .rocm_kpack_ref: where a kpack-split binary's code is (which
	 * .kpack archives) */
	SECTION_KPACK_REF,
};
enum { SECTION_KINDS = SECTION_KPACK_REF + 1 };

enum section_match {
	SECTION_EXACT,
	/* The name and then an ID, not empty: __CLANG_OFFLOAD_BUNDLE__<id>
	 * (LLVM takes no other as a bundle entry). */
	SECTION_ID,
	/* Exact in ELF; in COFF, which has no section types, every name it
	 * starts (LLVM reads packages from every .llvm.offloading*). */
	SECTION_COFF_PREFIX,
};

struct section_def {
	const char *name;	/* ".hip_fatbin"; NULL for SECTION_OTHER */
	enum section_match match;
	/* In a PE image, whose linker cuts names to eight bytes: ".hip_fat".
	 * NULL: not looked for in images. */
	const char *image_name;
	/* In a PE image MinGW's linker made, the section it is merged into
	 * with other bytes, which it starts: ".llvm".  NULL: none. */
	const char *image_merged;
	const char *ls_name;	/* what ls calls it: "hip-fatbin" */
	uint32_t elf_type;	/* of this kind whatever its name; 0: none */
};

const struct section_def *sections_get(enum section_kind k);
/* ".hip_fatbin", "__CLANG_OFFLOAD_BUNDLE__" (the prefix of an ID'd kind). */
const char *sections_name(enum section_kind k);
/* What an ELF section of this name (len bytes) and type carries. */
enum section_kind sections_elf_kind(const char *name, size_t len,
				    uint32_t type);
/* What a COFF section carries; image: a PE image's (names cut to eight
 * bytes, and .llvm, in which MinGW's linker merges .llvm.offloading). */
enum section_kind sections_coff_kind(const char *name, size_t len,
				     bool image);
/* Whether a PE image's section of this name holds a kind's bytes first
 * and then others (image_merged): only as far as they go are they its. */
bool sections_image_merged(const char *name, size_t len);
/* The ID of a section of an ID'd kind (SECTION_BUNDLE: the entry's bundle
 * ID), after its prefix: true with *id and *id_len, false when name is not
 * of kind k. */
bool sections_id(enum section_kind k, const char *name, size_t len,
		 const char **id, size_t *id_len);
/* Whether name starts with kind k's name, whatever follows (as
 * llvm-objcopy's --regex 'NAME.*' takes it). */
bool sections_has_prefix(enum section_kind k, const char *name, size_t len);

#endif
