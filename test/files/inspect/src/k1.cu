__global__ void k(int *p) { *p = 1; }
void run2();
int main() { k<<<1, 1>>>(0); run2(); return 0; }
