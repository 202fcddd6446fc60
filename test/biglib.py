#!/usr/bin/env python3
"""biglib.py: what a command reads of a large library, counted in pages.

  biglib.py make OUT [BUNDLES ENTRIES ENTRY_KB]
      A large HIP shared library, sparse: an ELF shared object whose
      .hip_fatbin holds BUNDLES offload bundles (default 111, as Debian's
      librocsparse), each of ENTRIES entries (default 9: the host's, empty,
      and code objects of ENTRY_KB KiB, default 1024), at 4096 alignment
      with zero padding after each bundle.  Only headers are written; the
      code objects are holes, so its gigabyte takes a few hundred KiB of
      disk.
  biglib.py pages FILE CMD...
      FILE's pages are dropped from the page cache (written out first), CMD
      runs (its standard output thrown away), and the pages of FILE in the
      page cache after it are printed: the pages CMD read, hole pages too
      (a read of a hole makes a page of zeros).  Prints "cannot drop" and
      exits 3 where the pages cannot be dropped (tmpfs).

ls.test counts what `offload ls` reads (issue 27: a listing that read the
first page of every code object went from 225 pages to 1002 on
librocsparse, unseen)."""
import ctypes
import mmap
import os
import struct
import subprocess
import sys

MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
GFX = ("900", "906", "908", "90a", "942", "1030", "1100", "1101", "1102",
       "1200", "1201", "1151", "1152", "1153", "1036")


def align(n, a):
    return n + (-n % a)


def bundle(entries, size):
    """A bundle's header, and its length padded to 4096."""
    ids = [b"host-x86_64-unknown-linux-gnu-"] + [
        b"hipv4-amdgcn-amd-amdhsa--gfx" + g.encode()
        for g in GFX[:entries - 1]]
    off = align(len(MAGIC) + 8 + sum(24 + len(i) for i in ids), 4096)
    rows = b""
    for k, i in enumerate(ids):
        n = 0 if k == 0 else size
        rows += struct.pack("<QQQ", off, n, len(i)) + i
        off += n if k + 1 == len(ids) else align(n, 4096)
    return MAGIC + struct.pack("<Q", len(ids)) + rows, align(off, 4096)


def make(out, nb=111, ne=9, kb=1024):
    # A code object 100 bytes short of its KiB: padding after each.
    head, each = bundle(ne, kb * 1024 - 100)
    fat_off, fat_len = 4096, each * nb
    shstr = b"\0.hip_fatbin\0.shstrtab\0"
    str_off = fat_off + fat_len
    sh_off = align(str_off + len(shstr), 8)
    with open(out, "wb") as f:
        f.write(b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8))
        f.write(struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 64, sh_off, 0,
                            64, 56, 1, 64, 3, 2))
        # one read-only PT_LOAD over the headers and the fatbin
        f.write(struct.pack("<IIQQQQQQ", 1, 4, 0, 0, 0, str_off, str_off,
                            4096))
        for b in range(nb):
            f.seek(fat_off + b * each)
            f.write(head)
        f.seek(str_off)
        f.write(shstr)
        f.seek(sh_off)
        f.write(bytes(64))
        f.write(struct.pack("<IIQQQQIIQQ", 1, 1, 2, fat_off, fat_off,
                            fat_len, 0, 0, 4096, 0))
        f.write(struct.pack("<IIQQQQIIQQ", 13, 3, 0, 0, str_off,
                            len(shstr), 0, 0, 1, 0))


def resident(path):
    """How many of path's pages are in the page cache (mincore of a map
    of it, which reads nothing)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                          ctypes.c_int, ctypes.c_int, ctypes.c_long]
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t,
                             ctypes.c_void_p]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    page = mmap.PAGESIZE
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        p = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED,
                      f.fileno(), 0)
    if p is None or p == ctypes.c_void_p(-1).value:
        sys.exit("mmap: " + os.strerror(ctypes.get_errno()))
    vec = (ctypes.c_ubyte * ((size + page - 1) // page))()
    rc = libc.mincore(p, size, vec)
    libc.munmap(p, size)
    if rc:
        sys.exit("mincore: " + os.strerror(ctypes.get_errno()))
    return sum(v & 1 for v in vec)


def drop(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def pages(path, cmd):
    drop(path)
    if resident(path):
        print("cannot drop")
        sys.exit(3)
    rc = subprocess.run(cmd, stdout=subprocess.DEVNULL).returncode
    if rc:
        sys.exit("%s: exit status %d" % (cmd[0], rc))
    print(resident(path))


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "make":
        make(sys.argv[2], *(int(a) for a in sys.argv[3:6]))
    elif len(sys.argv) >= 4 and sys.argv[1] == "pages":
        pages(sys.argv[2], sys.argv[3:])
    else:
        sys.exit(__doc__)
