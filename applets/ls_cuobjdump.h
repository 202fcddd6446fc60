/* ls_cuobjdump: the lines cuobjdump -lelf -lptx prints. */
#ifndef APPLETS_LS_CUOBJDUMP_H
#define APPLETS_LS_CUOBJDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ls_types.h"
#include "../include/offcode.h"

/* How the file is walked: inflating (--verify, --kernels), its CCOBs'
 * hashes checked (--verify), the CCOB limits (0: the defaults), a
 * progress line, and the hints of the caller's map (offcode_walk_options'
 * next_data, reading and hint_ctx). */
struct ls_cuobjdump_opts {
	bool inflate, verify;
	uint64_t ccob_max_size, ccob_max_ratio;
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	uint64_t (*next_data)(void *ctx, uint64_t off);
	void (*reading)(void *ctx, uint64_t off, uint64_t len, bool start);
	void *hint_ctx;
};
/* Print the lines cuobjdump -lelf -lptx prints for the file buf (rs: its
 * path and -t), read by the library's walk (offcode_walk_memory): 0, or 1
 * when it holds no NVIDIA device code (cuobjdump fails then), -1 when the
 * walk fails, with *err its record (NULL: out of memory), which the
 * caller frees. */
int ls_cuobjdump(const struct rows *rs, const uint8_t *buf, size_t len,
		 const struct ls_cuobjdump_opts *o, offcode_error **err);

#endif
