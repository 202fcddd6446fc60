#!/usr/bin/env python3
"""Every figure offload ls --kernels prints for a cubin against what CUDA
11.8's cuobjdump -res-usage reports (issue 18), for nvres.test.

  nv_resusage.py OFFLOAD FILE REPORT

FILE is a fatbin or a cubin; REPORT is what cuobjdump -res-usage printed
for it (test/files/nvres/golden, or a live run): for each ELF, an
"arch = sm_XY" line (cuobjdump prints one per fatbin entry; make.sh writes
one before each cubin it patched for cuobjdump 11.8), then a "Function
NAME:" line per kernel and the line of its figures (a cubin's report has
no arch line).  Each ELF of the report is compared with the next cubin ls
lists for its architecture (a cubin's report with the one cubin): the
same kernels, and for each REG, STACK (UNKNOWN: ls has none), SHARED,
LOCAL and every CONSTANT[n] bank equal.  Prints one line per cubin
compared, every difference, and the cubins the report leaves out; exit
status 1 on any difference or ELF of the report without its cubin.
"""
import json
import re
import subprocess
import sys


def report(text):
    """[(arch or None, {symbol: {key: value}})], one per ELF."""
    elves, funcs, fn, kind = [], None, None, "elf"
    for line in text.splitlines():
        m = re.match(r"Fatbin (\w+) code:", line)
        if m:
            kind = m.group(1)
            continue
        m = re.match(r"arch = (sm_\w+)", line)
        if m:
            funcs = {}
            fn = None
            if kind == "elf":           # PTX has no resource usage
                elves.append((m.group(1), funcs))
            continue
        m = re.match(r" Function (\S+):$", line)
        if m:
            if funcs is None:           # a cubin without an arch line
                funcs = {}
                elves.append((None, funcs))
            fn = funcs[m.group(1)] = {}
            continue
        if fn is not None and line.startswith("  REG:"):
            for key, val in re.findall(r"(\w+(?:\[\d+\])?):(\S+)", line):
                fn[key] = None if val == "UNKNOWN" else int(val)
            fn = None
    return elves


def ours(offload, path):
    """[(processor, {symbol: kernel})], one per cubin, in file order."""
    ls = json.loads(subprocess.run(
        [offload, "ls", "--kernels", "--json", path],
        capture_output=True, text=True, check=True).stdout)
    out = []

    def take(kl):
        if kl and kl["source"] == "cubin":
            out.append((kl["processor"],
                        {k["symbol"]: k for k in kl["list"]}))

    def walk(f):
        take(f.get("kernels"))
        for c in f.get("containers", []):
            for e in c["entries"]:
                take(e["kernels"])
        for s in f.get("sections", []):
            for c in s["containers"]:
                for e in c["entries"]:
                    take(e["kernels"])
        for m in f.get("members", []):
            walk(m)

    for f in ls["files"]:
        walk(f)
    return out


def main():
    offload, path, rep = sys.argv[1:4]
    with open(rep) as f:
        theirs = report(f.read())
    mine = ours(offload, path)
    bad = 0
    name = path.rsplit("/", 1)[-1]
    left = list(mine)
    for arch, want in theirs:
        at = [i for i, (proc, _) in enumerate(left)
              if arch is None or proc == arch]
        if not at or (arch is None and len(mine) != 1):
            print("%s: no cubin for cuobjdump's %s" % (name, arch))
            bad += 1
            continue
        proc, got = left.pop(at[0])
        label = "%s %s" % (name, proc)
        if set(want) != set(got):
            print("%s: kernels differ: cuobjdump %s, ls %s"
                  % (label, sorted(want), sorted(got)))
            bad += 1
        for sym in sorted(set(want) & set(got)):
            w, k = want[sym], got[sym]
            pairs = [("REG", k["registers"]), ("STACK", k["stack_bytes"]),
                     ("SHARED", k["shared_bytes"]),
                     ("LOCAL", k["local_bytes"])]
            banks = {"CONSTANT[%s]" % b: n
                     for b, n in k["constant_bytes"].items()}
            for key in sorted(set(banks) | {x for x in w
                                           if x.startswith("CONSTANT")}):
                pairs.append((key, banks.get(key)))
            for key, val in pairs:
                if w.get(key) != val:
                    print("%s: %s: %s is %r, cuobjdump says %r"
                          % (label, sym, key, val, w.get(key)))
                    bad += 1
        print("%s: %d kernels compared (REG STACK SHARED LOCAL CONSTANT)"
              % (label, len(set(want) & set(got))))
    for proc, _ in left:
        print("%s %s: not in cuobjdump's report" % (name, proc))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
