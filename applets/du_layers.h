/* du_layers: du of what holds files in layers, as du.c prints a tree's. */
#ifndef APPLETS_DU_LAYERS_H
#define APPLETS_DU_LAYERS_H

#include "du_sums.h"

/* du IMAGE: a table per layer (its files, as a tree's), then the sums;
 * the exit status. */
int du_image(struct options *o, const char *spec);
/* du PKG: a Debian package's data.tar, a wheel's or a .conda's files. */
int du_package(struct options *o, const char *path);

#endif
