/* code: entries' code for liboffcode (code.c), as the library's other
 * parts read it. */
#ifndef LIB_CODE_H
#define LIB_CODE_H

#include <stdint.h>

#include "../include/offcode.h"

/* Entry e's code, held by a until its next entry read (the library's other
 * parts, kernels.c): 0 with *code and *size, or a failure's code with
 * a's last error set. */
int code_at_hand(offcode_artifact *a, const offcode_entry *e,
		 const uint8_t **code, uint64_t *size);

#endif
