"""The offcode package against the offload tool, on the C suites' fixtures:
the listing equal to `offload ls --json`'s (and --kernels'), the code to
what `offload extract` writes, matching to `ls -t`, pruning to `offload
prune`, and the hostile corpus refused with the reason `offload ls` gives.
Run by test/python.test (PYTHONPATH: the extension built against the
library of this tree; OFFLOAD: its offload)."""
import errno
import functools
import glob
import hashlib
import json
import os
import re
import subprocess
import sys
import threading

import pytest

import offcode

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OFFLOAD = os.environ.get("OFFLOAD", os.path.join(TOP, "build", "bin", "offload"))
# The offload binary runs without the sanitizers' runtime python.test
# preloads into Python (it has its own).
ENV = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
SKIP_EXT = (".sh", ".py", ".c", ".cpp", ".cu", ".hip", ".ll", ".s", ".md",
            ".txt", ".tsv", ".golden")


def fixtures():
    out = []
    for root in ("test/files", "test/objects"):
        for dirpath, dirs, files in os.walk(os.path.join(TOP, root)):
            dirs[:] = sorted(d for d in dirs if d not in ("bad", "src"))
            for f in sorted(files):
                if not f.endswith(SKIP_EXT) and f != "README":
                    out.append(os.path.relpath(os.path.join(dirpath, f), TOP))
    return out


def hostile():
    bad = os.path.join(TOP, "test/files/bad")
    return [os.path.relpath(p, TOP)
            for d in (bad, bad + "/ar", bad + "/bitcode")
            for p in sorted(glob.glob(d + "/*"))
            if os.path.isfile(p) and not p.endswith(".py")]


FIXTURES = fixtures()
HOSTILE = hostile()


@functools.lru_cache(maxsize=None)
def ls(*args):
    r = subprocess.run([OFFLOAD, "ls", *args], cwd=TOP, capture_output=True, env=ENV)
    return r.returncode, r.stdout, r.stderr.decode("utf-8", "surrogateescape")


def ls_json(path, *opts):
    rc, out, err = ls("--json", *opts, path)
    return rc, (json.loads(out)["files"] if out else []), err


# What the library does not describe, left out of ls --json's objects: the
# host headers' objects, a split binary's kpack object, a section's
# offset and size.
def project(node):
    if isinstance(node, list):
        return [project(n) for n in node]
    if not isinstance(node, dict):
        return node
    d = {k: project(v) for k, v in node.items()
         if k not in ("elf", "coff", "pe", "kpack")}
    if "containers" in d and "kind" in d and "index" in d:
        d["offset"] = d["size"] = None
    return d


def is_package(err):
    return "package" in err or "wheel" in err or "conda" in err


@pytest.fixture(scope="module", autouse=True)
def at_top():
    os.chdir(TOP)


@pytest.mark.parametrize("path", FIXTURES)
def test_listing_is_ls_json(path):
    rc, files, err = ls_json(path)
    if rc:
        with pytest.raises(offcode.Error) as e:
            offcode.open(path)
        assert e.value.reason in err
        return
    if files and files[0]["format"] in ("directory",):
        return
    with offcode.open(path) as art:
        if art.layers():
            # a package among the fixtures: its files are its members, as
            # ls lists each of them as a file of its own
            names = [i.name for i in art.inputs if i.depth == 1]
            assert [f["path"] for f in files] == [path + "/" + n for n in names]
            return
        assert art.to_json() == project(files[0])


KERNEL_FIXTURES = [p for p in FIXTURES if "/kernels/" in p or "/nvres/" in p
                   or p.endswith(("/app", "/libk.so"))]


@pytest.mark.parametrize("path", KERNEL_FIXTURES)
def test_kernels_are_ls_kernels(path):
    # (ls --kernels inflates CCOBs, and so sees their image kinds, as
    # --verify and the library's verify do)
    rc, files, _ = ls_json(path, "--kernels", "--verify")
    if rc or not files:
        pytest.skip("ls --kernels fails on it")
    with offcode.open(path, verify=True) as art:
        got = art.to_json(kernels=True)
    want = project(files[0])
    # The library's reason for unreadable kernels is its own record's.
    def errors(node):
        if isinstance(node, dict):
            k = node.get("kernels")
            if isinstance(k, dict) and k.get("error"):
                node["kernels"] = {"error_code": k["error_code"]}
            for v in node.values():
                errors(v)
        elif isinstance(node, list):
            for v in node:
                errors(v)
    errors(want)
    errors(got)
    assert got == want


@pytest.mark.parametrize("path", HOSTILE)
def test_hostile_refused_as_ls_refuses(path):
    rc, _, err = ls("--json", path)
    if rc == 0:
        with offcode.open(path) as art:
            assert art.to_json() == project(ls_json(path)[1][0])
        return
    prefix = "offload ls: error: cannot list '%s': " % path
    lines = [l for l in err.splitlines() if l.startswith(prefix)]
    with pytest.raises(offcode.Error) as e:
        offcode.open(path)
    exc = e.value
    assert lines and exc.reason == lines[0][len(prefix):]
    assert exc.chain and exc.chain[0].reason == exc.reason
    assert exc.code_name == exc.chain[0].code_name
    assert str(exc) == exc.chain[0].message
    assert type(exc).__name__ != "Error"


def extracted(path, tmp_path):
    out = tmp_path / "x"
    r = subprocess.run([OFFLOAD, "extract", "--all", "-q", "-o", str(out), path],
                       cwd=TOP, capture_output=True, env=ENV)
    if b"not a file of a known format" in r.stderr:
        return []
    if b"error: no archive for" in r.stderr:
        # A kpack-split binary whose archives are not beside it: extract
        # refuses it whole, the library reads its CCOB (the kpack suites
        # compare those with archives).
        pytest.skip("extract refuses a split binary without its archives")
    assert r.returncode == 0, r.stderr
    return sorted(hashlib.sha256(p.read_bytes()).hexdigest()
                  for p in out.iterdir()) if out.exists() else []


# Not the split binaries (kpack split, tree and artifacts): extract follows
# them to their archives (and fails where an artifact holds none), the
# library reads the fat binary's own sections; nor the packages.
READ_FIXTURES = [p for p in FIXTURES
                 if "/kpack/split" not in p and "/kpack/tree" not in p
                 and "/kpack/artifacts/" not in p and "/package/" not in p]


def open_readable(path):
    """path opened, or None when the library reads no code of it (skipped
    when ls itself fails on it)."""
    if ls("--json", path)[0]:
        pytest.skip("ls fails on it")
    try:
        return offcode.open(path)
    except offcode.UnsupportedError:
        return None


@pytest.mark.parametrize("path", READ_FIXTURES)
def test_code_is_what_extract_writes(path, tmp_path):
    art = open_readable(path)
    if art is None:
        return
    with art:
        codes = [e.read() for e in art.entries]
        walked = []
        art.each_code(lambda e, code: walked.append((e.index, code)))
        sizes = [e.code_size() for e in art.entries]
    assert walked == [(e.index, c) for e, c in zip(art.entries, codes)]
    assert sizes == [len(c) for c in codes]
    assert sorted(hashlib.sha256(c).hexdigest() for c in codes) == extracted(path, tmp_path)


APP = "test/files/inspect/app"


def test_open_path_fd_and_bytes_agree():
    with offcode.open(APP) as a:
        want = a.to_json()
        codes = [e.read() for e in a.entries]
    fd = os.open(APP, os.O_RDONLY)
    try:
        with offcode.open(fd, name=APP) as b:
            assert b.to_json() == want
    finally:
        os.close(fd)
    data = open(APP, "rb").read()
    for buf in (data, bytearray(data), memoryview(data)):
        with offcode.open(buf, name=APP) as c:
            assert c.to_json() == want
            assert [e.read() for e in c.entries] == codes
    with offcode.open(data) as d:
        assert d.path == "<memory>"
        assert d.entries[1].uri == "file://%3Cmemory%3E#offset=8192&size=4696"


def test_objects_read_as_ls_json_names_them():
    with offcode.open(APP) as a:
        assert len(a) == 2 and [c.number for c in a] == [0, 1]
        c = a.containers[0]
        assert (c.format, c.offset, c.size, c.section) == \
            ("bundle", 4096, 17704, offcode.Section(18, ".hip_fatbin", "hip-fatbin"))
        e = c[2]
        assert (e.id, e.offload_kind, e.triple, e.arch, e.processor, e.features) == \
            ("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", "hipv4", "amdgcn-amd-amdhsa",
             "gfx90a:xnack+", "gfx90a", "xnack+")
        assert e.uri == "file://test/files/inspect/app#offset=16384&size=5416"
        assert e.read()[:4] == b"\x7fELF"
        assert e.read() == open(APP, "rb").read()[16384:16384 + 5416]
        buf = bytearray(e.size)
        assert e.read_into(buf) == e.size and bytes(buf) == e.read()
        with pytest.raises(offcode.RangeError) as r:
            e.read_into(bytearray(10))
        assert r.value.code_name == "range"
        assert a.inputs[0].format == "elf" and a.inputs[0].name == APP


def test_closed_artifact_refuses():
    with offcode.open(APP) as a:
        e = a.entries[1]
    assert a.closed
    with pytest.raises(ValueError):
        e.read()


def test_entry_fields_read_the_same_once_closed():
    # An entry's fields are the extension's, read from the library's record,
    # which close() keeps (it lets go of the file alone) while an object
    # holds the artefact: entries made before the close and after it read
    # the same (its image kind, read from the code, is read while open).
    with offcode.open(APP) as a:
        before = [e.to_json() for e in a.entries]
        kept = list(a.entries)
    assert a.closed
    after = [e for c in a.containers for e in c]
    assert after == kept and [e.to_json() for e in after if e.index != 1] == \
        [d for d in before if d["index"] != 1]
    for e, d in zip(kept, before):
        assert (e.index, e.id, e.offload_kind, e.triple, e.arch, e.size,
                e.offset, e.uri, e.compressed) == \
            (d["index"], d["id"], d["offload_kind"], d["triple"], d["arch"],
             d["size"], d["offset"], d["uri"], d["compressed"])
        assert e.id_bytes == d["id"].encode()
        assert e.container.entries[e.index] is e
    assert kept[1].image_kind == before[1]["image_kind"]   # read while open
    with offcode.open(APP) as a:
        e = a.entries[1]
    with pytest.raises(ValueError):
        e.image_kind                      # not read before the close
    assert e.uri == kept[1].uri


def test_close_lets_go_of_the_file_and_keeps_the_listing():
    # close() is offcode_close_file: the descriptor and the borrowed buffer
    # go at once (a bytearray may grow again), the records stay while an
    # object holds them, and what reads code says the artefact is closed.
    def fds():
        return len(os.listdir("/proc/self/fd"))
    n = fds()
    a = offcode.open(APP)
    assert fds() == n + 1
    want = [e.to_json() for e in a.entries]
    a.close()
    assert fds() == n and a.closed
    c = a.containers[1]
    assert [e.to_json() for e in c] == want[3:]
    with pytest.raises(ValueError, match="the artefact is closed"):
        c[0].read()
    with pytest.raises(ValueError, match="the artefact is closed"):
        c[0].matches("gfx90a")
    data = bytearray(open(APP, "rb").read())
    b = offcode.open(data)
    with pytest.raises(BufferError):
        data.append(0)                        # the library reads it
    first = b.containers[0][1]
    b.close()
    data.extend(b"\0" * 100000)
    data[:] = b"x"
    assert [e.uri.split("#")[1] for e in b.containers[0]] == \
        [d["uri"].split("#")[1] for d in want[:3]]
    assert first.id == want[1]["id"] and first == b.entries[1]
    a.close()                                 # again: nothing


def test_entries_are_made_by_the_artifact_alone():
    with pytest.raises(TypeError):
        offcode.Entry()
    with offcode.open(APP) as a, offcode.open(APP) as b:
        h = a._handle()
        with pytest.raises(TypeError):
            h.entries(tuple(a.containers))
        with pytest.raises(TypeError):
            h.entries([1])
        with pytest.raises(TypeError):
            h.entries(b.containers)           # another artefact's
        assert h.entries(a.containers[1:]) == a.containers[1].entries
        again = h.entries(a.containers)
        assert again == a.entries and again[0] is a.entries[0]


def test_entries_are_made_when_asked_for():
    # Iterating a container or indexing it makes each entry as it is asked
    # for, and nothing keeps it: two objects of one entry are equal and hash
    # alike, as entries of two artefacts or two places are not.  Once the
    # container's list is made (.entries), its objects are the ones given.
    import gc

    def live():
        return sum(1 for o in gc.get_objects() if isinstance(o, offcode.Entry))
    with offcode.open(APP) as a, offcode.open(APP) as b:
        n = live()
        c = a.containers[0]
        seen = []
        for e in c:
            seen.append((e.index, live() - n))
        del e
        assert seen == [(0, 1), (1, 1), (2, 1)]
        assert live() == n
        x, y = c[1], c[1]
        assert x is not y and x == y and hash(x) == hash(y) and not (x != y)
        assert x != c[2] and x != b.containers[0][1] and x != "entry"
        assert len({x, y, c[2]}) == 2 and x in list(c) and c.index(y) == 1
        assert c[-1] == c[2] and c[0:3:2] == [c[0], c[2]] and c[5:] == []
        with pytest.raises(IndexError):
            c[-4]
        with pytest.raises(TypeError):
            c["0"]
        it = iter(c)
        first = next(it)
        kept = c.entries                      # made now, in the middle
        assert first == kept[0] and first is not kept[0]
        assert next(it) is kept[1] and next(it) is kept[2]
        with pytest.raises(StopIteration):
            next(it)
        assert c[1] is kept[1] and list(c) == kept and a.entries[:3] == kept
        assert a.entries[0] is kept[0]


def test_a_container_iterator_kept_in_a_cycle_is_freed():
    # container -> its attribute -> an iterator over it -> container: the
    # collector frees the cycle (it sees the iterator), the artefact with it
    import gc
    import weakref
    with offcode.open(APP) as a:
        c = a.containers[0]
        c.it = iter(c)
        assert next(c.it) == c[0]
        gone = weakref.ref(c)
    del a, c
    gc.collect()
    assert gone() is None


def test_image_kinds_read_while_open_read_after_close():
    # Entries are made when asked for and let go: an image kind read while
    # the file was open (its record keeps it) reads the same from an object
    # of that entry made after close(), so that to_json() is still ls
    # --json's, as it was when the objects were made at open and kept; one
    # never read says the artefact is closed.
    with offcode.open(APP) as a:
        kinds = [e.image_kind for c in a.containers for e in c]
        kinds_b = [c[1].image_kind for c in a.containers]
    assert kinds == [None, "elf", "elf", None, "elf", "elf"]
    assert [e.image_kind for c in a.containers for e in c] == kinds
    assert a.to_json() == project(ls_json(APP)[1][0])
    b = offcode.open(APP)
    assert [c[1].image_kind for c in b.containers] == kinds_b == ["elf", "elf"]
    b.close()
    assert [c[1].image_kind for c in b.containers] == ["elf", "elf"]
    with pytest.raises(ValueError, match="the artefact is closed"):
        b.containers[0][0].image_kind
    with pytest.raises(ValueError, match="the artefact is closed"):
        b.containers[1][2].image_kind


def _read_during_a_collection(read):
    # read() with the collector run by each allocation, and read() again
    # from its first pass (a gc callback): both results
    import gc
    got = []

    def early(phase, info):
        if phase == "start" and not got:
            got.append(read())
    old = gc.get_threshold()
    gc.set_threshold(1)
    gc.callbacks.append(early)
    try:
        kept = read()
    finally:
        gc.callbacks.remove(early)
        gc.set_threshold(*old)
    assert len(got) == 1
    return got[0], kept


def test_entries_asked_for_while_they_are_made_are_the_ones_kept():
    # The collector, run by an allocation while a container's list is made,
    # may run code that reads that list (a gc callback, a finalizer): it is
    # given the list the container keeps, not one let go of and leaked.
    with offcode.open(APP) as a:
        c = a.containers[1]
        got, kept = _read_during_a_collection(lambda: c.entries)
        assert got is kept and c.entries is kept
        assert [e.index for e in kept] == [0, 1, 2]
        assert sys.getrefcount(kept) == 4     # c, kept, got, the call's
    # the artefact's list as well
    with offcode.open(APP) as a:
        got, kept = _read_during_a_collection(lambda: a.entries)
        assert got is kept and a.entries is kept and len(kept) == 6


def test_entries_let_go_with_their_artifact():
    # entry -> container -> its entries -> entry is a cycle: the collector
    # frees it (the entry type takes part in it), and the artefact with it.
    import gc

    def count():
        gc.collect()
        return sum(1 for o in gc.get_objects() if isinstance(o, offcode.Entry))
    n = count()
    for _ in range(5):
        a = offcode.open(APP)
        assert len(a.entries) > 1
        a.close()
        del a
    assert count() == n


def test_containers_are_made_by_the_artifact_alone():
    # a container is an object of the extension's type: its section one
    # object for the containers of one section, its format the one str of
    # its kind; a sequence of its entries as a list is
    with pytest.raises(TypeError):
        offcode.Container()
    with offcode.open(APP) as a:
        c, d = a.containers
        assert isinstance(c, offcode._offcode.Container) and c.input is a.inputs[0]
        assert a.inputs[0].containers == [c, d]
        assert c.section is d.section and c.format is d.format
        assert c.fields is c.fields and c.fields == {}
        assert len(c) == len(c.entries) == 3
        assert (c[0], c[-1], c[1:], list(c), list(reversed(c))) == \
            (c.entries[0], c.entries[2], c.entries[1:], c.entries, c.entries[::-1])
        assert c[1] in c and c.index(c[2]) == 2 and c.count(c[0]) == 1
        with pytest.raises(IndexError):
            c[3]
        with pytest.raises(AttributeError):
            c.size = 1                    # its fields are the library's
        c.note = "mine"                   # an attribute of the caller's own
        assert c.note == "mine"
        h = a._handle()
        with pytest.raises(TypeError):
            h.containers(dict, offcode.Section, a.inputs)
        with pytest.raises(TypeError):
            h.containers(offcode.Container, dict, a.inputs)
        with pytest.raises(TypeError):
            h.containers(offcode.Container, offcode.Section, a.inputs, dict)
        with pytest.raises(ValueError):
            h.containers(offcode.Container, offcode.Section, [], offcode.Entry)
        again = h.containers(offcode.Container, offcode.Section, a.inputs, offcode.Entry)
        assert [(x.number, x.offset, x.size, x.section) for x in again] == \
            [(x.number, x.offset, x.size, x.section) for x in a.containers]
        assert again[1].entries == d.entries and again[1][0] != again[0][0]
        assert [e.uri for e in again[1]] == [e.uri for e in d]
        assert c.entries[0] is a.entries[0]   # made once, kept
    assert a.closed and len(c) == 3 and c.section.name == ".hip_fatbin"


def test_records_and_errors_are_made_when_first_named():
    # offcode._records and the error classes are not made at import; named,
    # they are the package's, the same objects each time
    code = ("import sys, offcode; "
            "print('offcode._records' in sys.modules, 'Error' in vars(offcode._offcode)); "
            "print(offcode.Layer.__module__, offcode.Kernels.__module__, offcode.Error.__module__); "
            "print('offcode._records' in sys.modules, offcode.Layer is offcode._records.Layer); "
            "print(offcode.TruncatedError is offcode._offcode.TruncatedError, "
            "issubclass(offcode.SystemCallError, (offcode.Error, OSError))); "
            "print(all(n in dir(offcode) for n in offcode.__all__))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, check=True).stdout
    assert out == "False False\noffcode offcode offcode\nTrue True\nTrue True\nTrue\n"
    with pytest.raises(AttributeError):
        offcode.NoSuchName
    with pytest.raises(AttributeError):
        offcode._offcode.NoSuchError
    ns = {}
    exec("from offcode import *", ns)
    assert ns["BadHashError"] is offcode.BadHashError and ns["RootFile"] is offcode.RootFile


def test_each_code_stops():
    with offcode.open(APP) as a:
        seen = []
        assert a.each_code(lambda e, v: seen.append(e.index) or e.index == 1) is True
        assert seen == [0, 1]


def test_missing_file_is_an_oserror():
    with pytest.raises(offcode.SystemCallError) as e:
        offcode.open("test/files/no-such-file")
    assert isinstance(e.value, OSError) and e.value.errno == errno.ENOENT
    assert e.value.code_name == "system"
    assert e.value.path == "test/files/no-such-file"


@pytest.mark.parametrize("rules", ["gfx90a", "gfx90a:xnack-", "gfx1100", "sm_80",
                                   "hipv4-amdgcn-amd-amdhsa--gfx1100", "*gfx9*"])
@pytest.mark.parametrize("path", [APP, "test/files/inspect/lib.a",
                                  "test/files/kpack/zstd.kpack",
                                  "test/files/nv/variants.fatbin"])
def test_match_is_ls_t(path, rules):
    _, files, _ = ls_json(path, "-t", rules)

    def entries(node, out):
        if isinstance(node, dict):
            if "entries" in node:
                out.extend((e["offset"], e["index"], e["id"], e["arch"])
                           for e in node["entries"])
            for k, v in node.items():
                if k != "entries":
                    entries(v, out)
        elif isinstance(node, list):
            for v in node:
                entries(v, out)
        return out
    with offcode.open(path) as a:
        got = [(e.offset, e.index, e.id, e.arch) for e in a.match(rules)]
    assert sorted(got, key=repr) == sorted(entries(files, []), key=repr)


def test_bad_rule_refused():
    with offcode.open(APP) as a:
        with pytest.raises(offcode.Error) as e:
            a.entries[0].matches("gfx90a:bogus+")
    assert e.value.reason == \
        "'gfx90a:bogus+' is not a valid target ID (unknown feature (xnack and sramecc are))"


def test_bad_rule_is_invalid():
    with offcode.open(APP) as a:
        with pytest.raises(offcode.InvalidError) as e:
            a.entries[0].matches("gfx90a:bogus+")
    assert isinstance(e.value, ValueError)


def test_target_id_compatible():
    assert offcode.target_id_compatible("gfx90a", "gfx90a:xnack+")
    assert not offcode.target_id_compatible("gfx90a:xnack-", "gfx90a:xnack+")


@pytest.mark.parametrize("opts,args", [
    ({"keep": "gfx90a"}, ["--keep", "gfx90a"]),
    ({"keep": "gfx1100", "compress": "zstd", "ccob_version": 3},
     ["--keep", "gfx1100", "--compress", "--ccob-version=3"]),
    ({"drop": "*gfx1100*"}, ["--drop", "*gfx1100*"]),
])
def test_prune_is_offload_prune(tmp_path, opts, args):
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    r = offcode.prune(APP, ours, **opts)
    subprocess.run([OFFLOAD, "prune", *args, APP, "-o", str(theirs)], check=True,
                   capture_output=True, env=ENV)
    assert ours.read_bytes() == theirs.read_bytes()
    assert r.size_before == os.path.getsize(APP) and r.size_after == ours.stat().st_size
    assert r.changed and r.entries_dropped > 0
    with offcode.open(ours) as a:
        assert a.entries


def test_prune_refuses_its_input(tmp_path):
    copy = tmp_path / "app"
    copy.write_bytes(open(APP, "rb").read())
    with pytest.raises(offcode.Error):
        offcode.prune(copy, copy, keep="gfx90a")
    assert copy.read_bytes() == open(APP, "rb").read()
    assert os.listdir(tmp_path) == ["app"]


def test_extract_writes_a_file(tmp_path):
    with offcode.open(APP) as a:
        e = a.entries[2]
        e.extract(tmp_path / "co")
        with open(tmp_path / "fd", "wb") as f:
            e.write_to(f)
        assert (tmp_path / "co").read_bytes() == e.read() == (tmp_path / "fd").read_bytes()


def test_threads_each_their_artifact():
    results = {}

    def work(path):
        with offcode.open(path) as a:
            results[path] = [hashlib.sha256(e.read()).hexdigest() for e in a.entries]
    paths = [APP, "test/files/inspect/lib.a", "test/files/kpack/zstd.kpack"] * 3
    threads = [threading.Thread(target=work, args=(p,)) for p in paths]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for p in paths:
        with offcode.open(p) as a:
            assert results[p] == [hashlib.sha256(e.read()).hexdigest() for e in a.entries]


def test_one_artifact_many_threads():
    with offcode.open("test/files/kpack/zstd.kpack") as a:
        want = [e.read() for e in a.entries]
        got = [None] * 8

        def work(k):
            got[k] = [e.read() for e in a.entries]
        threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert got == [want] * 8


def test_names_hold_any_bytes():
    data = bytearray(open(APP, "rb").read())
    with offcode.open(bytes(data), name="a b%#\xe9") as a:
        assert a.entries[1].uri.startswith("file://a%20b%25%23%C3%A9#offset=")


def test_artifact_busy_in_each_code():
    with offcode.open(APP) as a:
        def inner(e, code):
            with pytest.raises(RuntimeError):
                e.read()
            with pytest.raises(RuntimeError):
                a.close()
        a.each_code(inner)
        assert a.entries[1].read()[:4] == b"\x7fELF"


def test_close_while_threads_read():
    for _ in range(20):
        a = offcode.open("test/files/kpack/zstd.kpack")
        errors = []

        def work():
            try:
                for _ in range(50):
                    for e in a.entries:
                        e.read()
            except ValueError:
                errors.append("closed")
        threads = [threading.Thread(target=work) for _ in range(3)]
        for t in threads:
            t.start()
        a.close()
        for t in threads:
            t.join()
        assert a.closed


def test_close_from_many_threads_at_once():
    # close() is idempotent: threads closing one artefact together while
    # others read it all return, none raises that it is closed (a closer
    # waiting for a reader found another closer had been first).
    for _ in range(50):
        a = offcode.open("test/files/kpack/zstd.kpack")
        errors = []

        def read():
            try:
                for _ in range(20):
                    for e in a.entries:
                        e.read()
            except ValueError:
                pass

        def close():
            try:
                a.close()
            except Exception as e:  # noqa: BLE001 (any is the failure)
                errors.append(repr(e))
        threads = [threading.Thread(target=read) for _ in range(2)] + \
            [threading.Thread(target=close) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == [] and a.closed


@pytest.mark.parametrize("kw", [{"ccob_max_size": 2 ** 64}, {"ccob_max_ratio": 10 ** 30}])
def test_open_refuses_limits_past_64_bits(kw):
    # A limit no 64-bit value holds is refused, not wrapped to another.
    with pytest.raises(OverflowError):
        offcode.open(APP, **kw)


@pytest.mark.parametrize("kw", [{"ccob_max_size": 2 ** 64}, {"ccob_max_ratio": 2 ** 65 + 1},
                                {"threads": 2 ** 32}, {"ccob_version": 2 ** 32 + 3},
                                {"compression_level": 2 ** 40}])
def test_prune_refuses_options_past_their_width(tmp_path, kw):
    with pytest.raises(OverflowError):
        offcode.prune(APP, tmp_path / "out", keep="gfx90a", **kw)
    assert not os.listdir(tmp_path)


def test_each_code_exception_propagates():
    with offcode.open(APP) as a:
        with pytest.raises(ZeroDivisionError):
            a.each_code(lambda e, code: 1 / 0)
        assert a.entries[2].read()


@pytest.mark.parametrize("kw", [{"threads": -1}, {"ccob_version": -2},
                                {"ccob_max_size": -1}, {"compress": "lz4"}])
def test_prune_refuses_bad_options(tmp_path, kw):
    with pytest.raises(ValueError):
        offcode.prune(APP, tmp_path / "out", keep="gfx90a", **kw)
    assert not os.listdir(tmp_path)


def test_prune_refuses_a_link_to_its_input(tmp_path):
    (tmp_path / "app").write_bytes(open(APP, "rb").read())
    os.symlink("app", tmp_path / "link")
    with pytest.raises(offcode.Error):
        offcode.prune(tmp_path / "app", tmp_path / "link", keep="gfx90a")
    assert (tmp_path / "app").read_bytes() == open(APP, "rb").read()
    assert sorted(os.listdir(tmp_path)) == ["app", "link"]


@pytest.mark.parametrize("src", [b"", b"\x7fELF", b"__CLANG_OFFLOAD_BUNDLE__" + b"\xff" * 40])
def test_odd_bytes(src):
    try:
        with offcode.open(src) as a:
            assert a.to_json()["path"] == "<memory>"
    except offcode.Error as e:
        assert e.reason and e.chain


def test_bytes_are_contents_not_paths():
    with offcode.open(APP.encode()) as a:
        assert a.entries == []


# An entry the file stores as it is is read from its offset (issue 37):
# a file cut short since it was opened is a change, said with its name,
# not a crash; nothing is written for it.
def test_read_of_a_file_cut_short_since_open(tmp_path):
    f = tmp_path / "t.so"
    f.write_bytes(open(os.path.join(TOP, APP), "rb").read())
    with offcode.open(str(f)) as a:
        e = a.entries[-1]
        first = a.entries[1].read()
        os.truncate(f, e.offset)
        with pytest.raises(offcode.ChangedError) as x:
            e.read()
        assert x.value.reason == "'%s': cut short since it was opened" % f
        assert a.entries[1].read() == first
    assert sorted(os.listdir(tmp_path)) == ["t.so"]


# offcode.h, "packages and images" (issue 37): a .deb, a wheel, a conda
# package and an image open with their files as inputs, named as ls names
# them, their code the unpacked file's; streamed, each file is handed over
# as an artefact of its own, an image's root made; prune refuses them and
# writes nothing.
def make_packages(d):
    import tarfile
    import zipfile
    app = os.path.join(TOP, APP)
    root = d / "deb"
    (root / "DEBIAN").mkdir(parents=True)
    (root / "usr/lib").mkdir(parents=True)
    (root / "usr/lib/app").write_bytes(open(app, "rb").read())
    (root / "DEBIAN/control").write_text(
        "Package: x\nVersion: 1\nArchitecture: amd64\nMaintainer: x <x@x>\nDescription: x\n")
    subprocess.run(["dpkg-deb", "--root-owner-group", "-Znone", "--build", str(root),
                    str(d / "x_1_amd64.deb")], check=True, capture_output=True)
    with zipfile.ZipFile(d / "x-1.0-py3-none-any.whl", "w") as z:
        z.write(app, "pkg/app")
        z.writestr("x-1.0.dist-info/RECORD", "pkg/app,,\nx-1.0.dist-info/RECORD,,\n")
        z.writestr("x-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\n")
    with tarfile.open(d / "x-1.0-0.tar.bz2", "w:bz2", format=tarfile.USTAR_FORMAT) as t:
        info = tarfile.TarInfo("info/index.json")
        info.size = 3
        t.addfile(info, __import__("io").BytesIO(b"{}\n"))
        t.add(app, "lib/app")
    subprocess.run(["python3", os.path.join(TOP, "test/image/mkimage.py"), str(d / "img")],
                   check=True, capture_output=True)
    with tarfile.open(d / "img.tar", "w", format=tarfile.USTAR_FORMAT) as t:
        t.add(d / "img", ".")
    return {"x_1_amd64.deb": ("deb", ["usr/lib/app"]),
            "x-1.0-py3-none-any.whl": ("wheel", ["pkg/app"]),
            "x-1.0-0.tar.bz2": ("conda", ["lib/app"]),
            "img": ("image", [L1 + "/usr/bin/app", L1 + "/usr/lib/libz.so.1"]),
            "img.tar": ("image", [L1 + "/usr/bin/app", L1 + "/usr/lib/libz.so.1"])}


L1 = "sha256:5d705a46d9d6ebd94b9e5e61e0dd624a9ff3d403863b202ea5bcdfc710b8f87a"
NOT_PRUNED = ": liboffcode does not prune packages or container images (offload prune does)"


def code_of(path):
    with offcode.open(path) as a:
        return [e.read() for e in a.entries]


def test_packages_and_images_open(tmp_path):
    kinds = make_packages(tmp_path)
    app = code_of(os.path.join(TOP, APP))
    for f, (kind, names) in kinds.items():
        path = str(tmp_path / f)
        assert offcode.path_kind(path) == kind
        with offcode.open(path) as a:
            assert a.inputs[0].format == kind
            assert [i.name for i in a.inputs if i.depth == 1] == names
            assert [m["member"] for m in a.to_json()["members"]] == names
            codes = [e.read() for e in a.entries]
            walked = []
            a.each_code(lambda e, code: walked.append(code))
            assert codes == walked
            if kind != "image":
                assert codes == app
            assert all(e.offset is None and e.uri is None for e in a.entries)
        if kind != "image":
            # by an fd or bytes, named as the file is (a wheel and a conda
            # package are told by name)
            fd = os.open(path, os.O_RDONLY)
            try:
                with offcode.open(fd, name=f) as a:
                    assert [e.read() for e in a.entries] == app
            finally:
                os.close(fd)
            with offcode.open(open(path, "rb").read(), name=f) as a:
                assert [i.name for i in a.inputs if i.depth == 1] == names
        with pytest.raises(offcode.UnsupportedError) as e:
            offcode.prune(path, str(tmp_path / "out"), keep="gfx1100")
        assert e.value.reason.endswith(NOT_PRUNED)
        assert not os.path.exists(tmp_path / "out")
    with offcode.open("oci-archive:" + str(tmp_path / "img.tar")) as a:
        assert len(a.entries) == 12
    # An image is read by its path alone.
    fd = os.open(str(tmp_path / "img.tar"), os.O_RDONLY)
    try:
        with pytest.raises(offcode.UnsupportedError):
            offcode.open(fd, name="img.tar")
    finally:
        os.close(fd)
    assert offcode.path_kind(os.path.join(TOP, APP)) is None


def test_images_streamed(tmp_path):
    make_packages(tmp_path)
    with offcode.open(str(tmp_path / "img"), stream=True) as a:
        assert a.entries == [] and a.inputs[0].format == "image"
        layers = a.layers()
        # (an image layer's compression as its manifest says, until walked)
        assert [(l.compression, l.stored) for l in layers] == [("none", 360), ("none", 12140)]
        assert layers[1].name == L1
        with pytest.raises(offcode.InvalidError):
            a.manifest_root(0)      # not walked for the root yet
        seen, kept = [], []

        def each(m, file, err):
            assert err is None
            kept.append(file)
            seen.append((m.layer, m.index, m.name, len(file.entries),
                         sum(e.du()[1] for e in file.entries)))
        stats = [a.walk_layer(i, each, root=True) for i in range(len(layers))]
        assert stats == [(13, 3, 49), (7, 5, 62229)]
        assert [l.compression for l in a.layers()] == ["gzip", "gzip"]
        assert seen == [(1, 0, "usr/bin/app", 6, 20224), (1, 2, "usr/lib/libz.so.1", 6, 2353)]
        assert all(f.closed for f in kept)   # the library's, for the call
        with pytest.raises(ValueError):
            kept[0].entries[1].read()
        m = a.manifests()
        assert [(x.platform, x.layers) for x in m] == [("linux/amd64", (0, 1))]
        assert a.manifest_root(0) == [(0, 6, 13), (1, 0, 47568), (1, 2, 14632), (1, 6, 29)]
        # a true result stops the walk; an exception stops it and is raised
        assert a.walk_layer(1, lambda m, f, e: True) is None

        def boom(m, f, e):
            raise KeyError(m.name)
        with pytest.raises(KeyError):
            a.walk_layer(1, boom)

        def nested(m, f, e):
            a.walk_layer(0, each)
        with pytest.raises(RuntimeError):
            a.walk_layer(1, nested)
        with pytest.raises(IndexError):
            a.walk_layer(2, each)


def test_a_package_file_entry_made_in_another_thread_outlives_the_call(tmp_path):
    # walk_layer's file is the library's until the callback returns: an
    # entry of it being made in another thread then (its allocation ran the
    # collector, whose callback let the walk's thread go on) is copied whole
    # before the call hands the file back, not read from freed records.
    import gc
    import time
    make_packages(tmp_path)
    a = offcode.open(str(tmp_path / "x_1_amd64.deb"), stream=True)
    fresh, order, inside, made = [], [], threading.Event(), []

    def collecting(phase, info):
        if phase == "start" and armed and threading.current_thread() is maker and not order:
            order.append("collecting")
            inside.set()
            time.sleep(0.3)                   # the walk's thread may go on
            order.append("collected")

    def make():
        # (the collector runs at every other allocation: the entry whose
        # making ran it is the last made)
        global armed
        armed = True
        for k in range(3):
            made.append(fresh[0][0][k])
            if order:
                break
        armed = False
    maker = threading.Thread(target=make)

    def each(m, f, err):
        if f is not None and not fresh:
            h = f._handle()
            fresh.append(h.containers(offcode.Container, offcode.Section, f.inputs,
                                      offcode.Entry))
            want.extend((e.id, e.uri, e.size) for e in f.entries[:3])
            maker.start()
            assert inside.wait(10)
    want = []
    old = gc.get_threshold()
    gc.callbacks.append(collecting)
    gc.set_threshold(1)
    try:
        globals()["armed"] = False
        a.walk_layer(0, each)
        order.append("returned")
        maker.join()
    finally:
        gc.callbacks.remove(collecting)
        gc.set_threshold(*old)
        a.close()
    assert order == ["collecting", "collected", "returned"]
    assert 1 <= len(made) <= 2 and [(e.id, e.uri, e.size) for e in made] == want[:len(made)]
    assert want[0] == ("host-x86_64-unknown-linux-gnu-",
                       "file://%s/x_1_amd64.deb/usr/lib/app#offset=8192&size=0" % tmp_path, 0)


def test_du_figures_are_du_json():
    """Entry.du(), rule_target and code_object() summed per target are what
    offload du --json counts of each fixture."""
    split = 0
    for path in FIXTURES:
        r = subprocess.run([OFFLOAD, "du", "--json", path], cwd=TOP,
                           capture_output=True, env=ENV)
        if r.returncode or offcode.path_kind(path):
            continue
        du = json.loads(r.stdout)
        want = {t["target"]: (t["bytes"], t["stored"], t["entries"]) for t in du["targets"]}
        got = {}
        with offcode.open(path) as a:
            for e in a.entries:
                code, stored = e.du()
                if e.offload_kind == "host":
                    continue
                name = e.rule_target or e.triple or "?"
                b, s_, n = got.get(name, (0, 0, 0))
                got[name] = (b + code, s_ + stored, n + 1)
            lone = a.code_object()
            if lone and not a.containers:
                got[lone[0]] = (a.size, a.size, 1)
            if a.kpack_archives():
                split += 1
                continue    # du counts its archives too
        assert got == want, path
    assert split > 0    # the split binaries' archives were found
def test_a_directory_is_no_image(tmp_path):
    (tmp_path / "deb").mkdir()
    # A directory that is no image is still a directory.
    with pytest.raises(offcode.SystemCallError):
        offcode.open(str(tmp_path / "deb"))


# ---- every entry's code to files in one walk, image kinds read when asked
# (issue 37's performance: extract_all is what offload extract --all does,
# the listing reads no code) ----

@pytest.mark.parametrize("path", READ_FIXTURES)
def test_extract_all_is_what_extract_writes(path, tmp_path):
    art = open_readable(path)
    if art is None:
        return
    out = tmp_path / "all"
    out.mkdir()
    with art:
        art.extract_all(lambda e: out / str(e._i))
        codes = [e.read() for e in art.entries]
    assert sorted(os.listdir(out), key=int) == [str(i) for i in range(len(codes))]
    assert [(out / str(i)).read_bytes() for i in range(len(codes))] == codes
    assert sorted(hashlib.sha256(c).hexdigest() for c in codes) == extracted(path, tmp_path)


def test_extract_all_leaves_out_none_and_takes_bytes(tmp_path):
    with offcode.open(APP) as a:
        n = {id(e): i for i, e in enumerate(a.entries)}
        seen = []

        def where(e):
            seen.append((e.index, e.image_kind))
            return None if n[id(e)] % 2 else os.fsencode(tmp_path / str(n[id(e)]))
        assert a.extract_all(where) is None
        assert seen == [(e.index, e.image_kind) for e in a.entries]
        assert sorted(os.listdir(tmp_path)) == [str(i) for i in range(0, len(n), 2)]
        for i in range(0, len(n), 2):
            assert (tmp_path / str(i)).read_bytes() == a.entries[i].read()


def test_extract_all_stops_on_an_exception(tmp_path):
    with offcode.open(APP) as a:
        n = {id(e): i for i, e in enumerate(a.entries)}

        def where(e):
            if n[id(e)] == 2:
                raise KeyError("stop")
            return tmp_path / str(n[id(e)])
        with pytest.raises(KeyError):
            a.extract_all(where)
        assert sorted(os.listdir(tmp_path)) == ["0", "1"]
        with pytest.raises(TypeError):
            a.extract_all(lambda e: 3)
        with pytest.raises(ValueError):
            a.extract_all(lambda e: "x\0y")
        with pytest.raises(RuntimeError):
            a.extract_all(lambda e: e.read())
        # usable after all of those
        assert a.entries[1].read()


def test_extract_all_fails_naming_the_file(tmp_path):
    with offcode.open(APP) as a:
        with pytest.raises(offcode.SystemCallError) as x:
            a.extract_all(lambda e: tmp_path / "no" / "such" / str(e.index))
        assert x.value.errno == errno.ENOENT
        assert x.value.path == str(tmp_path / "no" / "such" / "0")
    assert os.listdir(tmp_path) == []


def test_extract_all_of_a_file_cut_short_since_open(tmp_path):
    f = tmp_path / "t.so"
    f.write_bytes(open(os.path.join(TOP, APP), "rb").read())
    out = tmp_path / "out"
    out.mkdir()
    with offcode.open(str(f)) as a:
        last = a.entries[-1]
        os.truncate(f, last.offset + 1)
        with pytest.raises(offcode.ChangedError) as x:
            a.extract_all(lambda e: out / str(e.offset))
        assert x.value.reason == "'%s': cut short since it was opened" % f
    # the entries before the last whole, no temporary left
    assert all(not n.startswith(".") and "tmp" not in n for n in os.listdir(out))
    assert str(last.offset) not in os.listdir(out)


def test_image_kind_read_when_asked(tmp_path):
    f = tmp_path / "t.so"
    f.write_bytes(open(os.path.join(TOP, APP), "rb").read())
    with offcode.open(str(f)) as a:
        want = [e.to_json()["image_kind"] for e in a.entries]
    _, files, _ = ls_json(APP)
    assert want == [e["image_kind"] for s in files[0]["sections"]
                    for c in s["containers"] for e in c["entries"]]
    # Not read at open: a file cut short after it has none to give.
    with offcode.open(str(f)) as a:
        os.truncate(f, 0)
        assert [e.image_kind for e in a.entries] == [None] * len(a.entries)


def test_section_and_prune_result_are_named_tuples():
    s = offcode.Section(18, ".hip_fatbin", "hip-fatbin")
    assert s == (18, ".hip_fatbin", "hip-fatbin") and s.name == ".hip_fatbin"
    assert repr(s) == "Section(index=18, name='.hip_fatbin', kind='hip-fatbin')"
    r = offcode.PruneResult(10, 5, 1, 2, True)
    assert (r.size_before, r.size_after, r.entries_kept, r.entries_dropped,
            r.changed) == tuple(r) == (10, 5, 1, 2, True)


# What a listing by open() names none of is imported when first named
# (issue 37): the functions (_functions.py),
# the records; each name the same object each time, the submodule's, and
# the package's as before: its __module__, its docstring in help(), its
# signature; dir() and __all__ the same whether or not they were named.
LAZY = {"_functions": ["library_version", "target_id_compatible", "check_stdout",
                       "code_kernels", "path_kind", "open_split", "image_kind",
                       "code_for"]}


def test_import_imports_none_of_the_lazy_modules():
    code = ("import sys, offcode; "
            "print(sorted(m for m in sys.modules if m.startswith('offcode'))); "
            "print(sorted(n for n in vars(offcode) if not n.startswith('__')))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (r.stdout, r.stderr, r.returncode) == (
        "['offcode', 'offcode._offcode']\n"
        "['Artifact', 'Container', 'Entry', 'Input', 'Node', 'Section', 'Sequence', "
        "'Source', 'TYPE_CHECKING', '_ARRAYS', '_COMPRESS', '_LAZY', "
        "'_byte_as_char', '_offcode', '_text', '_walk_input', 'codecs', 'open', "
        "'os', 'prune', 'sys', 'walk']\n", "", 0)


@pytest.mark.parametrize("module", sorted(LAZY))
def test_lazy_names_are_their_modules_once_named(module):
    names = LAZY[module]
    code = ("import sys, offcode; m = 'offcode.%s'; names = %r; d = dir(offcode); "
            "got = [getattr(offcode, n) for n in names]; "
            "print(m in sys.modules, [n for n in sys.modules if n.startswith('offcode.')]); "
            "mod = sys.modules[m]; "
            "print(all(g is getattr(mod, n) is getattr(offcode, n) is vars(offcode)[n] "
            "for g, n in zip(got, names))); "
            "print(sorted(set(dir(offcode)) ^ set(d)))" % (module, names))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    # (dir() gains the submodule, as it does once _records is imported)
    assert (r.stdout, r.stderr, r.returncode) == (
        "True ['offcode._offcode', 'offcode.%s']\nTrue\n['%s']\n" % (module, module),
        "", 0)


def test_lazy_names_read_as_the_packages():
    import inspect
    import pydoc
    assert offcode.Node is offcode._offcode.Node
    assert offcode.open_split is offcode._functions.open_split
    # help(offcode) shows each as it did, under FUNCTIONS (CLASSES: Node)
    text = pydoc.plaintext.document(offcode)
    for n in LAZY["_functions"] + ["walk", "Node"]:
        f = getattr(offcode, n)
        assert (f.__module__, f.__name__, f.__qualname__) == (
            ("offcode._offcode", "Node", "Node") if n == "Node" else ("offcode", n, n))
        assert pydoc.plaintext.indent(pydoc.plaintext.document(f, n)) in text
    functions = text[text.index("\nFUNCTIONS\n"):text.index("\nDATA\n")]
    assert re.findall(r"^    (\w+)\(", functions, re.M) == [
        "__dir__", "__getattr__", "check_stdout", "code_for", "code_kernels",
        "image_kind", "library_version", "open", "open_split", "path_kind", "prune",
        "target_id_compatible", "walk"]
    assert str(inspect.signature(offcode.walk)) == (
        "(source: 'Openable', visit: 'Callable[[Node], Any]', *, code: bool = False, "
        "verify: bool = False, name: 'Optional[str]' = None, "
        "ccob_max_size: int = 0, ccob_max_ratio: int = 0) -> 'Any'")
    assert str(inspect.signature(offcode.code_for)) == (
        "(code: 'Union[bytes, bytearray, memoryview]', target: str) -> 'Tuple[bool, str]'")
    assert offcode.image_kind.__doc__.startswith("The image kind of a code object's bytes")
    assert set(offcode.__all__) <= set(dir(offcode))
    assert [n for n in offcode.__all__ if getattr(offcode, n, None) is None] == []
    # (what __all__ names is made at import or named in _LAZY)
    assert set(offcode._LAZY) <= set(offcode.__all__)
    assert sorted(set(offcode.__all__) - set(offcode._LAZY)) == [
        "Artifact", "Container", "Entry", "Input", "Node", "Section", "Source", "open",
        "prune", "walk"]
    assert offcode.library_version() == offcode._offcode.version()
    assert offcode.code_for(b"", "gfx90a") == (False, "not an AMDGPU code object")
    with pytest.raises(AttributeError, match="module 'offcode' has no attribute 'Nodes'"):
        offcode.Nodes
    r = subprocess.run([sys.executable, "-c",
                        "from offcode import walk, code_for, open, Node; "
                        "import offcode; print(walk is offcode.walk, Node.__name__)"],
                       capture_output=True, text=True)
    assert (r.stdout, r.stderr, r.returncode) == ("True Node\n", "", 0)


def test_import_reads_no_typing():
    r = subprocess.run(["/usr/bin/python3", "-c",
                        "import sys, offcode; print('typing' in sys.modules)"],
                       capture_output=True, text=True)
    assert (r.stdout, r.returncode) == ("False\n", 0), r.stderr


# A walk over a file cut short since it was opened is refused before it
# reads the map (whose lost pages would be a SIGBUS): each_code, and
# extract_all over CCOBs, say the change.
@pytest.mark.parametrize("src", [APP, "test/files/inspect/fatbin-z.bin"])
def test_walks_of_a_file_cut_short_since_open(src, tmp_path):
    f = tmp_path / "t"
    f.write_bytes(open(os.path.join(TOP, src), "rb").read())
    with offcode.open(str(f)) as a:
        os.truncate(f, os.path.getsize(f) // 2)
        with pytest.raises(offcode.ChangedError) as x:
            a.each_code(lambda e, code: None)
        assert x.value.reason == "'%s': cut short since it was opened" % f
        with pytest.raises(offcode.ChangedError):
            a.extract_all(lambda e: tmp_path / ("o%d" % e.index))
    assert [n for n in os.listdir(tmp_path) if "tmp" in n] == []


# Code is never written over the artefact's own file, by any name of it
# (a rename would put an entry's code where the input was).
def test_code_never_written_over_its_artefact(tmp_path):
    f = tmp_path / "t.so"
    data = open(os.path.join(TOP, APP), "rb").read()
    f.write_bytes(data)
    os.link(f, tmp_path / "hard")
    os.symlink("t.so", tmp_path / "soft")
    with offcode.open(str(f)) as a:
        for where in (f, tmp_path / "hard"):
            with pytest.raises(offcode.InvalidError) as x:
                a.entries[1].extract(where)
            assert x.value.reason == "'%s': is the artefact's own file, not written over" % where
            with pytest.raises(offcode.InvalidError):
                a.extract_all(lambda e: where)
        # a symbolic link to it is replaced, as any link is
        a.entries[1].extract(tmp_path / "soft")
        assert (tmp_path / "soft").read_bytes() == a.entries[1].read()
    assert f.read_bytes() == data
    assert sorted(os.listdir(tmp_path)) == ["hard", "soft", "t.so"]
