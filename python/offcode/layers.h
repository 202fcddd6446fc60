/* layers: the Artifact's methods over a package's or an image's layers
 * and manifests (offcode_layer(3)), and du's figures. */
#ifndef OFFCODE_PY_LAYERS_H
#define OFFCODE_PY_LAYERS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "handle.h"

/* layers(): [(name, compression, stored)] */
PyObject *layers_list(Artifact *self, PyObject *unused);
/* walk_layer(i, fn, root): fn(member, file, error) for each file worth
 * reading; (members, files, file_bytes), or True when fn stopped it */
PyObject *layers_walk(Artifact *self, PyObject *args);
/* manifests(): [(digest, platform, (layer, ...))] */
PyObject *layers_manifests(Artifact *self, PyObject *unused);
/* manifest_root(i): [(layer, index, size)] */
PyObject *layers_manifest_root(Artifact *self, PyObject *arg);
/* du(i): (code, stored, rule_id, rule_target) */
PyObject *layers_du(Artifact *self, PyObject *arg);
/* file_facts(): (code object's (target, triple) or None, offload only,
 * [kpack archive paths]) */
PyObject *layers_file_facts(Artifact *self, PyObject *unused);

#endif
