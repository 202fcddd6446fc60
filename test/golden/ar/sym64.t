syms-host.bc
opaque.txt
syms-clang.o
