/* magic: what kind of file a buffer holds, from its first bytes. */
#ifndef FORMATS_MAGIC_H
#define FORMATS_MAGIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An object file as LLVM's createBinary sees one (ELF, COFF, Mach-O, Wasm,
 * XCOFF): the bundler switches to object bundles for these. */
bool magic_is_object(const uint8_t *buf, size_t len);
/* A compressed offload bundle ("CCOB"). */
bool magic_is_ccob(const uint8_t *buf, size_t len);

#endif
