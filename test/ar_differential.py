#!/usr/bin/env python3
"""Differential test of formats/ar: random archives written by LLVM 22's
llvm-ar and by ours (build/test/ar_test write), then read by both.

  ar_differential.py [--cases N] [--seed S] [--llvm DIR] [--release 22|23]

--release 23 runs LLVM 23's llvm-ar and our ar_test in LLVM 23's root
(cases.Root).

Each case makes random members (random bytes of odd and even sizes, empty
files, bitcode and ELF objects from test/golden/ar, COFF objects (x86-64,
i386, ARM64, HIP object bundles) from test/golden/ar-coff, names of 1 to 40
characters, long ones, duplicates, paths with '/' in thin archives) and a
random mode: symbol table or not (S), thin (T), real dates and owners (U),
a small SYM64_THRESHOLD, GNU or COFF format (llvm-ar --format=coff,
ar_test -C).  The archives must be byte-identical; our listing
must equal `llvm-ar t` and our symbol table `llvm-nm --print-armap`.  One
case in five is a BSD, Darwin or COFF archive, which only LLVM writes and
both read.  Then the archive is damaged at random (a byte of a header
changed, the file cut short) and both read it: the same names, then the
same error (LLVM's raw bytes in it with control characters escaped, as
formats/ar quotes them; LLVM names a member whose data or BSD name runs
past the end before it fails, reading past the buffer for the name; we
fail at once).
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
TOOL = os.path.join(TOP, "build", "test", "ar_test")
# The root both run in when not the host's LLVM 22 (main: --release 23).
ROOT = None
ROOT_LIB = None
GOLDEN = os.path.join(TOP, "test", "golden", "ar")
OBJECTS = ["syms-host.bc", "syms-clang.o", "syms-gcc.o", "gpu-gfx90a.bc",
           "gpu-gfx90a.o", "gpu-gfx90a.so", "asm-host.bc", "nosym.bc",
           "nosym.o", "darwin.bc", "vtable.bc"]
COFF_GOLDEN = os.path.join(TOP, "test", "golden", "ar-coff")
COFF_OBJECTS = ["msvc.obj", "mingw.obj", "i386.obj", "arm64.obj", "dup.obj",
                "dup-nolib.obj", "kernel.obj", "main.obj", "kernel-mingw.obj"]
NAME_CHARS = "abcdefghijklmnopqrstuvwxyzABCXYZ0123456789._-+ ="


def random_name(rng):
    n = rng.choice([1, 2, 5, 14, 15, 16, 17, 20, 40, rng.randint(1, 40)])
    name = "".join(rng.choice(NAME_CHARS) for _ in range(n)).strip()
    # No leading '-' (an option) and nothing a shell or filesystem treats
    # specially.
    name = name.lstrip("-")
    return name if name not in ("", ".", "..") else "x"


def random_bytes(rng):
    n = rng.choice([0, 1, 2, 3, 59, 60, 61, 255, rng.randint(0, 3000)])
    return bytes(rng.randrange(256) for _ in range(n))


def run(cmd, cwd, env=None):
    if ROOT:
        cmd = [ROOT.chroot, ROOT.dir, "env", "LD_LIBRARY_PATH=" + ROOT_LIB] + \
            ["%s=%s" % kv for kv in (env or {}).items()] + \
            ["sh", "-c", 'cd "$0" && exec "$@"', ROOT.inner(cwd)] + cmd
        env = None
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=30,
                       env=dict(os.environ, **(env or {})))
    return p.returncode, p.stdout, p.stderr


def make_members(rng, d, thin):
    """Write the member files into d; returns their paths as given."""
    paths = []
    for _ in range(rng.randint(0, 8)):
        r = rng.random()
        if paths and r < 0.12:
            paths.append(rng.choice(paths))       # the same file again
            continue
        name = random_name(rng)
        sub = ""
        if thin and rng.random() < 0.4:
            sub = rng.choice(["a@/", "b@/c@/", "dir.with.dots@/"])
        elif not thin and paths and rng.random() < 0.15:
            # Another file with a name already used (from another dir).
            sub, name = "other@/", os.path.basename(rng.choice(paths))
        path = sub + name
        if os.path.isdir(os.path.join(d, path)):
            path += "_f"
        os.makedirs(os.path.join(d, os.path.dirname(path) or "."),
                    exist_ok=True)
        if r < 0.25:
            src = os.path.join(COFF_GOLDEN, rng.choice(COFF_OBJECTS))
            shutil.copyfile(src, os.path.join(d, path))
        elif r < 0.5:
            src = os.path.join(GOLDEN, rng.choice(OBJECTS))
            shutil.copyfile(src, os.path.join(d, path))
        else:
            with open(os.path.join(d, path), "wb") as f:
                f.write(random_bytes(rng))
        paths.append(path)
    return paths


def one_line(message):
    """LLVM's raw bytes as formats/ar quotes them: control characters
    escaped as write_escaped would, so the message stays one line."""
    out = bytearray()
    for c in message:
        if c == 9:
            out += b"\\t"
        elif c == 10:
            out += b"\\n"
        elif c < 0x20 or c == 0x7f:
            out += b"\\%03o" % c
        else:
            out.append(c)
    return bytes(out)


def error_of(stderr, llvm=False):
    """The message without "ar_test: FILE: " or "llvm-ar: error: " and
    "unable to load 'FILE': "."""
    if llvm:
        stderr = one_line(stderr.rstrip(b"\n"))
    line = stderr.decode(errors="replace").strip().split("\n")[-1]
    for prefix in ("ar_test: bad.a: ", "ar_test: ref.a: ",
                   "llvm-ar: error: "):
        if line.startswith(prefix):
            line = line[len(prefix):]
    if line.startswith("unable to load '"):
        line = line.split("': ", 1)[1]
    return line


def damage(rng, data):
    data = bytearray(data)
    if len(data) <= 8 or rng.random() < 0.3:
        return bytes(data[:rng.randint(0, len(data))])
    # A byte of some header: the name, the size, the terminator.
    heads = [i for i in range(8, len(data) - 60) if data[i + 58:i + 60] ==
             b"`\n"]
    at = rng.choice(heads) if heads else 8
    field = rng.choice([0, 1, 15, 48, 49, 57, 58, 59])
    if at + field < len(data):
        data[at + field] = rng.choice(b"0123456789/ #`\nx\0")
    return bytes(data)


def other_format(rng, llvm, d, log):
    """An archive only LLVM writes (BSD, Darwin, COFF): read by both."""
    fmt = rng.choice(["bsd", "darwin", "coff"])
    paths = make_members(rng, d, False)
    mods = rng.choice(["qcD", "qcSD"])
    log.append("llvm-ar %s --format=%s %s" % (mods, fmt, " ".join(
        repr(p) for p in paths)))
    rc, _, err = run([os.path.join(llvm, "llvm-ar"), mods, "--format=" + fmt,
                      "ref.a"] + paths, d)
    if rc:
        log.append("llvm-ar failed: %r" % err)
        return False
    ref = open(os.path.join(d, "ref.a"), "rb").read()
    return read_both(llvm, d, "ref.a", log, exact=True) and \
        damaged(rng, llvm, d, ref, log)


def both_refuse(err1, err2):
    """Random bytes can start as a COFF object does: LLVM and we then read
    its symbols and both refuse a damaged one (in our words)."""
    return bool(err1) and bool(err2)


def one_case(rng, llvm, d, log):
    if rng.random() < 0.2:
        return other_format(rng, llvm, d, log)
    thin = rng.random() < 0.25
    symtab = rng.random() < 0.7
    real = not symtab and rng.random() < 0.3
    env = {}
    if symtab and rng.random() < 0.25:
        env["SYM64_THRESHOLD"] = str(rng.choice([0, 1, 100, 1000, 5000]))
    paths = make_members(rng, d, thin)
    coff = not thin and rng.random() < 0.4
    mods = "qc" + ("" if symtab else "S") + ("U" if real else "D") + \
        ("T" if thin else "")
    flags = ([] if symtab else ["-S"]) + (["-U"] if real else []) + \
        (["-T"] if thin else []) + (["-C"] if coff else [])
    rc1, _, err1 = run([os.path.join(llvm, "llvm-ar"), mods,
                        "--format=" + ("coff" if coff else "gnu"),
                        "ref.a"] + paths, d, env)
    rc2, _, err2 = run([TOOL, "write"] + flags + ["ours.a"] + paths, d, env)
    log.append("llvm-ar %s%s %s%s" % (mods, " --format=coff" if coff else "",
                                      " ".join(repr(p) for p in paths),
                                    " " + str(env) if env else ""))
    if rc1 != 0 or rc2 != 0:
        log.append("rc %d %d: %s / %s" % (rc1, rc2, err1, err2))
        return both_refuse(err1, err2)
    ref = open(os.path.join(d, "ref.a"), "rb").read()
    ours = open(os.path.join(d, "ours.a"), "rb").read()
    if ref != ours:
        log.append("archives differ (%d and %d bytes)" % (len(ref),
                                                          len(ours)))
        return False
    return read_both(llvm, d, "ref.a", log, exact=True) and \
        damaged(rng, llvm, d, ref, log)


def read_both(llvm, d, name, log, exact):
    rc1, out1, err1 = run([os.path.join(llvm, "llvm-ar"), "t", name], d)
    err1 = err1.replace(os.path.join(llvm, "").encode(), b"")
    rc2, out2, err2 = run([TOOL, "t", name], d)
    if rc1 > 1 or rc1 < 0:
        log.append("(llvm-ar died: %d)" % rc1)
        return rc2 in (0, 1)
    if not exact and rc1 and rc2 and out1 != out2:
        # LLVM lists a member before finding its data past the end; we
        # refuse the member itself.
        lines = out1.split(b"\n")
        # (The member's BSD name may be what runs past the end: LLVM
        # reads it from beyond the buffer.)
        if lines[:-2] + [b""] == out2.split(b"\n") and \
                b"past the end of the archive after member" in err1 and (
                    b"past the end of the archive after member" in err2 or
                    b"extends past the end of the member or archive" in err2):
            out1, err1 = out2, err2
    if (rc1, out1) != (rc2, out2) or (rc1 and error_of(err1, True) !=
                                      error_of(err2)):
        log.append("t: llvm %d %r %r\n   ours %d %r %r" % (
            rc1, out1, err1, rc2, out2, err2))
        return False
    if rc1 or not exact:
        return True
    rc1, out1, _ = run([os.path.join(llvm, "llvm-nm"), "--print-armap",
                        name], d)
    rc2, out2, err2 = run([TOOL, "armap", name], d)
    want = out1.split(b"\n\n")[0] + b"\n" if out1.startswith(
        b"Archive map\n") else b""
    if rc2 or want != out2:
        log.append("armap: want %r\n   got %r %r" % (want, out2, err2))
        return False
    return True


def damaged(rng, llvm, d, data, log):
    for _ in range(3):
        bad = damage(rng, data)
        with open(os.path.join(d, "bad.a"), "wb") as f:
            f.write(bad)
        log.append("damaged: %d bytes" % len(bad))
        if not read_both(llvm, d, "bad.a", log, exact=False):
            with open(os.path.join(d, "bad.a"), "rb") as f:
                log.append("bytes: %r" % f.read()[:400])
            return False
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=100)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--llvm", default="/usr/lib/llvm-22/bin")
    ap.add_argument("--release", default="22")
    args = ap.parse_args()
    if args.release != "22":
        global ROOT, ROOT_LIB, TOOL
        sys.path.insert(0, HERE)
        import cases
        ROOT = cases.Root(args.release)
        why = ROOT.why_not()
        if why:
            required = os.environ.get("REQUIRE_LLVM") == "1"
            print("%s: ar_differential: %s" % ("FAIL" if required else "SKIP",
                                               why))
            print("0 passed, %d failed" % (1 if required else 0))
            return 1 if required else 0
        try:
            bindir = ROOT.stage(os.path.join(TOP, "build", "bin"))
            shutil.copy(TOOL, ROOT.dir + bindir)
            TOOL = bindir + "/ar_test"
            ROOT_LIB = ROOT.inner(os.path.join(ROOT.staged, "lib"))
            args.llvm = ROOT.llvm
            return differ(args)
        finally:
            ROOT.close()
    if not os.path.exists(os.path.join(args.llvm, "llvm-ar")):
        if os.environ.get("REQUIRE_LLVM") == "1":
            print("ar_differential: LLVM 22 not found in %s" % args.llvm)
            print("0 passed, 1 failed")
            return 1
        print("ar_differential: skipped, LLVM 22 not found in %s" % args.llvm)
        print("0 passed, 0 failed")
        return 0
    return differ(args)


def differ(args):
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    passed = failed = 0
    for n in range(args.cases):
        d = ROOT.mkdtemp("offload-ar-") if ROOT else \
            tempfile.mkdtemp(prefix="offload-ar-")
        log = []
        try:
            ok = one_case(rng, args.llvm, d, log)
        finally:
            shutil.rmtree(d, ignore_errors=True)
        if ok:
            passed += 1
            continue
        failed += 1
        print("FAIL (seed %d, case %d):\n    %s" % (seed, n,
                                                   "\n    ".join(log)))
    print("ar_differential: seed %d" % seed)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
