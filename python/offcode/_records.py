"""offcode's records read less often than a listing: kernels, prune's
result, packages' and images' layers.  Imported when one is first made or
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

