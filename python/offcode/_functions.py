"""offcode's functions a listing calls none of: liboffcode's version, target
ID matching, the checks and kernels of ``offload``'s own, kpack-split
binaries.  Imported when one is first named (``offcode.__getattr__``), not
with the package: each function made at import is some of what a short
listing's import costs (issue 37)."""
import os

from . import _offcode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Optional, Tuple, Union

    from ._records import Kernels, SplitBinary


def library_version() -> str:
    """liboffcode's version, as the library loaded says it."""
    return _offcode.version()


def target_id_compatible(target: str, request: str) -> bool:
    """Whether a loader asked for ``request`` (a target ID such as
    ``gfx90a:xnack+``) takes code built for ``target``."""
    return _offcode.target_id_compatible(target, request)


def check_stdout(path: "Union[str, bytes, os.PathLike[str]]") -> None:
    """Raise ``OtherError`` ("input file is output file") when standard
    output writes to the regular file ``path`` names, as ``offload``
    refuses such an input before writing anything."""
    _offcode.check_stdout(path)


def code_kernels(code: "Any") -> "Optional[Kernels]":
    """The kernels of the code object in ``code`` (bytes, bytearray, a
    memoryview, an mmap, a ``Source``: any bytes-like object, read in
    place, without the GIL: leave it unchanged meanwhile), as
    ``Entry.kernels()`` gives an entry's; None for bytes that are no AMDGPU
    code object, cubin or PTX.  Damaged code raises the error class and
    reason ``offload ls --kernels`` reports (TruncatedError,
    MalformedError, ...)."""
    t = _offcode.code_kernels(code)
    if t is None:
        return None
    from ._records import Kernels
    return Kernels(t)


def path_kind(path: "Union[str, os.PathLike[str]]") -> "Optional[str]":
    """What ``path`` names: "image", "deb", "wheel", "conda", or None for
    any other file."""
    return _offcode.path_kind(os.fspath(path))


# ---- kpack-split binaries (offcode_split(3)) ----

def open_split(source: "Union[str, os.PathLike[str], bytes, bytearray, memoryview]", *,
               name: "Optional[str]" = None) -> "SplitBinary":
    """Open a kpack-split binary (AMD's rocm-kpack: a host binary whose
    device code was moved to kpack archives) and the archives its
    .rocm_kpack_ref's search paths find, each one's TOC read, as ``offload
    ls`` shows it (its "kpack-split" lines, ``ls --json``'s "kpack").

    ``source`` is a path, or the bytes themselves (held, not copied, until
    closed), which ``name`` names (archives are looked for from its
    directory; "<memory>" by default).  Raises ``NothingError`` for a file
    that is no split binary, and the ``Error`` of its code for a damaged
    reference or wrappers or a file that cannot be read; an archive that
    cannot be read is no failure (``SplitArchive.error`` says why)."""
    from ._records import SplitBinary
    if isinstance(source, (bytes, bytearray, memoryview)):
        h = _offcode.open_split_memory(source, name if name is not None else "<memory>")
    elif isinstance(source, (str, os.PathLike)):
        h = _offcode.open_split_path(os.fspath(source))
    else:
        raise TypeError("offcode.open_split() takes a path or bytes")
    try:
        return SplitBinary(h)
    except BaseException:
        h.close()
        raise


def image_kind(code: "Union[bytes, bytearray, memoryview]") -> "Optional[str]":
    """The image kind of a code object's bytes, as ``ls --json`` names an
    entry's: "elf", "bitcode", "cubin", "fatbin" or "spirv", from its
    first bytes; None for none of them."""
    return _offcode.split_image_kind(code)


def code_for(code: "Union[bytes, bytearray, memoryview]", target: str) -> "Tuple[bool, str]":
    """Whether ``code`` is an AMDGPU code object for ``target`` (its
    metadata's target ID, or its processor), as ``offload ls --verify``
    checks each code object of a kpack archive; and what it is: its
    target ID ("gfx1100"), "no target" or "not an AMDGPU code object"."""
    return _offcode.split_code_for(code, target)


# (named there, made here)
for _f in (library_version, target_id_compatible, check_stdout, code_kernels,
           path_kind, open_split, image_kind, code_for):
    _f.__module__ = "offcode"
del _f
