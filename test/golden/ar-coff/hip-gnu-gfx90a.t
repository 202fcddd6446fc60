kernel-mingw-hip-amdgcn-amd-amdhsa--gfx90akernel-mingw.bc
main-hip-amdgcn-amd-amdhsa--gfx90amain.bc
