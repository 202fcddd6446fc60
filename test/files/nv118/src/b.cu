// b.cu: a second translation unit, built for other GPUs.
__global__ void triple(double *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] *= 3.0;
}

void launch_triple(double *x, int n)
{
	triple<<<(n + 255) / 256, 256>>>(x, n);
}
