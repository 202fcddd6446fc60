/* A program registering the descriptor `desc` of test/prune/omptable.sh
 * with the offload runtime, as the linker wrapper's constructor does. */
void __tgt_register_lib(void *desc);
extern char desc[];

__attribute__((constructor)) static void reg(void)
{
	__tgt_register_lib(desc);
}

int main(void)
{
	return 0;
}
