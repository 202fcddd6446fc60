/* What a Windows OpenMP program links against in newllvm.test, which has
 * no MSVC or MinGW libraries: a stand-in libomp and libomptarget (empty
 * entry points) and an entry point.  The program is never run: what it
 * would register is read from the file (test/prune/petable.py). */
void __tgt_register_lib(void *desc) { (void)desc; }
void __tgt_unregister_lib(void *desc) { (void)desc; }
void __tgt_init_all_rtls(void) {}
int atexit(void (*f)(void)) { (void)f; return 0; }
void mainCRTStartup(void) {}
void __main(void) {}	/* MinGW's main calls it first */
