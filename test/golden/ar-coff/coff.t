msvc.obj
mingw.obj
i386.obj
arm64.obj
dup.obj
opaque.txt
