/* prune_tree: prune -r, every file under some directories, pruned by a
 * few worker processes at once (prune_file.h for each), hard links found
 * by core/tree.h; one summary line. */
#ifndef APPLETS_PRUNE_TREE_H
#define APPLETS_PRUNE_TREE_H

#include "prune_file.h"

/* 0, or 1 when a file could not be pruned (each said). */
int prune_tree(struct options *o, char **paths, int n);

#endif
