/* pointer.c: a constructor that prints the 8 bytes at the address the
 * word omp_ptr holds (shrink.test links it with an assembler file that
 * defines omp_ptr: a pointer into offload code that nothing registers,
 * which pruning must keep valid). */
#include <stdio.h>

extern const unsigned char *const omp_ptr;

__attribute__((constructor)) static void show(void)
{
	const unsigned char *p = omp_ptr;

	printf("at the pointer: %02x %02x %02x %02x %02x %02x %02x %02x\n",
	       p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]);
}
