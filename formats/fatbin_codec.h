/* fatbin_codec: the codec row of a container kind (formats/kinds.def),
 * which the kind's format file defines.  A header alone, so that a format
 * file defining its row does not include fatbin.h, whose table names it. */
#ifndef FORMATS_FATBIN_CODEC_H
#define FORMATS_FATBIN_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "ccob.h"

/* What the codecs know of a kind: its name in messages, how its bytes
 * start (probe) and how far they go (span: *size bytes from p, of which
 * left are at hand; a CCOB's within lim).  probe and span are NULL for a
 * kind not found by its bytes (object bundles: by section names).  A
 * whole-file kind (kpack archives) is the whole of a file, never one of
 * a section's containers: only fatbin_probe_file finds it, and it has no
 * span (it runs to the file's end).  sections says which section kinds
 * (core/sections.h) hold containers of the kind: what each section kind
 * holds is said here, once. */
struct fatbin_codec {
	const char *what;	/* "offload bundle", "CCOB", ... */
	bool (*probe)(const uint8_t *buf, size_t len);
	int (*span)(const uint8_t *p, size_t left,
		    const struct ccob_limits *lim, uint64_t *size,
		    struct err *e);
	bool whole_file;
	unsigned sections;	/* 1 << enum section_kind, for each */
};

#endif
