#include "nohip.h"
extern __device__ int scale;
__global__ void kern2(int *p) { *p = 2 * scale; }
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long, void *) { return 0; }
extern "C" int __hipPushCallConfiguration(dim3, dim3, unsigned long, void *) { return 0; }
extern "C" int __hipPopCallConfiguration(dim3 *, dim3 *, unsigned long *, void **) { return 0; }
extern "C" void **__hipRegisterFatBinary(void *) { return 0; }
int launch(int *p);
int main(void) { int x; return launch(&x); }
// The registration calls clang emits, as a HIP runtime would provide them.
extern "C" void __hipRegisterFunction(void **, const void *, char *, const char *, int, void *, void *, void *, void *, int *) {}
extern "C" void __hipRegisterVar(void **, void *, char *, const char *, int, unsigned long, int, int) {}
extern "C" void __hipUnregisterFatBinary(void *) {}
