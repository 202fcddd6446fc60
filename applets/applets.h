/* applets: every applet's entry point, for the table in main.c. */
#ifndef APPLETS_APPLETS_H
#define APPLETS_APPLETS_H

#define OFFLOAD_VERSION "0.1.0"

#define APPLET(name, fn, llvm, summary) int fn(int argc, char **argv);
#define ALIAS(name)
#define DIRALIAS(name)
#include "applets.def"
#undef APPLET
#undef ALIAS
#undef DIRALIAS

#endif
