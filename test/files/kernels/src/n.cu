// Kernels with known costs for ls --kernels on cubins (see ../make.sh):
// registers, shared memory, a local array (stack), a constant bank, a
// recursive callee.
__global__ void plain(int *p) { *p = 1; }
__global__ void __launch_bounds__(256) shared_k(float *p) {
  __shared__ float buf[2048];
  buf[threadIdx.x] = p[threadIdx.x]; __syncthreads(); p[threadIdx.x] = buf[(threadIdx.x * 7) % 2048]; }
__global__ void local_k(int *p, int n) { int a[100]; for (int i = 0; i < 100; i++) a[i] = p[i]; p[0] = a[n % 100]; }
__constant__ float cst[256];
__global__ void const_k(float *p) { p[threadIdx.x] = cst[threadIdx.x]; }
__device__ int fib(int n) { return n < 2 ? n : fib(n-1) + fib(n-2); }
__global__ void stack_k(int *p) { *p = fib(*p); }
