#include "nohip.h"
__global__ void ka(int *p) { *p = 1; }
int launch_a(int *p) { ka<<<dim3{1, 1, 1}, dim3{1, 1, 1}, 0, 0>>>(p); return 0; }
