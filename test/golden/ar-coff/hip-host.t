kernel-host-x86_64-pc-windows-msvc-kernel.obj
main-host-x86_64-pc-windows-msvc-main.obj
