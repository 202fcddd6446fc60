// Built with -maxrregcount=24 (see ../make.sh): register pressure spills
// to local memory (the stack frame), and a local array besides.
__global__ void pressure_k(float *p, int n)
{
	float v[40];

#pragma unroll
	for (int i = 0; i < 40; i++)
		v[i] = p[i * n + threadIdx.x];
	float s = 0;
#pragma unroll
	for (int i = 0; i < 40; i++)
		s += v[i] * v[39 - i] + v[(i * 11) % 40];
	p[threadIdx.x] = s;
}

__global__ void both_k(double *p, int n)
{
	double a[32], v[24];

	for (int i = 0; i < 32; i++)
		a[(i * n) & 31] = p[i];
#pragma unroll
	for (int i = 0; i < 24; i++)
		v[i] = p[i * n + threadIdx.x + 32];
	double s = a[n & 31];
#pragma unroll
	for (int i = 0; i < 24; i++)
		s += v[i] * v[23 - i];
	p[threadIdx.x] = s;
}
