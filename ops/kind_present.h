/* kind_present: the presentation hooks of the first container kinds'
 * rows (kind_present.c; the hooks are described in kind.h). */
#ifndef OPS_KIND_PRESENT_H
#define OPS_KIND_PRESENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kind.h"

/* What an image kind (enum package_image_kind) is called in ls --json
 * ("elf", "bitcode", ...); NULL for none. */
const char *kind_present_image_name(uint16_t kind);
/* The defaults (kinds.c): entries named by a bundle ID. */
void kind_present_target_from_id(const struct inspect_node *n,
				 struct inspect_target *t);
char *kind_present_id_as_is(const struct inspect_node *n, size_t *len);
void kind_present_summary_plain(const struct inspect_node *n, char *buf,
				size_t cap);
void kind_present_object_bundle_cells(const struct inspect_node *n,
				      const struct inspect_target *t,
				      struct kind_cells *c);
void kind_present_object_bundle_summary(const struct inspect_node *n,
					char *buf, size_t cap);
void kind_present_object_bundle_entry_json(const struct inspect_node *n,
					   const struct inspect_node *c,
					   const struct kind_text d[],
					   struct kind_fields *f);
void kind_present_ccob_summary(const struct inspect_node *n, char *buf,
			       size_t cap);
/* Its header and hash, after its entries. */
void kind_present_ccob_container_json_end(const struct inspect_node *n,
					  struct kind_fields *f);
void kind_present_package_target(const struct inspect_node *n,
				 struct inspect_target *t);
/* kind-triple-arch, as the packager names what it extracts ("--" when
 * the triple has no environment). */
char *kind_present_package_id(const struct inspect_node *n,
			      const struct inspect_target *t, size_t *len);
void kind_present_package_cells(const struct inspect_node *n,
				const struct inspect_target *t,
				struct kind_cells *c);
void kind_present_package_summary(const struct inspect_node *n, char *buf,
				  size_t cap);
void kind_present_nv_target(const struct inspect_node *n,
			    struct inspect_target *t);
char *kind_present_nv_id(const struct inspect_node *n,
			 const struct inspect_target *t, size_t *len);
/* PTX by nvcc's name (code=compute_80): what the driver's rules read. */
const char *kind_present_nv_select_arch(const struct inspect_node *n,
					char *buf, size_t cap);
void kind_present_nv_cells(const struct inspect_node *n,
			   const struct inspect_target *t,
			   struct kind_cells *c);
void kind_present_nv_summary(const struct inspect_node *n, char *buf,
			     size_t cap);
bool kind_present_nv_where(const struct inspect_node *n, char *buf,
			   size_t cap);
/* Its identifier and ptxas options. */
void kind_present_nv_details(const struct inspect_node *n,
			     struct kind_text d[KIND_DETAILS]);
/* Its header, as read (see man/offload-ls.1); c is its container, whose
 * offset gives the entry's in the file. */
void kind_present_nv_entry_json(const struct inspect_node *n,
				const struct inspect_node *c,
				const struct kind_text d[KIND_DETAILS],
				struct kind_fields *f);
/* The TOC's target, an AMDGPU code object. */
void kind_present_kpack_target(const struct inspect_node *n,
			       struct inspect_target *t);
/* The TOC key and the target: "bin/app#0-gfx90a". */
char *kind_present_kpack_id(const struct inspect_node *n,
			    const struct inspect_target *t, size_t *len);
void kind_present_kpack_cells(const struct inspect_node *n,
			      const struct inspect_target *t,
			      struct kind_cells *c);
void kind_present_kpack_summary(const struct inspect_node *n, char *buf,
				size_t cap);
void kind_present_kpack_container_json(const struct inspect_node *n,
				       struct kind_fields *f);

bool kind_present_ccob_packed(const struct inspect_node *c,
			      uint64_t *stored, uint64_t *raw);
/* Its code inflated, when compressed. */
void kind_present_nv_sizes(const struct inspect_node *n, uint64_t *code,
			   uint64_t *stored);
/* Its frame, or its code stored as it is. */
void kind_present_kpack_sizes(const struct inspect_node *n, uint64_t *code,
			      uint64_t *stored);

void kind_present_ccob_bad_hash(const struct inspect_node *c, char *buf,
				size_t cap);

#endif
