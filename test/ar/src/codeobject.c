/* A device code object (ET_DYN): default visibility keeps symbols global. */
#define API __attribute__((visibility("default")))
API int so_global = 1;
API __attribute__((weak)) int so_weak = 2;
static int so_static = 3;
int so_hidden = 4;
API int so_fn(void) { return so_static + so_hidden; }
