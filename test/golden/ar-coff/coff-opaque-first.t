opaque.txt
msvc.obj
