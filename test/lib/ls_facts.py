#!/usr/bin/env python3
"""ls_facts.py: the facts test/lib/offcode_ls.c prints, from `offload ls
--json` (read on standard input): one JSON object a line, each file's
format, then the ELF, COFF or PE headers of it and of its members, then
each container (the chain of inputs it is in, its section and where
the section lies)
and its entries, with the keys and order of ls --json less what the
library does not give (an entry's kernels, a kpack wrapper), plus an
entry's processor and features (its arch split at its first ':').
Usage: offload ls --json FILE... | ls_facts.py"""
import json
import sys


def dump(obj):
    print(json.dumps(obj, separators=(",", ":"), ensure_ascii=False))


def containers(chain, section, conts):
    for c in conts:
        d = {"input": chain, "section": section and section["index"]}
        if section:
            d["section_offset"] = section["offset"]
            d["section_size"] = section["size"]
        d.update((k, v) for k, v in c.items() if k != "entries")
        dump(d)
        for e in c.get("entries", []):
            d = {"container": c["number"]}
            d.update((k, v) for k, v in e.items()
                     if k not in ("kernels", "wrapper"))
            arch = e["arch"]
            d["processor"] = arch.split(":")[0] if arch is not None else None
            d["features"] = (arch.split(":", 1)[1] if ":" in arch else "") \
                if arch is not None else None
            dump(d)


def walk(chain, node):
    for s in node.get("sections", []):
        containers(chain, s, s["containers"])
    containers(chain, None, node.get("containers", []))
    for m in node.get("members", []):
        walk(chain + [m["member"]], m)


def hosts(chain, node):
    """The "elf", "coff" or "pe" object of the file and its members, in
    the order they lie."""
    for key in ("elf", "coff", "pe"):
        if key in node:
            dump({"host": chain, key: node[key]})
    for m in node.get("members", []):
        hosts(chain + [m["member"]], m)


def main():
    doc = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    for f in doc["files"]:
        dump({"file": f["path"], "format": f["format"]})
        hosts([f["path"]], f)
        walk([f["path"]], f)


if __name__ == "__main__":
    main()
