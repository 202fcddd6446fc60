// A kernel small enough for fixtures, large enough that every compression
// mode of nvcc compresses its PTX (and, with -compress-all, its cubin).
__global__ void scale(float *y, const float *x, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = a * x[i] + y[i];
}
