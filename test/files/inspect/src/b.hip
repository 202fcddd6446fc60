#include "nohip.h"
__global__ void kb(int *p) { *p = 2; }
int launch_a(int *p);
int main(void) { int x; kb<<<dim3{1, 1, 1}, dim3{1, 1, 1}, 0, 0>>>(&x); return launch_a(&x); }
