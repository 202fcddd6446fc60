#include "nohip.h"
__device__ int scale = 3;
__global__ void kern(int *p) { *p = scale; }
int launch(int *p) { kern<<<dim3{1, 1, 1}, dim3{1, 1, 1}, 0, 0>>>(p); return 0; }
