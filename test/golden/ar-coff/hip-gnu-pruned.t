kernel-mingw.obj
main.obj
