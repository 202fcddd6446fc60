nosym.o
opaque.txt
