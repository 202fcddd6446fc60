/* applets: every applet's entry point, for the table in main.c. */
#ifndef APPLETS_APPLETS_H
#define APPLETS_APPLETS_H

#define OFFLOAD_VERSION "0.1.0"

#include "../core/env.h"

/* An LLVM-named applet (llvm 1) is handed the LLVM release it follows,
 * chosen once by main.c; our own applets follow none. */
#define APPLET_MAIN_0(fn) int fn(int argc, char **argv);
#define APPLET_MAIN_1(fn) int fn(int argc, char **argv, enum llvm_release llvm);
#define APPLET(name, fn, llvm, summary) APPLET_MAIN_##llvm(fn)
#define ALIAS(name)
#define DIRALIAS(name)
#include "applets.def"
#undef APPLET
#undef ALIAS
#undef DIRALIAS

#endif
