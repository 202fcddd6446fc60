/* kpack_outdir: the output directory of kpack split and kpack join of
 * artifacts, checked (kpack_outdir.c). */
#ifndef APPLETS_KPACK_OUTDIR_H
#define APPLETS_KPACK_OUTDIR_H

#include <stddef.h>

/* 0 when out may be written: it does not exist or is an empty directory,
 * and is neither inside one of the n inputs nor around one; else the
 * exit status of the error line printed. */
int kpack_outdir_check(const char *applet, const char *out,
		       const char *const *inputs, size_t n);

#endif
