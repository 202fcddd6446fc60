#!/usr/bin/env python3
"""diagnose.py FILE...: for each FILE, the reason ls, extract, prune and du
each give (the text after "'FILE': " on the first error line; "-" for none,
or for a reason that says there is nothing to do: no offload code, no device
code, a file of no known format), checked to agree (diagnosis.test).  ls and
du read the same headers: the same reason.  extract and prune (--keep '*',
nothing written) decode more (CCOBs; extract every entry): whatever ls finds
they find, in the same words, and what they find beyond it, each that finds
it says the same.  Prints nothing when they agree; else the four reasons,
exit 1.  (Python, not a shell loop: the corpus is hundreds of files, and a
pipeline of grep and sed per command cost more than the commands.)"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

NOTHING = (b"no offload code to prune", b"not a file of a known format")


def why(err, path):
    """The reason on err's first error line, or "-"."""
    line = next((l for l in err.split(b"\n") if b": error: " in l), b"")
    m = re.match(rb"^[^']*'" + re.escape(os.fsencode(path)) + rb"': ", line)
    if m:
        line = line[m.end():]
    if not line or line.startswith(NOTHING):
        return b"-"
    return line


def reason(cmd, path):
    r = subprocess.run(cmd, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return why(r.stderr, path)


def main():
    out = tempfile.mkdtemp(prefix="diagnose.")
    x = os.path.join(out, "x")
    rc = 0
    try:
        for f in sys.argv[1:]:
            shutil.rmtree(x, ignore_errors=True)
            l = reason(["offload", "ls", f], f)
            e = reason(["offload", "extract", "-q", "-o", x, f], f)
            p = reason(["offload", "prune", "-n", "--keep", "*", f], f)
            d = reason(["offload", "du", "-q", f], f)
            ok = l == d
            if l != b"-":
                ok = ok and e == l and p == l
            elif e != b"-" and p != b"-" and e != p:
                ok = False
            if ok:
                continue
            sys.stdout.buffer.write(b"%s\n  ls: %s\n  extract: %s\n  prune: %s\n  du: %s\n"
                                    % (os.fsencode(f), l, e, p, d))
            rc = 1
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
