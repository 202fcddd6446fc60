/* packager_extract: llvm-offload-binary's extraction (packager.c reads the
 * command line and packages). */
#ifndef APPLETS_PACKAGER_EXTRACT_H
#define APPLETS_PACKAGER_EXTRACT_H

#include <stdbool.h>

#include "../core/clopt.h"
#include "../formats/package.h"

/* Extract from input what each --image of images selects (to generated
 * names, to file=, or into an archive at file= with --archive). */
int packager_extract(const char *input, const struct clopt *images,
		     bool archive, const struct package_limits *lim);

#endif
