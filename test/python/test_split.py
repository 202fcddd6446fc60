"""offcode.open_split against the offload tool, on the kpack suites'
fixtures (test/files/kpack: the split binaries the reference splitter
made, and ones split here with `offload kpack split`): what it says equal
to `offload ls --json`'s "kpack" object field by field, each code object's
bytes to what `offload extract` writes, verify() to `ls --verify`'s lines,
and damaged references and archives refused with ls's reason.  Run by
test/python.test (PYTHONPATH: the extension built against the library of
this tree; OFFLOAD: its offload)."""
import hashlib
import json
import os
import shutil
import subprocess
import threading

import pytest

import offcode

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OFFLOAD = os.environ.get("OFFLOAD", os.path.join(TOP, "build", "bin", "offload"))
ENV = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
FIX = os.path.join(TOP, "test", "files", "kpack")
BAD = os.path.join(TOP, "test", "files", "bad")

# Every split binary of the fixtures (the artifacts' have no archive
# beside them).
SPLIT = ["test/files/kpack/split/bin/app", "test/files/kpack/tree/split/bin/app",
         "test/files/kpack/tree/split/lib/libk.so",
         "test/files/kpack/artifacts/none/o_lib/o_lib_generic/stage/bin/app",
         "test/files/kpack/artifacts/none/blas_lib/blas_lib_generic/math-libs/BLAS/rocBLAS/stage/lib/librocblas.so"]


def run(*args, cwd=TOP):
    r = subprocess.run([OFFLOAD, *args], cwd=cwd, capture_output=True, env=ENV)
    return r.returncode, r.stdout, r.stderr.decode("utf-8", "surrogateescape")


def ls_kpack(path, cwd=TOP):
    rc, out, err = run("ls", "--json", path, cwd=cwd)
    return json.loads(out)["files"][0].get("kpack")


def errors(path, *opts, cwd=TOP):
    """ls's error lines, each after "offload ls: error: "."""
    rc, out, err = run("ls", *opts, path, cwd=cwd)
    return [l[len("offload ls: error: "):] for l in err.splitlines()]


def split_tree(tmp, compress="none", binary=None):
    """The fixtures' tree split here: stage/bin/app (gfx90a, gfx1100) and
    stage/lib/libk.so (a CCOB: gfx90a:xnack+, gfx1100), or one of them
    alone (every archive then holds each of its code objects)."""
    stage = tmp / "stage"
    (stage / "bin").mkdir(parents=True)
    (stage / "lib").mkdir()
    if binary in (None, "bin/app"):
        shutil.copy(os.path.join(FIX, "app"), stage / "bin" / "app")
    if binary in (None, "lib/libk.so"):
        shutil.copy(os.path.join(FIX, "libk.so"), stage / "lib" / "libk.so")
    out = tmp / ("out-" + compress)
    rc, _, err = run("kpack", "split", "--compress=" + compress, "-o", str(out), str(stage))
    assert (rc, err) == (0, "")
    return out


def check_against_ls(s, path, cwd=TOP):
    """s, field by field, and its to_json(), against ls --json's."""
    j = ls_kpack(path, cwd)
    assert s.to_json() == j
    assert s.kernel_name == j["kernel_name"]
    assert [w.index for w in s.wrappers] == j["wrappers"]
    assert [w.key for w in s.wrappers] == ["%s#%d" % (j["kernel_name"], i)
                                          for i in j["wrappers"]]
    assert s.unsplit_wrappers == j["unsplit_wrappers"]
    assert len(s.search_paths) == len(j["search_paths"])
    archives = []
    for p, jp in zip(s.search_paths, j["search_paths"]):
        assert (p.pattern, p.directory, p.directory_found) == \
            (jp["pattern"], jp["directory"], jp["directory_found"])
        assert [a.path for a in p.archives] == [ja["path"] for ja in jp["archives"]]
        for a, ja in zip(p.archives, jp["archives"]):
            assert a.search_path is p
            assert (a.path, a.target, a.version, a.compression_scheme, a.size,
                    a.reason) == (ja["path"], ja["target"], ja["version"],
                                  ja["compression_scheme"], ja["size"], ja["error"])
            codes = a.resolved()
            assert len(codes) == len(ja["entries"])
            for (w, c), je in zip(codes, ja["entries"]):
                assert (c.index, c.key, c.id, c.arch, c.triple, c.size,
                        w.index) == (je["index"], je["id"], je["id"], je["arch"],
                                     je["triple"], je["size"], je["wrapper"])
                if c.in_file:
                    assert (c.offset, c.uri, c.compressed, c.image_kind) == \
                        (je["offset"], je["uri"], je["compressed"], je["image_kind"])
                else:
                    assert (c.offset, c.uri, c.compressed, je["offset"], je["uri"],
                            je["compressed"], je["image_kind"]) == \
                        (None, None, True, None, None, True, None)
            assert [{"wrapper": w.index, "id": w.key} for w in a.missing] == ja["missing"]
            archives.append(a)
    assert archives == s.archives
    return j


@pytest.mark.parametrize("path", SPLIT)
def test_split_is_ls_json(path):
    with offcode.open_split(path) as s:
        assert s.path == path
        check_against_ls(s, path)


def test_split_facts():
    with offcode.open_split("test/files/kpack/split/bin/app") as s:
        assert repr(s) == "<offcode.SplitBinary test/files/kpack/split/bin/app: stage/bin/app, 2 wrappers, 2 archives>"
        assert s.wrappers == [offcode.Wrapper(0, "stage/bin/app#0"),
                              offcode.Wrapper(1, "stage/bin/app#1")]
        assert [(p.pattern, p.directory, p.directory_found, len(p.archives))
                for p in s.search_paths] == \
            [("../.kpack/t_@GFXARCH@.kpack", "test/files/kpack/split/bin/../.kpack", True, 2)]
        assert [(a.path, a.target, a.version, a.compression_scheme, a.size, len(a),
                 a.error, a.damaged) for a in s.archives] == [
            ("test/files/kpack/split/bin/../.kpack/t_gfx1100.kpack", "gfx1100", 1, "none", 9870, 2, None, False),
            ("test/files/kpack/split/bin/../.kpack/t_gfx90a.kpack", "gfx90a", 1, "none", 11302, 2, None, False)]
        st = os.stat(s.archives[1].path)
        assert s.archives[1].id == (st.st_dev, st.st_ino)
        a = s.archives[1]
        assert [(c.index, c.key, c.target, c.bundle_id, c.size, c.in_file, c.offset)
                for c in a] == [
            (0, "stage/bin/app#0", "gfx90a", "hipv4-amdgcn-amd-amdhsa--gfx90a", 5416, True, 64),
            (1, "stage/bin/app#1", "gfx90a", "hipv4-amdgcn-amd-amdhsa--gfx90a", 5416, True, 5480)]
        assert a.codes(s.wrappers[1]) == [a[1]]
        assert a[1].uri == "file://test/files/kpack/split/bin/../.kpack/t_gfx90a.kpack#offset=5480&size=5416"
        code = a[1].read()
        with open(a.path, "rb") as f:
            f.seek(5480)
            assert code == f.read(5416)
        assert (offcode.image_kind(code), offcode.code_for(code, "gfx90a"),
                offcode.code_for(code, "gfx1100"), a[1].code_for(),
                a[1].image_kind) == \
            ("elf", (True, "gfx90a"), (False, "gfx90a"), (True, "gfx90a"), "elf")
        assert s.verify() == []
        with pytest.raises(ValueError, match="is no wrapper of"):
            a.codes(offcode.Wrapper(7, "x#7"))
    assert s.closed
    with pytest.raises(ValueError, match="^the split binary is closed$"):
        a[0].read()


def test_indices_the_extension_refuses():
    # (the records never pass these: the extension's own checks)
    with offcode.open_split("test/files/kpack/split/bin/app") as s:
        h = s._h
        for call in (lambda: h.codes(-1, 0), lambda: h.codes(0, -1),
                     lambda: h.read(-1, 0), lambda: h.uri(0, -1),
                     lambda: h.entries(-1)):
            with pytest.raises(IndexError, match="^no such index$"):
                call()
        with pytest.raises(IndexError, match="^no such archive or wrapper$"):
            h.codes(2, 0)
        assert h.uri(1, 1) == "file://test/files/kpack/split/bin/../.kpack/t_gfx90a.kpack#offset=5480&size=5416"


def test_image_kind_and_code_for_of_other_bytes():
    with open(os.path.join(FIX, "zstd.kpack"), "rb") as f:
        data = f.read()
    assert (offcode.image_kind(b""), offcode.image_kind(b"BC\xc0\xde\x35\x14"),
            offcode.image_kind(data), offcode.code_for(b"", "gfx90a"),
            offcode.code_for(data, "gfx90a")) == \
        (None, "bitcode", None, (False, "not an AMDGPU code object"),
         (False, "not an AMDGPU code object"))
    with pytest.raises(TypeError):
        offcode.code_for("text", "gfx90a")


def extracted(path, out):
    rc, _, err = run("extract", "-q", "-o", str(out), path)
    assert (rc, err) == (0, "")
    return {f: (out / f).read_bytes() for f in sorted(os.listdir(out))}


@pytest.mark.parametrize("compress", ["none", "zstd"])
def test_code_is_what_extract_writes(compress, tmp_path):
    tree = split_tree(tmp_path, compress, "bin/app")
    path = str(tree / "bin/app")
    ours = {}
    with offcode.open_split(path) as s:
        for a, w, c in s.codes():
            assert a.compression_scheme == ("zstd-per-kernel" if compress == "zstd" else "none")
            ours["app.%d.%s.co" % (w.index, c.bundle_id)] = c.read()
        check_against_ls(s, path)
    assert ours == extracted(path, tmp_path / "x")
    assert sorted(ours) == ["app.0.hipv4-amdgcn-amd-amdhsa--gfx1100.co",
                            "app.0.hipv4-amdgcn-amd-amdhsa--gfx90a.co",
                            "app.1.hipv4-amdgcn-amd-amdhsa--gfx1100.co",
                            "app.1.hipv4-amdgcn-amd-amdhsa--gfx90a.co"]


def test_code_beside_a_fat_binary_is_what_extract_writes(tmp_path):
    # libk.so keeps its CCOB too: extract writes both, the archives'
    # second ("-2"), ':' as '_'.
    tree = split_tree(tmp_path, "zstd", "lib/libk.so")
    path = str(tree / "lib/libk.so")
    with offcode.open_split(path) as s:
        ours = {"libk.so.%d.%s-2.co" % (w.index, c.bundle_id.replace(":", "_")): c.read()
                for a, w, c in s.codes()}
        check_against_ls(s, path)
    theirs = extracted(path, tmp_path / "x")
    assert sorted(theirs) == ["libk.so.0.hipv4-amdgcn-amd-amdhsa--gfx1100-2.co",
                              "libk.so.0.hipv4-amdgcn-amd-amdhsa--gfx1100.co",
                              "libk.so.0.hipv4-amdgcn-amd-amdhsa--gfx90a_xnack+-2.co",
                              "libk.so.0.hipv4-amdgcn-amd-amdhsa--gfx90a_xnack+.co"]
    assert ours == {k: v for k, v in theirs.items() if k.endswith("-2.co")}


def test_memory_is_path(tmp_path):
    path = "test/files/kpack/tree/split/lib/libk.so"
    with open(path, "rb") as f:
        data = bytearray(f.read())
    with offcode.open_split(path) as by_path, \
            offcode.open_split(data, name=path) as by_bytes:
        assert by_bytes.path == path
        assert by_bytes.to_json() == by_path.to_json()
        with pytest.raises(BufferError):
            data.extend(b"x")
    data.extend(b"x")     # (let go with the handle)
    with offcode.open_split(memoryview(bytes(data[:-1]))) as s:
        # "<memory>": archives looked for from "."
        assert (s.path, s.kernel_name, [p.directory_found for p in s.search_paths],
                s.archives) == ("<memory>", "stage/lib/libk.so", [False], [])


def test_no_split_binary():
    for path in ("test/files/kpack/app", "test/files/kpack/zstd.kpack", "README.md"):
        with pytest.raises(offcode.NothingError) as ei:
            offcode.open_split(path)
        e = ei.value
        assert (str(e), e.code, e.code_name, e.errno, e.offset, e.path, e.reason) == \
            ("'%s': not a kpack-split binary (no .rocm_kpack_ref section)" % path,
             7, "nothing", 0, None, path,
             "not a kpack-split binary (no .rocm_kpack_ref section)")
        assert e.chain == [offcode.ErrorRecord((7, "nothing", 0, None, path, e.reason, str(e)))]
    with pytest.raises(offcode.SystemCallError) as ei:
        offcode.open_split("test/files/kpack/nosuch")
    assert (ei.value.errno, ei.value.reason, ei.value.path) == \
        (2, "No such file or directory", "test/files/kpack/nosuch")
    assert errors("test/files/kpack/nosuch") == \
        ["cannot read 'test/files/kpack/nosuch': No such file or directory"]
    with pytest.raises(TypeError):
        offcode.open_split(3)


def patched(tmp_path, fn):
    """The split fixture copied, its reference's bytes given to fn."""
    d = tmp_path / "s"
    shutil.copytree(os.path.join(FIX, "split"), d)
    p = d / "bin" / "app"
    b = p.read_bytes()
    i = b.index(b"kernel_name\xadstage/bin/app", 0x4000)
    p.write_bytes(fn(b, i))
    return str(p)


# Damaged references: the exception of the record's class, its message
# ls's reason.
@pytest.mark.parametrize("name,fn,cls,why", [
    ("bad msgpack", lambda b, i: b[:i + 11] + b"\xc1" + b[i + 12:],
     "MalformedError", "MessagePack byte 0xc1 at offset 61 is no type"),
    ("cut map", lambda b, i: b[:i - 1] + b"\x8f" + b[i:],
     "MalformedError", "MessagePack map at offset 49 declares 15 elements, more than its 25 bytes can hold"),
    ("NUL in kernel_name", lambda b, i: b[:i + 21] + b"\0" + b[i + 22:],
     "MalformedError", ".rocm_kpack_ref kernel_name holds a NUL byte (byte 10 of its 13)"),
])
def test_damaged_reference(name, fn, cls, why, tmp_path):
    path = patched(tmp_path, fn)
    with pytest.raises(offcode.Error) as ei:
        offcode.open_split(path)
    assert (type(ei.value).__name__, str(ei.value), ei.value.reason) == (cls, why, why)
    assert errors(path) == ["cannot list '%s': %s" % (path, why)]


def test_truncated_binary(tmp_path):
    # Cut before its section headers: no .rocm_kpack_ref to be found (ls
    # refuses it before, as an ELF file).
    p = tmp_path / "app"
    with open(os.path.join(FIX, "split/bin/app"), "rb") as f:
        p.write_bytes(f.read()[:0x4010])
    with pytest.raises(offcode.NothingError) as ei:
        offcode.open_split(str(p))
    assert ei.value.reason == "not a kpack-split binary (no .rocm_kpack_ref section)"
    assert run("ls", str(p)) == (1, b"", "offload ls: error: cannot list '%s': program header "
                                 "table runs past the end of the file\n" % p)


def tree_with(tmp_path, archive=None, fifo=False):
    """split/bin/app with .kpack/t_gfx90a.kpack the bytes of archive, a
    FIFO, or no .kpack at all."""
    d = tmp_path / "t"
    (d / "bin").mkdir(parents=True)
    shutil.copy(os.path.join(FIX, "split/bin/app"), d / "bin" / "app")
    if archive is not None or fifo:
        (d / ".kpack").mkdir()
        k = d / ".kpack" / "t_gfx90a.kpack"
        if fifo:
            os.mkfifo(k)
        else:
            k.write_bytes(archive)
    return str(d / "bin" / "app")


def one_archive(path):
    s = offcode.open_split(path)
    j = check_against_ls(s, path)
    assert s.verify() == errors(path, "--verify")
    return s, j


def test_truncated_archive(tmp_path):
    with open(os.path.join(FIX, "split/.kpack/t_gfx90a.kpack"), "rb") as f:
        path = tree_with(tmp_path, f.read()[:100])
    s, _ = one_archive(path)
    a = s.archives[0]
    why = "TOC offset 10896 is outside the file's 100 bytes"
    assert (type(a.error).__name__, a.damaged, str(a.error), a.reason, len(a), a.size,
            a.missing, a.resolved()) == \
        ("TruncatedError", True, why, "kpack archive: " + why, 0, None, [], [])
    assert s.verify() == ["cannot list '%s': kpack archive: %s" % (a.path, why)]


def test_damaged_archive(tmp_path):
    with open(os.path.join(BAD, "kpack-cut.kpack"), "rb") as f:
        path = tree_with(tmp_path, f.read())
    s, _ = one_archive(path)
    why = "MessagePack object at offset 104 runs past the end"
    assert (type(s.archives[0].error).__name__, s.archives[0].reason) == \
        ("TruncatedError", "kpack archive: " + why)


def test_fifo_archive(tmp_path):
    path = tree_with(tmp_path, fifo=True)
    s, _ = one_archive(path)
    a = s.archives[0]
    assert (type(a.error).__name__, a.damaged, a.error.path, a.error.reason, a.reason, a.id) == \
        ("OtherError", False, a.path, "not a regular file", "not a regular file", None)
    assert s.verify() == ["cannot read '%s': not a regular file" % a.path]


def test_missing_archive(tmp_path):
    path = tree_with(tmp_path)
    s, j = one_archive(path)
    p = s.search_paths[0]
    assert (p.directory_found, p.archives, s.archives) == (False, [], [])
    assert s.verify() == ["no archive for '%s': search path '../.kpack/t_@GFXARCH@.kpack': "
                          "no directory '%s'" % (path, p.directory)]
    os.mkdir(os.path.join(os.path.dirname(os.path.dirname(path)), ".kpack"))
    s, j = one_archive(path)
    assert s.verify() == ["no archive for '%s': search path '../.kpack/t_@GFXARCH@.kpack' "
                          "finds no archive" % path]


def test_missing_code_objects_and_bad_code(tmp_path):
    with open(os.path.join(BAD, "kpack-other-key.kpack"), "rb") as f:
        path = tree_with(tmp_path, f.read())
    s, j = one_archive(path)
    a = s.archives[0]
    assert (a.missing, [c.key for c in a]) == (s.wrappers, ["a#0"])
    assert s.verify() == ["missing code object for '%s': wrapper #%d: no 'stage/bin/app#%d' in '%s'"
                          % (path, i, i, a.path) for i in (0, 1)]
    assert a[0].code_for() == (False, "not an AMDGPU code object")
    assert errors(os.path.join(BAD, "kpack-other-key.kpack"), "--verify") == \
        ["bad code object in '%s': 'a#0' for gfx90a: %s" % (os.path.join(BAD, "kpack-other-key.kpack"),
                                                            a[0].code_for()[1])]


@pytest.mark.parametrize("bad,cls,why", [
    ("kpack-short.kpack", "TruncatedError", "entry 'a#0' inflates to 64 bytes, not the 65 its TOC declares"),
    ("kpack-bomb.kpack", "MalformedError",
     "entry 'a#0' declares 1099511627776 bytes from 73 compressed ones, beyond a ratio of 65536:1"),
    ("kpack-frame.kpack", "DecompressError", "entry 'a#0': zstd: Unsupported frame parameter"),
])
def test_code_that_cannot_be_read(bad, cls, why, tmp_path):
    with open(os.path.join(BAD, bad), "rb") as f:
        path = tree_with(tmp_path, f.read())
    with offcode.open_split(path) as s:
        c = s.archives[0][0]
        with pytest.raises(offcode.Error) as ei:
            c.read()
        assert (type(ei.value).__name__, str(ei.value)) == (cls, why)
    rc, _, err = run("extract", "-o", str(tmp_path / "o"), os.path.join(BAD, bad))
    assert err == "offload extract: error: cannot extract from '%s': kpack archive: %s\n" % (
        os.path.join(BAD, bad), why)


def test_limits(tmp_path):
    tree = split_tree(tmp_path, "zstd")
    with offcode.open_split(str(tree / "bin/app")) as s:
        c = s.archives[0][0]
        assert len(c.read()) == c.size == 4696
        with pytest.raises(offcode.MalformedError) as ei:
            c.read(max_size=100)
        assert str(ei.value) == "entry 'stage/bin/app#0' declares 4696 bytes, more than the limit of 100"
        with pytest.raises(ValueError):
            c.read(max_size=-1)


def test_threads_share_a_split_binary():
    with offcode.open_split("test/files/kpack/split/bin/app") as s:
        want = {(a.number, c.index): hashlib.sha256(c.read()).hexdigest()
                for a, w, c in s.codes()}
        bad = []

        def work():
            for _ in range(20):
                for a, w, c in s.codes():
                    if hashlib.sha256(c.read()).hexdigest() != want[(a.number, c.index)]:
                        bad.append(c)
        ts = [threading.Thread(target=work) for _ in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        assert (len(want), bad) == (4, [])
