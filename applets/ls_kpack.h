/* ls_kpack: a kpack-split host binary, as offload ls shows and checks it
 * (ls_kpack.c). */
#ifndef APPLETS_LS_KPACK_H
#define APPLETS_LS_KPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/select.h"

/* If buf (len bytes, the file path) is an ELF file with a .rocm_kpack_ref
 * section: print its reference, its HIPK wrappers, and for each archive
 * its search paths find, the code object each wrapper resolves to.  With
 * verify, every wrapper index must resolve in every archive found, with
 * the size the TOC declares, to a code object for the archive's target;
 * each miss is one error line.  With rules in sel (-t), only the
 * archives for a target they take, and in them only the code objects
 * they take (the rules that do are marked).  0, or 1 after an error. */
int ls_kpack_host(const char *path, const uint8_t *buf, size_t len,
		  bool verify, struct select *sel);

#endif
