#!/usr/bin/env python3
"""kernels_llvm.py: ls --kernels against clang-22's own figures.

Builds test/files/kernels/src/k.hip (kernels with known LDS, workgroup
sizes, registers, AGPRs, scratch, dynamic stacks) for each processor with
clang-22 -Rpass-analysis=kernel-resource-usage, lists the object with
`offload ls --kernels --json`, and compares every kernel's figures with
the compiler's remarks (SGPRs, VGPRs, AGPRs, scratch, dynamic stack,
occupancy, spills, LDS) and with `llvm-readobj --notes` on the code object
`offload extract` writes.  Prints one line per processor and each
mismatch; exits 1 on any.

  kernels_llvm.py OFFLOAD CLANG LLVM_BIN SRC_DIR
  kernels_llvm.py --fixture OFFLOAD OBJECT REMARKS   (no clang needed:
      a committed object against the remarks saved with it by make.sh)
  kernels_llvm.py --names OFFLOAD FILE...   (every kernel name ls prints
      against c++filt's)
  kernels_llvm.py --nvidia OFFLOAD FATBIN PTXAS_LOG   (a fatbin's cubins
      against nvcc -Xptxas -v's report: registers, shared memory, stack,
      the constant banks it names)
"""
import json
import os
import re
import subprocess
import sys
import tempfile

# clang-22 writes code object v6 unless told; v4 and v5 once each.
ARCHS = [("gfx906", []), ("gfx90a", []), ("gfx942", []), ("gfx1100", []),
         ("gfx1100", ["-mwavefrontsize64"]),
         ("gfx90a", ["-mcode-object-version=4"]),
         ("gfx942", ["-mcode-object-version=5"])]


def remarks(text):
    """Function name -> {field: value} from the remark lines."""
    out, cur = {}, None
    for line in text.splitlines():
        m = re.search(r"remark: (.*) \[-Rpass-analysis=kernel-resource-usage\]",
                      line)
        if not m:
            continue
        body = m.group(1).strip()
        if body.startswith("Function Name: "):
            cur = out.setdefault(body[len("Function Name: "):], {})
            continue
        key, _, val = body.rpartition(": ")
        if cur is not None:
            cur[key] = val
    return out


def notes(text):
    """Kernel symbol -> {key: value} from llvm-readobj --notes' YAML."""
    out, cur = {}, {}
    for line in text.splitlines():
        # A kernel's keys: "  - .key:" opens one, "    .key:" goes on
        # (deeper lines are its arguments).
        m = re.match(r"^(  - |    )\.([a-z_]+):\s*(.*)$", line)
        if not m:
            continue
        if m.group(1) == "  - " and cur:
            if ".name" in cur:
                out[cur[".name"]] = cur
            cur = {}
        cur["." + m.group(2)] = m.group(3).strip().strip("'")
    if ".name" in cur:
        out[cur[".name"]] = cur
    return out


def compare(label, got, want, note):
    """Mismatches between one code object's kernels and clang's remarks
    (want) and llvm-readobj's notes (note, or None); each printed."""
    bad = 0
    count = 0
    for k in got:
        sym = k["symbol"]
        w = want.get(sym)
        n = note.get(sym) if note is not None else None
        if w is None or (note is not None and n is None):
            print("%s: %s: not in clang's report or the notes" % (label, sym))
            bad += 1
            continue
        agprs = int(w.get("AGPRs", 0))
        vgprs = int(w["VGPRs"])
        if agprs:	# one file: VGPRs rounded up to 4, then AGPRs
            vgprs = (vgprs + 3) // 4 * 4 + agprs
        pairs = [
            ("sgprs", int(w["TotalSGPRs"])),
            ("vgprs", vgprs),
            ("scratch_bytes_per_lane", int(w["ScratchSize [bytes/lane]"])),
            # Code object v4's metadata has no .uses_dynamic_stack (nor its
            # descriptor the bit): unknown there, whatever clang knew.
            ("dynamic_stack", None if n is not None and
             ".uses_dynamic_stack" not in n else w["Dynamic Stack"] == "True"),
            ("occupancy_waves_per_simd", int(w["Occupancy [waves/SIMD]"])),
            ("sgpr_spills", int(w["SGPRs Spill"])),
            ("vgpr_spills", int(w["VGPRs Spill"])),
            ("lds_bytes", int(w["LDS Size [bytes/block]"])),
        ]
        if "AGPRs" in w:
            pairs.append(("agprs", agprs))
        for key, val in pairs:
            if k[key] != val:
                print("%s: %s: %s is %r, clang says %r"
                      % (label, sym, key, k[key], val))
                bad += 1
        for key, nkey in [] if n is None else [("sgprs", ".sgpr_count"), ("vgprs", ".vgpr_count"),
                          ("agprs", ".agpr_count"),
                          ("sgpr_spills", ".sgpr_spill_count"),
                          ("vgpr_spills", ".vgpr_spill_count"),
                          ("lds_bytes", ".group_segment_fixed_size"),
                          ("scratch_bytes_per_lane",
                           ".private_segment_fixed_size"),
                          ("wavefront_size", ".wavefront_size"),
                          ("max_flat_workgroup_size",
                           ".max_flat_workgroup_size"),
                          ("kernarg_bytes", ".kernarg_segment_size")]:
            nval = int(n[nkey]) if nkey in n else None
            if k[key] != nval:
                print("%s: %s: %s is %r, llvm-readobj says %r"
                      % (label, sym, key, k[key], nval))
                bad += 1
        dyn = n.get(".uses_dynamic_stack") if n else None
        if dyn is not None and k["dynamic_stack"] != (dyn == "true"):
            print("%s: %s: dynamic_stack is %r, llvm-readobj says %s"
                  % (label, sym, k["dynamic_stack"], dyn))
            bad += 1
        d = k["descriptor"]
        if (d is None or d["group_segment_fixed_size"] != k["lds_bytes"] or
                d["private_segment_fixed_size"] !=
                k["scratch_bytes_per_lane"]):
            print("%s: %s: descriptor %r disagrees" % (label, sym, d))
            bad += 1
        count += 1
    if count != len(want) or (note is not None and count != len(note)):
        print("%s: %d kernels listed, clang reports %d, notes hold %d"
              % (label, count, len(want), len(note or want)))
        bad += 1
    print("%s: %d kernels compared" % (label, count))
    return bad


def fixture(offload, obj, remark_file):
    """A committed object against the remarks make.sh saved with it."""
    sections, cur = {}, None
    with open(remark_file) as f:
        for line in f:
            if line.startswith("== "):
                cur = sections[line[3:].strip()] = []
            elif cur is not None:
                cur.append("remark: " + line.rstrip("\n") +
                           " [-Rpass-analysis=kernel-resource-usage]")
    ls = json.loads(subprocess.run(
        [offload, "ls", "--kernels", "--json", obj],
        capture_output=True, text=True, check=True).stdout)
    bad = seen = 0
    for f in ls["files"]:
        for sec in f.get("sections", []):
            for c in sec["containers"]:
                for e in c["entries"]:
                    if not e["kernels"]:
                        continue
                    arch = e["arch"]
                    seen += 1
                    bad += compare(arch, e["kernels"]["list"],
                                   remarks("\n".join(sections[arch])), None)
    if seen != len(sections):
        print("%d code objects listed, %d in the remarks" % (seen, len(sections)))
        bad += 1
    return 1 if bad else 0


def ptxas(text):
    """(arch, kernel) -> figures, from nvcc -Xptxas -v's report."""
    out, cur, props = {}, None, None
    for line in text.splitlines():
        m = re.search(r"Compiling entry function '([^']+)' for '(sm_[0-9a-z]+)'",
                      line)
        if m:
            cur = out[(m.group(2), m.group(1))] = {}
            props = None
            continue
        m = re.search(r"Function properties for (\S+)", line)
        if m:
            props = m.group(1)
            continue
        m = re.match(r"\s+(\d+) bytes stack frame", line)
        if m and cur is not None and props is not None and \
                (cur, props) and "frame" not in cur:
            cur["frame"] = int(m.group(1))
            continue
        m = re.search(r"Used (\d+) registers", line)
        if m and cur is not None:
            cur["regs"] = int(m.group(1))
            s = re.search(r"(\d+) bytes smem", line)
            cur["smem"] = int(s.group(1)) if s else 0
            s = re.search(r"(\d+) bytes cumulative stack size", line)
            if s:
                cur["stack"] = int(s.group(1))
            for b, n in re.findall(r"(\d+) bytes cmem\[(\d+)\]", line):
                cur.setdefault("cmem", {})[n] = int(b)
            cur = None
    return out


def nvidia(offload, fatbin, log):
    """A fatbin's cubins against ptxas's report when nvcc built it."""
    with open(log) as f:
        want = ptxas(f.read())
    ls = json.loads(subprocess.run(
        [offload, "ls", "--kernels", "--json", fatbin],
        capture_output=True, text=True, check=True).stdout)
    bad = 0
    for c in ls["files"][0]["containers"]:
        for e in c["entries"]:
            kl = e["kernels"]
            if not kl or kl["source"] != "cubin":
                continue
            count = 0
            for k in kl["list"]:
                w = want.get((kl["processor"], k["symbol"]))
                if w is None:
                    print("%s: %s: not in ptxas's report"
                          % (kl["processor"], k["symbol"]))
                    bad += 1
                    continue
                got = {"regs": k["registers"], "smem": k["shared_bytes"],
                       "stack": k["stack_bytes"]}
                exp = {"regs": w["regs"], "smem": w["smem"],
                       "stack": w.get("stack", w.get("frame"))}
                for key in exp:
                    if got[key] != exp[key]:
                        print("%s: %s: %s is %r, ptxas says %r"
                              % (kl["processor"], k["symbol"], key, got[key],
                                 exp[key]))
                        bad += 1
                for b, n in w.get("cmem", {}).items():
                    if k["constant_bytes"].get(b) != n:
                        print("%s: %s: constant bank %s is %r, ptxas says %r"
                              % (kl["processor"], k["symbol"], b,
                                 k["constant_bytes"].get(b), n))
                        bad += 1
                count += 1
            print("%s: %d kernels compared" % (kl["processor"], count))
    return 1 if bad else 0


def names(offload, files):
    """Every kernel's name as ls prints it against c++filt's."""
    ls = json.loads(subprocess.run(
        [offload, "ls", "--kernels", "--json"] + files,
        capture_output=True, text=True, check=True).stdout)
    pairs = set()

    def walk(node):
        for e in node.get("entries", []):
            for k in (e["kernels"] or {}).get("list", []):
                pairs.add((k["symbol"], k["name"]))
        for key in ("sections", "containers", "members", "files"):
            for child in node.get(key, []):
                walk(child)
    walk(ls)
    pairs = sorted(pairs)
    cf = subprocess.run(["c++filt"], input="".join(p[0] + "\n" for p in pairs),
                        capture_output=True, text=True, check=True).stdout
    bad = 0
    for (sym, name), want in zip(pairs, cf.splitlines()):
        if name != want:
            print("%s: ls says %r, c++filt %r" % (sym, name, want))
            bad += 1
    print("%d names, %d as c++filt demangles them" % (len(pairs),
                                                      len(pairs) - bad))
    return 1 if bad else 0


def main():
    if sys.argv[1] == "--names":
        return names(sys.argv[2], sys.argv[3:])
    if sys.argv[1] == "--nvidia":
        return nvidia(*sys.argv[2:5])
    if sys.argv[1] == "--fixture":
        return fixture(*sys.argv[2:5])
    offload, clang, llvm, src = sys.argv[1:5]
    bad = 0
    for arch, extra in ARCHS:
        label = arch + ("" if not extra else " " + " ".join(extra))
        with tempfile.TemporaryDirectory() as tmp:
            obj = os.path.join(tmp, "k.o")
            r = subprocess.run(
                [clang, "-x", "hip", "--offload-arch=" + arch, "-nogpulib",
                 "-nogpuinc", "-I" + src,
                 "-I" + os.path.join(src, "..", "..", "..", "objects", "hip"),
                 "--cuda-device-only", "-O2", "-c",
                 os.path.join(src, "k.hip"), "-o", obj,
                 "-Rpass-analysis=kernel-resource-usage"] + extra,
                capture_output=True, text=True)
            if r.returncode:
                print("%s: clang failed:\n%s" % (label, r.stderr))
                return 1
            want = remarks(r.stderr)
            ls = json.loads(subprocess.run(
                [offload, "ls", "--kernels", "--json", obj],
                capture_output=True, text=True, check=True).stdout)
            entries = [e for c in ls["files"][0]["containers"]
                       for e in c["entries"] if e["kernels"]]
            subprocess.run([offload, "extract", "-o", tmp, "-t", arch, obj],
                           check=True, capture_output=True)
            co = [f for f in os.listdir(tmp) if f.endswith(".co")]
            readobj = subprocess.run(
                [os.path.join(llvm, "llvm-readobj"), "--notes",
                 os.path.join(tmp, co[0])],
                capture_output=True, text=True, check=True).stdout
            note = notes(readobj)
        bad += compare(label, entries[0]["kernels"]["list"], want, note)
        version = [int(x.split("=")[1]) for x in extra
                   if x.startswith("-mcode-object-version=")] or [6]
        if entries[0]["kernels"]["code_object_version"] != version[0]:
            print("%s: code object v%s, clang wrote v%d" % (
                label, entries[0]["kernels"]["code_object_version"],
                version[0]))
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
