"""The calls liboffcode gained for programs of their own, from Python, against
the offload tool on the C suites' fixtures: code_kernels (offcode_code_kernels)
equal to `offload ls --kernels --json` of the code objects `offload extract`
writes, and Kernels.target_id to what `offload ls` says they are for; an
NVIDIA entry's header (offcode_entry_nv) equal to ls --json's "nv" and to
`ls --format=cuobjdump`'s names, a lone cubin's SM (offcode_input_cubin_arch);
offcode.Source (offcode_source_*) as ls reads its inputs.  Run by
test/python.test with test_offcode.py."""
import errno
import glob
import hashlib
import json
import mmap
import os
import re
import subprocess
import sys
import threading

import pytest

import offcode
from test_offcode import ENV, FIXTURES, OFFLOAD, READ_FIXTURES, TOP, ls, ls_json

APP = "test/files/inspect/app"
GFX90A = "app.0.hipv4-amdgcn-amd-amdhsa--gfx90a_xnack+.co"
CLASSES = {"truncated": offcode.TruncatedError, "malformed": offcode.MalformedError,
           "other": offcode.OtherError, "unsupported": offcode.UnsupportedError}


@pytest.fixture(scope="module", autouse=True)
def at_top():
    os.chdir(TOP)


def extract_all(path, out):
    """`offload extract --all` of path into out: the files written, sorted
    (none where extract reads nothing of it)."""
    r = subprocess.run([OFFLOAD, "extract", "--all", "-q", "-o", str(out), path],
                       cwd=TOP, capture_output=True, env=ENV)
    if r.returncode:
        return []
    return sorted(str(p) for p in out.iterdir()) if out.exists() else []


def ls_files(*args):
    r = subprocess.run([OFFLOAD, "ls", *args], cwd=TOP, capture_output=True, env=ENV)
    return r.returncode, r.stdout.decode(), r.stderr.decode()


# ---- code_kernels: the kernels of code at hand ----

def expect_kernels(got_call, want):
    """got_call() against ls --kernels --json's "kernels" object of the
    file: null is None, an error the class of its error_code raised with
    its reason, a list the same list."""
    if want is None:
        assert got_call() is None
    elif want["error"] is not None:
        with pytest.raises(offcode.Error) as e:
            got_call()
        assert (type(e.value), e.value.code_name, e.value.reason) == \
            (CLASSES[want["error_code"]], want["error_code"], want["error"])
    else:
        k = got_call()
        assert k is not None and k.to_json() == want


def kernel_cases(path, tmp_path):
    """code_kernels of each code object extract writes of path against ls
    --kernels --json of the file written: how many list kernels."""
    # (a file extract writes nothing of is its own case: a lone code
    # object, or bytes that are none)
    files = extract_all(path, tmp_path / "x") or [path]
    rc, out, err = ls_files("--kernels", "--json", *files)
    listed = {f["path"]: f["kernels"] for f in json.loads(out)["files"]} if out else {}
    _, text, _ = ls_files(*files)
    said = dict(re.findall(r"^(.*): .*?: a code object for (\S+)", text, re.M))
    assert sorted(listed) == sorted(files), err
    seen = 0
    for f in files:
        data = open(f, "rb").read()
        want = listed[f]
        expect_kernels(lambda: offcode.code_kernels(data), want)
        if want is not None and want["error"] is None:
            k = offcode.code_kernels(data)
            # the target ID `offload ls` says a lone AMDGPU code object is for
            assert k.target_id == (said.get(f) if k.source == "amdgpu" else None)
            # any bytes-like object, read in place
            m = memoryview(bytearray(data))
            assert offcode.code_kernels(m).to_json() == want
            seen += 1
    return seen


@pytest.mark.parametrize("path", READ_FIXTURES + ["test/files/bad/kernels-bundle.bin"])
def test_code_kernels_are_ls_kernels_of_extracted_code(path, tmp_path):
    kernel_cases(path, tmp_path)


def test_code_kernels_cases_are_many(tmp_path):
    # the cases above that list kernels: of app's four code objects, of
    # lone code objects, of NVIDIA's cubins and PTX
    got = {p: kernel_cases(p, tmp_path / p.replace("/", "_"))
           for p in (APP, "test/files/llvm2324/co24.co", "test/files/nv118/a.cubin",
                     "test/files/nvres/res.fatbin", "test/files/nv118/libab.a")}
    assert list(got.values()) == [4, 1, 1, 5, 9]


def test_code_kernels_is_an_entrys_kernels():
    # the code of each entry, read by the caller, lists what the entry does,
    # its target ID too
    n = 0
    for path in (APP, "test/files/nvres/res.fatbin", "test/files/inspect/cu-rdc.o",
                 "test/files/kernels/small.o", "test/files/kpack/zstd.kpack"):
        with offcode.open(path) as a:
            for e in a.entries:
                k, mine = e.kernels(), offcode.code_kernels(e.read())
                assert (k is None) == (mine is None)
                if k is not None:
                    assert (mine.to_json(), mine.target_id) == (k.to_json(), k.target_id)
                    n += 1
    assert n == 19


def test_code_kernels_of_bytes_another_thread_writes():
    # A kernel's name is read from its .nv.info.NAME section's name, which
    # the scan measured to its NUL: copied as measured, not again to a NUL
    # another thread may have written over since (a heap overflow under
    # ASan: the name ran on into the next one, past the room made for it).
    # The count of kernels is the count of those sections, whatever the
    # names are.
    data = open("test/files/nv118/a.cubin", "rb").read()
    nul = data.index(b".nv.info._Z7add_onePii\0") + len(".nv.info._Z7add_onePii")
    buf = bytearray(data)
    stop = []

    def flip():
        while not stop:
            buf[nul] = 0x78
            buf[nul] = 0
    t = threading.Thread(target=flip)
    t.start()
    counts = set()
    try:
        for _ in range(5000):
            counts.add(len(offcode.code_kernels(buf)))
    finally:
        stop.append(1)
        t.join()
    assert counts == {len(offcode.code_kernels(data))} == {1}


def test_code_kernels_target_ids():
    with offcode.open(APP) as a:
        got = [(k.source, k.target, k.target_id) if k else None
               for k in (e.kernels() for e in a.entries)]
    assert got == [None,
                   ("amdgpu", "amdgcn-amd-amdhsa--gfx1100", "gfx1100"),
                   ("amdgpu", "amdgcn-amd-amdhsa--gfx90a:xnack+", "gfx90a:xnack+")] * 2
    with offcode.open("test/files/inspect/cu-rdc.o") as a:
        got = [(k.source, k.target, k.processor, k.ptx_version, k.target_id)
               for k in (e.kernels() for e in a.entries)]
    assert got == [("cubin", "sm_80", "sm_80", None, None),
                   ("ptx", "sm_90", "sm_90", "9.0", None)]


def gfx90a_code(tmp_path):
    files = extract_all(APP, tmp_path / "x")
    return open([f for f in files if f.endswith(GFX90A)][0], "rb").read()


def test_code_kernels_takes_any_bytes_like(tmp_path):
    data = gfx90a_code(tmp_path)
    want = offcode.code_kernels(data).to_json()
    f = tmp_path / "co"
    f.write_bytes(data)
    with open(f, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as m:
        assert offcode.code_kernels(m).to_json() == want
    with offcode.Source(str(f)) as s:
        assert offcode.code_kernels(s).to_json() == want
        with s.bytes as v:
            assert offcode.code_kernels(v).to_json() == want
    assert offcode.code_kernels(bytearray(data)).to_json() == want
    # the buffer is let go: a bytearray resizes after
    b = bytearray(data)
    offcode.code_kernels(b)
    b += b"x"
    with pytest.raises(TypeError):
        offcode.code_kernels("not bytes")
    with pytest.raises(BufferError):
        offcode.code_kernels(memoryview(data)[::2])    # not contiguous


@pytest.mark.parametrize("code", [b"", b"\x7fELF", b"garbage " * 40,
                                  b"\x00" * 4096, b"// PTX? no\n"])
def test_code_kernels_of_no_code_object(code):
    assert offcode.code_kernels(code) is None


# A good code object cut short: the class and reason ls gives the file
# ("cannot list" where its ELF headers run past the end, "cannot read
# kernels" where its metadata do).  Bytes that end before the ELF header
# names its machine are no code object to code_kernels (ls refuses them
# as a truncated ELF file).
@pytest.mark.parametrize("n", [10, 19, 20, 63, 64, 100, 1000, 2000, 3000, 5000, 5415])
def test_code_kernels_of_truncated_code(n, tmp_path):
    data = gfx90a_code(tmp_path)[:n]
    f = tmp_path / "cut"
    f.write_bytes(data)
    rc, out, err = ls_files("--kernels", "--json", str(f))
    m = re.match(r"offload ls: error: cannot (?:list|read kernels in) '%s': (.*)\n\Z" % re.escape(str(f)),
                 err)
    assert rc == 1 and m, err
    if n < 20:
        assert m.group(1) == "truncated ELF header (%d bytes)" % n
        assert offcode.code_kernels(data) is None
        return
    with pytest.raises(offcode.TruncatedError) as e:
        offcode.code_kernels(data)
    assert (e.value.code_name, e.value.reason) == ("truncated", m.group(1))
    assert e.value.chain[0].reason == m.group(1) and e.value.path == ""


def test_code_kernels_of_damaged_code_objects(tmp_path):
    # test/files/bad/kernels-bundle.bin's code objects, each damaged its
    # own way, as ls --kernels --json reports them
    files = extract_all("test/files/bad/kernels-bundle.bin", tmp_path / "x")
    _, out, _ = ls_files("--kernels", "--json", *files)
    got = {}
    for f in json.loads(out)["files"]:
        name = f["path"].rsplit("--gfx90a-", 1)[1]
        try:
            k = offcode.code_kernels(open(f["path"], "rb").read())
            got[name] = "ok" if k is not None else None
        except offcode.Error as e:
            assert (e.code_name, e.reason) == \
                (f["kernels"]["error_code"], f["kernels"]["error"])
            got[name] = type(e).__name__
    assert got == {
        "cubin-bad-attr.cubin": "TruncatedError", "deep.co": "MalformedError", "good.co": "ok",
        "huge-count.co": "MalformedError", "huge-string.co": "TruncatedError",
        "kd-nowhere.co": "MalformedError", "kd-past-end.co": "TruncatedError",
        "kernels-not-array.co": "MalformedError", "no-name.co": "MalformedError",
        "no-type.co": "MalformedError", "truncated.co": "TruncatedError",
        "wrong-type.co": "MalformedError"}


# ---- NVIDIA entries' headers and lone cubins ----

NV_KEYS = ("kind", "arch", "variant", "flags", "identifier", "ptxas_options")
# Besides the fixtures: the NVIDIA inputs of the C suites' that lie
# elsewhere (libtest's cubin, the damaged fatbins ls still lists)
NV_MORE = sorted(os.path.relpath(p, TOP) for p in
                 glob.glob(os.path.join(TOP, "test/fuzz/corpus/kernels/*.cubin")) +
                 glob.glob(os.path.join(TOP, "test/files/bad/inspect-nv-*.fatbin")) +
                 glob.glob(os.path.join(TOP, "test/files/bad/kernels-cubin-*")))


def test_nv_more_are_there():
    assert len(NV_MORE) == 9


@pytest.mark.parametrize("path", FIXTURES + NV_MORE)
def test_nv_header_is_ls_json_nv(path):
    try:
        a = offcode.open(path)
    except offcode.Error:
        pytest.skip("the library refuses it (test_offcode says why)")
    with a:
        for e in a.entries:
            h = e.nv_header
            if e.nv is None:
                assert h is None
            else:
                assert dict(zip(NV_KEYS, h)) == {k: e.nv[k] for k in NV_KEYS}
                assert (h.kind, h.arch, h.variant) == tuple(h)[:3]


NV_FATBINS = sorted(p for p in FIXTURES if p.endswith(".fatbin")
                    and ("/nv" in p or "/kernels/" in p))


@pytest.mark.parametrize("path", NV_FATBINS)
def test_nv_header_names_what_cuobjdump_does(path):
    # ls --format=cuobjdump names each entry <stem>.<n>.sm_<arch><variant>.cubin
    # or .ptx, ELF and PTX counted apart, in the entries' order
    rc, out, _ = ls_files("--format=cuobjdump", path)
    assert rc == 0
    want = re.findall(r"^(ELF|PTX) file +\d+: .*\.sm_(\d+)([a-z]?)\.(?:cubin|ptx)$", out, re.M)
    with offcode.open(path) as a:
        got = [({1: "PTX", 2: "ELF"}[h.kind], str(h.arch), h.variant or "")
               for h in (e.nv_header for e in a.entries)]
    assert got == want and got


def test_nv_header_fields():
    with offcode.open("test/files/nv118/g.o") as a:
        assert [tuple(e.nv_header) for e in a.entries] == [
            (2, 80, None, 0x2013, "src/a.cu", None),
            (1, 80, None, 0x2013, "src/a.cu", "-g --dont-merge-basicblocks --return-at-end ")]
        assert a.inputs[0].cubin_arch is None
    with offcode.open("test/files/nv/variants.fatbin") as a:
        assert [(h.arch, h.variant, h.flags) for h in (e.nv_header for e in a.entries)] == [
            (90, None, 0x8011), (90, "a", 0x108011), (90, "a", 0x108011),
            (100, "a", 0x1108011), (103, "f", 0x1208011), (120, "a", 0x108011),
            (120, "f", 0x208011)]
        h = a.entries[0].nv_header
        assert isinstance(h, offcode.NvHeader) and h == offcode.NvHeader(*h)
        assert repr(h) == ("NvHeader(kind=2, arch=90, variant=None, flags=32785, "
                           "identifier=None, ptxas_options=None)")
    with offcode.open(APP) as a:
        assert [e.nv_header for e in a.entries] == [None] * 6
        e = a.entries[0]
    with pytest.raises(ValueError):
        e.nv_header                        # read from the open artefact
    assert e.nv is None


def test_nv_header_refused_inside_each_code():
    with offcode.open("test/files/nv118/g.o") as a:
        def one(e, code):
            with pytest.raises(RuntimeError):
                e.nv_header
        a.each_code(one)


@pytest.mark.parametrize("path", FIXTURES + NV_MORE)
def test_cubin_arch_is_cuobjdumps(path):
    # a lone cubin (a file or an archive's member) is listed by cuobjdump as
    # "ELF file 1: <stem>.sm_<SM>.cubin"; no other input has an SM
    try:
        a = offcode.open(path)
    except offcode.Error:
        pytest.skip("the library refuses it")
    with a:
        got = [(os.path.basename(i.name), i.cubin_arch) for i in a.inputs
               if i.cubin_arch is not None]
        named = [i for i in a.inputs if i.cubin_arch is not None]
    if not got:
        return
    rc, out, _ = ls_files("--format=cuobjdump", path)
    for (name, sm), i in zip(got, named):
        stem = name.rsplit(".", 1)[0]
        assert "ELF file    1: %s.sm_%d.cubin" % (stem, sm) in out
        assert i.format == "elf"


def test_cubin_arch_of_lone_cubins():
    got = []
    for path in ("test/files/nv118/a.cubin", "test/fuzz/corpus/kernels/k-sm_80.cubin",
                 "test/files/nv118/a.fatbin", APP):
        with offcode.open(path) as a:
            got.append([i.cubin_arch for i in a.inputs])
    assert got == [[80], [80], [None], [None]]
    with offcode.open("test/files/nv118/a.cubin") as a:
        i = a.inputs[0]
    assert i.cubin_arch == 80               # kept past the close


# ---- offcode.Source: one input's bytes as ls reads them ----

def test_source_of_a_file_is_mapped():
    data = open(APP, "rb").read()
    with offcode.Source(APP) as s:
        assert (s.name, s.size, s.closed) == (APP, len(data), False)
        assert isinstance(s.fd, int) and os.fstat(s.fd).st_size == len(data)
        with s.bytes as v:
            assert v.readonly and v.nbytes == len(data) and v.format == "B"
            assert v.tobytes() == data
            with pytest.raises(TypeError):
                v[0] = 0
        assert hashlib.sha256(s.bytes).hexdigest() == hashlib.sha256(data).hexdigest()
        assert repr(s) == "<offcode.Source %r, %d bytes, mapped>" % (APP, len(data))
    assert s.closed and repr(s) == "<offcode.Source %r, closed>" % APP
    s.close()                               # again: nothing


def test_source_open_is_ls_listing():
    with offcode.open(APP) as a:
        want = a.to_json()
        codes = [e.read() for e in a.entries]
    with offcode.Source(APP) as s:
        a = offcode.open(s)
    # a mapped file is opened again by its descriptor: the artefact has its
    # own map, the source may close first
    with a:
        assert (a.to_json(), a.path) == (want, APP)
        assert [e.read() for e in a.entries] == codes
    # bytes read into memory are held as bytes are: the source does not
    # close under the artefact
    rfd, wfd = os.pipe()
    t = threading.Thread(target=lambda: (os.write(wfd, open(APP, "rb").read()), os.close(wfd)))
    t.start()
    with offcode.Source(rfd, name=APP) as s:
        t.join()
        os.close(rfd)
        assert s.fd is None
        with offcode.open(s) as a:
            assert a.to_json() == want
            assert [e.read() for e in a.entries] == codes
            with pytest.raises(BufferError):
                s.close()
            assert not s.closed
        assert a.closed


def test_source_open_of_a_file_cut_short_since(tmp_path):
    # the artefact's reads find the change, as open(path)'s do: no SIGBUS
    f = tmp_path / "t.so"
    f.write_bytes(open(APP, "rb").read())
    with offcode.Source(str(f)) as s, offcode.open(s) as a:
        e = a.entries[-1]
        os.truncate(f, e.offset)
        with pytest.raises(offcode.ChangedError) as x:
            e.read()
    assert x.value.reason == "'%s': cut short since it was opened" % f


def test_source_empty_file_and_pipe(tmp_path):
    f = tmp_path / "empty"
    f.write_bytes(b"")
    with offcode.Source(str(f)) as s:
        assert (s.size, s.fd, s.bytes.tobytes()) == (0, None, b"")
    # "-" is standard input, read to its end
    code = "import offcode; s = offcode.Source('-'); print(s.name, s.fd, s.bytes.tobytes())"
    r = subprocess.run([sys.executable, "-c", code], input=b"abc", capture_output=True)
    assert (r.stdout, r.returncode) == (b"- None b'abc'\n", 0), r.stderr
    rfd, wfd = os.pipe()
    os.write(wfd, b"in the pipe")
    os.close(wfd)
    try:
        with offcode.Source(rfd) as s:
            assert (s.name, s.fd, s.bytes.tobytes()) == ("<fd %d>" % rfd, None, b"in the pipe")
        os.fstat(rfd)                       # the caller's, still open
    finally:
        os.close(rfd)


def test_source_of_a_fifo_reads_to_its_end(tmp_path):
    fifo = str(tmp_path / "fifo")
    os.mkfifo(fifo)

    def writer():
        with open(fifo, "wb") as w:
            w.write(b"in the fifo")
    t = threading.Thread(target=writer)
    t.start()
    # (the open waits for the writer without the GIL)
    with offcode.Source(fifo) as s:
        assert (s.fd, s.bytes.tobytes()) == (None, b"in the fifo")
    t.join()


def test_source_of_a_directory_or_nothing(tmp_path):
    with pytest.raises(offcode.SystemCallError) as e:
        offcode.Source(str(tmp_path))
    assert (e.value.errno, e.value.reason, str(e.value)) == \
        (errno.EISDIR, os.strerror(errno.EISDIR), "'%s': Is a directory" % tmp_path)
    assert isinstance(e.value, OSError)
    missing = str(tmp_path / "no-such")
    with pytest.raises(offcode.SystemCallError) as e:
        offcode.Source(missing)
    assert (e.value.errno, e.value.path) == (errno.ENOENT, missing)
    # as ls says it
    rc, _, err = ls_files(missing)
    assert err == "offload ls: error: cannot read '%s': %s\n" % (missing, e.value.reason)
    fd = os.open(str(tmp_path), os.O_RDONLY)
    try:
        with pytest.raises(offcode.SystemCallError) as e:
            offcode.Source(fd, name="d")
        assert (e.value.errno, str(e.value)) == (errno.EISDIR, "'d': Is a directory")
    finally:
        os.close(fd)
    with pytest.raises(offcode.SystemCallError) as e:
        offcode.Source(-1)
    assert (e.value.errno, str(e.value)) == (errno.EBADF, "'<fd -1>': Bad file descriptor")
    with pytest.raises(TypeError):
        offcode.Source(True)
    with pytest.raises(TypeError):
        offcode.Source(APP, name="x")       # a name is for a descriptor
    with pytest.raises(OverflowError):
        offcode.Source(2 ** 40)


def test_source_stream_limit(monkeypatch):
    # /dev/zero is read no further than $OFFLOAD_STREAM_MAX, then refused
    # with ls's reason; open_part reads what it wants of it
    monkeypatch.setenv("OFFLOAD_STREAM_MAX", "4")
    with pytest.raises(offcode.OtherError) as e:
        offcode.Source("/dev/zero")
    r = subprocess.run("%s ls - </dev/zero" % OFFLOAD, shell=True, capture_output=True,
                       env=dict(ENV, OFFLOAD_STREAM_MAX="4"))
    assert r.stderr.decode() == \
        "offload ls: error: cannot read 'standard input': %s\n" % e.value.reason
    assert e.value.reason == \
        "not a regular file, and longer than 4 bytes (the limit OFFLOAD_STREAM_MAX sets)"
    with offcode.Source.open_part("/dev/zero", 3) as s:
        assert s.bytes.tobytes() == b"\0\0\0"
    with offcode.Source.open_part(APP, 3) as s:
        assert s.size == os.path.getsize(APP)   # a file is mapped whole
    with pytest.raises(ValueError):
        offcode.Source.open_part(APP, 0)
    with pytest.raises(OverflowError):
        offcode.Source.open_part(APP, -1)


def test_source_closed_and_released_views():
    s = offcode.Source(APP)
    v = s.bytes
    w = v[4:8]                              # a slice holds the bytes too
    with pytest.raises(BufferError) as e:
        s.close()
    assert str(e.value) == "cannot close the source: 1 view of its bytes not released"
    assert not s.closed and w.tobytes() == open(APP, "rb").read()[4:8]
    w.release()
    with pytest.raises(BufferError):
        s.close()                           # v is still out
    v.release()
    with pytest.raises(ValueError):
        v[0]                                # a released view reads nothing
    s.close()
    assert s.closed
    for what in ("bytes", "fd", "size"):
        with pytest.raises(ValueError) as e:
            getattr(s, what)
        assert str(e.value) == "the source is closed"
    with pytest.raises(ValueError):
        memoryview(s)
    with pytest.raises(ValueError):
        offcode.code_kernels(s)
    with pytest.raises(ValueError):
        offcode.open(s)
    with pytest.raises(ValueError):
        with s:
            pass
    # a with block whose view is still out ends in BufferError, the source
    # open: release, then close
    with pytest.raises(BufferError):
        with offcode.Source(APP) as s2:
            kept = s2.bytes
    assert not s2.closed
    kept.release()
    s2.close()


def test_check_stdout(tmp_path):
    out = tmp_path / "out"
    code = ("import offcode, sys\n"
            "for p in sys.argv[1:]:\n"
            "    try:\n"
            "        offcode.check_stdout(p); print(p, 'ok', file=sys.stderr)\n"
            "    except offcode.Error as e:\n"
            "        print(type(e).__name__, e.code_name, e.reason, file=sys.stderr)\n")
    with open(out, "wb") as fh:
        r = subprocess.run([sys.executable, "-c", code, str(out), APP], stdout=fh,
                           stderr=subprocess.PIPE)
    assert r.stderr.decode() == \
        "OtherError other input file is output file\n%s ok\n" % APP
    assert offcode.check_stdout(APP) is None
