#!/usr/bin/env python3
"""Differential test: random bundler cases run by LLVM 22 and by us.

  differential.py [--cases N] [--seed S] [--llvm DIR] [--ours DIR]
                  [--release 22|23]

Each case makes random inputs, bundles them with a random type, target list
and alignment, then lists and unbundles the result with random requests,
sometimes after damaging it.  Both tools must give the same exit status,
stdout, stderr and files.  Where LLVM dies by a signal (it does on some
damaged bundles) we must instead fail cleanly: exit 1, one "error:" line.
"""
import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402
import elfmut  # noqa: E402

ELFMUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "elfmut.py")
# The release both tools follow, and its root when not the host's (main:
# --release 23 runs both in LLVM 23's root, cases.Root).
RELEASE = "22"
ROOT = None

TYPES = ["i", "ii", "cui", "hipi", "d", "ll", "s", "bc", "gch", "ast", "o"]
HOSTS = ["host-x86_64-unknown-linux-gnu", "host-x86_64--linux-gnu",
         "host-x86_64-pc-linux-gnu", "host-aarch64-unknown-linux-gnu",
         "host-powerpc64le-ibm-linux-gnu", "host-amd64-pc-linux-gnu"]
GFX = ["gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100",
       "gfx900", "gfx9-generic", "gfx1201", "gfx803", "gfx940", "gfx9999"]
# No malformed features (":xnack" without a sign): LLVM 22's conflict check
# reads an empty optional for them, and crashes or not, reports a conflict
# or not, depending on memory.
FEATURES = ["", ":xnack+", ":xnack-", ":sramecc+", ":sramecc-",
            ":sramecc+:xnack+", ":xnack-:sramecc+"]
SM = ["sm_70", "sm_80", "sm_90", "sm_90a", "sm_35", "sm_99"]


def random_target(rng):
    r = rng.random()
    if r < 0.45:
        kind = rng.choice(["hip", "hip", "hipv4", "openmp"])
        env = rng.choice(["", "", "unknown", "gnu"])
        return "%s-amdgcn-amd-amdhsa-%s-%s%s" % (
            kind, env, rng.choice(GFX), rng.choice(FEATURES))
    if r < 0.65:
        env = rng.choice(["", "unknown"])
        return "openmp-nvptx64-nvidia-cuda-%s-%s" % (env, rng.choice(SM))
    if r < 0.75:
        return rng.choice(["openmp-x86_64-pc-linux-gnu",
                           "openmp-x86_64-unknown-linux-gnu",
                           "hip-spirv64-amd-amdhsa--amdgcnspirv",
                           "openmp-amdgcn-amd-amdhsa--gfx90a",
                           "hip-amdgcn-amd-amdhsa-gfx906"])
    return rng.choice(HOSTS)


FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "objects", "fixtures")
OBJECTS = [open(os.path.join(FIXTURES, f), "rb").read()
           for f in sorted(os.listdir(FIXTURES))
           if f.endswith((".o", ".exe", ".so"))]
# COFF hosts (issue 16), drawn for half of the object bundles.
COFF_OBJECTS = [open(os.path.join(FIXTURES, f), "rb").read()
                for f in sorted(os.listdir(FIXTURES)) if f.endswith(".obj")]


def random_content(rng):
    r = rng.random()
    n = rng.choice([0, 1, 5, 17, 100, 1000, 5000, 5000, 200000])
    if r < 0.4:
        words = ["line", "data", "\n", " ", "\r\n", "__CLANG", "x" * 10]
        return "".join(rng.choice(words) for _ in range(n // 4)).encode()
    return bytes(rng.randrange(256) for _ in range(n))


def make_case(rng):
    """Returns (files, script)."""
    ftype = rng.choice(TYPES)
    n = rng.randint(1, 5)
    targets = []
    while len(targets) < n:
        t = random_target(rng)
        if t not in targets:
            targets.append(t)
    hosts = [t for t in targets if t.startswith("host-")]
    if rng.random() < 0.85:
        targets = [t for t in targets if not t.startswith("host-")]
        if not all(t.startswith("hip") for t in targets) or rng.random() < 0.5:
            targets.insert(rng.randint(0, len(targets)),
                           hosts[0] if hosts else rng.choice(HOSTS))
    files = {}
    inputs = []
    for i, _ in enumerate(targets):
        name = "in%d" % i
        files[name] = random_content(rng)
        inputs.append(name)
    # For -type=o the host (or, with no host, the first input) is usually
    # a real object, ELF or COFF, so the bundle is an object bundle.
    if ftype == "o" and OBJECTS and inputs and rng.random() < 0.8:
        at = next((i for i, t in enumerate(targets)
                   if t.startswith("host-")), 0)
        coff = COFF_OBJECTS and rng.random() < 0.5
        files[inputs[at]] = rng.choice(COFF_OBJECTS if coff else OBJECTS)
        # An ELF host changed where llvm-objcopy normalises (issue 19
        # item 15): an odd sh_entsize or alignment, symbols out of order.
        if not coff and rng.random() < 0.5:
            files[inputs[at]] = elfmut.mutate(files[inputs[at]], rng)
    align = ""
    if rng.random() < 0.5:
        align = " -bundle-align=%s" % rng.choice(
            ["1", "2", "3", "8", "16", "4096", "0x40", "010", "7"])
    # Now and then the other tool makes the bundle, so each reads the
    # other's bundles.
    # (Not with a malformed feature: LLVM may crash on those, and its crash
    # must not land in our record.)
    writer = "clang-offload-bundler"
    malformed = any(t.endswith(":xnack") or ":xnack:" in t for t in targets)
    if rng.random() < 0.3 and not malformed:
        writer = 'PATH="$OTHER:$PATH" clang-offload-bundler'
    compress = ""
    if rng.random() < 0.3:
        compress = " -compress"
        if rng.random() < 0.5:
            compress += " -compression-level=%d" % rng.choice(
                [-5, 1, 2, 3, 5, 9, 12, 19, 22])
        if rng.random() < 0.3:
            writer = "COMPRESSED_BUNDLE_FORMAT_VERSION=2 " + writer
        if rng.random() < 0.3:
            compress += " -verbose"
    cmds = ["%s -type=%s -targets=%s %s -output=b%s%s" % (
        writer, ftype, ",".join(targets), " ".join("-input=" + i for i in inputs),
        align, compress)]
    # The object bundle itself so changed, for -unbundle to normalise.
    if ftype == "o" and rng.random() < 0.2:
        cmds.append("python3 %s b b2 random %d && mv b2 b" % (
            ROOT.here() + "/elfmut.py" if ROOT else ELFMUT,
            rng.randrange(1 << 30)))
    # LLVM 23 reads every bundle of an input, one after the other: now and
    # then another bundle (compressed or not) goes before or after this
    # one, with or without bytes between (LLVM 22 reads only the first).
    if RELEASE != "22" and ftype in ("bc", "gch", "ast", "o") and \
            rng.random() < 0.35:
        more = [t for t in targets if rng.random() < 0.5]
        extra = random_target(rng)
        if extra not in more and not extra.startswith("host-"):
            more.append(extra)
        more = more or [extra]
        rng.shuffle(more)
        for i, _ in enumerate(more):
            files["jn%d" % i] = random_content(rng)
        files["pad"] = rng.choice([b"", b"\0" * 64, random_content(rng)])
        cmds.append("%s -type=%s -targets=%s %s -output=b_%s" % (
            writer, ftype, ",".join(more),
            " ".join("-input=jn%d" % i for i in range(len(more))),
            rng.choice(["", "", " -compress"])))
        cmds.append("cat %s > b3 && mv b3 b" % rng.choice(
            ["b b_", "b_ b", "b pad b_", "b_ pad b", "b b_ b", "b_ b b_"]))
    damage = rng.random() < 0.25
    if damage:
        size_cut = rng.choice(["head -c %d" % rng.randint(0, 200),
                               "head -c -%d" % rng.randint(1, 50)])
        cmds.append("%s b > b2 && mv b2 b" % size_cut)
    cmds.append("clang-offload-bundler -type=%s -list -input=b%s" % (
        ftype, " -verbose" if rng.random() < 0.2 else ""))
    reqs = list(targets)
    rng.shuffle(reqs)
    reqs = reqs[:rng.randint(1, max(1, len(reqs)))]
    if rng.random() < 0.4:
        extra = random_target(rng)
        if extra not in reqs:
            reqs.append(extra)
    if sum(1 for t in reqs if t.startswith("host-")) > 1:
        reqs = [t for t in reqs if not t.startswith("host-")] or reqs[:1]
    flags = ""
    if rng.random() < 0.4:
        flags += " -allow-missing-bundles"
    if rng.random() < 0.2:
        flags += " -hip-openmp-compatible"
    cmds.append("clang-offload-bundler -type=%s -unbundle -input=b -targets=%s"
                " %s%s" % (ftype, ",".join(reqs),
                           " ".join("-output=o%d" % i
                                    for i in range(len(reqs))), flags))
    # Each step's status goes to stdout, so a failure in the middle shows.
    return files, "\n".join(c + '; echo "rc:$?"' for c in cmds)


def run(tooldir, files, script, other):
    d = ROOT.mkdtemp("offload-diff-") if ROOT else \
        tempfile.mkdtemp(prefix="offload-diff-")
    try:
        for name, data in files.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
        # Output past what a record keeps (1 MiB) is LLVM looping.
        return cases.record_in(d, tooldir, script, timeout=10, runaway=1 << 20,
                               extra_env={"OTHER": other if ROOT else
                                          os.path.abspath(other)},
                               llvm=RELEASE, root=ROOT)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def crashed(record):
    """LLVM died by a signal, hung, or hit "LLVM ERROR" (it does on some
    damaged bundles, e.g. copying heap memory when an END marker is gone)."""
    return any(s in record for s in ("rc:139", "rc:136", "rc:134",
                                     "rc=timeout", "LLVM ERROR:"))


def clean_failure(record):
    """No step of ours died, hung or dumped a stack; each of our messages
    is one "error:" line (other lines come from the script's own tools)."""
    err = record.split("--- stderr\n", 1)[1].split("\n--- file", 1)[0]
    ours = [l for l in err.split("\n") if l.startswith("clang-offload-")]
    return not crashed(record) and all(": error: " in l for l in ours)


def fails_where_crashed(want, got):
    """At the step where LLVM died by a signal, ours failed (exit 1), the
    steps before it as LLVM's: a clean line is not enough, exit 0 there
    is the partial answer LLVM 23 mode gave (issue 34)."""
    w = [l for l in want.split("\n") if l.startswith("rc:")]
    g = [l for l in got.split("\n") if l.startswith("rc:")]
    k = next((i for i, s in enumerate(w)
              if s in ("rc:139", "rc:136", "rc:134")), None)
    # An LLVM ERROR or a hang names no step.
    return k is None or (g[:k] == w[:k] and g[k:k + 1] == ["rc:1"])


def first_status(record):
    return next((l for l in record.split("\n") if l.startswith("rc:")), "")


def same_until_failure(want, got):
    """Each step's status the same up to the first failure (rc:1)."""
    w = [l for l in want.split("\n") if l.startswith("rc:")]
    g = [l for l in got.split("\n") if l.startswith("rc:")]
    k = w.index("rc:1") if "rc:1" in w else len(w)
    return "rc:1" in w and w[:k + 1] == g[:k + 1]


def tolerate_failed_unbundle(want, got):
    """The unbundle is the last step and writes o0, o1...: when it failed,
    LLVM keeps the outputs it had written and we (atomically) keep none."""
    steps = [l for l in want.split("\n") if l.startswith("rc:")]
    if not steps or steps[-1] == "rc:0":
        return want
    ours = set(got.split("\n"))
    return "\n".join(l for l in want.split("\n")
                     if not l.startswith("--- file o") or l in ours)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--llvm", default="/usr/lib/llvm-22/bin")
    ap.add_argument("--ours", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "build", "bin"))
    ap.add_argument("--release", default="22")
    args = ap.parse_args()
    global RELEASE, ROOT
    RELEASE = args.release
    if RELEASE != "22":
        ROOT = cases.Root(RELEASE)
        why = ROOT.why_not()
        if why:
            required = os.environ.get("REQUIRE_LLVM") == "1"
            print("%s: differential: %s" % ("FAIL" if required else "SKIP", why))
            print("0 passed, %d failed" % (1 if required else 0))
            return 1 if required else 0
        try:
            args.ours = ROOT.stage(args.ours)
            args.llvm = ROOT.llvm
            return differ(args)
        finally:
            ROOT.close()
    if not os.path.exists(os.path.join(args.llvm, "clang-offload-bundler")):
        if os.environ.get("REQUIRE_LLVM") == "1":
            print("differential: LLVM 22 not found in %s" % args.llvm)
            print("0 passed, 1 failed")
            return 1
        print("differential: skipped, LLVM 22 not found in %s" % args.llvm)
        print("0 passed, 0 failed")
        return 0
    return differ(args)


def differ(args):
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    passed = failed = 0
    for n in range(args.cases):
        files, script = make_case(rng)
        # One command at a time, so a crash of LLVM's in the middle does not
        # hide what the later commands do.
        want = run(args.llvm, files, script, args.ours)
        got = run(args.ours, files, script, args.llvm)
        if crashed(want):
            ok = clean_failure(got) and fails_where_crashed(want, got)
        elif "'llvm-objcopy' tool failed" in want + got:
            # llvm-objcopy refused the host or the object bundle and LLVM
            # left an empty output behind (later steps read it); we leave
            # none.  Both must have failed at that step, cleanly, and
            # agreed before it.
            ok = (clean_failure(got) and clean_failure(want) and
                  same_until_failure(want, got))
        elif "libLLVM" in got and crashed(got):
            # LLVM, writing the bundle in our run, crashed (say, -type=o
            # with only device targets); when we wrote it we must have
            # failed cleanly.
            ok = clean_failure(want)
        elif "head -c" in script and re.search(
                r"': (Failed to decompress input|compressed bundle hash)", got):
            # A damaged CCOB LLVM reads as something (it never checks the
            # declared size or the hash): we must fail, cleanly.
            ok = clean_failure(got)
        elif "head -c" in script and re.search(
                r"': (truncated ELF header|section .* runs past the end|"
                r"section header table runs past|no section headers|"
                r"section \d+ has a bad name|bad section name table|"
                r"program header table runs past)", got):
            # A damaged object LLVM 22 takes for a plain file: we say why
            # it is not an object.
            ok = clean_failure(got)
        else:
            ok = tolerate_failed_unbundle(want, got) == got
        if ok:
            passed += 1
            continue
        failed += 1
        print("FAIL (seed %d, case %d):\n%s" % (seed, n, script))
        for line in __import__("difflib").unified_diff(
                want.split("\n"), got.split("\n"), "llvm-" + RELEASE, "offload",
                lineterm="", n=1):
            print("    " + line)
    print("differential: seed %d" % seed)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
