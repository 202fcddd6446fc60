// What a HIP translation unit needs from the HIP headers when compiled with
// -nogpuinc: the attributes and the launch API clang's stubs call.
#ifdef __HIP__
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#else
#define __global__
#define __device__
#endif
typedef struct { unsigned x, y, z; } dim3;
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long, void *);
extern "C" int __hipPushCallConfiguration(dim3, dim3, unsigned long, void *);
extern "C" int __hipPopCallConfiguration(dim3 *, dim3 *, unsigned long *, void **);
