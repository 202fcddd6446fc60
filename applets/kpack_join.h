/* kpack_join: the join subcommand of offload kpack (applets/kpack_join.c),
 * for the kpack applet's subcommand table. */
#ifndef APPLETS_KPACK_JOIN_H
#define APPLETS_KPACK_JOIN_H

/* argv[0] is "join". */
int kpack_join_main(int argc, char **argv);

#endif
