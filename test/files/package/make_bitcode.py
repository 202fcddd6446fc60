#!/usr/bin/env python3
"""Write LLVM bitcode modules that embed offload binaries the way clang
-fembed-offload-object does (a global in section .llvm.offloading named by
!llvm.embedded.objects), in every form LLVM 22's reader takes them, and a
few it dies on.  Each module is written as IR and assembled by LLVM 22's
llvm-as; the .bc files are committed (the IR is not: this script is its
source).  Run from this directory:

  python3 make_bitcode.py [LLVM_BIN]          (default /usr/lib/llvm-22/bin)
"""
import os
import struct
import subprocess
import sys
import tempfile

from offbin import v1

LLVM = sys.argv[1] if len(sys.argv) > 1 else "/usr/lib/llvm-22/bin"
HEAD = 'target triple = "x86_64-unknown-linux-gnu"\n'
GFX = v1([(b"triple", b"amdgcn-amd-amdhsa"), (b"arch", b"gfx90a")],
         b"AMDGPU image from bitcode\n", 1, 1)
SM = v1([(b"triple", b"nvptx64-nvidia-cuda"), (b"arch", b"sm_90")],
        b"PTX from bitcode", 5, 2)
TWO = GFX + SM


def i8(data):
    return "[%d x i8] c\"%s\"" % (len(data), "".join("\\%02X" % b
                                                    for b in data))


def words(data, size, fmt):
    data += b"\0" * (-len(data) % size)
    return struct.unpack("<%d%s" % (len(data) // size, fmt), data)


def i32(data):
    v = words(data, 4, "I")
    return "[%d x i32] [%s]" % (len(v), ", ".join("i32 %d" % x for x in v))


def double(data):
    v = words(data, 8, "Q")
    return "[%d x double] [%s]" % (len(v), ", ".join(
        "double 0x%016X" % x for x in v))


def half(data):
    v = words(data, 2, "H")
    return "[%d x half] [%s]" % (len(v), ", ".join("half 0xH%04X" % x
                                                  for x in v))


def vector(data):
    return "<%d x i8> <%s>" % (len(data), ", ".join(
        "i8 %d" % (b - 256 if b > 127 else b) for b in data))


def module(globals_, nodes):
    """IR: globals, then !llvm.embedded.objects = the nodes, in order."""
    ir = HEAD + "".join(g + "\n" for g in globals_)
    ir += "define void @f() {\n  ret void\n}\n"
    ir += "!llvm.embedded.objects = !{%s}\n" % ", ".join(
        "!%d" % i for i in range(len(nodes)))
    ir += "".join("!%d = !{%s}\n" % (i, n) for i, n in enumerate(nodes))
    return ir


OFF = '!".llvm.offloading"'
CASES = {
    # The usual: [N x i8], named twice (LLVM extracts it twice), among
    # nodes LLVM passes over: another section, a function, one operand, a
    # null global, a zero initializer, and an extra operand that does not
    # matter.
    "embed-i8": module(
        ["@a = private constant %s, section \".llvm.offloading\"" % i8(TWO),
         "@z = private constant [16 x i8] zeroinitializer",
         "@other = private constant %s" % i8(SM)],
        ["ptr @a, " + OFF, "ptr @other, !\".llvm.other\"",
         "ptr @f, " + OFF, "ptr @a", "null, " + OFF, "ptr @z, " + OFF,
         "ptr @other, %s, i32 7" % OFF, "ptr @a, " + OFF]),
    # Arrays of other element types: the bytes of their elements.
    "embed-i32": module(["@a = private constant %s" % i32(TWO)],
                        ["ptr @a, " + OFF]),
    "embed-double": module(["@a = private constant %s" % double(GFX)],
                           ["ptr @a, " + OFF]),
    "embed-half": module(["@a = private constant %s" % half(SM)],
                         ["ptr @a, " + OFF]),
    "embed-vector": module(["@a = private constant %s" % vector(TWO)],
                           ["ptr @a, " + OFF]),
    # Without a NUL but the last the array is written as CSTRING: not an
    # offload binary, which LLVM says.
    "embed-cstring": module(["@a = private constant %s" % i8(b"abcdefg\0")],
                            ["ptr @a, " + OFF]),
    # No !llvm.embedded.objects: nothing.
    "embed-none": HEAD + "@a = global i32 1\n",
    # No target triple: no IR symbol table either, which --archive's
    # symbol table needs here (LLVM reads the IR).
    "nosymtab": "define void @nots() {\n  ret void\n}\n",
    # LLVM 22 dies on these two: errors for us.
    "embed-decl": module(["@d = external global [4 x i8]"],
                         ["ptr @d, " + OFF]),
    "embed-null": module(["@a = private constant %s" % i8(GFX)],
                         ["ptr @a, null"]),
}


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for name, ir in CASES.items():
            ll = os.path.join(tmp, name + ".ll")
            with open(ll, "w") as f:
                f.write(ir)
            # A relative name: llvm-as records it in the module.
            subprocess.run([os.path.join(LLVM, "llvm-as"), name + ".ll",
                            "-o", os.path.abspath(name + ".bc")],
                           cwd=tmp, check=True)
        # Two modules in one file: LLVM reads a single one.
        subprocess.run([os.path.join(LLVM, "llvm-cat"), "-b", "embed-i8.bc",
                        "embed-i32.bc", "-o", "embed-two-modules.bc"],
                       check=True)


if __name__ == "__main__":
    main()
