/* inspect: every piece of device code a build artefact carries, found from
 * headers.  An ELF file's offload sections (.hip_fatbin, .llvm.offloading,
 * .nv_fatbin, __nv_relfatbin, __CLANG_OFFLOAD_BUNDLE__* object bundles),
 * a bitcode module's packages, an archive's members, or a file that is
 * itself a bundle (binary or text), a CCOB, an offload package, an NVIDIA
 * fatbin or an AMD kpack archive, walked as a tree (the host formats:
 * hosts.h; the section kinds: core/sections.h); COFF objects' sections
 * of the same names too (.llvm.offloading* for packages), and PE images'
 * by the names cut to eight bytes (.hip_fat, .nv_fatb, __nv_rel):
 *
 *   input (file or archive member) -> section -> container -> entry
 *
 * The walk calls a visitor for each node, parents first.  What a node
 * points to (names, IDs, code) lives only until the visitor returns: a
 * compressed bundle is inflated for its own entries and freed after them,
 * so an artefact of any size is walked in bounded memory. */
#ifndef OPS_INSPECT_H
#define OPS_INSPECT_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "../core/err.h"
#include "inspect_node.h"

/* Walk buf, the whole of one file.  -1 with e filled on anything damaged
 * (e names where: "section .hip_fatbin: CCOB at offset 4096: ..."), or a
 * file that is none of the formats above. */
int inspect_walk(const uint8_t *buf, size_t len, const struct inspect_opts *o,
		 inspect_visit_fn visit, void *ctx, struct err *e);
/* Whether a file met inside another (a layer's or a package's member) is
 * worth a command's full walk: a walk by o's rules finds a container in
 * it, or fails (the full walk then says why).  False only for a file
 * walked whole that holds no offload code. */
bool inspect_worth_walking(const uint8_t *buf, size_t len,
			   const struct inspect_opts *o);
/* What is wrong with buf, as a walk of its headers alone finds it (o's
 * limits): -1 with e filled when it is damaged, 0 (e untouched) when the
 * headers are whole (or the file is of no format).  A walk that inflates
 * (o->inflate), and prune, failing, say this diagnosis when there is one,
 * so that a damaged file gets the same one from every command. */
int inspect_diagnose(const uint8_t *buf, size_t len,
		     const struct inspect_opts *o, struct err *e);

/* Entry n's target (struct inspect_target, inspect_node.h), as its
 * kind's row says (kinds.c). */
void inspect_entry_target(const struct inspect_node *n,
			  struct inspect_target *t);

/* "x86-64", "AMDGPU", ... or NULL for a machine not in the table: ELF's
 * e_machine, and COFF's Machine. */
const char *inspect_machine_name(uint16_t machine);
const char *inspect_coff_machine_name(uint16_t machine);

/* What an ELF, COFF or PE input's own headers say (an input node's
 * fields, kept apart from the node by the library, which hands them out
 * after the walk). */
struct inspect_host_header {
	enum inspect_format format;	/* ELF, COFF, PE; another: none */
	bool is64, big_endian;		/* ELF; is64 also PE32+ */
	bool bigobj, dll;		/* COFF; PE */
	uint16_t elf_type, machine;
};
void inspect_host_header(const struct inspect_node *n,
			 struct inspect_host_header *h);
/* The words ls prints after "<file>: " for those headers, into buf (cap
 * bytes, cut to fit): "ELF 64-bit LSB shared object, x86-64", "COFF
 * bigobj object, x86-64", "PE32+ DLL, ARM64" (a type or machine not named:
 * "type 9", "machine 0x1234"); "" for another format. */
void inspect_host_words(const struct inspect_host_header *h, char *buf,
			size_t cap);

#endif
