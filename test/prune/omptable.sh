#!/bin/sh
# omptable.sh PKG [STRAY]: assembly (GNU as and clang both take it) whose
# .llvm.offloading holds the offload package PKG and whose global
# descriptor `desc` lists each image of it, as the OpenMP linker wrapper's
# __tgt_bin_desc lists images: a linked program with a package of several
# images, which no linker writes.  With STRAY, a word in the data also
# points at the package (so prune may not move it).  Needs offload on PATH.
n=0
printf '%s\n' '.section .llvm.offloading,"a",@0x6fff4c0b' '.p2align 3' \
	"pkg: .incbin \"$1\"" '.section .data.rel.ro,"aw",@progbits' '.p2align 3' \
	'images:'
for r in $(offload ls "$1" | sed -n 's/.*#offset=\([0-9]*\)&size=\([0-9]*\)$/\1:\2/p'); do
	echo ".quad pkg + ${r%:*}, pkg + ${r%:*} + ${r#*:}, ents, ents"
	n=$((n + 1))
done
printf '%s\n' '.globl desc' "desc: .long $n" '.long 0' '.quad images, ents, ents' \
	'ents: .quad 0'
[ -z "${2:-}" ] || echo 'stray: .quad pkg'
