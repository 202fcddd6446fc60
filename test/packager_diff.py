#!/usr/bin/env python3
"""Differential test: random llvm-offload-binary command lines run by LLVM 22
(or 23, or 24) and by us.

  packager_diff.py [--cases N] [--seed S] [--llvm DIR] [--ours DIR]
                   [--release 22|23|24]

--release 23 (24) runs both tools in LLVM 23's (24's) root (cases.Root;
ours in that mode) and clang-23 (24) compiles the archive cases' objects.
With 24 the packages are sometimes compressed (--compress, a format, a
level), within what gives the same bytes whatever libzstd each tool links
(zstd levels up to 15) and what LLVM 24 writes readably (zlib up to 9).

Each case makes random image files (names with every extension, contents
with and without the bitcode magic), packages them three times with random
--image lists (repeated, empty and long keys, many keys, several files per image,
every offload kind), sometimes damages the package (cut short, or junk
after it), and extracts from it with random filters, to generated names or
to file=, from the file or from stdin.  Both tools must give the same exit
status, stdout, stderr and files.  Where LLVM dies by a signal we must fail
cleanly instead: exit 1, one "error:" line.

Then archives: real OpenMP objects compiled once by clang-22 (two sources,
a -flto one, a COFF one, an `ld -r` merge of the first two), copied under random
names (short, 16 characters and longer), and packages from random --image
lists, put into archives by llvm-ar (in random order, some twice, some
thin, some inside another archive) and extracted with random filters, to
generated names, to file=, and with --archive: the same messages, status
and files, archives byte for byte.

Then every file of the damaged corpus (test/files/bad/package-*) goes to
both: where LLVM 22 rejects a version-1 binary itself we must print the
same; where it crashes, reads on, or fails otherwise (its ELF parser's
messages, versions it cannot read), we must stop with one error line
naming the file, and write nothing.
"""
import argparse
import difflib
import glob
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "files", "package"))
import offbin  # noqa: E402
from differential import crashed  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = "llvm-offload-binary"
# The release both tools follow, and its root when not the host's (main).
RELEASE = "22"
ROOT = None
EXTS = ["o", "bc", "cubin", "fatbin", "s", "spv", "ptx", "O", "", None,
        "o.bc", "a"]
KINDS = ["openmp", "cuda", "hip", "sycl", "", "OpenMP", "hipv4", "none"]
TRIPLES = ["amdgcn-amd-amdhsa", "nvptx64-nvidia-cuda", "spirv64-intel",
           "x86_64-unknown-linux-gnu", "", "amdgcn-amd-amdhsa-gnu"]
ARCHS = ["gfx90a", "gfx942", "sm_90", "sm_70", "", "gfx90a:xnack+",
         "generic"]
WORD = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:+-"


def word(rng, lo=1, hi=12):
    n = rng.choice([0, rng.randint(lo, hi), rng.randint(lo, hi),
                    rng.randint(60, 200)] if lo == 0 else
                   [rng.randint(lo, hi), rng.randint(lo, hi),
                    rng.randint(60, 130)])
    return "".join(rng.choice(WORD) for _ in range(n))


def content(rng):
    n = rng.choice([0, 1, 3, 8, 17, 100, 1000, 5000])
    data = bytes(rng.randrange(256) for _ in range(n))
    r = rng.random()
    if r < 0.2:
        return b"BC\xc0\xde" + data
    if r < 0.25:
        return b"\xde\xc0\x17\x0b" + data
    return data


def make_files(rng):
    files = {}
    for i in range(rng.randint(1, 5)):
        ext = rng.choice(EXTS)
        name = "img%d" % i + ("" if ext is None else "." + ext)
        files[name] = content(rng)
    return files


def pair(key, value):
    return key if value is None else "%s=%s" % (key, value)


def random_image(rng, names):
    """The tokens of one --image value for packaging."""
    toks = []
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        # Now and then "file" without '=': LLVM 22 packages no image.
        toks.append(pair("file", None if rng.random() < 0.05
                         else rng.choice(names)))
    if rng.random() < 0.85:
        toks.append(pair("triple", rng.choice(TRIPLES)))
    if rng.random() < 0.8:
        toks.append(pair("arch", rng.choice(ARCHS)))
    if rng.random() < 0.8:
        toks.append(pair("kind", rng.choice(KINDS)))
    r = rng.random()
    extra = (rng.randint(40, 110) if r < 0.08 else
             rng.randint(1, 8) if r < 0.6 else 0)
    for _ in range(extra):
        toks.append(pair(word(rng, 0, 12), rng.choice(
            [None, "", word(rng, 1, 10), "a=b", word(rng, 0, 70)])))
    for _ in range(rng.choice([0, 0, 0, 1, 2])):
        t = rng.choice(toks)
        k = t.split("=", 1)[0]
        if k != "file":
            toks.append(pair(k, word(rng, 0, 6)))
    if rng.random() < 0.1:
        toks.append("")
    if RELEASE != "22":
        # LLVM 23 keeps a repeated key's joined value in memory it frees
        # before writing the package, and writes what is there then.
        seen, unique = set(), []
        for t in toks:
            k = t.split("=", 1)[0]
            if k == "file" or k not in seen:
                unique.append(t)
                seen.add(k)
        toks = unique
    rng.shuffle(toks)
    if not any(t == "file" or t.startswith("file=") for t in toks) and \
            rng.random() < 0.95:
        toks.insert(0, pair("file", rng.choice(names)))
    return ",".join(toks)


def compression(rng):
    """LLVM 24's compression options, now and then (nothing before 24)."""
    if RELEASE in ("22", "23") or rng.random() < 0.5:
        return ""
    fmt = rng.choice([None, "zstd", "zlib"])
    opts = ["--compress"] if rng.random() < 0.8 else []
    if fmt:
        opts.append("--compression-format=" + fmt)
    if rng.random() < 0.5:
        opts.append("--compression-level=%d" % (
            rng.randint(1, 9) if fmt == "zlib" else rng.randint(1, 15)))
    rng.shuffle(opts)
    return " " + " ".join(opts)


def random_filter(rng, images, n):
    """One --image value for extraction, biased towards matching."""
    toks = []
    pool = [t for img in images for t in img.split(",")
            if t and not t.startswith("file")]
    for _ in range(rng.choice([0, 1, 1, 2, 3])):
        if pool and rng.random() < 0.7:
            toks.append(rng.choice(pool))
        else:
            toks.append(pair(rng.choice(["triple", "arch", "kind", "x"]),
                             rng.choice(["", "gfx90a", "cuda", "sycl"])))
    r = rng.random()
    if r < 0.3:
        toks.append("file=out%d%s" % (n, rng.choice(["", ".o", ",file=b"])))
    elif r < 0.35:
        toks.append("file=-")
    rng.shuffle(toks)
    return ",".join(toks)


def make_case(rng):
    """Three packages from random --image lists, then extractions from
    them: most of the cost is starting LLVM, so each case does a lot."""
    files = make_files(rng)
    names = sorted(files)
    cmds, lists = [], []
    for p in range(3):
        images = [random_image(rng, names) for _ in range(rng.randint(0, 5))]
        lists.append(images)
        tool = TOOL if rng.random() < 0.9 else "clang-offload-packager"
        out = "-" if rng.random() < 0.1 else "p%d.bin" % p
        cmds.append("%s -o %s %s%s%s" % (tool, out, " ".join(
            shlex.quote("--image=" + i) for i in images),
            compression(rng), " > p%d.bin" % p if out == "-" else ""))
    if rng.random() < 0.15:
        cmds.append(rng.choice(["head -c %d p0.bin > p" % rng.randint(0, 400),
                                "head -c -%d p0.bin > p" % rng.randint(1, 60),
                                "cat p0.bin p1.bin > p",
                                "cat p0.bin p1.bin junk > p"]) +
                    " && mv p p0.bin")
    for n in range(2):
        p = rng.randrange(3)
        filters = [random_filter(rng, lists[p], n * 10 + k)
                   for k in range(rng.randint(0, 3))]
        src = "p%d.bin" % p if rng.random() < 0.85 else "- < p%d.bin" % p
        cmds.append("mkdir -p x%d && cd x%d && %s ../%s %s; echo \"rc:$?\"; "
                    "cd .." % (n, n, TOOL, src, " ".join(
                        shlex.quote("--image=" + f) for f in filters)))
    script = "\n".join(c if "rc:" in c else c + '; echo "rc:$?"'
                       for c in cmds)
    # Outputs in the x<n> directories count too.
    script += "\nfor d in x*; do [ -d \"$d\" ] && for f in $(ls -A \"$d\"); " \
              "do mv \"$d/$f\" \"$d.$f\"; done; done; rmdir x* 2>/dev/null; true"
    return files, script


SOURCES = {
    "om.c": "int main(void){int x=0;\n#pragma omp target map(tofrom:x)\n"
            "x=42;\nreturn x!=42;}\n",
    "om2.c": "int f(int*p,int n){\n#pragma omp target teams distribute "
             "parallel for map(tofrom:p[0:n])\nfor(int i=0;i<n;i++)p[i]*=2;"
             "\nreturn 0;}\n",
}
OBJECT_FILTERS = ["triple=amdgcn-amd-amdhsa", "triple=nvptx64-nvidia-cuda",
                  "arch=gfx90a", "arch=sm_90", "kind=openmp", "kind=cuda",
                  "arch=", "triple="]


BAD_BITCODE = re.compile(r"(?m)^(warning: '[^']*': ).*$")


def compile_objects(llvm):
    """The OpenMP objects every archive case draws from, or None when
    clang or ld is missing."""
    clang = os.path.join(llvm, "clang")
    host = ROOT.dir if ROOT else ""
    if not os.path.exists(host + clang) or not (
            os.path.exists(host + "/usr/bin/ld") if ROOT else shutil.which("ld")):
        return None
    d = ROOT.mkdtemp("offload-pdiff-objs-") if ROOT else \
        tempfile.mkdtemp(prefix="offload-pdiff-objs-")
    try:
        for name, text in SOURCES.items():
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        # (LLVM 23's root has no CUDA ptxas: AMD targets only there.)
        omp = [clang, "-fopenmp", "--offload-arch=gfx90a," +
               ("sm_90" if not ROOT else "gfx942"), "-nogpulib", "-c"]
        for cmd in (omp + ["om.c", "-o", "om.o"], omp + ["om2.c", "-o", "om2.o"],
                    omp + ["-flto", "om2.c", "-o", "lto.o"],
                    omp + ["--target=x86_64-pc-windows-msvc",
                           "-ffreestanding", "om2.c", "-o", "coff.obj"],
                    ["ld", "-r", "om.o", "om2.o", "-o", "merged.o"]):
            if ROOT:
                cmd = [ROOT.chroot, ROOT.dir, "sh", "-c",
                       'cd "$0" && exec "$@"', ROOT.inner(d)] + cmd
            subprocess.run(cmd, cwd=d, check=True, capture_output=True)
        objs = {}
        for name in ("om.o", "om2.o", "lto.o", "coff.obj", "merged.o"):
            with open(os.path.join(d, name), "rb") as f:
                objs[name] = f.read()
        return objs
    except (OSError, subprocess.CalledProcessError):
        return None
    finally:
        shutil.rmtree(d, ignore_errors=True)


def member_name(rng, base):
    stem, ext = base.rsplit(".", 1)
    return rng.choice([base, stem + "_member_name." + ext,
                       "a_really_long_member_name_%d.%s" % (
                           rng.randrange(100), ext), stem[:1] + "." + ext])


def make_archive_case(rng, objs, llvm):
    """Objects and packages in archives, then extractions from them."""
    files = make_files(rng)
    names = sorted(files)
    cmds, images = [], []
    for p in range(rng.randint(0, 2)):
        imgs = [random_image(rng, names) for _ in range(rng.randint(1, 3))]
        images += imgs
        cmds.append("%s -o p%d.bin %s%s" % (TOOL, p, " ".join(
            shlex.quote("--image=" + i) for i in imgs), compression(rng)))
    members = []
    for _ in range(rng.randint(1, 5)):
        base = rng.choice(sorted(objs) + ["p0.bin", "p1.bin"])
        if base.startswith("p") and not any(c.startswith(
                "%s -o %s " % (TOOL, base)) for c in cmds):
            continue
        name = member_name(rng, base)
        if name not in files and name != base:
            cmds.append("cp %s %s" % (base, name))
        members.append(name)
    if not members:
        members.append("om.o")
    ar = os.path.join(llvm, "llvm-ar")
    thin = rng.random() < 0.2
    cmds.append("%s cr%s lib.a %s" % (ar, "T" if thin else "",
                                       " ".join(members)))
    target = "lib.a"
    if rng.random() < 0.2:
        cmds.append("%s cr outer.a %s lib.a" % (ar, rng.choice(sorted(objs))))
        target = "outer.a"
    pool = OBJECT_FILTERS + [t for i in images for t in i.split(",")
                             if t and not t.startswith("file")]
    for n in range(rng.randint(1, 3)):
        filters = []
        archive = rng.random() < 0.4
        for k in range(rng.randint(1, 3)):
            toks = [rng.choice(pool) for _ in range(rng.choice([0, 1, 1, 2]))]
            if archive and rng.random() < 0.95:
                toks.append("file=o%d%d.a" % (n, k))
            elif rng.random() < 0.25:
                toks.append("file=o%d%d.o" % (n, k))
            filters.append(",".join(toks))
        cmds.append("mkdir -p x%d && cd x%d && %s ../%s %s%s; echo \"rc:$?\"; "
                    "cd .." % (n, n, TOOL, target, " ".join(
                        shlex.quote("--image=" + f) for f in filters),
                        " --archive" if archive else ""))
    script = "\n".join(c if "rc:" in c else c + '; echo "rc:$?"'
                       for c in cmds)
    script += "\nfor d in x*; do [ -d \"$d\" ] && for f in $(ls -A \"$d\"); " \
              "do mv \"$d/$f\" \"$d.$f\"; done; done; rmdir x* 2>/dev/null; true"
    return dict(files, **objs), script


COFF_MACHINES = [0x8664, 0xaa64, 0x14c, 0x1c4, 0, 0xa641, 0x266, 0x1f0,
                 0x1234]
COFF_NAMES = [b".llvm.offloading", b".llvm.offloading$a", b".llvm.o",
              b".text", b".llvm.rodata.offloading", b".llvm.offloadin",
              b".LLVM.offloading", b".data"]


def make_coff_case(rng):
    """A COFF object (plain or bigobj, of any machine, long names in
    decimal or base 64) with packages in some sections, sometimes damaged
    in its header, section table or string table; then one extraction."""
    sections = []
    for _ in range(rng.randint(0, 5)):
        name = rng.choice(COFF_NAMES)
        if rng.random() < 0.5:
            imgs = [(rng.choice([1, 2, 5]), rng.choice([1, 2, 4]),
                     [(b"triple", rng.choice([b"amdgcn-amd-amdhsa",
                                              b"nvptx64-nvidia-cuda"])),
                      (b"arch", rng.choice([b"gfx90a", b"sm_90"]))],
                     rng.randbytes(rng.randint(0, 40)))
                    for _ in range(rng.randint(1, 2))]
            data = b"".join(offbin.v1(i[2], i[3], i[0], i[1]) for i in imgs)
        else:
            data = None if rng.random() < 0.3 else rng.randbytes(
                rng.randint(0, 20))
        sections.append((name, data))
    blob = bytearray(offbin.coff(
        sections, machine=rng.choice(COFF_MACHINES),
        bigobj=rng.random() < 0.25, nsyms=rng.choice([0, 0, 1, 5]),
        base64=rng.random() < 0.3,
        strtab_tail=rng.choice([b"", b"", b"tail\0", b"x"])))
    for _ in range(rng.choice([0, 0, 0, 1, 2])):
        # A byte of the header, the section table or anywhere.
        at = rng.choice([rng.randrange(0, 20), rng.randrange(len(blob))])
        blob[at] = rng.choice([0, 0xff, rng.randrange(256)])
    if rng.random() < 0.1:
        blob = blob[:rng.randrange(len(blob) + 1)]
    script = "%s c.obj --image=triple=amdgcn-amd-amdhsa " \
             "--image=file=n.bin,arch=sm_90; echo \"rc:$?\"" % TOOL
    return {"c.obj": bytes(blob)}, script


def run(tooldir, files, script):
    d = ROOT.mkdtemp("offload-pdiff-") if ROOT else \
        tempfile.mkdtemp(prefix="offload-pdiff-")
    try:
        files = dict(files, junk=b"junk after the package\n")
        for name, data in files.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
        return cases.record_in(d, tooldir, script, timeout=20, llvm=RELEASE,
                               root=ROOT)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def ours_failed_cleanly(record, what, inputs):
    """Exit 1 and one "error:" line of ours naming the file, and no file
    but the inputs left."""
    err = record.split("--- stderr\n", 1)[1].split("\n--- file", 1)[0]
    lines = [l for l in err.split("\n") if l]
    files = [l.split()[2] for l in record.split("\n")
             if l.startswith("--- file ")]
    return ("rc=1" in record and len(lines) == 1 and
            lines[0].startswith(TOOL + ": error: '") and what in lines[0] and
            sorted(files) == sorted(inputs))


def corpus(llvm, ours):
    """The damaged corpus: LLVM's error where it has one, ours otherwise."""
    passed = failed = 0
    for path in sorted(glob.glob(os.path.join(HERE, "files", "bad",
                                              "package-*"))):
        name = os.path.basename(path)
        files = {name: open(path, "rb").read()}
        script = "%s %s --image=file=out --image=triple=" % (TOOL, name)
        want, got = run(llvm, files, script), run(ours, files, script)
        data = files[name]
        # Versions LLVM cannot read are ours to read (LLVM 22 calls 2 and
        # 3 invalid, LLVM 23 3, LLVM 24 none).
        ours_to_read = data[:4] == b"\x10\xff\x10\xad" and \
            data[4] in {"22": (2, 3), "23": (3,)}.get(RELEASE, ())
        # Where LLVM 22 rejects a binary itself, its words; anything else
        # it says comes from reading on (its ELF parser's words, or a
        # failed write of an image from past the end) and is ours to say.
        llvm_error = "rc=1" in want and (
            "error: Invalid data was encountered while parsing the file" in
            want or "error: The end of the file was unexpectedly encountered"
            in want)
        # Our own limits on an inflated size (OFFLOAD_PACKAGE_MAX_*) refuse
        # before inflating, in our words, what LLVM 24 inflates and judges.
        ours_limit = "is beyond a ratio of" in got or \
            "is more than the limit of" in got
        if llvm_error and not crashed(want) and not ours_to_read and \
                not ours_limit:
            ok = want == got
        else:
            ok = ours_failed_cleanly(got, "'%s'" % name, [name, "junk"])
        if ok:
            passed += 1
            continue
        failed += 1
        print("FAIL (corpus %s):\n  llvm-%s: %s\n  offload: %s" % (
            name, RELEASE, want.replace("\n", "\n    "), got.replace("\n", "\n    ")))
    return passed, failed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=70)
    ap.add_argument("--archive-cases", type=int, default=30)
    ap.add_argument("--coff-cases", type=int, default=60)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--llvm", default="/usr/lib/llvm-22/bin")
    ap.add_argument("--ours", default=os.path.join(HERE, "..", "build", "bin"))
    ap.add_argument("--release", default="22")
    args = ap.parse_args()
    global RELEASE, ROOT
    RELEASE = args.release
    if RELEASE != "22":
        ROOT = cases.Root(RELEASE)
        why = ROOT.why_not()
        if why:
            required = os.environ.get("REQUIRE_LLVM") == "1"
            print("%s: packager_diff: %s" % ("FAIL" if required else "SKIP", why))
            print("0 passed, %d failed" % (1 if required else 0))
            return 1 if required else 0
        try:
            args.ours = ROOT.stage(args.ours)
            args.llvm = ROOT.llvm
            return differ(args)
        finally:
            ROOT.close()
    if not os.path.exists(os.path.join(args.llvm, TOOL)):
        if os.environ.get("REQUIRE_LLVM") == "1":
            print("packager_diff: LLVM 22 not found in %s" % args.llvm)
            print("0 passed, 1 failed")
            return 1
        print("packager_diff: skipped, LLVM 22 not found in %s" % args.llvm)
        print("0 passed, 0 failed")
        return 0
    return differ(args)


def differ(args):
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    passed, failed = corpus(args.llvm, args.ours)
    failures = []

    def judge(ok, label, script, want, got):
        if ok:
            return
        failures.append(label)
        print("FAIL (seed %d, %s):\n%s" % (seed, label, script))
        for line in difflib.unified_diff(want.split("\n"), got.split("\n"),
                                         "llvm-" + RELEASE, "offload", lineterm="",
                                         n=1):
            print("    " + line)

    for n in range(args.cases):
        files, script = make_case(rng)
        want = run(args.llvm, files, script)
        got = run(args.ours, files, script)
        if crashed(want):
            err = got.split("--- stderr\n", 1)[1].split("\n--- file", 1)[0]
            ours = [l for l in err.split("\n") if l.startswith(TOOL)]
            ok = not crashed(got) and all(": error: " in l or
                                          ": warning: " in l for l in ours)
        else:
            ok = want == got
        judge(ok, "case %d" % n, script, want, got)
    for n in range(args.coff_cases):
        files, script = make_coff_case(rng)
        want, got = run(args.llvm, files, script), run(args.ours, files, script)
        # Where LLVM 22 rejects a package in the object, we print its words;
        # where it rejects the object (its reader's words name no file) or
        # crashes, ours must fail, with one line naming the file.
        if "rc:1" in want or crashed(want):
            ok = want == got or "rc:1" in got and ours_failed_cleanly(
                got.replace("rc:1", "rc=1"), "'c.obj'", ["c.obj", "junk"])
        else:
            ok = want == got
        judge(ok, "COFF case %d" % n, script, want, got)
    objs = compile_objects(args.llvm) if args.archive_cases else None
    if args.archive_cases and objs is None:
        print("SKIP: clang-%s or ld missing: no archive cases" % RELEASE)
    for n in range(args.archive_cases if objs else 0):
        files, script = make_archive_case(rng, objs, args.llvm)
        # Images that start like bitcode but are not are stored without
        # symbols with a warning that names the member, in the words of
        # each tool's bitcode reader.
        want = BAD_BITCODE.sub(r"\1...", run(args.llvm, files, script))
        got = BAD_BITCODE.sub(r"\1...", run(args.ours, files, script))
        judge(want == got and not crashed(want), "archive case %d" % n,
              script, want, got)
    failed += len(failures)
    passed += args.cases + args.coff_cases + \
        (args.archive_cases if objs else 0) - len(failures)
    print("packager_diff: seed %d" % seed)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
