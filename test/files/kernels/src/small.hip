// The committed fixtures' kernels (see ../make.sh): one of each kind of
// cost ls --kernels shows.
#include "nohip.h"
__global__ void plain(int *p) { *p = 1; }
__global__ void __attribute__((amdgpu_flat_work_group_size(1, 256)))
lds(int *p) {
  __attribute__((shared)) int buf[4096];
  buf[p[0] & 4095] = p[1];
  __builtin_amdgcn_s_barrier();
  p[2] = buf[p[3] & 4095];
}
__global__ void scratch(int *p, int n) {
  volatile int a[100];
  for (int i = 0; i < 100; i++) a[i] = p[i];
  p[0] = a[n % 100];
}
__global__ void __attribute__((amdgpu_flat_work_group_size(1, 256)))
regs(int *p) {
  asm volatile("; v100 s60" ::: "v100", "s60");
#if defined(__gfx90a__) || defined(__gfx942__)
  asm volatile("; a40" ::: "a40");
#endif
  *p = 2;
}
__device__ __attribute__((noinline)) int fib(int n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}
__global__ void recursive(int *p) { *p = fib(*p); }
namespace ns {
template <typename T> __global__ void tmpl(T *p) { p[0] += 1; }
template __global__ void tmpl<float>(float *);
} // namespace ns
