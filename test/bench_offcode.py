#!/usr/bin/env python3
"""bench_offcode.py ls|extract FILE [DIR]: what test/bench.py times of the
offcode package against `offload ls` and `offload extract` (issue 37).

  ls FILE           every container and entry, one line each, as a
                    program listing the file would (open, walk, print)
  extract FILE DIR  every code object, decompressed, written to a file of
                    its own in DIR (each CCOB inflated once: each_code)

PYTHONPATH names the extension built against this tree (bench.py builds
it)."""
import os
import sys

import offcode


def ls(path):
    out = []
    with offcode.open(path) as art:
        for c in art:
            out.append("%s #%d at %s: %d bytes, %d entries" % (
                c.format, c.number, c.offset, c.size, len(c)))
            for e in c:
                out.append("  %s  %s  %d  %s" % (e.id, e.arch, e.size, e.uri))
    sys.stdout.write("\n".join(out) + "\n")


def extract(path, d):
    os.makedirs(d, exist_ok=True)

    def write(e, code):
        with open(os.path.join(d, "%d.%d.co" % (e.container.number, e.index)), "wb") as f:
            f.write(code)
    with offcode.open(path) as art:
        art.each_code(write)


if __name__ == "__main__":
    if sys.argv[1] == "ls":
        ls(sys.argv[2])
    else:
        extract(sys.argv[2], sys.argv[3])
