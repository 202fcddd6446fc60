syms-host.bc
opaque.txt
a_member_name_longer_than_15.txt
sub/nested.txt
