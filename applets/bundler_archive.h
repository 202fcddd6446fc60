/* bundler_archive: the bundler's --unbundle of device archives. */
#ifndef APPLETS_BUNDLER_ARCHIVE_H
#define APPLETS_BUNDLER_ARCHIVE_H

#include "bundler_config.h"

int bundler_unbundle_archive(const struct config *c);

#endif
