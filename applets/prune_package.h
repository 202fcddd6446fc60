/* prune_package: prune PKG -o OUT, a Debian package written again with
 * the device code dropped (ops/deb_prune.c). */
#ifndef APPLETS_PRUNE_PACKAGE_H
#define APPLETS_PRUNE_PACKAGE_H

#include "prune_file.h"

/* Prune the package at path as o says (o->output the package written):
 * 0, or 1 said. */
int prune_package(struct options *o, const char *path);

#endif
