/* bundler_read: the bundler's --list and --unbundle. */
#ifndef APPLETS_BUNDLER_READ_H
#define APPLETS_BUNDLER_READ_H

#include "bundler_config.h"

int bundler_list(const struct config *c);
int bundler_unbundle(const struct config *c);

#endif
