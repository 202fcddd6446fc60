// Translation units with more device code than a page even compressed, for
// test/prune.test: KERNELS kernels (set with -D), each its own arithmetic.
#ifndef __CUDACC__
#include "nohip.h"
#endif
#ifndef KERNELS
#define KERNELS 64
#endif
template <int N> __global__ void k(float *p, int m)
{
	float s = p[N];
	for (int i = 0; i < m; i++)
		s = s * (1.0f + N * 0.001f) + p[(i * (N + 3)) & 1023] - (float)(N ^ i);
	p[N + 1] = s;
}
template <int N> struct launch {
	static void all(float *p)
	{
		k<N><<<dim3{1, 1, 1}, dim3{1, 1, 1}, 0, 0>>>(p, N);
		launch<N - 1>::all(p);
	}
};
template <> struct launch<0> { static void all(float *) {} };
extern "C" void TU(float *p) { launch<KERNELS>::all(p); }
