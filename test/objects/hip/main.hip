#include "nohip.h"
extern __device__ int scale;
__global__ void kern2(int *p) { *p = 2 * scale; }
int launch(int *p);
int main(void) { int x; return launch(&x); }
