# Bundle sections placed before other sections, as a hand-made object can
# have them: unbundling the host removes them, so every later section index
# shifts (symbols, relocations, groups and links are renumbered).
	.section __CLANG_OFFLOAD_BUNDLE__host-x86_64-unknown-linux-gnu-,"e",@progbits
	.byte 0
	.section __CLANG_OFFLOAD_BUNDLE__hip-amdgcn-amd-amdhsa--gfx90a,"e",@progbits
	.ascii "device code in the middle"
	.section __CLANG_OFFLOAD_BUNDLE__hip-amdgcn-amd-amdhsa--gfx1100,"e",@nobits
	.zero 16
	.section .text.grp,"axG",@progbits,grp_sig,comdat
	.globl grp_sig
grp_sig:
	call helper
	ret
	.text
	.globl helper
helper:
	movq data_ptr(%rip), %rax
	ret
	.data
data_ptr:
	.quad helper
	.section __CLANG_OFFLOAD_BUNDLE__openmp-x86_64-pc-linux-gnu,"e",@progbits
	.ascii "late"
	.section .rodata,"a"
	.asciz "after the bundles"
