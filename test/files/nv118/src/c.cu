// c.cu: device code for separate compilation (-rdc): a __device__
// function other translation units may call, and a kernel.
__device__ float twice(float v)
{
	return 2.0f * v;
}

__global__ void scale(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] = twice(x[i]);
}

void launch_scale(float *x, int n)
{
	scale<<<(n + 255) / 256, 256>>>(x, n);
}
