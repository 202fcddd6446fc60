/* The libomp and libomptarget entry points an OpenMP offload program
 * calls, as stubs, so one links without an OpenMP runtime. */
void __tgt_register_lib(void *p) { (void)p; }
void __tgt_unregister_lib(void *p) { (void)p; }
void __tgt_init_all_rtls(void) {}
