k1.bundle-hip-amdgcn-amd-amdhsa--gfx90ak1.bundle.bc
k2.bundle-hip-amdgcn-amd-amdhsa--gfx90ak2.bundle.bc
