/* nv: what NVIDIA's cuobjdump names code by, an NVIDIA entry's header
 * (offcode_entry_nv); a lone cubin's SM is a field of inputs() (listing.c). */
#ifndef OFFCODE_PY_NV_H
#define OFFCODE_PY_NV_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "handle.h"

/* nv_header(i): entry i's header, (kind, arch, variant, flags, identifier,
 * ptxas_options), variant None for code of none ("" in the struct, null
 * in ls --json) and the texts as ls --json writes them; None for an entry
 * of another kind of container. */
PyObject *nv_header(Artifact *self, PyObject *arg);

#endif
