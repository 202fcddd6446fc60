/* A second definition of global_def (a COFF archive lists it once, for
 * the first member) and a name of exactly eight bytes (no NUL in the
 * symbol record). */
int global_def = 5;
int eight_ch = 8;
int dup_only(void) { return global_def; }
/* An undefined weak reference: a weak external that does not search its
 * alias, which the table leaves out. */
extern void maybe(void) __attribute__((weak));
void call_maybe(void) { if (maybe) maybe(); }
