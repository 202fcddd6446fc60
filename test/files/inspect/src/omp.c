/* OpenMP device code with no target region: links without a device
 * runtime library. */
#pragma omp declare target
int v = 1;
int twice(int x) { return 2 * x + v; }
#pragma omp end declare target
int main(void) { return twice(0) - 1; }
