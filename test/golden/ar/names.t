opaque.txt
a_member_name_longer_than_15.txt
empty
nested.txt
a_member_name_longer_than_15.txt
opaque.txt
