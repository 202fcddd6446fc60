/* prune_package: prune PKG -o OUT, a Debian package, a Python wheel or
 * a conda package written again with the device code dropped
 * (ops/deb_prune.c, ops/wheel_prune.c, ops/conda.c); and each package
 * prune -r finds in a tree (prune_file.c reaches it through the options'
 * hooks: this file uses those options). */
#ifndef APPLETS_PRUNE_PACKAGE_H
#define APPLETS_PRUNE_PACKAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prune_file.h"
#include "../core/err.h"
#include "../core/io_in.h"
#include "../core/io_types.h"

/* Whether path is a package prune_package takes; the same of a file's
 * name and bytes. */
bool prune_package_is(const char *path);
bool prune_package_probe(const char *name, const uint8_t *buf, size_t len);
/* Prune the package in (taken, closed here; path its name) into out,
 * opened by the caller (NULL for a dry run), who commits or discards it,
 * saying a line naming shown (in a tree, with o->walked, only when a
 * file in it changes): 0 with *files the files pruned and *after the
 * bytes written, or -1 with e filled (nothing said). */
int prune_package_to(struct options *o, const char *path, struct io_in *in,
		     struct io_out *out, const char *shown, uint64_t *files,
		     uint64_t *after, struct err *e);
/* Prune the package at path as o says (o->output the package written):
 * 0, or 1 said. */
int prune_package(struct options *o, const char *path);

#endif
