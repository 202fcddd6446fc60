/* ls_json_kpack: a kpack-split binary's "kpack" object (ls_json_kpack.c). */
#ifndef APPLETS_LS_JSON_KPACK_H
#define APPLETS_LS_JSON_KPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ls_types.h"

/* The "kpack" object of a kpack-split binary, the file's last key. */
int ls_json_kpack(const struct rows *rs, const char *path,
		  const uint8_t *data, size_t len, bool verify, FILE *errs,
		  bool *oom);

#endif
