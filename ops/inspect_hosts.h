/* inspect_hosts: how the walk (inspect.h) visits each host format: the
 * walk column of ops/hosts.c's rows.  Input node in has its kind, depth,
 * name, offset and size; each sets its format, visits it and then what it
 * holds (inspect_walk.h), len bytes at buf at file offset base. */
#ifndef OPS_INSPECT_HOSTS_H
#define OPS_INSPECT_HOSTS_H

#include <stddef.h>
#include <stdint.h>

#include "inspect_node.h"
#include "inspect_walk.h"

/* Its offload sections (core/sections.h), then its object bundle. */
int inspect_walk_elf(struct walk *w, struct inspect_node *in,
		     const uint8_t *buf, size_t len, uint64_t base);
/* The same by COFF's names; a PE image's cut to eight bytes. */
int inspect_walk_pe(struct walk *w, struct inspect_node *in,
		    const uint8_t *buf, size_t len, uint64_t base);
int inspect_walk_coff(struct walk *w, struct inspect_node *in,
		      const uint8_t *buf, size_t len, uint64_t base);
/* The packages its module embeds (clang -flto). */
int inspect_walk_bitcode(struct walk *w, struct inspect_node *in,
			 const uint8_t *buf, size_t len, uint64_t base);
/* Each member, walked as an input through w->input. */
int inspect_walk_archive(struct walk *w, struct inspect_node *in,
			 const uint8_t *buf, size_t len, uint64_t base);
/* A file of containers, or one of a whole-file kind (kpack). */
int inspect_walk_bare(struct walk *w, struct inspect_node *in,
		      const uint8_t *buf, size_t len, uint64_t base);
/* A text bundle's entries. */
int inspect_walk_text_bundle(struct walk *w, struct inspect_node *in,
			     const uint8_t *buf, size_t len, uint64_t base);
/* Every container in buf[0, len), which starts at file offset base, as
 * nodes of the depth given: for a format that holds a region of them. */
int inspect_walk_containers(struct walk *w, const uint8_t *buf, size_t len,
			    uint64_t base, unsigned depth);
/* A file of none of these: visited as text (a linker script...) or other
 * data, with nothing under it. */
int inspect_walk_other(struct walk *w, struct inspect_node *in,
		       const uint8_t *buf, size_t len);

#endif
