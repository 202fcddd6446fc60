/* llvmhash: LLVM 22's hash_value(StringRef) (hash_combine_range over the
 * bytes, CityHash-derived, with the fixed seed of release builds).  LLVM's
 * DenseMap<StringRef> places keys by its low 32 bits, and llvm-offload-binary
 * writes its string records in that order. */
#ifndef CORE_LLVMHASH_H
#define CORE_LLVMHASH_H

#include <stddef.h>
#include <stdint.h>

uint64_t llvmhash_bytes(const void *p, size_t n);
/* LLVM 23's hash_value(StringRef): XXH3-64 of the bytes, the execution
 * seed of release builds XORed in. */
uint64_t llvmhash23_bytes(const void *p, size_t n);

#endif
