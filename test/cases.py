#!/usr/bin/env python3
"""Run command-line cases against a tool directory and record what happened.

A case is one shell command line run in a fresh scratch directory with
PATH=<tooldir>:$PATH, so the tool under test is found by its LLVM name and
prints the same argv[0] as LLVM's.  The record of a case is its exit status,
stdout, stderr, and the name, size and SHA-256 of every file the directory
holds afterwards.  Records from LLVM 22 are the golden files; ours must match
them byte for byte.

  cases.py record TOOLDIR CASEFILE          print records
  cases.py record --root VERSION CASEFILE   print LLVM VERSION's records,
                                            its tools run in its root
  cases.py check [--release VERSION] TOOLDIR CASEFILE... GOLDEN
                                            compare with a golden file (ours
                                            following LLVM VERSION, default 22;
                                            the records of several case files
                                            one after the other)
  cases.py live VERSION TOOLDIR CASEFILE... compare with LLVM VERSION's
                                            tools in its root (Root)
"""
import difflib
import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def read_cases(path):
    """Cases are blocks separated by blank lines; '#' lines are comments;
    a block's lines are joined into one shell script."""
    cases, block = [], []
    with open(path, encoding="utf-8") as f:
        for line in f.read().split("\n"):
            if line.startswith("#"):
                continue
            if line.strip():
                block.append(line)
            elif block:
                cases.append("\n".join(block))
                block = []
    if block:
        cases.append("\n".join(block))
    return cases


def fixtures(d):
    """The files every case starts with: small, fixed, varied contents."""
    files = {
        "host.txt": b"HOSTDATA\n",
        "tgt1": b"Content of device file 1\n",
        "tgt2": b"Content of device file 2\n",
        "tgt3": b"no trailing newline",
        "empty": b"",
        "crlf.txt": b"line one\r\nline two\r\n",
        "bin1": bytes(range(256)) * 3,
        "nul": b"\0",
    }
    for name, data in files.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
    return set(files)


class Root:
    """The Debian root holding LLVM `version`'s tools (test/refroot.sh),
    where a case runs with either tool: LLVM's in /usr/lib/llvm-V/bin, ours
    staged into the root's /tmp (the binary, its links, the two libraries
    the root lacks: bookworm's libelf and libmsgpackc) with the test
    fixtures beside them.  chroot needs root.

      root = Root("23"); root.why_not() -> None or why it cannot run
      ours = root.stage(bindir)   # tooldir of ours, as the root sees it
      d = root.mkdtemp(); record_in(d, tooldir, script, root=root)
      root.close()                # removes what stage made
    """

    def __init__(self, version):
        self.version = version
        self.dir = subprocess.run(
            ["sh", os.path.join(HERE, "refroot.sh"), "--path", version],
            capture_output=True, text=True).stdout.strip()
        self.llvm = "/usr/lib/llvm-%s/bin" % version
        self.staged = None
        self.chroot = shutil.which("chroot") or "/usr/sbin/chroot"

    def why_not(self):
        if not os.path.exists(self.dir + self.llvm + "/clang"):
            return "no LLVM %s root in %s (sh test/refroot.sh %s makes it)" % (
                self.version, self.dir, self.version)
        if os.geteuid() != 0:
            return "not root: cannot chroot into the LLVM %s root" % self.version
        return None

    def mkdtemp(self, prefix="offload-case-"):
        return tempfile.mkdtemp(prefix=prefix, dir=self.dir + "/tmp")

    def inner(self, path):
        """path (under the root) as the root sees it."""
        return "/" + os.path.relpath(path, self.dir)

    def stage(self, bindir):
        self.staged = self.mkdtemp("offload-ours-")
        shutil.copytree(bindir, os.path.join(self.staged, "bin"),
                        symlinks=True)
        lib = os.path.join(self.staged, "lib")
        os.mkdir(lib)
        for name in ("libelf.so.1", "libmsgpackc.so.2"):
            for d in ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
                      "/lib64", "/usr/lib64"):
                if os.path.exists(os.path.join(d, name)):
                    shutil.copy(os.path.join(d, name), lib)
                    break
        # The fixtures the cases copy ($HERE/objects, $HERE/files), as
        # outside the root: a case must not compare two tools' "no such
        # file" alone.
        for d in ("objects", "files"):
            shutil.copytree(os.path.join(HERE, d),
                            os.path.join(self.staged, "test", d))
        for f in os.listdir(HERE):
            if f.endswith(".py"):
                shutil.copy(os.path.join(HERE, f),
                            os.path.join(self.staged, "test"))
        return self.inner(os.path.join(self.staged, "bin"))

    def here(self):
        """The staged test directory ($HERE of the cases), as seen inside."""
        return self.inner(os.path.join(self.staged, "test"))

    def close(self):
        if self.staged:
            shutil.rmtree(self.staged, ignore_errors=True)
            self.staged = None


TIMERS = re.compile(r"===-{73}===\n +(Timer group for [^\n]*)\n===-{73}===\n"
                    r"  Total Execution Time: [^\n]*\n\n[^\n]*--- Name ---\n"
                    r"((?:[^\n]*\n)*?)[^\n]*  Total\n\n")


PY_TRACEBACK = re.compile(r"^Traceback \(most recent call last\):\n(?:  .*\n)*",
                          re.M)


def traceback_frames(m):
    return "".join(l for l in m.group(0).splitlines(True)
                   if not l.startswith("    "))


def timer_names(m):
    rows = [l.rsplit("  ", 1)[-1] for l in m.group(2).split("\n") if l]
    return "<%s: %s>\n" % (m.group(1), ", ".join(sorted(rows)))


def record_one(tooldir, script, root=None, llvm="22"):
    d = root.mkdtemp() if root else tempfile.mkdtemp(prefix="offload-case-")
    try:
        fixtures(d)
        return record_in(d, tooldir, script, root=root, llvm=llvm)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def wait_bounded(p, timeout, runaway, *outs):
    """p's exit status; None when it ran past timeout seconds, or (with
    runaway) wrote more than runaway bytes to one of outs, when p and all
    it started are killed.  A damaged bundle can make LLVM's -list loop
    printing the same names: at a few MB/s of CPU it would spin out the
    whole timeout (idle wall time for the suite, its CPU uncounted)."""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        try:
            return p.wait(timeout=left if runaway is None else min(left, 0.1))
        except subprocess.TimeoutExpired:
            pass
        if time.monotonic() >= deadline or runaway is not None and any(
                os.fstat(f.fileno()).st_size > runaway for f in outs):
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            return None


def record_in(d, tooldir, script, timeout=120, extra_env=None, llvm="22",
              root=None, runaway=None):
    """Run script in directory d and describe what it did; our LLVM-named
    tools follow LLVM release llvm (OFFLOAD_LLVM).  With a Root, d is in it
    and the script runs there, chrooted, tooldir as the root sees it.
    runaway=N: a script whose stdout or stderr passes N bytes is a hang
    (LLVM looping as it writes), killed then rather than at the timeout."""
    env = dict(os.environ)
    env["OFFLOAD_LLVM"] = llvm
    env["PATH"] = os.path.abspath(tooldir) + ":" + env.get("PATH", "")
    env["HERE"] = HERE
    argv = ["sh", "-c", script]
    cwd = d
    if root:
        env["PATH"] = "%s:%s:/usr/local/bin:/usr/bin:/bin" % (tooldir,
                                                              root.llvm)
        env["HERE"] = root.here()
        env["LD_LIBRARY_PATH"] = root.inner(os.path.join(root.staged, "lib"))
        env["TMPDIR"] = "/tmp"
        argv = [root.chroot, root.dir, "sh", "-c", 'cd "$0" && exec sh -c "$1"',
                root.inner(d), script]
        cwd = "/"
    for var in ("OFFLOAD_BUNDLER_COMPRESS", "OFFLOAD_BUNDLER_VERBOSE",
                "OFFLOAD_BUNDLER_COMPRESSION_LEVEL",
                "COMPRESSED_BUNDLE_FORMAT_VERSION",
                "OFFLOAD_BUNDLER_IGNORE_ENV_VAR"):
        env.pop(var, None)
    env.update(extra_env or {})
    # Output goes to files (read back bounded), and a hung case is killed
    # with everything it started: LLVM can loop writing heap memory.
    with tempfile.TemporaryFile() as so, tempfile.TemporaryFile() as se:
        p = subprocess.Popen(argv, cwd=cwd, env=env,
                             stdin=subprocess.DEVNULL, stdout=so, stderr=se,
                             start_new_session=True)
        rc = wait_bounded(p, timeout, runaway, so, se)
        if rc is None:
            return "rc=timeout"
        so.seek(0)
        se.seek(0)
        stdout = so.read(1 << 20).decode("latin-1")
        stderr = se.read(1 << 20).decode("latin-1")
    # Speeds in -verbose reports vary from run to run, and so do LLVM 23's
    # timer tables: each becomes the sorted names of its rows.
    err = re.sub(r"(speed: )[0-9.]+( MB/s)", r"\1N\2", stderr)
    err = TIMERS.sub(timer_names, err)
    # A Python traceback (a case's script that fails after a tool did):
    # its frames alone, without the source lines and carets that newer
    # Pythons (the roots') print and older ones not.
    err = PY_TRACEBACK.sub(traceback_frames, err)
    out = ["rc=%d" % rc, "--- stdout", stdout, "--- stderr", err]
    for name in sorted(os.listdir(d)):
        path = os.path.join(d, name)
        if os.path.isfile(path):
            h, size = hashlib.sha256(), 0
            with open(path, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
                    size += len(block)
            out.append("--- file %s %d %s" % (name, size,
                                               h.hexdigest()[:32]))
    return "\n".join(out)


# LLVM 24's hidden listings hold some 750 options of its libraries, which
# ours leaves out (a documented difference): those cases are not compared.
HIDDEN_LISTING = re.compile(r"--?help(-list)?-hidden")


def record(tooldir, casefile, root=None, llvm="22"):
    return ["### %s\n%s\n" % (c, record_one(tooldir, c, root, llvm))
            for c in read_cases(casefile)
            if int(llvm) < 24 or not HIDDEN_LISTING.search(c)]


def split_golden(path):
    with open(path, encoding="latin-1", newline="") as f:
        text = f.read()
    return ["### " + r for r in ("\n" + text).split("\n### ") if r.strip()]


def tolerate_partial_outputs(want, got):
    """LLVM leaves the outputs it wrote before failing; we write outputs
    atomically and leave none.  When the case failed, drop from LLVM's record
    the files that we (rightly) did not leave behind."""
    def rc(rec):
        return next((l for l in rec.split("\n") if l.startswith("rc=")), "")
    if rc(want) in ("rc=0", "") or rc(want) != rc(got):
        return want
    ours = set(l for l in got.split("\n") if l.startswith("--- file "))
    return "\n".join(l for l in want.split("\n")
                     if not l.startswith("--- file ") or l in ours)


def main():
    if len(sys.argv) == 5 and sys.argv[1:3] == ["record", "--root"]:
        root = Root(sys.argv[3])
        why = root.why_not()
        if why:
            print(why, file=sys.stderr)
            return 1
        try:
            root.stage(os.path.join(HERE, "..", "build", "bin"))
            sys.stdout.write("\n".join(record(root.llvm, sys.argv[4], root,
                                              sys.argv[3])))
        finally:
            root.close()
        return 0
    if len(sys.argv) >= 4 and sys.argv[1] == "record":
        sys.stdout.write("\n".join(record(sys.argv[2], sys.argv[3])))
        return 0
    release = "22"
    if len(sys.argv) >= 4 and sys.argv[1:3] == ["check", "--release"]:
        release = sys.argv[3]
        del sys.argv[2:4]
    if len(sys.argv) >= 5 and sys.argv[1] in ("check", "live"):
        if sys.argv[1] == "check":
            got = []
            for cases in sys.argv[3:-1]:
                got += record(sys.argv[2], cases, llvm=release)
            want = split_golden(sys.argv[-1])
        else:
            root = Root(sys.argv[2])
            why = root.why_not()
            if why:
                required = os.environ.get("REQUIRE_LLVM") == "1"
                print("%s: %s" % ("FAIL" if required else "SKIP", why))
                print("0 passed, %d failed" % (1 if required else 0))
                return 1 if required else 0
            try:
                ours = root.stage(sys.argv[3])
                want, got = [], []
                for cases in sys.argv[4:]:
                    want += record(root.llvm, cases, root, sys.argv[2])
                    got += record(ours, cases, root, sys.argv[2])
            finally:
                root.close()
        passed = failed = 0
        if len(got) != len(want):
            print("FAIL: %d cases but %d golden records (regenerate)"
                  % (len(got), len(want)))
            failed += 1
        for g, w in zip(got, want):
            w = tolerate_partial_outputs(w, g)
            if g.rstrip("\n") == w.rstrip("\n"):
                passed += 1
                continue
            failed += 1
            print("FAIL: " + g.split("\n", 1)[0][4:])
            for line in difflib.unified_diff(
                    w.rstrip("\n").split("\n"), g.rstrip("\n").split("\n"),
                    "llvm", "offload", lineterm="", n=1):
                print("    " + line)
        print("%d passed, %d failed" % (passed, failed))
        return 1 if failed else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
