__asm__(".globl asm_sym\nasm_sym:\n.globl asm_sym2\n.set asm_sym2, 0\n");
int f(void){return 0;}
