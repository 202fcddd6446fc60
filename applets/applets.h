/* applets: every applet's entry point, for the table in main.c. */
#ifndef APPLETS_APPLETS_H
#define APPLETS_APPLETS_H

#define OFFLOAD_VERSION "0.1.0"
/* The LLVM release whose tools the LLVM-named applets reproduce. */
#define LLVM_COMPAT_VERSION "22.1.8"

int bundler_main(int argc, char **argv);
int ccob_main(int argc, char **argv);
int packager_main(int argc, char **argv);
int unpack_archive_main(int argc, char **argv);
int ls_main(int argc, char **argv);
int extract_main(int argc, char **argv);
int prune_main(int argc, char **argv);

#endif
