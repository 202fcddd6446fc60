#!/usr/bin/env python3
"""Write the fuzz targets' seed corpora (test/fuzz/corpus/<name>/), small
inputs that reach each parser's main paths.  Run from anywhere after `make`:
the bundles and CCOBs are made by our own build/bin tools (their formats are
checked against LLVM 22 by the other suites).  The files are committed;
inputs a fuzzing run finds go to build/fuzz/new/, and are added here by hand
when worth keeping: the files named by a SHA-1 are such inputs, the new
coverage of a first run (`build/fuzz/<name> -merge=1 DIR corpus new`), and
this script leaves them alone."""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
BIN = os.path.join(TOP, "build", "bin")
BAD = os.path.join(TOP, "test", "files", "bad")
MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
HOST = "host-x86_64-unknown-linux-gnu"
HIP = ["hip-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn-amd-amdhsa--gfx1100:xnack-",
       "openmp-nvptx64-nvidia-cuda--sm_90"]


def write(name, target, data):
    d = os.path.join(HERE, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def run(*args):
    subprocess.run(args, check=True)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def bundle(tmp, kind, inputs, targets, extra=()):
    out = os.path.join(tmp, "out." + kind)
    run(os.path.join(BIN, "clang-offload-bundler"), "-type=" + kind,
        "-targets=" + ",".join(targets), *["-input=" + i for i in inputs],
        "-output=" + out, *extra)
    return read(out)


def main():
    tmp = tempfile.mkdtemp()
    try:
        files = []
        for i, text in enumerate([b"host code\n", b"device one\n", b"", b"dev 3"]):
            files.append(os.path.join(tmp, "in%d" % i))
            with open(files[-1], "wb") as f:
                f.write(text)
        targets = [HOST + "-"] + HIP

        # bundle_binary: bundles we write, LLVM's damaged cases, oddities.
        write("two.bc", "bundle_binary", bundle(tmp, "bc", files[:2], targets[:2]))
        good = bundle(tmp, "bc", files, targets)
        write("four.bc", "bundle_binary", good)
        write("aligned.bc", "bundle_binary",
              bundle(tmp, "bc", files[:2], targets[:2], ["-bundle-align=64"]))
        write("empty.bc", "bundle_binary", MAGIC + struct.pack("<Q", 0))
        ent = lambda off, size, ident: struct.pack("<QQQ", off, size, len(ident)) + ident
        head = 32 + 2 * (24 + 4)
        write("same-id-twice.bc", "bundle_binary",
              MAGIC + struct.pack("<Q", 2) + ent(head, 2, b"a-b-") + ent(head + 2, 2, b"a-b-") + b"xxyy")
        for f in sorted(os.listdir(BAD)):
            if f.endswith(".bc"):
                write(f, "bundle_binary", read(os.path.join(BAD, f)))

        # bundle_text: one byte (comment: 0 "//", 1 "#", 2 ";"; +4 lists)
        # then a text bundle.
        for kind, style in (("hipi", 0), ("s", 1), ("ll", 2)):
            b = bundle(tmp, kind, files, targets)
            write(kind, "bundle_text", bytes([style]) + b)
            write(kind + "-list", "bundle_text", bytes([style | 4]) + b)
        write("missing-end.ll", "bundle_text", b"\2" + read(os.path.join(BAD, "missing-end.ll")))
        write("list-loops.hipi", "bundle_text",
              b"\4" + read(os.path.join(BAD, "list-loops-in-llvm.hipi"))[:4000])

        # ccob: CCOBs of each version and method, a concatenation, damage.
        ccobs = {}
        src = os.path.join(tmp, "four.bc")
        with open(src, "wb") as f:
            f.write(good)
        for name, args in (("v3-zstd", ["-3"]), ("v2-zstd", ["--format-version=2"]),
                           ("v1-zlib", ["--method=zlib", "--format-version=1"]),
                           ("v3-zlib", ["--method=zlib", "-9"])):
            out = subprocess.run([os.path.join(BIN, "offload"), "ccob", "-c", *args, src],
                                 check=True, stdout=subprocess.PIPE).stdout
            ccobs[name] = out
            write(name + ".ccob", "ccob", out)
        write("three.ccob", "ccob", ccobs["v3-zstd"] + ccobs["v2-zstd"] + ccobs["v1-zlib"])
        write("cut.ccob", "ccob", ccobs["v3-zstd"][:60])
        write("bomb.ccob", "ccob", b"CCOB" + struct.pack("<HHQQQ", 3, 1, 40, 1 << 40, 0) + b"\0" * 8)
        write("header-only.ccob", "ccob", b"CCOB" + struct.pack("<HHQQQ", 3, 0, 32, 0, 0))
        write("bad-method.ccob", "ccob", b"CCOB" + struct.pack("<HHQQQ", 3, 7, 32, 0, 0))

        # ccob_roundtrip: one byte (method, whole, version, level) then data.
        for first in (0x00, 0x01, 0x02, 0x03, 0x05, 0x0a, 0x37, 0xf6):
            write("%02x" % first, "ccob_roundtrip", bytes([first]) + good)
        write("empty-zstd", "ccob_roundtrip", b"\3")
        write("empty-zlib", "ccob_roundtrip", b"\2")

        # triple: a sample of the golden triples, and pairs.
        with open(os.path.join(TOP, "test", "triple", "golden.tsv")) as f:
            triples = [line.split("\t")[0] for line in f]
        for i, t in enumerate(triples[::40]):
            write("%02d" % i, "triple", t.encode())
        for i, pair in enumerate(["thumbv7-apple-ios\narmv7-apple-ios",
                                  "x86_64-w64-windows-gnu\nx86_64-pc-windows-gnu",
                                  "amdgcn-amd-amdhsa\namdgcn-amd-amdhsa-",
                                  "dxil-unknown-shadermodel6.15-library",
                                  "armv7-unknown-linux-androideabi29"]):
            write("pair%d" % i, "triple", pair.encode())

        # targetid: one byte (the requests' triple) then IDs, one a line.
        for i, ids in enumerate(["gfx90a\ngfx90a:xnack+\ngfx90a:xnack-",
                                 "gfx906:sramecc+:xnack-\ngfx906:xnack+\ngfx908",
                                 "gfx906:,gfx90a\ngfx906:+\ngfx906",
                                 "sm_90\nsm_90a\ngfx1100",
                                 "gfx942:xnack+:xnack-\ngfx942:sramecc-",
                                 "gfx9-4-generic:sramecc+:xnack-\ngfx9-4-generic",
                                 "tahiti\n:xnack+\n"]):
            write("ids%d" % i, "targetid", bytes([i % 4]) + ids.encode())

        # target: bundle entry IDs, one a line.
        for i, ids in enumerate(["\n".join(targets),
                                 "hip-amdgcn-amd-amdhsa-gfx906\nhipv4-amdgcn-amd-amdhsa--gfx906:xnack+",
                                 "openmp-x86_64-pc-linux-gnu-\nhost-x86_64-unknown-linux-gnu-foo-bar",
                                 "hip-amdgcn-amd-amdhsa--gfx90a\0x\nhip--\nbad",
                                 "sycl-spir64-unknown-unknown-\nhip-dxil-unknown-shadermodel6.15-"]):
            write("ids%d" % i, "target", ids.encode())

        # prune: what the fatbin target walks, an object bundle and an
        # archive of HIP objects (the committed fixtures of
        # test/files/inspect, made by its make.sh).
        for name in ("one-ccob.bin", "two-bundles.bin", "two-ccobs.bin"):
            write(name, "prune", read(os.path.join(HERE, "fatbin", name)))
        inspect = os.path.join(TOP, "test", "files", "inspect")
        # app, ompbig: linked programs whose freed pages are cut out.
        for name in ("rdc.o", "lib.a", "pkg.bin", "omp.o", "cu-rdc.o", "app",
                     "ompbig"):
            write(name, "prune", read(os.path.join(inspect, name)))
        # app-always-shrink: the same, e_ident[15] odd asks the target for
        # --always-shrink (the table in freed bytes).
        app = bytearray(read(os.path.join(inspect, "app")))
        app[15] = 1
        write("app-always-shrink", "prune", bytes(app))
        ex = os.path.join(TOP, "examples", "vector_add")
        write("text.ll", "prune", bundle(
            tmp, "ll", [os.path.join(ex, f + ".ll")
                        for f in ("host", "gfx90a", "gfx1100")],
            [HOST, "hip-amdgcn-amd-amdhsa--gfx90a",
             "hip-amdgcn-amd-amdhsa--gfx1100"]))
        write("variants.fatbin", "prune",
              read(os.path.join(TOP, "test", "files", "nv", "variants.fatbin")))
        coffcopy_seeds(tmp)
        kpack_seeds()
        kpack_write_seeds()
    finally:
        shutil.rmtree(tmp)


def coffcopy_seeds(tmp):
    """coffcopy: COFF objects clang-22 makes (x86-64 and ARM64, comdats,
    CodeView, DWARF, control-flow-guard tables, a MinGW .file record), and
    one with bundle sections; kept as they are when clang-22 is missing."""
    src = os.path.join(tmp, "c.cpp")
    with open(src, "w") as f:
        f.write("template <class T> T twice(T x) { return x * 2; }\n"
                "inline int inl(int x) { static int n; return n += x; }\n"
                "extern \"C\" void weak(void) __attribute__((weak));\n"
                "static int f1(int x) { return x + 1; }\n"
                "typedef int (*fp)(int);\n"
                "fp pick(int i) { return i ? f1 : twice<int>; }\n"
                "int use() { if (weak) weak(); return twice(3) + inl(4); }\n")
    clang = shutil.which("clang-22")
    if not clang:
        return
    for name, flags in [
            ("msvc.obj", ["--target=x86_64-pc-windows-msvc", "-g"]),
            ("arm64.obj", ["--target=aarch64-pc-windows-msvc", "-O1"]),
            ("cfguard.obj", ["--target=x86_64-pc-windows-msvc", "-O1",
                             "-Xclang", "-cfguard"]),
            ("mingw-dwarf.obj", ["--target=x86_64-w64-windows-gnu", "-g",
                                 "-ffunction-sections"])]:
        out = os.path.join(tmp, name)
        # No time stamp, no temporary directory in the debug information:
        # the seeds are the same on every run.
        subprocess.run([clang, *flags, "-mno-incremental-linker-compatible",
                        "-fdebug-compilation-dir=.",
                        "-fcoverage-compilation-dir=.",
                        "-c", "c.cpp", "-o", name], cwd=tmp, check=True)
        write(name, "coffcopy", read(out))
    host = os.path.join(tmp, "msvc.obj")
    dev = os.path.join(tmp, "in1")
    write("bundled.obj", "coffcopy",
          bundle(tmp, "o", [host, dev],
                 ["host-x86_64-pc-windows-msvc", HIP[0]]))
    # coff and inspect: a DLL with a CCOB in .hip_fat (lld-link, stubs for
    # the HIP runtime's entry points).
    hip = os.path.join(tmp, "k.hip")
    with open(hip, "w") as f:
        f.write("#define __global__ __attribute__((global))\n"
                "typedef struct { unsigned x, y, z; } dim3;\n"
                "typedef __SIZE_TYPE__ size_t;\n"
                "extern \"C\" int hipLaunchKernel(const void *, dim3, dim3,"
                " void **, size_t, void *) { return 0; }\n"
                "extern \"C\" int __hipPushCallConfiguration(dim3, dim3, size_t,"
                " void *) { return 0; }\n"
                "extern \"C\" int __hipPopCallConfiguration(dim3 *, dim3 *,"
                " size_t *, void **) { return 0; }\n"
                "__global__ void kern(int *p) { *p = 3; }\n"
                "extern \"C\" void **__hipRegisterFatBinary(void *) { return 0; }\n"
                "extern \"C\" void __hipRegisterFunction(void **, const void *, char *,"
                " const char *, int, void *, void *, void *, void *, int *) {}\n"
                "extern \"C\" void __hipUnregisterFatBinary(void *) {}\n"
                "extern \"C\" int atexit(void (*)(void)) { return 0; }\n")
    dll = os.path.join(tmp, "k.dll")
    subprocess.run([clang, "--target=x86_64-pc-windows-msvc", "-x", "hip",
        "--offload-arch=gfx90a", "-nogpulib", "-nogpuinc",
        "--no-offload-new-driver", "--offload-compress",
        "-mno-incremental-linker-compatible", "-no-hip-rt", "-fuse-ld=lld",
        "-nostdlib",
        "-shared", "-Wl,-noentry", "-Wl,/Brepro", "-cuid=k", "k.hip",
        "-o", "k.dll"], cwd=tmp, check=True)
    write("pe-ccob.dll", "coff", read(dll))
    write("pe-ccob.dll", "inspect", read(dll))


def mp(obj):
    """A little MessagePack writer (maps, arrays, strings, unsigned
    integers), so the seeds need no module beyond Python's own."""
    if isinstance(obj, dict):
        out = bytes([0x80 | len(obj)]) if len(obj) < 16 else b"\xde" + struct.pack(">H", len(obj))
        for k, v in obj.items():
            out += mp(k) + mp(v)
        return out
    if isinstance(obj, list):
        return (bytes([0x90 | len(obj)]) if len(obj) < 16 else
                b"\xdc" + struct.pack(">H", len(obj))) + b"".join(mp(v) for v in obj)
    if isinstance(obj, str):
        b = obj.encode()
        return (bytes([0xa0 | len(b)]) if len(b) < 32 else b"\xd9" + bytes([len(b)])) + b
    if obj is None:
        return b"\xc0"
    if obj < 128:
        return bytes([obj])
    return b"\xcf" + struct.pack(">Q", obj)


def kpack(toc, blob):
    """An archive: header, blob at 64, TOC after it."""
    body = blob + b""
    return b"KPAK" + struct.pack("<IQ", 1, 64 + len(body)) + b"\0" * 48 + body + mp(toc)


def kpack_write_seeds():
    """kpack_write: one byte (scheme, level, targets, metadata), then
    kernels cut at each 0xff, each one's first byte its key and target."""
    code = bytes(range(0, 255)) * 3
    kernels = [bytes([i]) + code[i:i + 40 + 37 * i] for i in range(12)]
    for first in (0x00, 0x10, 0x13, 0x15, 0x85, 0xa0, 0xa1):
        write("%02x" % first, "kpack_write",
              bytes([first]) + b"\xff".join(kernels))
    write("empty", "kpack_write", b"\0")
    write("twice", "kpack_write", b"\0\0ab\xff\0cd")


def kpack_seeds():
    """kpack: the committed fixtures (made by AMD's splitter, see
    test/files/kpack/make.sh), an archive of each scheme made here, damage,
    and a .rocm_kpack_ref map."""
    fix = os.path.join(TOP, "test", "files", "kpack")
    write("gfx1100.kpack", "kpack", read(os.path.join(fix, "split", ".kpack", "t_gfx1100.kpack")))
    write("zstd.kpack", "kpack", read(os.path.join(fix, "zstd.kpack")))
    code = b"\x7fELF" + b"\0" * 60
    entry = lambda o, n: {"type": "hsaco", "ordinal": o, "original_size": n}
    none = {"compression_scheme": "none", "gfx_arches": ["gfx90a"],
            "blobs": [{"offset": 64, "size": len(code)}],
            "toc": {"a#0": {"gfx90a": entry(0, len(code))}}}
    write("none.kpack", "kpack", kpack(none, code))
    # zstd-per-kernel: one frame, a raw (uncompressed) block of the code.
    frame = (b"\x28\xb5\x2f\xfd" + b"\x20" + bytes([len(code)]) +
             struct.pack("<I", (len(code) << 3) | 1)[:3] + code)
    blob = struct.pack("<II", 1, len(frame)) + frame
    zs = {"compression_scheme": "zstd-per-kernel", "gfx_arches": ["gfx90a"],
          "zstd_offset": 64, "zstd_size": len(blob),
          "toc": {"a#0": {"gfx90a": entry(0, len(code))}}}
    write("one-frame.kpack", "kpack", kpack(zs, blob))
    zs_bomb = dict(zs, toc={"a#0": {"gfx90a": entry(0, 1 << 40)}})
    write("bomb.kpack", "kpack", kpack(zs_bomb, blob))
    many = struct.pack("<I", 0xFFFFFFFF) + blob[4:]
    write("count.kpack", "kpack", kpack(zs, many))
    write("ordinal.kpack", "kpack", kpack(dict(none, toc={"a#0": {"gfx90a": entry(5, 1)}}), code))
    write("past-end.kpack", "kpack", kpack(dict(none, blobs=[{"offset": 64, "size": 1 << 40}]), code))
    write("cut.kpack", "kpack", kpack(none, code)[:100])
    write("ref.bin", "kpack", mp({"kernel_name": "bin/app",
                                  "kpack_search_paths": ["../.kpack/t_@GFXARCH@.kpack"]}) + b"\0" * 5)
    # Hostile archives (issue 34): the damaged fixtures of kpack.test
    # (entries sharing a frame, overlapping blobs, blobs in the header or
    # the TOC, NUL in a key or a target, too many gfx_arches...), a TOC of
    # junk to step over, and a .rocm_kpack_ref with a NUL.
    for f in ("shared-frame", "overlap", "blob-in-header", "blob-in-toc",
              "nul-key", "nul-target", "arches"):
        write(f + ".kpack", "kpack", read(os.path.join(BAD, "kpack-" + f + ".kpack")))
    junk = dict(none, junk=[None] * 3000, more=[[{"a": [None] * 3}] * 3] * 3)
    write("junk.kpack", "kpack", kpack(junk, code))
    write("ref-nul.bin", "kpack", mp({"kernel_name": "bin/a\0pp",
                                      "kpack_search_paths": ["x"]}))


if __name__ == "__main__":
    sys.exit(main())
