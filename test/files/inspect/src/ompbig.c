/* OpenMP device code with a table of TABLE ints (8 << (n - 1) of them for An):
 * images large enough that pruning frees whole pages. */
#define A1 1, 2, 3, 4, 5, 6, 7, 8
#define A2 A1, A1
#define A3 A2, A2
#define A4 A3, A3
#define A5 A4, A4
#define A6 A5, A5
#define A7 A6, A6
#define A8 A7, A7
#define A9 A8, A8
#define A10 A9, A9
#define A11 A10, A10
#define A12 A11, A11
#define A13 A12, A12
#define A14 A13, A13
#ifndef TABLE
#define TABLE A11	/* 32 KiB */
#endif
#pragma omp declare target
int table[] = { TABLE };
int lookup(int i) { return table[i]; }
#pragma omp end declare target
int main(void) { return lookup(0) - 1; }
