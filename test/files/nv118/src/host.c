/* host.c: an archive member without device code. */
int host_only(int x) { return x + 1; }
