#!/usr/bin/env python3
"""bench_offcode.py ls|walk|extract FILE [DIR]: what test/bench.py times of the
offcode package against `offload ls` and `offload extract` (issue 37).

  ls FILE           every container and entry, one line each, as a
                    program listing the file would (open, walk, print)
  walk FILE         ls's lines, from the streaming walk (offcode.walk):
                    each container's line at its end (its entries
                    counted), each entry's as it comes, nothing kept
  extract FILE DIR  every code object, decompressed, written to a file of
                    its own in DIR, as extract --all does: one walk
                    (Artifact.extract_all), each CCOB inflated once, stored
                    code copied by the kernel
  read FILE         every code object, decompressed, handed to Python as
                    bytes (Artifact.each_code), its length summed
  startup           nothing: the interpreter's start and this script's,
                    offcode not imported (bench.py's floor for Python)

PYTHONPATH names the extension built against this tree (bench.py builds
it)."""
import os
import sys


def ls(path):
    # Each line written as it is made, through sys.stdout's buffer, as
    # offload ls writes through stdio's (the lines gathered and joined
    # first, some 1.2 MB of strings, cost more page faults than the
    # listing's objects: issue 37's figure was taken that way before).
    import offcode
    write = sys.stdout.write
    with offcode.open(path) as art:
        for c in art:
            write("%s #%d at %s: %d bytes, %d entries\n" % (
                c.format, c.number, c.offset, c.size, len(c)))
            for e in c:
                write("  %s  %s  %d  %s\n" % (e.id, e.arch, e.size, e.uri))


def walk(path):
    # A container's line comes before its entries' as in ls, so they are
    # held until its end: the one container's, not the file's.
    import offcode
    write = sys.stdout.write
    lines = []

    def visit(n):
        kind = n.kind
        if kind == "entry":
            e = n.entry
            lines.append("  %s  %s  %d  %s\n" % (e.id, e.arch, e.size, e.uri))
        elif kind == "container_end":
            c = n.container
            write("%s #%d at %s: %d bytes, %d entries\n" % (
                c.format, c.number, c.offset, c.size, len(lines)))
            write("".join(lines))
            del lines[:]
    offcode.walk(path, visit)


def extract(path, d):
    import offcode
    os.makedirs(d, exist_ok=True)
    with offcode.open(path) as art:
        art.extract_all(lambda e: os.path.join(
            d, "%d.%d.co" % (e.container.number, e.index)))


def read(path):
    import offcode
    total = [0]

    def add(e, code):
        total[0] += len(code)
    with offcode.open(path) as art:
        art.each_code(add)
    print(total[0])


if __name__ == "__main__":
    if sys.argv[1] == "startup":
        pass
    elif sys.argv[1] == "ls":
        ls(sys.argv[2])
    elif sys.argv[1] == "walk":
        walk(sys.argv[2])
    elif sys.argv[1] == "read":
        read(sys.argv[2])
    else:
        extract(sys.argv[2], sys.argv[3])
