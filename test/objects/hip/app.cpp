// A host main for a program whose only HIP code is kernel.hip.
int launch(int *p);
int main(void) { int x; return launch(&x); }
