/* du_layers: du of what holds files in layers, as du.c prints a tree's. */
#ifndef APPLETS_DU_LAYERS_H
#define APPLETS_DU_LAYERS_H

#include "du_sums.h"

/* du IMAGE: a table per layer (its files, as a tree's), then the sums;
 * the exit status. */
int du_image(struct options *o, const char *spec);
/* du PKG: a Debian package's data.tar, a wheel's or a conda package's
 * files. */
int du_package(struct options *o, const char *path);
/* A package found in a tree (a, opened with OFFCODE_OPEN_STREAM; err its
 * open's failure, or NULL): its files counted in o as the tree it unpacks
 * to would be, in place of the package's own bytes (counted as one file
 * already): 0, or 1 said. */
int du_tree_package(struct options *o, const char *path,
		    offcode_artifact *a, const offcode_error *err);

#endif
