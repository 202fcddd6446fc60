extern int kfun1(int);
int kfun2(int x) { return kfun1(x) * 2; }
__attribute__((weak)) int kweak2 = 9;
