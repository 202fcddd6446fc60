#include "nohip.h"
__global__ void kl(int *p) { *p = 3; }
extern "C" int launch_l(int *p) { kl<<<dim3{1, 1, 1}, dim3{1, 1, 1}, 0, 0>>>(p); return 0; }
