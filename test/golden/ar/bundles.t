k1.bundle.o
opaque.txt
k2.bundle.o
