// Kernels with known costs, for ls --kernels' ground truth (see
// ../make.sh and test/kernels_llvm.py): LDS across workgroup sizes,
// VGPRs, SGPRs and AGPRs pinned by inline assembly, scratch, a dynamic
// stack, spills, and names that demangle.
#include "nohip.h"
#define SHARED __attribute__((shared))
#define WG(n) __attribute__((amdgpu_flat_work_group_size(1, n)))

__global__ void plain(int *p) { *p = 1; }

#define LDS(bytes, wg)                                                        \
  __global__ void WG(wg) lds_##bytes##_##wg(int *p) {                        \
    SHARED int buf[bytes / 4];                                                \
    buf[p[0] % (bytes / 4)] = p[1];                                           \
    __builtin_amdgcn_s_barrier();                                             \
    p[2] = buf[p[3] % (bytes / 4)];                                           \
  }
#define LDS_ALL_WG(bytes)                                                     \
  LDS(bytes, 64) LDS(bytes, 128) LDS(bytes, 256) LDS(bytes, 512)             \
  LDS(bytes, 1024)
LDS_ALL_WG(1024) LDS_ALL_WG(4096) LDS_ALL_WG(8192) LDS_ALL_WG(12288)
LDS_ALL_WG(16384) LDS_ALL_WG(24576) LDS_ALL_WG(32768) LDS_ALL_WG(65536)
LDS(2000, 64) LDS(6000, 96) LDS(20000, 192) LDS(40000, 320)

#define VGPR(n)                                                               \
  __global__ void vgpr_##n(int *p) { asm volatile("; v" #n ::: "v" #n); *p = 0; }
VGPR(20) VGPR(31) VGPR(40) VGPR(47) VGPR(63) VGPR(84) VGPR(95) VGPR(100)
VGPR(127) VGPR(130) VGPR(167) VGPR(200) VGPR(255)

#define SGPR(n)                                                               \
  __global__ void sgpr_##n(int *p) { asm volatile("; s" #n ::: "s" #n); *p = 0; }
SGPR(40) SGPR(73) SGPR(75) SGPR(81) SGPR(83) SGPR(93) SGPR(95) SGPR(99)

#define VGPR_WG(n, wg)                                                        \
  __global__ void WG(wg) vgpr_##n##_wg##wg(int *p) {                          \
    asm volatile("; v" #n ::: "v" #n); *p = 0; }
VGPR_WG(100, 256) VGPR_WG(127, 512) VGPR_WG(63, 1024) VGPR_WG(200, 128)

#if defined(__gfx90a__) || defined(__gfx942__)
#define AGPR(v, a)                                                            \
  __global__ void WG(256) agpr_##v##_##a(int *p) {                                  \
    asm volatile("; v" #v " a" #a ::: "v" #v, "a" #a); *p = 0; }
AGPR(10, 10) AGPR(40, 63) AGPR(100, 40) AGPR(126, 127) AGPR(255, 255)
AGPR(2, 200)
#endif

__global__ void scratch(int *p, int n) {
  volatile int a[100];
  for (int i = 0; i < 100; i++) a[i] = p[i];
  p[0] = a[n % 100];
}

__device__ __attribute__((noinline)) int fib(int n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}
__global__ void recursive(int *p) { *p = fib(*p); }

__global__ void dynamic_alloca(int *p, int n) {
  volatile int *a = (volatile int *)__builtin_alloca(n * sizeof(int));
  for (int i = 0; i < n; i++) a[i] = p[i];
  p[0] = a[n / 2];
}

namespace ns {
template <typename T, int N> struct V { T x[N]; };
template <typename T> __global__ void tmpl(T *p, V<T, 4> v) { p[0] += v.x[1]; }
template __global__ void tmpl<float>(float *, V<float, 4>);
template __global__ void tmpl<double>(double *, V<double, 4>);
} // namespace ns
extern "C" __global__ void c_kernel(int *p) { *p = 3; }
