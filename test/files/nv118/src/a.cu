// a.cu: a kernel and its launcher, the device code of the nv118 fixtures.
__global__ void add_one(int *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] += 1;
}

void launch_add_one(int *x, int n)
{
	add_one<<<(n + 255) / 256, 256>>>(x, n);
}
