/* prune_image: prune IMAGE -o OUT, a container image written again as an
 * OCI layout with the device code dropped (ops/image_prune.c). */
#ifndef APPLETS_PRUNE_IMAGE_H
#define APPLETS_PRUNE_IMAGE_H

#include "prune_file.h"

/* Prune the image spec names as o says (o->output the layout written,
 * o->layer_compression the codec asked, or NULL): 0, or 1 said. */
int prune_image(struct options *o, const char *spec);

#endif
