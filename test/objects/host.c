/* A host translation unit with the things object rewriting must keep:
 * data, bss, rodata strings, TLS, weak and common symbols, constructors. */
int A = 3;
static int counter;
__thread int tls_value = 7;
__attribute__((weak)) int weak_value = 1;
int common_value;
extern int undefined_value;
static const char greeting[] = "hello, device";

int test_func(int x) { return x + A + counter++ + tls_value; }
const char *str(void) { return greeting; }
int use_undefined(void) { return undefined_value + weak_value + common_value; }
__attribute__((constructor)) static void init(void) { counter = 1; }
