// Kernels whose every figure cuobjdump -res-usage reports is known (see
// ../make.sh): per-thread arrays indexed at run time (local memory: the
// stack frame), a callee's frame, recursion (a stack ptxas cannot bound),
// printf, calls through a pointer, spills under launch bounds, static
// shared memory, constant banks.
#include <cstdio>

__global__ void arr_k(int *p, int n)
{
	int a[256];

	for (int i = 0; i < 256; i++)
		a[(i * n) & 255] = p[i];
	p[threadIdx.x] = a[(n + threadIdx.x) & 255];
}

__global__ void small_arr_k(char *p, int n)
{
	char a[40];

	for (int i = 0; i < 40; i++)
		a[(i + n) % 40] = p[i];
	p[threadIdx.x] = a[n % 40];
}

// 65536 registers for 2 blocks of 1024 threads: 32 registers at most
// (on sm_75, which runs 1024 threads per SM, ptxas ignores the 2).
__global__ void __launch_bounds__(1024, 2) spill_k(float *p, int n)
{
	float v[48];

#pragma unroll
	for (int i = 0; i < 48; i++)
		v[i] = p[i * n + threadIdx.x];
	float s = 0;
#pragma unroll
	for (int i = 0; i < 48; i++)
		s += v[i] * v[47 - i] * v[(i * 7) % 48];
	p[threadIdx.x] = s;
}

__device__ __noinline__ int callee(const int *p, int n)
{
	int b[64];

	for (int i = 0; i < 64; i++)
		b[(i * n) & 63] = p[i];
	return b[n & 63];
}

__global__ void call_k(int *p, int n)
{
	int c[16];

	for (int i = 0; i < 16; i++)
		c[(i * n) & 15] = p[i + 64];
	p[0] = callee(p, n) + c[n & 15];
}

__device__ int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__global__ void rec_k(int *p)
{
	*p = fib(*p);
}

__global__ void printf_k(int n)
{
	printf("%d %d %f\n", n, (int)threadIdx.x, (double)n / 3);
}

__device__ __noinline__ int twice(const int *p, int n) { return 2 * p[n]; }
__device__ __noinline__ int thrice(const int *p, int n) { return 3 * p[n]; }
__device__ int (*const table[2])(const int *, int) = { twice, thrice };

__global__ void indirect_k(int *p, int n)
{
	p[1] = table[n & 1](p, n);
}

__global__ void __launch_bounds__(128) shared_k(float *p)
{
	__shared__ float s[1000];
	__shared__ double d[24];

	s[threadIdx.x] = p[threadIdx.x];
	d[threadIdx.x % 24] = p[threadIdx.x + 1];
	__syncthreads();
	p[threadIdx.x] = s[(threadIdx.x * 7) % 1000] + d[threadIdx.x % 5];
}

__constant__ float cst[300];

__global__ void const_k(float *p, float x)
{
	p[threadIdx.x] = cst[threadIdx.x % 300] * x + 1.5f;
}

__global__ void plain_k(int *p)
{
	*p = 1;
}
