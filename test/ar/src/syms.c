/* Host code: every kind of symbol, for the archive symbol table. */
int global_def = 1;
int common_var;
static int static_var = 2;
__attribute__((weak)) int weak_var = 3;
__attribute__((visibility("hidden"))) int hidden_var = 4;
extern int undef_var;
__thread int tls_var;
static int static_fn(void) { return static_var + undef_var; }
int defined_fn(void) { return static_fn() + tls_var; }
__attribute__((weak)) int weak_fn(void) { return 0; }
int alias_fn(void) __attribute__((alias("defined_fn")));
extern int undef_fn(void);
int calls(void) { return undef_fn(); }
__attribute__((used)) static int used_static = 7;
const char *str(void) { return "hello"; }
