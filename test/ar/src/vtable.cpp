struct A { virtual int f(); };
int A::f() { return 1; }
int use(A *a) { return a->f(); }
