"""A file cut short while the library reads its map: the extension installs
the library's SIGBUS handler at import (offcode_catch_sigbus), so a walk,
a Source or an artefact whose file is truncated under it (by the visitor,
another process) raises ChangedError naming the file, the interpreter
alive; bytes read from a Source's map past the cut are zeros.  Any other
SIGBUS still reaches what was there before: faulthandler, a Python-level
handler, SIG_IGN, or the default death.  Run by test/python.test, as
test_offcode.py is."""
import os
import signal
import subprocess
import sys

import pytest

import offcode
from test_offcode import TOP

APP = os.path.join(TOP, "test/files/inspect/app")
LIB_A = os.path.join(TOP, "test/files/inspect/lib.a")
CHANGED = "file changed size while being read"


def copy(src, tmp_path, name="t"):
    f = tmp_path / name
    data = open(src, "rb").read()
    f.write_bytes(data)
    return str(f), data


def cutting_visitor(path, to, seen):
    def visit(n):
        if not seen:
            os.truncate(path, to)
        seen.append((n.kind, n.depth))
    return visit


# The archive's member headers past 8192 are read after its input's node:
# no node read from the zeros is handed over.
@pytest.mark.parametrize("code", [False, True])
def test_walk_of_a_file_cut_by_its_visitor(tmp_path, code):
    f, _ = copy(LIB_A, tmp_path)
    seen = []
    with pytest.raises(offcode.ChangedError) as x:
        offcode.walk(f, cutting_visitor(f, 8192, seen), code=code)
    assert seen == [("input", 0)]
    assert (str(x.value), x.value.reason, x.value.path) == \
        ("'%s': %s" % (f, CHANGED), CHANGED, f)


# The change is that call's failure alone: a prune after it (whose output
# is refused where its own input was cut) writes as ever.
def test_a_cut_fails_no_later_call(tmp_path):
    f, _ = copy(LIB_A, tmp_path)
    with pytest.raises(offcode.ChangedError):
        offcode.walk(f, cutting_visitor(f, 8192, []))
    r = offcode.prune(APP, tmp_path / "pruned", keep="gfx90a")
    assert (r.size_before, r.entries_kept, r.entries_dropped) == (47568, 4, 2)
    with offcode.open(str(tmp_path / "pruned")) as a:
        assert len(a.entries) == 4


def test_walk_of_an_executable_cut_to_nothing_by_its_visitor(tmp_path):
    f, _ = copy(APP, tmp_path)
    seen = []
    with pytest.raises(offcode.ChangedError) as x:
        offcode.walk(f, cutting_visitor(f, 0, seen), code=True)
    assert seen == [("input", 0)]
    assert str(x.value) == "'%s': %s" % (f, CHANGED)


# Cut inside the one page of a small file: the bytes past the cut read as
# zeros with no fault, reach the nodes, and the walk's end says the change.
def test_walk_of_a_file_cut_inside_its_last_page(tmp_path):
    f, _ = copy(os.path.join(TOP, "test/files/inspect/pkg.bin"), tmp_path)
    seen = []
    with pytest.raises(offcode.ChangedError) as x:
        offcode.walk(f, cutting_visitor(f, 100, seen))
    assert seen == [("input", 0), ("container", 1), ("entry", 2), ("container_end", 1)]
    assert str(x.value) == "'%s': %s" % (f, CHANGED)


def test_walk_of_a_descriptor_cut_by_its_visitor(tmp_path):
    f, _ = copy(LIB_A, tmp_path)
    fd = os.open(f, os.O_RDONLY)
    try:
        seen = []
        with pytest.raises(offcode.ChangedError) as x:
            offcode.walk(fd, cutting_visitor(f, 8192, seen))
        assert str(x.value) == "'<fd %d>': %s" % (fd, CHANGED)
        os.fstat(fd)                        # the caller's, still open
    finally:
        os.close(fd)


# A mapped Source is walked by its descriptor (a map of the walk's own):
# that walk says the change; the Source's bytes lost read as zeros (those
# before the cut as they were), its size as it was; a walk of it again is
# the file as it is now (cut in an archive member: truncated).
def test_source_walked_and_read_after_a_cut(tmp_path):
    f, data = copy(LIB_A, tmp_path)
    with offcode.Source(f) as s:
        seen = []
        with pytest.raises(offcode.ChangedError) as x:
            offcode.walk(s, cutting_visitor(f, 8192, seen))
        assert seen == [("input", 0)]
        assert str(x.value) == "'%s': %s" % (f, CHANGED)
        with s.bytes as b:
            assert b.tobytes() == data[:8192] + bytes(len(data) - 8192)
        assert s.size == len(data)
        seen = []
        with pytest.raises(offcode.TruncatedError) as x:
            offcode.walk(s, lambda n: seen.append((n.kind, n.depth)))
        assert seen == [("input", 0)]
        assert str(x.value) == ("'%s': truncated or malformed archive (offset to next "
                                "archive member past the end of the archive after "
                                "member hipobj.o)" % f)


def test_source_bytes_past_a_cut_read_as_zeros(tmp_path):
    f, data = copy(APP, tmp_path)
    with offcode.Source(f) as s:
        with s.bytes as b:
            assert b[:4].tobytes() == b"\x7fELF"    # pages read before
            os.truncate(f, 5000)                    # mid-page
            assert b.tobytes() == data[:5000] + bytes(len(data) - 5000)
            assert len(data) - 5000 > 3 * 4096


# An artefact's reads: refused before the walk when cut since the open
# (as before), and when cut during the walk, by its own callback.
def test_open_then_cut_then_read(tmp_path):
    f, _ = copy(APP, tmp_path)
    with offcode.open(f) as a:
        e = a.entries[-1]
        os.truncate(f, e.offset)
        with pytest.raises(offcode.ChangedError) as x:
            e.read()
    assert x.value.reason == "'%s': cut short since it was opened" % f


@pytest.mark.parametrize("src", [APP, LIB_A])
def test_each_code_cut_by_its_callback(tmp_path, src):
    f, _ = copy(src, tmp_path)
    got = []

    def fn(e, code):
        if not got:
            os.truncate(f, 0)
        got.append(e.index)
    with offcode.open(f) as a:
        assert len(a.entries) > 1
        with pytest.raises(offcode.ChangedError) as x:
            a.each_code(fn)
    assert got == [0]
    assert x.value.reason == "'%s': cut short since it was opened" % f


# ---- any other SIGBUS, and SIGSEGV: as without the library ----

def python(code, *opts):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONFAULTHANDLER"}
    # (under the sanitizers' runtime, python.test preloads it: its own
    # handlers would report these faults in its words)
    if "LD_PRELOAD" in env:
        env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + \
            ":handle_segv=0:handle_sigbus=0"
    r = subprocess.run([sys.executable, *opts, "-c", code], env=env,
                       capture_output=True, text=True, timeout=60)
    return r.returncode, r.stdout, r.stderr


KILL_BUS = "import os, signal; os.kill(os.getpid(), signal.SIGBUS); print('alive')"


def test_a_sigbus_sent_kills_with_the_default_as_before():
    rc, out, err = python("import offcode; " + KILL_BUS)
    assert (rc, out, err) == (-signal.SIGBUS, "", "")


# A real fault on a map that is not the library's: Python's own mmap of a
# file cut short.
def test_a_sigbus_on_a_map_not_the_librarys_kills(tmp_path):
    f, _ = copy(APP, tmp_path)
    code = ("import mmap, os, offcode\n"
            "with open(%r, 'rb') as fp:\n"
            "    m = mmap.mmap(fp.fileno(), 0, prot=mmap.PROT_READ)\n"
            "os.truncate(%r, 0)\n"
            "print(m[20000], flush=True)\n" % (f, f))
    rc, out, err = python(code)
    assert (rc, out, err) == (-signal.SIGBUS, "", "")
    copy(APP, tmp_path)
    rc, out, err = python(code, "-X", "faulthandler")
    assert (rc, out, err.splitlines()[0]) == \
        (-signal.SIGBUS, "", "Fatal Python error: Bus error")


def test_faulthandler_still_reports_sigbus_and_sigsegv():
    rc, out, err = python("import offcode; " + KILL_BUS, "-X", "faulthandler")
    assert (rc, out, err.splitlines()[0]) == \
        (-signal.SIGBUS, "", "Fatal Python error: Bus error")
    rc, out, err = python("import offcode, ctypes; ctypes.string_at(0)",
                          "-X", "faulthandler")
    assert (rc, out, err.splitlines()[0]) == \
        (-signal.SIGSEGV, "", "Fatal Python error: Segmentation fault")


# Python lets a program set SIGBUS's handler: one set before the import is
# called for a SIGBUS sent; one ignored stays ignored.  A cut is still the
# library's to catch.
def test_a_python_handler_and_sig_ign_set_before_import(tmp_path):
    f, _ = copy(LIB_A, tmp_path)
    cut = ("try:\n"
           "    offcode.walk(%r, lambda n: os.truncate(%r, 8192))\n"
           "except offcode.ChangedError as e:\n"
           "    print(e)\n" % (f, f))
    rc, out, err = python(
        "import os, signal\n"
        "signal.signal(signal.SIGBUS, lambda s, fr: print('handler', s))\n"
        "import offcode\n" + cut + KILL_BUS)
    assert (rc, out, err) == \
        (0, "'%s': %s\nhandler 7\nalive\n" % (f, CHANGED), "")
    f, _ = copy(LIB_A, tmp_path)
    rc, out, err = python(
        "import os, signal\n"
        "signal.signal(signal.SIGBUS, signal.SIG_IGN)\n"
        "import offcode\n" + cut + KILL_BUS)
    assert (rc, out, err) == (0, "'%s': %s\nalive\n" % (f, CHANGED), "")
