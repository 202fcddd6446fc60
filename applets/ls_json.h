/* ls_json: ls's JSON listing. */
#ifndef APPLETS_LS_JSON_H
#define APPLETS_LS_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ls_types.h"
#include "../include/offcode.h"

/* One file's tree as a JSON object (see man/offload-ls.1), printed as
 * the public walk goes (include/offcode.h, offcode_walk_*):
 * ls_json_visit is its visitor, and memory is the nodes open above the
 * one printed, whatever the number of entries.  A node is held (what it
 * prints, copied out of its record) only until something under it is
 * printed. */
struct ls_json_node {
	enum offcode_node_kind kind_of;
	unsigned depth;
	char *name;		/* a member's or a section's name, as stored */
	size_t name_len;
	char *format;		/* an input's or a container's */
	uint64_t offset, size;
	/* INPUT: its ELF, COFF or PE headers (has_host), the strings
	 * copied */
	bool has_host;
	struct offcode_host host;
	char *host_type, *host_machine;
	/* SECTION: its index and kind; CONTAINER: its number */
	unsigned number;
	char *kind;
	/* CONTAINER */
	bool has_offset, has_version, coded;
	unsigned version;
	struct offcode_field *fields;	/* before its entries, copied */
	size_t nfields;
};
struct ls_json_level {
	struct ls_json_node v;
	struct code_kernels k;	/* an input's kernels (a file that is
				 * one code object) */
	bool shown;		/* its opening and fields are printed */
	bool first;		/* no key printed in it yet */
	bool any;		/* something printed in the array open */
	int array;		/* the array open (see arrays_of), -1: none */
	/* Containers: entries listed; NVIDIA entries that do not decode
	 * (--verify): how many, the first and why, their indexes. */
	size_t listed, bad;
	unsigned first_bad;
	char *first_why;
	char bad_list[64];
};
struct ls_json {
	const struct rows *rs;	/* options: kernels, demangle, -t */
	const char *path;
	const uint8_t *data;	/* the file */
	size_t len;
	bool verify;		/* --verify: a kpack-split binary's install */
	bool comma;		/* a file was printed before: a comma first */
	bool printed;		/* this one is printed */
	bool walked, oom;
	FILE *errs;		/* failures, said once the file is printed */
	int rc;
	struct ls_json_level *lv;	/* by depth */
	size_t n, cap;
};
int ls_json_visit(void *ctx, const struct offcode_node *n);
/* Close what is open (walked: the walk ended well); 0, 1 when something
 * failed (in js->errs), -1 when out of memory. */
int ls_json_end(struct ls_json *js, bool walked);
/* A directory's object (format "directory", not searched). */
void ls_json_directory(const char *path);

#endif
