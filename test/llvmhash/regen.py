#!/usr/bin/env python3
"""Regenerate golden.tsv: LLVM 22's own hash_value(StringRef), called in
libLLVM.so.22.1 through ctypes, for a fixed set of byte strings.

  <input as hex>\t<hash as 16 hex digits>

Lengths 0 to 139 all appear, then a few longer ones (every branch of the hash: 0, 1-3, 4-8, 9-16,
17-32, 33-64, whole and partial 64-byte blocks), bytes of every value,
plus the keys llvm-offload-binary sees most."""
import ctypes
import os
import random
import sys

LIB = os.environ.get("LIBLLVM", "/lib/x86_64-linux-gnu/libLLVM.so.22.1")


def main():
    llvm = ctypes.CDLL(LIB)
    hv = llvm._ZN4llvm10hash_valueENS_9StringRefE
    hv.restype = ctypes.c_uint64
    hv.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    rng = random.Random(22)
    inputs = [b"file", b"triple", b"arch", b"kind", b"", b"feature"]
    for n in list(range(140)) + [191, 192, 193, 255, 256, 300, 1000]:
        inputs.append(bytes(rng.randrange(256) for _ in range(n)))
    out = sys.stdout if len(sys.argv) < 2 else open(sys.argv[1], "w")
    for s in inputs:
        out.write("%s\t%016x\n" % (s.hex(), hv(s, len(s))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
