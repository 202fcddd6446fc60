/* Darwin bitcode comes in the 0x0B17C0DE wrapper. */
int wfun(void) { return 1; }
