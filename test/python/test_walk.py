"""offcode.walk(), the library's streaming walk, against the offload tool
and offcode.open(): on every fixture test_offcode.py lists, its nodes make
`offload ls --json`'s objects (and open()'s), with code=True its code is
what `offload extract` writes, verify=True says the bad hash `ls --verify`
says; a visitor stops it by its result or an exception; nodes and records
kept past their visit read as documented; hostile files are refused as
open() refuses them; and memory stays flat over an archive of 20,000
members.  Run by test/python.test, as test_offcode.py is."""
import gc
import hashlib
import os
import signal
import subprocess
import sys
import threading

import pytest

import offcode
from test_offcode import (ENV, FIXTURES, HOSTILE, KERNEL_FIXTURES, OFFLOAD,
                          READ_FIXTURES, TOP, extracted, ls, ls_json, project)

APP = "test/files/inspect/app"
LIB_A = "test/files/inspect/lib.a"
BAD_HASH = "test/files/bad/inspect-ccob-hash.bin"


@pytest.fixture(scope="module", autouse=True)
def at_top():
    os.chdir(TOP)


def walked_json(source, **kw):
    """The file's object of ls --json, made of walk()'s nodes alone: an
    input's at its node, a section's at its, a container's at its end
    (with what is known then), an entry's at its."""
    stack = []          # the open inputs' objects, outermost first
    entries = []

    def visit(n):
        if n.kind == "input":
            inp = n.input
            assert inp.depth == n.depth and not inp.members and not inp.containers
            d = {"member" if inp.depth else "path": inp.name, "format": inp.format,
                 "offset": inp.offset, "size": inp.size, "kernels": None}
            for a in offcode._ARRAYS.get(inp.format, ()):
                d[a] = []
            del stack[inp.depth:]
            if stack:
                assert inp.parent is not None and inp.parent.name == stack[-1][1].name
                stack[-1][0].setdefault("members", []).append(d)
            stack.append((d, inp))
        elif n.kind == "section":
            s = n.section
            stack[-1][0]["sections"].append(
                {"index": s.index, "name": s.name, "kind": s.kind, "offset": None,
                 "size": None, "containers": []})
        elif n.kind == "container":
            assert n.container.entries == [] and n.entry is None
            del entries[:]
        elif n.kind == "entry":
            assert n.entry.container is n.container
            entries.append(n.entry.to_json())
        elif n.kind == "container_end":
            c = n.container
            assert c.input is stack[-1][1] or c.input.name == stack[-1][1].name
            d = c.to_json()
            d["entries"] = list(entries)
            where = stack[-1][0]
            if c.section is not None:
                where = [s for s in where["sections"] if s["index"] == c.section.index][-1]
            where["containers"].append(d)
    assert offcode.walk(source, visit, **kw) is None
    return prune_empty(stack[0][0]) if stack else None


def prune_empty(d):
    """What ls --json leaves out: sections without containers, members
    holding no code (but thin members)."""
    if "sections" in d:
        d["sections"] = [s for s in d["sections"] if s["containers"]]
    if "members" in d:
        d["members"] = [prune_empty(m) for m in d["members"]]
        d["members"] = [m for m in d["members"] if holds_code(m)
                        or m["format"] == "thin-member"]
    return d


def holds_code(d):
    return bool(d.get("containers")) or any(s["containers"] for s in d.get("sections", ())) \
        or any(holds_code(m) for m in d.get("members", ()))


@pytest.mark.parametrize("path", FIXTURES)
def test_walk_is_ls_json_and_open(path):
    rc, files, err = ls_json(path)
    if offcode.path_kind(path):
        # a package: ls lists its files, each as a file of its own; the
        # walk reads it as the archive it is (open(stream=True) and
        # walk_layer are how its files are read)
        assert walked_json(path)["format"] in ("archive", "zip", "tar", "other")
        return
    if rc:
        with pytest.raises(offcode.Error) as e:
            walked_json(path)
        assert e.value.reason in err
        with pytest.raises(type(e.value)) as o:
            offcode.open(path)
        assert o.value.reason == e.value.reason
        return
    if files and files[0]["format"] == "directory":
        return
    got = walked_json(path)
    assert got == project(files[0])
    with offcode.open(path) as art:
        assert got == art.to_json()


@pytest.mark.parametrize("path", KERNEL_FIXTURES + [BAD_HASH])
def test_walk_verify_is_ls_verify(path):
    rc, files, _ = ls_json(path, "--verify")
    if rc or not files:
        pytest.skip("ls --verify fails on it")
    assert walked_json(path, verify=True) == project(files[0])


def test_bad_hash_is_ls_verify_s():
    rc, _, err = ls("--verify", BAD_HASH)
    prefix = "offload ls: error: bad hash in '%s': " % BAD_HASH
    said = [l[len(prefix):] for l in err.splitlines() if l.startswith(prefix)]
    assert rc == 1 and len(said) == 1
    got = []

    def visit(n):
        if n.kind in ("container", "container_end"):
            e = n.hash_error
            got.append((n.kind, e and (type(e).__name__, e.reason),
                        n.container.fields.get("ccob", {}).get("hash_check")))
    offcode.walk(BAD_HASH, visit, verify=True)
    assert got == [("container", None, None),
                   ("container_end", ("BadHashError", said[0]), "mismatch")]
    # not verified: no hash error, its hash "unchecked" as ls --json says
    got.clear()
    offcode.walk(BAD_HASH, visit)
    assert got == [("container", None, None), ("container_end", None, "unchecked")]


def walked_codes(path):
    codes = []

    def visit(n):
        if n.kind == "entry":
            code = n.code
            assert code is None or (isinstance(code, bytes) and len(code) == n.code_size)
            codes.append(code)
        else:
            assert n.code is None and n.code_size is None
    offcode.walk(path, visit, code=True)
    return codes


@pytest.mark.parametrize("path", READ_FIXTURES)
def test_walk_code_is_what_extract_writes(path, tmp_path):
    if offcode.path_kind(path) or ls("--json", path)[0]:
        pytest.skip("a package, or ls fails on it")
    try:
        art = offcode.open(path)
    except offcode.UnsupportedError:
        return
    with art:
        read = []
        art.each_code(lambda e, code: read.append(code))
    codes = walked_codes(path)
    assert [c for c in codes if c is not None] == read
    assert sorted(hashlib.sha256(c).hexdigest() for c in read) == extracted(path, tmp_path)


def test_entries_without_code_are_so_in_headers_walk():
    seen = []
    offcode.walk(APP, lambda n: seen.append((n.kind, n.code, n.code_size)))
    assert [s for s in seen if s[0] == "entry"] == [("entry", None, None)] * 6


def test_path_fd_and_bytes_agree():
    by_path = walked_json(APP)
    with open(APP, "rb") as f:
        data = f.read()
        by_fd = walked_json(f.fileno(), name=APP)
        assert f.tell() == len(data)        # (the caller's fd is its own)
    by_bytes = walked_json(bytearray(data), name=APP)
    assert by_path == by_fd == by_bytes
    unnamed = walked_json(data)
    assert unnamed["path"] == "<memory>"


def test_a_source_is_walked_as_open_takes_it():
    # a mapped file by its descriptor, a pipe's bytes as bytes; named by
    # the source unless a name is given
    by_path = walked_json(APP)
    with offcode.Source(APP) as s:
        assert walked_json(s) == by_path
        assert walked_json(s, name="x")["path"] == "x"
    data = open(APP, "rb").read()
    r, w = os.pipe()
    t = threading.Thread(target=lambda: (os.write(w, data), os.close(w)))
    t.start()
    with offcode.Source(r, name=APP) as s:
        t.join()
        os.close(r)
        assert s.fd is None and walked_json(s) == by_path
    with pytest.raises(TypeError, match="a path, a file descriptor, bytes or a Source"):
        offcode.walk(True, lambda n: None)


def test_a_source_cannot_close_under_its_walk():
    # its descriptor is the walk's till it ends: a close() meanwhile is
    # refused (its number given to another file would be walked on)
    refused = []

    def visit(n):
        if n.kind == "container":
            with pytest.raises(BufferError):
                s.close()
            refused.append(s.closed)
    with offcode.Source(APP) as s:
        assert walked_json(s) == walked_json(APP)
        offcode.walk(s, visit)
        assert refused == [False, False] and not s.closed   # (its two containers)
    assert s.closed


def test_stops_at_a_true_result_which_it_returns():
    kinds = []

    def visit(n):
        kinds.append(n.kind)
        return n.entry.id if n.kind == "entry" and n.entry.arch else 0
    assert offcode.walk(APP, visit) == "hipv4-amdgcn-amd-amdhsa--gfx1100"
    assert kinds == ["input", "section", "container", "entry", "entry"]
    # a false result of any kind goes on
    assert offcode.walk(APP, lambda n: "") is None


def test_an_exception_stops_it_and_is_raised():
    kinds = []

    class Stop(Exception):
        pass

    def visit(n):
        kinds.append(n.kind)
        if n.kind == "container":
            raise Stop(n.container.number)
    with pytest.raises(Stop) as e:
        offcode.walk(APP, visit, code=True)
    assert e.value.args == (0,) and kinds == ["input", "section", "container"]
    # nothing left of it: the next walk is whole
    assert walked_json(APP) == project(ls_json(APP)[1][0])


def test_a_node_kept_by_a_traceback_is_whole():
    def visit(n):
        if n.kind == "entry" and n.entry is not None and n.entry.arch:
            raise LookupError(n.kind)
    with pytest.raises(LookupError) as e:
        offcode.walk(APP, visit, code=True)
    tb = e.value.__traceback__
    while tb.tb_next:
        tb = tb.tb_next
    n = tb.tb_frame.f_locals["n"]
    assert (n.entry.id, n.entry.image_kind, n.container.number, n.input.name) == \
        ("hipv4-amdgcn-amd-amdhsa--gfx1100", "elf", 0, APP)
    with pytest.raises(ValueError):
        n.code


def test_a_visitor_that_is_no_callable_is_refused():
    with pytest.raises(TypeError):
        offcode.walk(APP, None)
    with pytest.raises(TypeError):
        offcode.walk(True, print)
    with pytest.raises(ValueError):
        offcode.walk(APP, print, ccob_max_size=-1)


def test_keyboard_interrupt_stops_at_once():
    seen = []

    def visit(n):
        seen.append(n.kind)
        os.kill(os.getpid(), signal.SIGINT)
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            offcode.walk(LIB_A, visit)
        # a visitor of C runs no bytecode: the signal is seen after it
        seen.clear()
        with pytest.raises(KeyboardInterrupt):
            offcode.walk(LIB_A, lambda n, k=seen.append: (k(n.kind), os.kill(os.getpid(), signal.SIGINT))[0])
    finally:
        signal.signal(signal.SIGINT, old)
    assert seen == ["input"]


class Interrupted(Exception):
    pass


def test_a_signal_while_a_fifo_waits_for_its_writer_raises_its_handlers(tmp_path):
    # open() of a FIFO with no writer waits with the GIL let go; a signal
    # cuts it short (EINTR), and what its handler raises is the call's
    # exception, as Python's own calls raise it (Ctrl-C's
    # KeyboardInterrupt), not a SystemCallError with the handler's after
    fifo = str(tmp_path / "fifo")
    os.mkfifo(fifo)

    def handler(signum, frame):
        raise Interrupted(signum)
    old = signal.signal(signal.SIGUSR1, handler)
    got = []
    try:
        for call in (lambda: offcode.walk(fifo, lambda n: None), lambda: offcode.Source(fifo),
                     lambda: offcode.open(fifo), lambda: offcode.open_split(fifo)):
            t = threading.Timer(0.2, signal.pthread_kill,
                                (threading.main_thread().ident, signal.SIGUSR1))
            t.start()
            try:
                call()
            except Exception as e:
                got.append(type(e).__name__)
            t.join()
    finally:
        signal.signal(signal.SIGUSR1, old)
    assert got == ["Interrupted"] * 4


def test_a_kept_node_reads_as_in_its_visit():
    kept, during = [], []

    def visit(n):
        kept.append(n)
        if n.kind == "entry":
            during.append((n.entry.id, n.entry.uri, n.entry.image_kind, n.entry.to_json()))
    offcode.walk(APP, visit, code=True)
    entries = [n for n in kept if n.kind == "entry"]
    assert [(n.entry.id, n.entry.uri, n.entry.image_kind, n.entry.to_json())
            for n in entries] == during
    assert all(n.entry.container is n.container for n in entries)
    assert entries[0].container is entries[2].container is not entries[3].container
    assert [n.container.number for n in entries] == [0, 0, 0, 1, 1, 1]
    assert entries[0].input is kept[0].input and kept[0].input.parent is None
    assert kept[1].section == (kept[1].section.index, ".hip_fatbin", "hip-fatbin")
    # the code, not read during its visit, is gone; what has none says so
    with pytest.raises(ValueError, match="not read during its visit"):
        entries[1].code
    assert entries[1].code_size == 4696
    assert kept[0].code is None and kept[0].code_size is None
    # an entry of a walk has no artefact to read code from
    for read in (lambda e: e.read(), lambda e: e.kernels(), lambda e: e.matches("gfx90a"),
                 lambda e: e.code_size()):
        with pytest.raises(ValueError, match="has no artefact"):
            read(entries[1].entry)


def test_a_node_in_a_cycle_is_collected():
    # a node set on its container (whose class takes attributes) is a
    # cycle: the collector sees the node, and frees them both
    freed = []

    class Mark:
        def __del__(self):
            freed.append(1)

    def visit(n):
        if n.kind == "container":
            n.container.cycle = (n, Mark())
            return True
    offcode.walk(APP, visit)
    gc.collect()
    assert freed == [1]


def test_code_read_during_its_visit_is_kept():
    kept = []

    def visit(n):
        if n.kind == "entry":
            code = n.code
            kept.append((n, code, memoryview(code)[:4]))
    offcode.walk(APP, visit, code=True)
    with offcode.open(APP) as art:
        assert [n.code for n, _, _ in kept] == [e.read() for e in art.entries]
    assert all(n.code is code for n, code, _ in kept)
    assert bytes(kept[1][2]) == b"\x7fELF"


def test_records_kept_apart_from_their_node():
    entries, inputs = [], []

    def visit(n):
        if n.kind == "entry":
            entries.append(n.entry)
        if n.kind == "input":
            inputs.append(n.input)
    offcode.walk(LIB_A, visit)
    with offcode.open(LIB_A) as art:
        assert [e.to_json() for e in entries] == [e.to_json() for e in art.entries]
        assert [(i.name, i.format, i.offset, i.size, i.depth) for i in inputs] == \
            [(i.name, i.format, i.offset, i.size, i.depth) for i in art.inputs]
    assert all(i.parent is inputs[0] for i in inputs[1:])


def test_node_unread_after_its_visit_raises():
    kept = []

    def visit(n):
        if n.kind == "entry" and not kept:
            # (held by a frame of the visitor's own that outlives it: the
            # walk sees the node kept, and copies it whole)
            kept.append(n)
    offcode.walk(APP, visit)
    assert kept[0].entry.id == "host-x86_64-unknown-linux-gnu-"
    assert repr(kept[0]) == "<offcode.Node entry depth=3>"


def make_archive(path, members, code_every=0):
    """An ar archive of tiny text members, one of lib.a's objects with code
    every code_every."""
    code = subprocess.run(["ar", "p", LIB_A, "hipobj.o"], capture_output=True,
                          check=True).stdout
    with open(path, "wb") as f:
        f.write(b"!<arch>\n")
        for i in range(members):
            data = code if code_every and i % code_every == 0 else b"tiny %d\n" % i
            name = ("m%d.o/" % i).encode()
            f.write(b"%-16s%-12d%-6d%-6d%-8s%-10d`\n" % (name, 0, 0, 0, b"644", len(data)))
            f.write(data + (b"\n" if len(data) % 2 else b""))


# The peak RSS of the process's memory (VmHWM, KB): getrusage's ru_maxrss
# is kept across exec, so a child of pytest would start at pytest's.
MEMORY = r"""
import sys, offcode
def rss():
    for l in open("/proc/self/status"):
        if l.startswith("VmHWM:"):
            return int(l.split()[1])
how, path = sys.argv[1:3]
offcode.walk(sys.argv[3] if len(sys.argv) > 3 else path, lambda n: None)
before = rss()
if how == "walk":
    counts = {}
    def visit(n):
        counts[n.kind] = counts.get(n.kind, 0) + 1
        n.input.name, n.entry, n.container
    offcode.walk(path, visit)
    n = counts["input"], counts.get("entry", 0)
else:
    art = offcode.open(path)
    n = len(art.inputs), len(art.entries)
print(n[0], n[1], rss() - before)
"""


def test_memory_flat_over_20000_members(tmp_path):
    path = str(tmp_path / "many.a")
    make_archive(path, 20000, code_every=2000)
    small = str(tmp_path / "small.a")
    make_archive(small, 20, code_every=10)
    got = {}
    for how in ("walk", "open"):
        # (under the sanitizers, their quarantine of freed memory off: it
        # would count what the walk frees as it goes)
        env = dict(os.environ, ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") +
                   ":quarantine_size_mb=0:thread_local_quarantine_size_kb=0")
        r = subprocess.run([sys.executable, "-c", MEMORY, how, path, small],
                           capture_output=True, text=True, env=env)
        assert r.returncode == 0, r.stderr
        inputs, entries, grew = map(int, r.stdout.split())
        got[how] = grew
        assert (inputs, entries) == (20001, 30)
    # (KB: the walk's growth is the archive's pages mapped, 1.5 MB, and
    # no more; open()'s records of 20,000 inputs are many times it)
    assert got["walk"] < 4096, got
    assert got["open"] > 2 * got["walk"] + 4096, got


CODE_MEMORY = r"""
import sys, offcode
def hwm():
    for l in open("/proc/self/status"):
        if l.startswith("VmHWM:"):
            return int(l.split()[1])
before, read = hwm(), [0]
def visit(n):
    code = n.code
    if code:
        read[0] += len(code)
offcode.walk(sys.argv[1], visit, code=True)
print(read[0], hwm() - before)
"""


def test_code_read_memory_flat(tmp_path):
    # An archive of six bundles of two 4 MB code objects: every one read
    # into Python, the pages of each let go of after its visit (a walk
    # that kept them would grow by the 48 MB of the file).
    for k in (1, 2):
        (tmp_path / ("c%d.co" % k)).write_bytes(os.urandom(4000000))
    (tmp_path / "host.o").write_bytes(b"")
    subprocess.run([OFFLOAD, "bundler", "-type=o",
                    "-targets=host-x86_64-unknown-linux-gnu-,"
                    "hipv4-amdgcn-amd-amdhsa--gfx90a,hipv4-amdgcn-amd-amdhsa--gfx1100",
                    "-input=host.o", "-input=c1.co", "-input=c2.co", "-output=b.bundle"],
                   cwd=str(tmp_path), env=ENV, check=True)
    data = (tmp_path / "b.bundle").read_bytes()
    with open(str(tmp_path / "bigs.a"), "wb") as f:
        f.write(b"!<arch>\n")
        for i in range(6):
            f.write(b"%-16s%-12d%-6d%-6d%-8s%-10d`\n" % (b"b%d/" % i, 0, 0, 0, b"644", len(data)))
            f.write(data + (b"\n" if len(data) % 2 else b""))
    env = dict(os.environ, ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") +
               ":quarantine_size_mb=0:thread_local_quarantine_size_kb=0")
    r = subprocess.run([sys.executable, "-c", CODE_MEMORY, str(tmp_path / "bigs.a")],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    read, grew = map(int, r.stdout.split())
    assert read == 48000000
    assert grew < 20000, grew       # KB: a code object's bytes and its pages


@pytest.mark.parametrize("path", HOSTILE)
def test_hostile_refused_as_open_refuses(path):
    try:
        with offcode.open(path) as art:
            want = art.to_json()
    except offcode.Error as e:
        with pytest.raises(type(e)) as w:
            walked_json(path)
        assert (w.value.reason, w.value.code_name) == (e.reason, e.code_name)
        return
    assert walked_json(path) == want


def test_cut_short_and_hostile_sources(tmp_path):
    data = open(APP, "rb").read()
    cut = tmp_path / "cut"
    for n in (len(data) // 2, 100, 0):
        cut.write_bytes(data[:n])
        try:
            want = ("ok", offcode.open(str(cut)).to_json())
        except offcode.Error as e:
            want = (type(e), e.reason)
        try:
            got = ("ok", walked_json(str(cut)))
        except offcode.Error as e:
            got = (type(e), e.reason)
        assert got == want
    for how in (offcode.open, lambda p: offcode.walk(p, print)):
        with pytest.raises(offcode.SystemCallError) as e:
            how(str(tmp_path))
        assert e.value.reason == "Is a directory" and e.value.errno == 21
        with pytest.raises(offcode.SystemCallError) as e:
            how(str(tmp_path / "none"))
        assert e.value.reason == "No such file or directory"


def test_fifo_read_to_its_end(tmp_path):
    fifo = str(tmp_path / "fifo")
    os.mkfifo(fifo)
    data = open(APP, "rb").read()

    def feed():
        with open(fifo, "wb") as f:
            f.write(data)
    results = []
    for how in (lambda: offcode.open(fifo).to_json(), lambda: walked_json(fifo)):
        t = threading.Thread(target=feed)
        t.start()
        results.append(how())
        t.join()
    assert results[0] == results[1]
    assert results[1]["path"] == fifo and len(results[1]["sections"][0]["containers"]) == 2


def test_bytes_changed_by_another_thread_as_walked():
    # A bytearray is written by another thread while the library walks it
    # without the GIL (a mapped file rewritten in place is the same): the
    # host table's probe found a file of packages, and the walk of it, a
    # moment later, none, which it said with no record (its message made
    # of whatever the stack held; under SANITIZE=1, UBSan's load of a
    # bool not 0 or 1 stops Python).  A race: a walk that meets it is
    # ChangedError; one that does not fails as one of the bytes' states.
    data = open("test/files/bad/inspect-pkg-size.bin", "rb").read()
    buf = bytearray(data)
    stop = []

    def flip():
        while not stop:
            buf[2] = data[2] ^ 0xff
            buf[2] = data[2]
    t = threading.Thread(target=flip)
    t.start()
    seen = set()
    try:
        for _ in range(20000):
            try:
                offcode.walk(buf, lambda n: None)
            except offcode.Error as e:
                seen.add("%s: %s" % (type(e).__name__, e))
    finally:
        stop.append(1)
        t.join()
    assert seen <= {
        "MalformedError: '<memory>': offload package at offset 0: size 4096 is not "
        "between 16 and the 336 bytes left",
        "MalformedError: '<memory>': unrecognised bytes at offset 0: neither zero "
        "padding nor an offload bundle, CCOB, offload package or NVIDIA fatbin",
        "ChangedError: '<memory>': changed while it was read"}


def test_a_node_is_read_by_the_thread_walking():
    got = []

    def other(n):
        try:
            n.entry
        except RuntimeError as e:
            got.append(str(e))

    def visit(n):
        if n.kind == "entry" and not got:
            t = threading.Thread(target=other, args=(n,))
            t.start()
            t.join()
            got.append(n.entry.id)
    offcode.walk(APP, visit)
    assert got == ["node.entry read by a thread other than the one walking, during its visit",
                   "host-x86_64-unknown-linux-gnu-"]


def test_walks_in_threads_at_once():
    want = walked_json(LIB_A)
    got = [None] * 4

    def one(k):
        got[k] = walked_json(LIB_A, code=bool(k % 2))
    ts = [threading.Thread(target=one, args=(k,)) for k in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert got == [want] * 4


def test_an_image_is_refused(tmp_path):
    # (its layers are walked by open(stream=True) and walk_layer)
    img = str(tmp_path / "img")
    subprocess.run([sys.executable, os.path.join(TOP, "test/image/mkimage.py"), img],
                   check=True, cwd=str(tmp_path))
    with pytest.raises(offcode.UnsupportedError) as e:
        offcode.walk(img, print)
    assert e.value.reason == "an image is walked by offcode_layer_walk"
