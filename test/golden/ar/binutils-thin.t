syms-gcc.o
sub/nested.txt
