syms-host.bc
opaque.txt
