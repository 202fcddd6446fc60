#!/usr/bin/env python3
"""offload ls and extract against LLVM 22's own tools, on one artefact.

  inspect_llvm.py list FILE      every bundle and CCOB offload ls finds is
                                 cut out of FILE and handed to LLVM's
                                 clang-offload-bundler -list: the same IDs
  inspect_llvm.py extract FILE   every device code object offload extract
                                 writes is byte for byte what LLVM's
                                 bundler -unbundle (bundles, CCOBs) or
                                 llvm-offload-binary (packages) extracts,
                                 and what each file:// URI names

Prints one summary line; exits 1 with the first disagreement.  Uses
build/bin/offload and LLVM_BIN (default /usr/lib/llvm-22/bin)."""
import json
import os
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OFFLOAD = os.path.join(TOP, "build", "bin", "offload")
LLVM = os.environ.get("LLVM_BIN", "/usr/lib/llvm-22/bin")


def die(msg):
    print(msg)
    sys.exit(1)


def run(*args):
    r = subprocess.run(args, capture_output=True)
    if r.returncode:
        die("%s failed: %s" % (" ".join(args), r.stderr.decode(errors="replace")))
    return r.stdout


def containers(node, members=""):
    """Every container under a file, section or member, in walk order,
    with the archive members it is in as extract names them (".m1.m2")."""
    for child in node.get("members", []):
        yield from containers(child, members + "." + child["member"])
    for child in node.get("sections", []):
        yield from containers(child, members)
    for c in node.get("containers", []):
        yield members, c


def safe(s):
    return "".join(c if c.isalnum() or c in "-_.+=," else "_" for c in s)


def main():
    mode, path = sys.argv[1], sys.argv[2]
    data = open(path, "rb").read()
    listing = json.loads(run(OFFLOAD, "ls", "--verify", "--json", path))
    tmp = tempfile.mkdtemp()
    outdir = os.path.join(tmp, "out")
    os.mkdir(outdir)
    if mode == "extract":
        run(OFFLOAD, "extract", "-o", outdir, path)
    base = os.path.basename(path)
    ncont = nent = 0
    for members, c in containers(listing["files"][0]):
        piece = os.path.join(tmp, "piece%d" % c["number"])
        with open(piece, "wb") as f:
            f.write(data[c["offset"]:c["offset"] + c["size"]])
        ncont += 1
        if c["format"] == "ccob" and c["ccob"]["hash_check"] != "ok":
            die("CCOB #%d: hash %s" % (c["number"], c["ccob"]["hash_check"]))
        if c["format"] in ("bundle", "ccob") and mode == "list":
            ids = run(os.path.join(LLVM, "clang-offload-bundler"), "-list",
                      "-type=bc", "-input=" + piece).decode().split()
            ours = [e["id"] for e in c["entries"]]
            if sorted(ids) != sorted(ours):
                die("container #%d: LLVM lists %s, we %s" % (c["number"], ids, ours))
            nent += len(ours)
            continue
        if mode != "extract":
            continue
        for e in c["entries"]:
            if e["size"] == 0 or e["offload_kind"] == "host":
                continue
            ref = os.path.join(tmp, "ref")
            if c["format"] in ("bundle", "ccob", "object-bundle"):
                kind = "o" if c["format"] == "object-bundle" else "bc"
                run(os.path.join(LLVM, "clang-offload-bundler"), "-unbundle",
                    "-type=" + kind, "-input=" + piece, "-targets=" + e["id"],
                    "-output=" + ref)
                name = "%s%s.%d.%s" % (base, safe(members), c["number"], safe(e["id"]))
            elif c["format"] == "package":
                run(os.path.join(LLVM, "llvm-offload-binary"), piece,
                    "--image=file=%s,triple=%s,arch=%s" % (ref, e["triple"], e["arch"]))
                tid = e["arch"]
                triple = e["triple"] + ("-" if e["triple"].count("-") == 2 else "")
                name = "%s%s.%d.%s" % (base, safe(members), c["number"],
                                       safe("%s-%s-%s" % (e["offload_kind"], triple, tid)))
            else:
                continue
            want = open(ref, "rb").read()
            got = [f for f in os.listdir(outdir) if f.rsplit(".", 1)[0] == name]
            if len(got) != 1:
                die("no single output named %s.*: %s" % (name, sorted(os.listdir(outdir))))
            if open(os.path.join(outdir, got[0]), "rb").read() != want:
                die("%s differs from LLVM's" % got[0])
            if e["uri"] and data[e["offset"]:e["offset"] + e["size"]] != want:
                die("%s: the bytes differ from LLVM's" % e["uri"])
            nent += 1
    print("%d containers, %d entries agree" % (ncont, nent))


if __name__ == "__main__":
    main()
