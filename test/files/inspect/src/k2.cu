__global__ void k2(int *p) { *p = 2; }
void run2() { k2<<<1, 1>>>(0); }
