/* No global symbols at all. */
static int x;
int *p(void);
