// The HIP runtime entry points clang's generated code calls, as stubs, so
// HIP programs link without a HIP runtime (-no-hip-rt).
#include "nohip.h"
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long, void *) { return 0; }
extern "C" int __hipPushCallConfiguration(dim3, dim3, unsigned long, void *) { return 0; }
extern "C" int __hipPopCallConfiguration(dim3 *, dim3 *, unsigned long *, void **) { return 0; }
extern "C" void **__hipRegisterFatBinary(void *) { return 0; }
extern "C" void __hipRegisterFunction(void **, const void *, char *, const char *, int, void *, void *, void *, void *, int *) {}
extern "C" void __hipRegisterVar(void **, void *, char *, const char *, int, unsigned long, int, int) {}
extern "C" void __hipUnregisterFatBinary(void *) {}
