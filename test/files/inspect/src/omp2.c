#pragma omp declare target
int w = 2;
int thrice(int x) { return 3 * x + w; }
#pragma omp end declare target
