k1.bundle-hip-amdgcn-amd-amdhsa--gfx906k1.bundle.bc
k2.bundle-hip-amdgcn-amd-amdhsa--gfx906k2.bundle.bc
