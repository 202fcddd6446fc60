/* bundle_object: bundles as sections of a host object, read, written and
 * stripped (bundle_object.c). */
#ifndef FORMATS_BUNDLE_OBJECT_H
#define FORMATS_BUNDLE_OBJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "../core/io_in.h"
#include "../core/io_types.h"
#include "bundle.h"

/* Object layout: one section per entry, named BUNDLE_MAGIC<id>, in the
 * host object (an ELF relocatable file).  Reading finds the sections in
 * section order; a file that is an object but not ELF holds no entries
 * (Mach-O names cannot be that long).  A damaged ELF file is an error. */
int bundle_open_object(struct bundle_reader *r, const uint8_t *buf, size_t len,
		       struct err *e);
/* An entry of exactly one zero byte stands for the host object itself. */
bool bundle_object_is_host(const uint8_t *buf, uint64_t off, uint64_t size);
/* Write host with one section per entry appended, in ids order: flags
 * SHF_EXCLUDE, alignment 1, all of inputs[i] (the host's entry: one zero
 * byte), as llvm-objcopy --add-section/--set-section-flags=readonly,exclude does. */
int bundle_write_object(const uint8_t *host, size_t host_len,
			const char *const *ids, const struct io_in *inputs,
			size_t n, long host_index, struct io_out *out,
			struct err *e);
/* Write the object without its bundle sections (llvm-objcopy --regex
 * --remove-section=__CLANG_OFFLOAD_BUNDLE__.*). */
int bundle_strip_object(const uint8_t *buf, size_t len, struct io_out *out,
			struct err *e);
/* This layout's half of bundle_next and bundle_content (bundle_reader.h). */
int bundle_next_object(struct bundle_reader *r, struct bundle_entry *ent);
int bundle_content_object(const struct bundle_reader *r, uint64_t *off,
			  uint64_t *size, struct err *e);

#endif
