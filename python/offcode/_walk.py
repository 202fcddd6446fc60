"""offcode.walk(), the streaming walk, and its Node: imported when first
named (``offcode.__getattr__``), not with the package, which a listing by
``open()`` imports alone (issue 37)."""
import os

from . import Container, Entry, Input, Section, Source, _offcode, _text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Optional

    from . import Openable

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
    is raised.  The GIL is let go while the library walks.  A path, an fd
    or a Source is walked through a map: a file cut short while walked
    (by ``visit`` or another process) raises ChangedError naming the file
    ("'FILE': file changed size while being read"), at the next node (no
    node read from its lost pages handed over) or at the walk's end (the
    bytes past the cut inside its last page, which read as zeros with no
    fault, may reach a node first) (the
    extension installs the library's SIGBUS handler when imported,
    offcode_catch_sigbus: a read of the map past the cut reads zeros,
    noted; any other SIGBUS goes to the handler that was there before:
    faulthandler enabled after the import would take a cut's first, and
    the process would die of it)."""
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
