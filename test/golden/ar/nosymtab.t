syms-host.bc
syms-clang.o
a_member_name_longer_than_15.txt
