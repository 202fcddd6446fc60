/* prune_package: prune PKG -o OUT, a Debian package or a Python wheel
 * written again with the device code dropped (ops/deb_prune.c,
 * ops/wheel_prune.c). */
#ifndef APPLETS_PRUNE_PACKAGE_H
#define APPLETS_PRUNE_PACKAGE_H

#include <stdbool.h>

#include "prune_file.h"

/* Whether path is a package prune_package takes. */
bool prune_package_is(const char *path);
/* Prune the package at path as o says (o->output the package written):
 * 0, or 1 said. */
int prune_package(struct options *o, const char *path);

#endif
