"""offcode's records read less often than a listing: kernels, prune's
result, packages' and images' layers, kpack-split binaries.  Imported when one is first made or
named (``offcode.__getattr__``), not with the package: a listing makes none
of them, and their classes cost a short listing's import a tenth of
`offload ls`'s run (issue 37)."""
from __future__ import annotations

from _collections_abc import Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Dict, Optional, Tuple


class PruneResult(tuple):
    """What ``prune`` did: a named tuple (size_before, size_after,
    entries_kept, entries_dropped, changed)."""
    __module__ = "offcode"   # (named there, made here)
    __slots__ = ()

    def __new__(cls, size_before: int, size_after: int, entries_kept: int,
                entries_dropped: int, changed: bool) -> "PruneResult":
        return tuple.__new__(cls, (size_before, size_after, entries_kept,
                                   entries_dropped, changed))

    @property
    def size_before(self) -> int:
        return self[0]

    @property
    def size_after(self) -> int:
        return self[1]

    @property
    def entries_kept(self) -> int:
        return self[2]

    @property
    def entries_dropped(self) -> int:
        return self[3]

    @property
    def changed(self) -> bool:
        return self[4]

    def __repr__(self) -> str:
        return ("PruneResult(size_before=%r, size_after=%r, entries_kept=%r, "
                "entries_dropped=%r, changed=%r)" % tuple(self))


_AMDGPU_RESOURCES = ("sgprs", "vgprs", "agprs", "sgpr_spills", "vgpr_spills",
                     "lds_bytes", "scratch_bytes_per_lane", "kernarg_bytes",
                     "wavefront_size", "max_flat_workgroup_size",
                     "dynamic_stack", "occupancy_waves_per_simd")
_CUBIN_RESOURCES = ("registers", "stack_bytes", "shared_bytes", "local_bytes",
                    "constant_bytes", "max_threads")


class Kernel:
    """One kernel of a code object and its resources (ls --kernels)."""
    __module__ = "offcode"   # (named there, made here)
    __slots__ = ("symbol", "name", "resources", "constant_bytes", "descriptor",
                 "_source")

    def __init__(self, source: str, row: Tuple[Any, ...]) -> None:
        self._source = source
        self.symbol: str = row[0]
        self.name: str = row[1]
        self.resources: Dict[str, int] = row[2]
        self.constant_bytes: Dict[str, int] = row[3]
        self.descriptor: Optional[Dict[str, int]] = row[4]

    def __getattr__(self, key: str) -> Any:
        if key in _AMDGPU_RESOURCES or key in _CUBIN_RESOURCES:
            v = self.resources.get(key)
            return bool(v) if key == "dynamic_stack" and v is not None else v
        raise AttributeError(key)

    def to_json(self) -> Dict[str, Any]:
        d: Dict[str, Any] = {"symbol": self.symbol, "name": self.name}
        if self._source == "amdgpu":
            for k in _AMDGPU_RESOURCES:
                d[k] = getattr(self, k)
            d["descriptor"] = self.descriptor
        elif self._source == "cubin":
            for k in _CUBIN_RESOURCES:
                d[k] = dict(self.constant_bytes) if k == "constant_bytes" else getattr(self, k)
        return d

    def __repr__(self) -> str:
        return "<offcode.Kernel %s>" % self.name


class Kernels(Sequence[Kernel]):
    """An entry's kernels, read from its code."""
    __module__ = "offcode"   # (named there, made here)

    def __init__(self, t: Tuple[Any, ...]) -> None:
        self.source: str = t[0]
        self.code_object_version: Optional[int] = t[1] or None
        self.target: Optional[str] = t[2]
        self.processor: Optional[str] = t[3]
        self.ptx_version: Optional[str] = t[4]
        self._list = [Kernel(t[0], k) for k in t[5]]
        # An AMDGPU code object's target ID as its metadata names it
        # ("gfx90a:xnack+"), what `offload ls` says a lone code object is
        # for; None for a cubin or PTX, or metadata that name none
        self.target_id: Optional[str] = t[6]

    def __getitem__(self, i):  # type: ignore[override]
        return self._list[i]

    def __len__(self) -> int:
        return len(self._list)

    def to_json(self) -> Dict[str, Any]:
        return {"source": self.source, "error": None, "error_code": None,
                "code_object_version": self.code_object_version,
                "target": self.target, "processor": self.processor,
                "ptx_version": self.ptx_version,
                "list": [k.to_json() for k in self._list]}


def _record(name: str, fields: str, doc: str) -> type:
    """A named tuple class made without typing's or collections' import
    (their cost is a listing's, above): a tuple whose fields are also
    read by name, printed as a named tuple prints."""
    names = tuple(fields.split())

    def __new__(cls, *values):
        if len(values) != len(names):
            raise TypeError("%s takes %d values" % (name, len(names)))
        return tuple.__new__(cls, values)

    def __repr__(self):
        return "%s(%s)" % (name, ", ".join(
            "%s=%r" % kv for kv in zip(names, self)))

    body = {"__slots__": (), "__doc__": doc, "__new__": __new__,
            "__module__": "offcode",
            "__repr__": __repr__, "_fields": names}
    for i, f in enumerate(names):
        body[f] = property(lambda self, i=i: self[i])
    return type(name, (tuple,), body)


# The records of packages and images: NamedTuples to a type checker,
# _record's classes when run (the documented ones, below).
if TYPE_CHECKING:
    from typing import NamedTuple

    class Layer(NamedTuple):
        name: str
        compression: str
        stored: int

    class Member(NamedTuple):
        layer: int
        name: str
        index: int
        size: int

    class LayerStats(NamedTuple):
        members: int
        files: int
        file_bytes: int

    class Manifest(NamedTuple):
        digest: str
        platform: str
        layers: Tuple[int, ...]

    class RootFile(NamedTuple):
        layer: int
        index: int
        size: int

    class NvHeader(NamedTuple):
        kind: int
        arch: int
        variant: Optional[str]
        flags: int
        identifier: Optional[str]
        ptxas_options: Optional[str]

else:
    Layer = _record("Layer", "name compression stored", """
        A package's or an image's layer (offcode_layer_info): an image
        layer's blob digest, a .deb's data member, "" for a wheel or a conda
        package; its compression; the bytes that hold it.""")
    Member = _record("Member", "layer name index size", """
        A file of a layer, as ``walk_layer`` hands it over: its layer, its
        path in the stream, its index there, its size.""")
    LayerStats = _record("LayerStats", "members files file_bytes", """
        What a layer's walk saw: members of the stream, regular files and
        their bytes.""")
    Manifest = _record("Manifest", "digest platform layers", """
        An image's manifest: its digest, platform and layers (indices of
        ``layers()``, bottom first).""")
    RootFile = _record("RootFile", "layer index size", """
        A regular file of the root a manifest's layers make unpacked.""")
    NvHeader = _record("NvHeader", "kind arch variant flags identifier ptxas_options", """
        An NVIDIA fatbin entry's header (offcode_entry_nv), as cuobjdump
        names its code: kind (1 PTX, 2 a cubin, 4 an old cubin, or another
        value the header holds), arch (80 for sm_80), variant ("a", "f",
        None for none), flags as stored, the nvcc -G source's identifier
        and a PTX entry's ptxas options (None where the header has none):
        ls --json's "nv" values under the same keys.""")



# ---- kpack-split binaries (offcode_split(3)) ----

if TYPE_CHECKING:
    from typing import Iterator, List

    from . import Error

    class Wrapper(NamedTuple):
        index: int
        key: str

else:
    Wrapper = _record("Wrapper", "index key", """
        A HIPK wrapper of a kpack-split binary: the index of the code
        object it stands for (the "#<index>" of its TOC key) and that key,
        "<kernel name>#<index>".""")

_AMDGCN = "amdgcn-amd-amdhsa"


class SearchPath:
    """One of a split binary's search paths: ``pattern`` as its
    .rocm_kpack_ref says it ("@GFXARCH@" standing for any target), the
    ``directory`` its archives are looked for in, whether that was
    found, and the ``archives`` found there (by name)."""
    __module__ = "offcode"   # (named there, made here)
    __slots__ = ("number", "pattern", "directory", "directory_found",
                 "archives")

    def __init__(self, number: int, t: Tuple[Any, ...]) -> None:
        self.number: int = number
        self.pattern: str = t[0]
        self.directory: str = t[1]
        self.directory_found: bool = t[2]
        self.archives: List[SplitArchive] = []

    def __repr__(self) -> str:
        return "<offcode.SearchPath %s: %d archives>" % (
            self.pattern, len(self.archives))


class SplitCode:
    """An entry of the TOC of an archive a split binary's search paths
    found: a code object, its TOC ``key`` ("<kernel name>#<index>"), its
    ``target`` ("gfx90a:xnack+"), the ``bundle_id`` it had in the fat
    binary (None when the TOC says none) and its code's ``size``.
    ``in_file``: its code lies in the archive's file as it is (an archive
    of compression scheme "none"), ``offset`` bytes in (else None)."""
    __module__ = "offcode"   # (named there, made here)
    __slots__ = ("archive", "index", "key", "target", "bundle_id", "size",
                 "in_file", "offset")

    def __init__(self, archive: "SplitArchive", index: int,
                 t: Tuple[Any, ...]) -> None:
        self.archive = archive
        self.index: int = index
        self.key: str = t[0]
        self.target: str = t[1]
        self.bundle_id: Optional[str] = t[2]
        self.size: int = t[3]
        self.in_file: bool = t[4]
        self.offset: Optional[int] = t[5]

    # (as ls --json names them)
    @property
    def id(self) -> str:
        """Its TOC key, ls --json's "id"."""
        return self.key

    @property
    def arch(self) -> Optional[str]:
        """Its target, ls --json's "arch" (None for an empty one)."""
        return self.target or None

    @property
    def triple(self) -> str:
        return _AMDGCN

    @property
    def compressed(self) -> bool:
        """Whether its code is stored otherwise than as it is."""
        return not self.in_file

    @property
    def uri(self) -> Optional[str]:
        """file://PATH#offset=N&size=N (the archive's path percent-encoded)
        where its code lies as it is; None otherwise."""
        return self.archive._split._h.uri(self.archive.number, self.index)

    def read(self, max_size: int = 0, max_ratio: int = 0) -> bytes:
        """Its code, as ``offload extract`` writes it: a zstd-per-kernel
        archive's inflated, believing its declared size within
        ``max_size`` and ``max_ratio`` (0: the tool's defaults)."""
        if max_size < 0 or max_ratio < 0:
            raise ValueError("the limits are not below 0")
        return self.archive._split._h.read(self.archive.number, self.index,
                                           max_size, max_ratio)

    @property
    def image_kind(self) -> Optional[str]:
        """Its code's image kind ("elf", ...; ``offcode.image_kind``),
        read; None for none known."""
        from . import image_kind
        return image_kind(self.read())

    def code_for(self, target: "Optional[str]" = None) -> Tuple[bool, str]:
        """``offcode.code_for(self.read(), target)``, its own target by
        default: (whether its code is an AMDGPU code object for it, what
        it is)."""
        from . import code_for
        return code_for(self.read(), self.target if target is None else target)

    def to_json(self, wrapper: int) -> Dict[str, Any]:
        """Its object in ``offload ls --json``'s "kpack" (its code read
        for the image kind where it lies in the file as it is, as ls
        reads it; one that cannot be read told as the TOC says it)."""
        kind, in_file = None, self.in_file
        if in_file:
            from . import Error, image_kind
            try:
                kind = image_kind(self.read())
            except Error:
                in_file = False
        return {"index": self.index, "id": self.key, "offload_kind": None,
                "triple": _AMDGCN, "arch": self.arch, "image_kind": kind,
                "size": self.size, "offset": self.offset if in_file else None,
                "uri": self.uri if in_file else None,
                "compressed": not in_file, "wrapper": wrapper,
                "kernels": None}

    def __repr__(self) -> str:
        return "<offcode.SplitCode %s %s, %d bytes>" % (self.key, self.target,
                                                        self.size)


class SplitArchive(Sequence[SplitCode]):
    """A kpack archive a split binary's search paths found: its ``path``,
    the ``target`` its name gives (None for a search path without
    "@GFXARCH@"), and, when it was read, its TOC's ``version``,
    ``compression_scheme`` and the file's ``size`` (else None, ``error``
    saying why: an ``offcode.Error``, ``damaged`` when the file was read
    but is no kpack archive).  A sequence of its TOC's entries (every
    binary's)."""
    __module__ = "offcode"   # (named there, made here)

    def __init__(self, split: "SplitBinary", number: int,
                 t: Tuple[Any, ...]) -> None:
        self._split = split
        self.number: int = number
        self.search_path: SearchPath = split.search_paths[t[0]]
        self.path: str = t[1]
        self.target: Optional[str] = t[2]
        self.error: Optional[Error] = t[3]
        self.damaged: bool = t[4]
        # (st_dev, st_ino) of the file read, or None
        self.id: Optional[Tuple[int, int]] = t[5]
        self.version: Optional[int] = t[6]
        self.compression_scheme: Optional[str] = t[7]
        self.size: Optional[int] = t[8]
        self._n: int = t[9]
        self._entries: Optional[List[SplitCode]] = None

    @property
    def entries(self) -> "List[SplitCode]":
        """Its TOC's entries, in TOC order ([] when it was not read)."""
        if self._entries is None:
            self._entries = [SplitCode(self, i, t) for i, t in
                             enumerate(self._split._h.entries(self.number))]
        return self._entries

    def __getitem__(self, i):  # type: ignore[override]
        return self.entries[i]

    def __len__(self) -> int:
        return self._n

    @property
    def reason(self) -> Optional[str]:
        """Why it was not read, as ``offload ls`` says it after the file's
        name (ls --json's "error"), or None."""
        e = self.error
        if e is None:
            return None
        if self.damaged:
            return "kpack archive: " + str(e)
        return e.reason if e.path else str(e)

    def codes(self, wrapper: "Wrapper") -> "List[SplitCode]":
        """The entries that hold ``wrapper``'s code object (its TOC key's),
        in TOC order: [] when it holds none or was not read."""
        w = self._split._wrapper_number(wrapper)
        entries = self.entries
        return [entries[i] for i in self._split._h.codes(self.number, w)]

    def resolved(self) -> "List[Tuple[Wrapper, SplitCode]]":
        """(wrapper, code object) for each of the binary's wrappers in
        turn, each code object of its key, as ``offload ls`` lists them."""
        return [(w, c) for w in self._split.wrappers for c in self.codes(w)]

    @property
    def missing(self) -> "List[Wrapper]":
        """The binary's wrappers whose code object it does not hold ([]
        when it was not read)."""
        if self.error is not None:
            return []
        return [w for w in self._split.wrappers if not self.codes(w)]

    def to_json(self) -> Dict[str, Any]:
        """Its object in ``offload ls --json``'s "kpack"."""
        return {"path": self.path, "target": self.target, "format": "kpack",
                "version": self.version,
                "compression_scheme": self.compression_scheme,
                "size": self.size, "error": self.reason,
                "entries": [c.to_json(w.index) for w, c in self.resolved()],
                "missing": [{"wrapper": w.index, "id": w.key}
                            for w in self.missing]}

    def __repr__(self) -> str:
        return "<offcode.SplitArchive %s (%s): %s>" % (
            self.path, self.target,
            self.reason or "%s, %d entries" % (self.compression_scheme, self._n))


class SplitBinary:
    """A kpack-split binary (AMD's rocm-kpack) and the archives that hold
    its code, as ``offload ls`` finds them: ``kernel_name`` (the part of
    each TOC key before its "#"), its HIPK ``wrappers``, how many
    ``unsplit_wrappers`` (HIPF: code left in the binary), its
    ``search_paths`` and every archive found (``archives``, each search
    path's in turn), each one's TOC read.  A context manager: leaving the
    ``with`` block closes it."""
    __module__ = "offcode"   # (named there, made here)

    def __init__(self, handle: Any) -> None:
        self._h = handle
        self.path: str = handle.path
        name, unsplit, wrappers, paths, archives = handle.facts()
        self.kernel_name: str = name
        self.unsplit_wrappers: int = unsplit
        self.wrappers: List[Wrapper] = [Wrapper(*t) for t in wrappers]
        self._numbers: Dict[Wrapper, int] = {}
        for n, w in enumerate(self.wrappers):
            self._numbers.setdefault(w, n)
        self.search_paths: List[SearchPath] = [
            SearchPath(i, t) for i, t in enumerate(paths)]
        self.archives: List[SplitArchive] = [
            SplitArchive(self, k, t) for k, t in enumerate(archives)]
        for a in self.archives:
            a.search_path.archives.append(a)

    def _wrapper_number(self, wrapper: "Wrapper") -> int:
        try:
            return self._numbers[wrapper]
        except (KeyError, TypeError):
            raise ValueError("%r is no wrapper of %s" % (wrapper, self.path)) from None

    def close(self) -> None:
        """Free the library's handle (nothing reads code after)."""
        self._h.close()

    @property
    def closed(self) -> bool:
        return self._h.closed

    def __enter__(self) -> "SplitBinary":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def codes(self) -> "Iterator[Tuple[SplitArchive, Wrapper, SplitCode]]":
        """(archive, wrapper, code object) for every code object a wrapper
        resolves to, archive by archive, as ``offload ls`` lists them."""
        for a in self.archives:
            for w, c in a.resolved():
                yield a, w, c

    def to_json(self) -> Dict[str, Any]:
        """Its "kpack" object in ``offload ls --json``."""
        return {"kernel_name": self.kernel_name,
                "wrappers": [w.index for w in self.wrappers],
                "unsplit_wrappers": self.unsplit_wrappers,
                "search_paths": [
                    {"pattern": p.pattern, "directory": p.directory,
                     "directory_found": p.directory_found,
                     "archives": [a.to_json() for a in p.archives]}
                    for p in self.search_paths]}

    def verify(self) -> "List[str]":
        """What ``offload ls --verify`` finds wrong with it, one line each
        as it says them after "offload ls: error: ": search paths with no
        archive, archives that cannot be read, wrappers with no code object
        in an archive, code objects that cannot be read or are not code for
        their target.  [] when every wrapper resolves."""
        from . import Error
        out = []
        for p in self.search_paths:
            if not p.directory_found:
                out.append("no archive for '%s': search path '%s': no directory '%s'"
                           % (self.path, p.pattern, p.directory))
            for a in p.archives:
                out.extend(self._verify_archive(a, Error))
            if not p.archives and p.directory_found:
                out.append("no archive for '%s': search path '%s' finds no archive"
                           % (self.path, p.pattern))
        return out

    def _verify_archive(self, a: SplitArchive, error: Any) -> "List[str]":
        if a.error is not None:
            e = a.error
            if a.damaged:
                return ["cannot list '%s': kpack archive: %s" % (a.path, e)]
            return ["cannot read '%s': %s" % (e.path or a.path,
                                             e.reason if e.path else str(e))]
        out = []
        for w in self.wrappers:
            codes = a.codes(w)
            if not codes:
                out.append("missing code object for '%s': wrapper #%d: no '%s' in '%s'"
                           % (self.path, w.index, w.key, a.path))
            for c in codes:
                try:
                    ok, got = c.code_for()
                except error as e:
                    out.append("bad code object in '%s': %s" % (a.path, e))
                    continue
                t = c.target
                if a.target is not None and t != a.target and not a.target.startswith(t):
                    out.append("bad code object in '%s': '%s' is for %s, not the "
                               "archive's %s" % (a.path, c.key, t, a.target))
                elif not ok:
                    out.append("bad code object in '%s': '%s' for %s: %s"
                               % (a.path, c.key, t, got))
        return out

    def __repr__(self) -> str:
        return "<offcode.SplitBinary %s: %s, %d wrappers, %d archives>" % (
            self.path, self.kernel_name, len(self.wrappers), len(self.archives))
