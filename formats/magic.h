/* magic: what kind of file a buffer holds, from its first bytes. */
#ifndef FORMATS_MAGIC_H
#define FORMATS_MAGIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An object file as LLVM's createBinary sees one (ELF, COFF, Mach-O, Wasm,
 * XCOFF): the bundler switches to object bundles for these. */
bool magic_is_object(const uint8_t *buf, size_t len);

/* What LLVM's identify_magic calls an ELF relocatable, executable or shared
 * object (other ELF types, a core file say, are just "elf" to it). */
bool magic_is_elf_object(const uint8_t *buf, size_t len);
/* LLVM bitcode, bare ("BC" C0 DE) or in its wrapper (DE C0 17 0B). */
bool magic_is_bitcode(const uint8_t *buf, size_t len);
/* An ar archive, regular or thin. */
bool magic_is_archive(const uint8_t *buf, size_t len);

#endif
