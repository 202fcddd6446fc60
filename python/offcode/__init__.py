"""offcode: the device code of a build artefact, for Python programs.

A binding of liboffcode (include/offcode.h), the library under the
``offload`` tool's ``ls``, ``extract`` and ``prune``::

    import offcode

    with offcode.open("libfoo.so") as art:
        for container in art:
            for entry in container:
                print(entry.id, entry.arch, entry.size)
                code = entry.read()          # bytes, decompressed

Every attribute is the value ``offload ls --json`` prints under the same
key (schema version 5, offload-ls(1)); ``Artifact.to_json()`` gives the
file's object as far as the library describes it.  Failures raise
``offcode.Error`` subclasses carrying the library's code and its chain of
records.
"""
import codecs
import os
import sys
# typing (with the re, enum and collections it imports) costs more than
# listing a large library does (issue 37): annotations are strings, written
# so (the __future__ import that would make them so is a module to find and
# load), and the few classes below are made without it; the records a
# listing makes none of are _records', imported when first named.
from _collections_abc import Sequence

# The extension, and liboffcode with it, bound lazily as the offload
# binary is (Python's dlopen binds every symbol of the library and of
# libzstd, libelf... at import, RTLD_NOW: milliseconds, a good part of what
# `offload ls` of a large library takes); the flags are the process's,
# put back at once.
_flags = sys.getdlopenflags()
sys.setdlopenflags((_flags & ~os.RTLD_NOW) | os.RTLD_LAZY)
try:
    from . import _offcode
finally:
    sys.setdlopenflags(_flags)
    del _flags

__all__ = [
    "open", "prune", "target_id_compatible", "library_version",
    "code_kernels", "check_stdout", "Source", "NvHeader",
    "Artifact", "Input", "Container", "Entry", "Section", "Kernels", "Kernel",
    "PruneResult", "Error", "ErrorRecord", "OtherError", "SystemCallError",
    "TruncatedError", "MalformedError", "DecompressError", "OutOfMemoryError",
    "NothingError", "FatalError", "ChangedError", "InvalidError", "RangeError",
    "UnsupportedError", "BadHashError",
    "path_kind", "Layer", "Member", "LayerStats", "Manifest", "RootFile",
    "walk", "Node",
    "open_split", "image_kind", "code_for", "SplitBinary", "SearchPath",
    "SplitArchive", "SplitCode", "Wrapper",
]

__version__ = "0.1.0"

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import (Any, Callable, Dict, Iterator, List, Optional, Tuple,
                        Union)
    Openable = Union[str, "os.PathLike[str]", "os.PathLike[bytes]", bytes, int,
                     bytearray, memoryview, "Source"]
    from ._offcode import (BadHashError, ChangedError, DecompressError, Error,
                           ErrorRecord, FatalError, InvalidError,
                           MalformedError, NothingError, OtherError,
                           OutOfMemoryError, RangeError, SystemCallError,
                           TruncatedError, UnsupportedError)
    from ._functions import (check_stdout, code_for, code_kernels,
                             image_kind, library_version, open_split,
                             path_kind, target_id_compatible)
    from ._records import (Kernel, Kernels, Layer, LayerStats, Manifest,
                           Member, NvHeader, PruneResult, RootFile,
                           SearchPath, SplitArchive, SplitBinary, SplitCode,
                           Wrapper)

# Named here, made when first named (issue 37: what a listing by open()
# names none of is not made at import), each by the module named: the
# records (_records.py), the error classes (the extension's, made with the
# first raised or named) and the functions a listing calls none of
# (_functions.py).  (The streaming walk is here: a module of its own cost
# each walk's listing an import, more than it took off the open()'s.)
_LAZY = {
    "Kernel": "_records", "Kernels": "_records", "PruneResult": "_records",
    "Layer": "_records", "Member": "_records", "LayerStats": "_records",
    "Manifest": "_records", "RootFile": "_records", "NvHeader": "_records",
    "SplitBinary": "_records", "SearchPath": "_records",
    "SplitArchive": "_records", "SplitCode": "_records", "Wrapper": "_records",
    "Error": "_offcode", "ErrorRecord": "_offcode", "OtherError": "_offcode",
    "SystemCallError": "_offcode", "TruncatedError": "_offcode",
    "MalformedError": "_offcode", "DecompressError": "_offcode",
    "OutOfMemoryError": "_offcode", "NothingError": "_offcode",
    "FatalError": "_offcode", "ChangedError": "_offcode",
    "InvalidError": "_offcode", "RangeError": "_offcode",
    "UnsupportedError": "_offcode", "BadHashError": "_offcode",
    "library_version": "_functions", "target_id_compatible": "_functions",
    "check_stdout": "_functions", "code_kernels": "_functions",
    "path_kind": "_functions", "open_split": "_functions",
    "image_kind": "_functions", "code_for": "_functions",
}


def __getattr__(name: str) -> "Any":
    # (PEP 562: only names the module does not have yet reach here)
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError("module 'offcode' has no attribute %r" % (name,))
    if where == "_offcode":
        value = getattr(_offcode, name)
    else:
        # (from . import <where>: the submodule, imported once)
        value = getattr(__import__(where, globals(), None, (name,), 1), name)
    globals()[name] = value
    return value


def __dir__() -> "List[str]":
    return sorted(set(globals()) | set(_LAZY))


# Strings from inside files are bytes; they read as ls --json writes them:
# valid UTF-8 as it is, each other byte as the character of its value.
def _byte_as_char(exc: "UnicodeError") -> "Tuple[str, int]":
    if isinstance(exc, UnicodeDecodeError):
        return chr(exc.object[exc.start]), exc.start + 1
    raise exc


codecs.register_error("offcode-bytes", _byte_as_char)


def _text(b: "Optional[bytes]") -> "Optional[str]":
    return None if b is None else b.decode("utf-8", "offcode-bytes")


# One input's bytes as the library reads them (offcode_source_*): the
# extension's type, documented there (help(offcode.Source)).
Source = _offcode.Source


class Section(tuple):
    """The section a container lies in (ELF, COFF, PE): a named tuple
    (index, name, kind)."""
    __slots__ = ()

    def __new__(cls, index: int, name: str, kind: str) -> "Section":
        return tuple.__new__(cls, (index, name, kind))

    @property
    def index(self) -> int:
        return self[0]

    @property
    def name(self) -> str:
        return self[1]

    @property
    def kind(self) -> str:
        return self[2]

    def __repr__(self) -> str:
        return "Section(index=%r, name=%r, kind=%r)" % tuple(self)


class Input:
    """The file (depth 0) or an archive member in it."""
    __slots__ = ("name", "format", "offset", "size", "depth", "parent",
                 "containers", "members", "cubin_arch")

    def __init__(self, t: "Tuple[Any, ...]", inputs: "List[Input]") -> None:
        self.name: str = _text(t[0]) or ""
        self.format: str = t[1]
        self.offset: int = t[2]
        self.size: int = t[3]
        self.depth: int = t[4]
        self.parent: Optional[Input] = inputs[t[5]] if t[5] >= 0 else None
        # A cubin of its own (no fatbin around it): its SM as its ELF
        # header says (80 for sm_80), what cuobjdump lists it by; else None
        self.cubin_arch: Optional[int] = t[6]
        self.containers: List[Container] = []
        self.members: List[Input] = []
        if self.parent is not None:
            self.parent.members.append(self)

    def holds_code(self) -> bool:
        """Whether it or a member of it holds a container (what ls lists)."""
        return bool(self.containers) or any(m.holds_code() for m in self.members)

    def __repr__(self) -> str:
        return "<offcode.Input %s (%s)>" % (self.name, self.format)


class Entry(_offcode.Entry):
    """One code object: its ID, target, where it lies, and its code.

    Its fields are the extension's (``_offcode.Entry``), read from the
    library's record, each a Python object when it is read, so that a
    listing makes one object per entry.  A container makes its entries
    when they are asked for and keeps none until its ``entries`` list is
    read: two objects of one entry are equal and hash alike.  They read
    the same once the artefact is closed (the close lets go of the file,
    the records stay while an object holds them), but for ``image_kind``
    (read from the code when first asked for) and what reads code."""
    __slots__ = ()
    # (the extension's, read-only; here for readers and type checkers)
    container: "Container"
    index: int
    id: "Optional[str]"           # bundle ID or kpack TOC key; None: unnamed
    id_bytes: "Optional[bytes]"
    offload_kind: "Optional[str]"
    triple: "Optional[str]"
    arch: "Optional[str]"
    processor: "Optional[str]"
    features: "Optional[str]"
    # "elf", "bitcode", "cubin", "fatbin", "ptx", "spirv" or None (ls
    # --json's image_kind): read from its first bytes when first asked for
    image_kind: "Optional[str]"
    size: int
    offset: "Optional[int]"
    compressed: bool
    fields: "Dict[str, Any]"
    # file://PATH#offset=N&size=N where its bytes lie as they are, the
    # path percent-encoded (None elsewhere)
    uri: "Optional[str]"

    @property
    def target_id(self) -> "Optional[str]":
        """The target ID ("gfx90a:xnack+") or NVIDIA arch: ``arch``."""
        return self.arch

    @property
    def nv(self) -> "Optional[Dict[str, Any]]":
        """An NVIDIA entry's header fields (ls --json's "nv")."""
        return self.fields.get("nv")

    @property
    def nv_header(self) -> "Optional[NvHeader]":
        """An NVIDIA fatbin entry's header as cuobjdump names it (kind,
        arch, variant, flags, identifier, ptxas_options: the values of
        ``nv``'s keys of those names), None for an entry of another
        kind; read from the library's record (the artefact open)."""
        t = self._h.nv_header(self._i)
        if t is None:
            return None
        from ._records import NvHeader
        return NvHeader(*t)

    def read(self) -> bytes:
        """Its code, decompressed, as ``offload extract`` writes it."""
        return self._h.read(self._i)

    def read_into(self, buffer: "Any") -> int:
        """Its code into a writable buffer: the bytes written.  Raises
        RangeError when the buffer is too small (``code_size()`` says)."""
        return self._h.read_into(self._i, buffer)

    def code_size(self) -> int:
        """The length of its code, decompressed."""
        return self._h.code_size(self._i)

    def extract(self, path: "Union[str, os.PathLike[str]]") -> None:
        """Write its code to a new file (temporary, renamed into place)."""
        self._h.write_path(self._i, path)

    def write_to(self, fd: "Any") -> None:
        """Write its code to a file descriptor or an object with fileno()."""
        if not isinstance(fd, int):
            if hasattr(fd, "flush"):
                fd.flush()
            fd = fd.fileno()
        self._h.write_fd(self._i, fd)

    def matches(self, rules: str, exact: bool = False) -> bool:
        """Whether ``rules`` (as ``offload ls -t`` takes them: a GPU's
        target ID, a glob, a bundle ID, comma-separated) take it; with
        ``exact``, names are compared, not what a GPU loads."""
        return self._h.matches(self._i, rules, exact)

    def du(self) -> "Tuple[int, int]":
        """(code, stored): what ``offload du`` counts of it, its code's
        bytes and its share of the bytes stored."""
        code, stored, _, _ = self._h.du(self._i)
        return code, stored

    @property
    def rule_target(self) -> "Optional[str]":
        """The target ``-t`` and du see it by ("gfx90a:xnack+", "sm_80",
        PTX "compute_80"), or None."""
        return _text(self._h.du(self._i)[3])

    def kernels(self) -> "Optional[Kernels]":
        """Its kernels, or None for code with none to read."""
        from ._records import Kernels
        t = self._h.kernels(self._i)
        return None if t is None else Kernels(t)

    def to_json(self, kernels: bool = False) -> "Dict[str, Any]":
        """Its object in ``offload ls --json`` (``--kernels`` with kernels)."""
        d: Dict[str, Any] = {
            "index": self.index, "id": self.id,
            "offload_kind": self.offload_kind, "triple": self.triple,
            "arch": self.arch, "image_kind": self.image_kind,
            "size": self.size, "offset": self.offset, "uri": self.uri,
            "compressed": self.compressed,
        }
        d.update(self.fields)
        d["kernels"] = None
        if kernels:
            try:
                k = self.kernels()
                d["kernels"] = k.to_json() if k is not None else None
            except _offcode.Error as e:
                d["kernels"] = {"source": None, "error": e.reason,
                                "error_code": e.code_name}
        return d

    def __repr__(self) -> str:
        return "<offcode.Entry %s #%d %s %s, %d bytes>" % (
            self.container.format, self.index, self.id, self.arch, self.size)


class Container(_offcode.Container, Sequence[Entry]):
    """A bundle, CCOB, offload package, NVIDIA fatbin or kpack archive:
    a sequence of its entries.

    Its fields are the extension's (``_offcode.Container``), each a Python
    object when it is read: a listing makes one object per container (the
    format and the section shared by the containers that have them).  Its
    entries are made as ``[i]`` and iteration ask for them, none kept,
    until ``entries``, their list, is read: made then, it is kept, and
    ``[i]`` and iteration give its objects."""
    # (the extension's, read-only; here for readers and type checkers)
    input: "Input"
    number: int
    format: str
    offset: "Optional[int]"
    size: int
    version: "Optional[int]"
    section: "Optional[Section]"
    fields: "Dict[str, Any]"
    entries: "List[Entry]"

    def to_json(self, kernels: bool = False) -> "Dict[str, Any]":
        d: Dict[str, Any] = {"number": self.number, "format": self.format,
                             "offset": self.offset, "size": self.size,
                             "version": self.version}
        d.update(self.fields)
        d["entries"] = [e.to_json(kernels) for e in self]
        return d

    def __repr__(self) -> str:
        return "<offcode.Container %s #%d at %s, %d entries>" % (
            self.format, self.number, self.offset, len(self))


# Which arrays an input's object has in ls --json (applets/ls_json.c).
_ARRAYS = {"elf": ("sections", "containers"), "coff": ("sections", "containers"),
           "pe": ("sections", "containers"), "raw": ("containers",),
           "bitcode": ("containers",),
           "archive": ("members",),
           # packages and images: their files (offcode_layer(3))
           "deb": ("members",), "wheel": ("members",), "conda": ("members",),
           "image": ("members",)}


class Artifact:
    """An opened artefact: its inputs and containers, listed at open, and
    its entries, each made when it is asked for (an entry read once and
    let go costs no memory after); iterating it gives its containers.  A
    context manager: leaving the ``with`` block closes it."""

    def __init__(self, handle: "Any") -> None:
        self._h = handle
        self.path: str = handle.path
        self.size: int = handle.size
        self.inputs: List[Input] = []
        for t in handle.inputs():
            self.inputs.append(Input(t, self.inputs))
        containers = handle.containers(Container, Section, self.inputs, Entry)
        self.containers: List[Container] = containers
        for c in containers:
            c.input.containers.append(c)
        self._entries: "Optional[List[Entry]]" = None

    @property
    def entries(self) -> "List[Entry]":
        """Every entry, in order: a list made when first read (its
        containers' ``entries`` lists one after another), then kept."""
        if self._entries is None:
            entries = self._h.entries(self.containers)
            # (the collector, run while it was made, may have run code
            # that read it: the list that code was given is kept)
            if self._entries is None:
                self._entries = entries
        return self._entries

    def _handle(self) -> "Any":
        return self._h

    def close(self) -> None:
        """Free the library's artefact (entries cannot read after)."""
        self._h.close()

    @property
    def closed(self) -> bool:
        return self._h.closed

    def __enter__(self) -> "Artifact":
        return self

    def __exit__(self, *exc: "Any") -> None:
        self.close()

    def __iter__(self) -> "Iterator[Container]":
        return iter(self.containers)

    def __len__(self) -> int:
        return len(self.containers)

    def match(self, rules: str, exact: bool = False) -> "List[Entry]":
        """The entries ``rules`` take (see ``Entry.matches``): for a GPU's
        target ID, the code its loader would load."""
        return [e for c in self.containers for e in c if e.matches(rules, exact)]

    def each_code(self, fn: "Callable[[Entry, bytes], Any]") -> bool:
        """Call ``fn(entry, code)`` for every entry in order, each CCOB
        inflated once (``read()`` entry by entry inflates a CCOB for each of
        its entries).  A true result stops the walk, and each_code returns
        True."""
        entries = self.entries
        return bool(self._h.each_code(lambda i, code: fn(entries[i], code)))

    def extract_all(self, where: "Callable[[Entry], Union[None, str, bytes, os.PathLike[str]]]") -> None:
        """Write every entry's code to the file ``where(entry)`` names
        (None: leave that entry out), in one walk as ``offload extract
        --all`` does: each CCOB inflated once, code the file stores as it
        is copied by the kernel, never through Python.  Each file is
        written under a temporary name and renamed into place; on a
        failure the files before it are whole and the error is raised.
        ``where`` may not read code from the artefact (``entry.read()``
        raises RuntimeError there); its attributes are all at hand."""
        entries = self.entries
        self._h.each_path(lambda i: where(entries[i]))

    def codes(self) -> "Iterator[Tuple[Entry, bytes]]":
        """(entry, code) for every entry, in order, one ``read()`` each."""
        for c in self.containers:
            for e in c:
                yield e, e.read()

    def prune(self, dest: "Union[str, os.PathLike[str]]", **options: "Any") -> "PruneResult":
        """``prune(self.path, dest, ...)``: for an artefact opened by path."""
        return prune(self.path, dest, **options)

    def to_json(self, kernels: bool = False) -> "Dict[str, Any]":
        """The file's object in ``offload ls --json`` (``--kernels`` with
        kernels), of what the library describes: not the ELF, COFF or PE
        headers' object nor a kpack-split binary's ``kpack`` (that is
        ``open_split(path).to_json()``)."""
        return self._input_json(self.inputs[0], kernels)

    def _input_json(self, inp: "Input", kernels: bool) -> "Dict[str, Any]":
        d: Dict[str, Any] = {"member" if inp.depth else "path": inp.name,
                             "format": inp.format, "offset": inp.offset,
                             "size": inp.size, "kernels": None}
        arrays = _ARRAYS.get(inp.format, ())
        if "sections" in arrays:
            sections: Dict[int, Dict[str, Any]] = {}
            for c in inp.containers:
                if c.section is None:
                    continue
                s = sections.get(c.section.index)
                if s is None:
                    s = sections[c.section.index] = {
                        "index": c.section.index, "name": c.section.name,
                        "kind": c.section.kind, "offset": None, "size": None,
                        "containers": []}
                s["containers"].append(c.to_json(kernels))
            d["sections"] = list(sections.values())
        if "containers" in arrays:
            d["containers"] = [c.to_json(kernels) for c in inp.containers
                               if c.section is None]
        if "members" in arrays:
            d["members"] = [self._input_json(m, kernels) for m in inp.members
                            if m.holds_code() or m.format == "thin-member"]
        return d

    # ---- packages and images (offcode_layer(3)) ----

    def layers(self) -> "List[Layer]":
        """A package's or an image's layers ([] for any other file)."""
        from ._records import Layer
        return [Layer(*t) for t in self._h.layers()]

    def walk_layer(self, i: int,
                   fn: "Callable[[Member, Optional[Artifact], Optional[Error]], Any]",
                   root: bool = False) -> "Optional[LayerStats]":
        """Walk layer ``i``, calling ``fn(member, file, error)`` for each
        file worth reading: ``file`` is it opened as an Artifact of its own
        (closed when ``fn`` returns: keep nothing of it that reads), or
        None with ``error`` saying why it could not be.  One file at a
        time: memory stays that of the largest however many there are
        (open with ``stream=True`` to walk nothing at open).  ``root``
        notes the members for ``manifest_root``.  The stream's counts, or
        None when a true result of ``fn`` stopped it."""
        from ._records import LayerStats, Member

        def one(m: "Tuple[int, bytes, int, int]", h: "Any", err: "Optional[Error]") -> "Any":
            member = Member(m[0], _text(m[1]) or "", m[2], m[3])
            art = None
            if h is not None:
                art = Artifact(h)
                # (made now, their texts copied: the file's records go
                # when fn returns)
                art.entries
            return fn(member, art, err)
        r = self._h.walk_layer(i, one, root)
        return None if r is True else LayerStats(*r)

    def manifests(self) -> "List[Manifest]":
        """An image's manifests ([] for a package)."""
        from ._records import Manifest
        return [Manifest(*t) for t in self._h.manifests()]

    def manifest_root(self, i: int) -> "List[RootFile]":
        """The regular files of the root manifest ``i``'s layers make
        unpacked, each once, in the order written; each of its layers
        walked with ``root=True`` first."""
        from ._records import RootFile
        return [RootFile(*t) for t in self._h.manifest_root(i)]

    # ---- what offload du counts (offcode_du(3)) ----

    def code_object(self) -> "Optional[Tuple[str, str]]":
        """(target, triple) of a file that is itself one code object with
        no container, else None."""
        return self._h.file_facts()[0]

    def offload_only(self) -> bool:
        """Whether the file is offload code alone."""
        return bool(self._h.file_facts()[1])

    def kpack_archives(self) -> "List[str]":
        """A kpack-split binary's archives, found as rocm-kpack finds them."""
        return list(self._h.file_facts()[2])

    def __repr__(self) -> str:
        return "<offcode.Artifact %s: %d containers, %d entries>" % (
            self.path, len(self.containers), sum(len(c) for c in self.containers))


def open(source: "Openable", *, name: "Optional[str]" = None, verify: bool = False,
         ccob_max_size: int = 0, ccob_max_ratio: int = 0,
         stream: bool = False) -> "Artifact":
    """Open an artefact and walk its headers.

    ``source`` is a path, a file descriptor (int: duplicated, the caller
    keeps it), the bytes themselves (bytes, bytearray, memoryview: held,
    not copied, until closed) or a ``Source`` (a mapped file opened by its
    descriptor, so that a read finds it cut short since; bytes read into
    memory held as bytes are: that Source cannot close before the
    artefact does).  ``name`` is what messages and URIs call an fd or
    bytes (a Source's own name by default).  ``verify`` inflates every
    CCOB and checks its hash at open (``ls --verify``).  The CCOB limits
    are the tool's OFFLOAD_CCOB_MAX_SIZE and OFFLOAD_CCOB_MAX_RATIO (0:
    its defaults; the environment is not read).  A Debian, wheel or conda
    package or a
    container image (by its path) opens with its files as inputs (a wheel
    or a conda package is known by its name: pass ``name`` for an fd or
    bytes); with ``stream`` (a path), none is walked at open, and
    ``walk_layer`` hands them over one at a time.  A pipe or FIFO (an fd,
    ``/dev/stdin``, a FIFO's path) is read to its end first, the GIL let
    go: a signal whose handler raises (Ctrl-C's KeyboardInterrupt) stops
    that read with its exception, though the writer stays open."""
    if isinstance(source, bool):
        raise TypeError("offcode.open() takes a path, a file descriptor, bytes or a Source")
    if ccob_max_size < 0 or ccob_max_ratio < 0:
        raise ValueError("the CCOB limits are not below 0")
    if isinstance(source, int):
        h = _offcode.open_fd(source, name if name is not None else "<fd %d>" % source,
                             verify, ccob_max_size, ccob_max_ratio)
    elif isinstance(source, Source):
        # A mapped file by its descriptor: the library's own map of it,
        # whose reads find the file cut short since (ChangedError) where
        # the source's map reads zeros past the cut; bytes read into
        # memory (a pipe's) are held as bytes are.  A view held till the
        # library has its own: another thread's close() meanwhile is
        # refused, not a descriptor number another file may take.
        with memoryview(source):
            fd = source.fd
            name = name if name is not None else source.name
            if fd is not None:
                h = _offcode.open_fd(fd, name, verify, ccob_max_size,
                                     ccob_max_ratio)
            else:
                h = _offcode.open_memory(source, name, verify, ccob_max_size,
                                         ccob_max_ratio)
    elif isinstance(source, (bytes, bytearray, memoryview)):
        h = _offcode.open_memory(source, name if name is not None else "<memory>",
                                 verify, ccob_max_size, ccob_max_ratio)
    elif stream:
        h = _offcode.open_stream(os.fspath(source), verify, ccob_max_size,
                                 ccob_max_ratio)
    else:
        h = _offcode.open_path(os.fspath(source), verify, ccob_max_size,
                               ccob_max_ratio)
    try:
        return Artifact(h)
    except BaseException:
        h.close()
        raise


# The streaming walk's node: the extension's type (help(offcode.Node)).
Node = _offcode.Node


def _walk_input(name: "Optional[bytes]", format: str, offset: int, size: int,
                depth: int, parent: "Optional[Input]") -> "Input":
    # An input of walk(): not added to its parent's members, nor given
    # its containers (each comes as a node: keeping them would keep the
    # whole listing, which walk() does not)
    i = Input.__new__(Input)
    i.name, i.format, i.offset, i.size = _text(name) or "", format, offset, size
    i.depth, i.parent, i.containers, i.members = depth, parent, [], []
    return i


def walk(source: "Openable", visit: "Callable[[Node], Any]", *, code: bool = False,
         verify: bool = False, name: "Optional[str]" = None,
         ccob_max_size: int = 0, ccob_max_ratio: int = 0) -> "Any":
    """Walk a file's nodes as they are found, calling ``visit(node)`` for
    each in the order ``offload ls`` lists them, keeping nothing after:
    memory is what ``visit`` keeps, however large the file (a static
    library of 200,000 members, a CCOB inflated one code object at a time
    with ``code``), where ``open()`` keeps every record.

    ``node.kind`` is "input" (the file, or an archive member), "section",
    "container", "entry" or "container_end" (the container again after its
    entries, with what is known only then: a CCOB's ``hash_check`` field,
    ``node.hash_error`` with ``verify``); ``node.depth``; ``node.input``,
    ``node.container``, ``node.entry`` (``Input``, ``Container``,
    ``Entry`` objects, copies of the library's records made when first
    read, which stay valid: a kept entry reads as during its visit, but
    reading its code raises ValueError, there being no artefact; a
    walk's ``Input`` lists no members or containers and a ``Container``
    no entries: they come as nodes); ``node.section`` (a "section" node's
    ``Section``); with ``code``, ``node.code``, an entry's code as bytes
    (read during the visit: unread, it is gone after) and
    ``node.code_size``.

    ``source``, ``name`` and the CCOB limits are as ``open()`` takes them
    (a package is walked as the archive it is: ``open(stream=True)`` and
    ``walk_layer`` read its files; an image raises UnsupportedError).
    ``verify`` inflates every CCOB and checks its hash, as ``ls
    --verify``.  A true result of ``visit`` stops the walk, and walk()
    returns it (else None); an exception raised by ``visit`` stops it and
    is raised.  The GIL is let go while the library walks (a pipe is read
    whole first: a signal whose handler raises, Ctrl-C's
    KeyboardInterrupt, stops that read with its exception).  A path, an fd
    or a Source is walked through a map: a file cut short while walked
    (by ``visit`` or another process) raises ChangedError naming the file
    ("'FILE': file changed size while being read"), at the next node (no
    node read from its lost pages handed over) or at the walk's end (the
    bytes past the cut inside its last page, which read as zeros with no
    fault, may reach a node first) (the extension installs the library's
    SIGBUS handler when imported, offcode_catch_sigbus: a read of the map
    past the cut reads zeros, noted; any other SIGBUS goes to the handler
    that was there before: faulthandler enabled after the import would
    take a cut's first, and the process would die of it)."""
    if isinstance(source, bool):
        raise TypeError("offcode.walk() takes a path, a file descriptor, bytes or a Source")
    if ccob_max_size < 0 or ccob_max_ratio < 0:
        raise ValueError("the CCOB limits are not below 0")
    held = None
    if isinstance(source, int):
        how, name = "fd", name if name is not None else "<fd %d>" % source
    elif isinstance(source, Source):
        # as open() takes one: a mapped file by its descriptor, bytes
        # read into memory as bytes; a view held through the walk, so
        # that the Source's close() (a visitor's, another thread's) is
        # refused, not its descriptor's number given to another file
        held = memoryview(source)
        name = name if name is not None else source.name
        how = "fd" if source.fd is not None else "memory"
        source = source.fd if how == "fd" else source
    elif isinstance(source, (bytes, bytearray, memoryview)):
        how, name = "memory", name if name is not None else "<memory>"
    else:
        how, source = "path", os.fspath(source)
    try:
        return _offcode.walk(source, how, name, code, verify, ccob_max_size,
                             ccob_max_ratio, visit, Entry, Container, Section,
                             _walk_input)
    finally:
        if held is not None:
            held.release()



walk.__module__ = "offcode"   # (named there, made here)


_COMPRESS = {None: 0, False: 0, "none": 0, True: 1, "zstd": 1, "zlib": 2}


def prune(src: "Union[str, os.PathLike[str]]", dest: "Union[str, os.PathLike[str]]", *,
          keep: "Optional[str]" = None, drop: "Optional[str]" = None,
          exact: bool = False, allow_empty: bool = False,
          keep_layout: bool = False, compress: "Union[None, bool, str]" = None,
          ccob_version: int = 0, compression_level: int = 0, threads: int = 0,
          ccob_max_size: int = 0, ccob_max_ratio: int = 0) -> "PruneResult":
    """``offload prune SRC -o DEST``: keep the entries ``keep`` takes and
    ``drop`` does not (rules as ``Entry.matches``); ``compress`` is None,
    "zstd" (or True) or "zlib".  DEST is written under a temporary name and
    renamed into place, never over SRC."""
    if compress not in _COMPRESS:
        raise ValueError("compress: None, 'zstd' or 'zlib', not %r" % (compress,))
    for name, value in (("ccob_version", ccob_version), ("threads", threads),
                        ("ccob_max_size", ccob_max_size),
                        ("ccob_max_ratio", ccob_max_ratio)):
        if value < 0:
            raise ValueError("%s: not below 0 (%d)" % (name, value))
    from ._records import PruneResult
    return PruneResult(*_offcode.prune(
        os.fspath(src), os.fspath(dest), keep, drop, exact, allow_empty,
        keep_layout, _COMPRESS[compress], ccob_version, compression_level,
        threads, ccob_max_size, ccob_max_ratio))
