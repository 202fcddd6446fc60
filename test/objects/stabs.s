# GNU as: .stab/.stabstr (a string table no symbol table points to), a
# note, a group with a local signature, and an over-aligned section.
	.stabs "host.c",100,0,0,0
	.stabs "int:t1=r1;-2147483648;2147483647;",128,0,0,0
	.section .note.test,"a",@note
	.long 4, 4, 1
	.asciz "abc"
	.long 0
	.section .text.grp,"axG",@progbits,local_sig,comdat
local_sig:
	ret
	.section .aligned,"aw",@progbits
	.balign 256
	.quad 1
	.text
	.globl main
main:
	ret
