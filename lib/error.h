/* error: liboffcode's error records (offcode_error, include/offcode.h),
 * made from the tool's own (core/err.h) with their chain. */
#ifndef LIB_ERROR_H
#define LIB_ERROR_H

#include "../include/offcode.h"
#include "../core/err.h"

/* The public code of a record's code. */
enum offcode_code error_code_of(enum err_code code);
/* A record of e and the records it wraps, malloc'd; path, when not NULL
 * and e names no file, is the file it concerns.  NULL when out of
 * memory. */
offcode_error *error_from(const struct err *e, const char *path);
/* A record of the library's own: code and reason (no errno, no path). */
offcode_error *error_new(enum offcode_code code, const char *reason);
/* The record every out-of-memory failure may share: never freed. */
offcode_error *error_nomem(void);
/* A public call's failure r handed to its caller: into *err when err is
 * not NULL, else freed; r NULL is out of memory.  Its code. */
int error_give(offcode_error *r, offcode_error **err);

#endif
