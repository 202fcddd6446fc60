msvc.obj
opaque.txt
