/* triple_normalize: LLVM's spelling of a target triple. */
#ifndef CORE_TRIPLE_NORMALIZE_H
#define CORE_TRIPLE_NORMALIZE_H

#include <stddef.h>

#include "env.h"
#include "err.h"

/* llvm::Triple::normalize(s, form) of release r: form is 3 or 4 components, or 0 for
 * "as many as there are".  Returns a malloc'd string, or NULL with e
 * filled: ERR_NOMEM, or ERR_FATAL where LLVM itself stops ("LLVM ERROR:
 * Unsupported Shader Model version", for dxil with shadermodel6.N, N > 9). */
char *triple_normalize(const char *s, size_t len, int form,
		       enum llvm_release r, struct err *e);

#endif
