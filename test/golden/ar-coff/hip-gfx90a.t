kernel-hip-amdgcn-amd-amdhsa--gfx90akernel.bc
main-hip-amdgcn-amd-amdhsa--gfx90amain.bc
