main-host-x86_64-pc-windows-msvc-main.obj
