#!/usr/bin/env python3
"""swaprace.py: a tree walker raced by a live swapper, for test/swaprace.test.

    swaprace.py ours SECONDS OFFLOAD FIXDIR
    swaprace.py naive SECONDS FIXDIR

In the current directory: a tree t/ whose directory t/sub holds a program
(app) and a code object of gfx90a alone (k.co), and beside the tree a
victim directory victim/ holding files of the same names.  A swapper
process exchanges t/sub with t/sublink, a symbolic link to ../victim, as
fast as it can (renameat2 RENAME_EXCHANGE: at every moment one of the two
is the directory, the other the link), so that t/sub is the link half of
the time, at any point of a walk.  The command then runs again and again
for SECONDS (the swapper stopped between runs while what the last run
removed or pruned is put back in the real directory):

  ours   offload prune -r --keep gfx1100 t, with --remove-files every
         other run (in place: app pruned, k.co removed)
  naive  a walk as a script would write it: os.walk, then each file
         opened, rewritten and removed by its path (the control: it
         must be caught)

After each run the victim is summed; it must not change, nor may any
name appear outside t/ (a temporary left beside the victim).  Printed:
"victim unchanged" or "victim changed" (after the first run that changed
it), and for ours how many runs there were at least (a floor, so the
output is the same on a slow machine) and whether any pruned the tree
(the walk was not merely refused each time).
"""
import ctypes
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time

AT_FDCWD = -100
RENAME_EXCHANGE = 2


def sums(d):
    out = {}
    for name in sorted(os.listdir(d)):
        p = os.path.join(d, name)
        with open(p, "rb") as f:
            out[name] = hashlib.sha256(f.read()).hexdigest()
    return out


def swapper():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int,
                               ctypes.c_char_p, ctypes.c_uint]
    while True:
        libc.renameat2(AT_FDCWD, b"t/sub", AT_FDCWD, b"t/sublink",
                       RENAME_EXCHANGE)


def real_dir():
    """The one of t/sub and t/sublink that is the directory now."""
    return "t/sublink" if os.path.islink("t/sub") else "t/sub"


def restore(fix, d):
    for name in ("app", "k.co"):
        shutil.copyfile(os.path.join(fix, name), os.path.join(d, name))


def naive(_):
    for top, _dirs, files in os.walk("t"):
        for name in files:
            p = os.path.join(top, name)
            try:
                with open(p, "rb") as f:
                    data = f.read()
                if name.endswith(".co"):
                    os.unlink(p)
                else:
                    with open(p, "wb") as f:
                        f.write(data[: len(data) // 2])
            except OSError:
                pass


def main():
    mode, seconds = sys.argv[1], float(sys.argv[2])
    offload = sys.argv[3] if mode == "ours" else None
    fix = sys.argv[-1]
    os.makedirs("t/sub")
    os.makedirs("victim")
    restore(fix, "t/sub")
    restore(fix, "victim")
    os.symlink("../victim", "t/sublink")
    want = sums("victim")
    beside = sorted(os.listdir("."))
    pid = os.fork()
    if pid == 0:
        os.setpgid(0, 0)
        try:
            swapper()
        finally:
            os._exit(0)
    runs, acted, changed = 0, 0, False
    with open(os.path.join(fix, "app"), "rb") as f:
        app = f.read()
    end = time.monotonic() + seconds
    try:
        while time.monotonic() < end and not changed:
            os.kill(pid, signal.SIGSTOP)
            d = real_dir()
            if runs:
                with open(os.path.join(d, "app"), "rb") as f:
                    acted += (f.read() != app or
                              not os.path.exists(os.path.join(d, "k.co")))
            restore(fix, d)
            os.kill(pid, signal.SIGCONT)
            if mode == "ours":
                cmd = [offload, "prune", "-r", "-q", "-j", "1", "--keep",
                       "gfx1100", "t"]
                if runs % 2:
                    cmd.insert(3, "--remove-files")
                subprocess.run(cmd, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, timeout=60)
            else:
                naive(None)
            runs += 1
            changed = (sums("victim") != want or
                       sorted(os.listdir(".")) != beside)
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    print("victim changed" if changed else "victim unchanged")
    if mode == "ours":
        floor = 10
        print("at least %d runs" % floor if runs >= floor
              else "only %d runs" % runs)
        print("the tree pruned in some" if acted else "the tree never pruned")


if __name__ == "__main__":
    main()
