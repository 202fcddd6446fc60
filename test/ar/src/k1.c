int kfun1(int x) { return x + 1; }
int kvar1 = 3;
static int hidden1(void) { return 2; }
