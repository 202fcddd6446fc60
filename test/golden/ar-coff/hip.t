kernel.obj
main.obj
