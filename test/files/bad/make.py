#!/usr/bin/env python3
"""Write the bad-input corpus: damaged bundles, each of which must get one
clear error line (LLVM 22 crashes, leaks memory or misreads most of them).
Run from this directory; the files are committed.  list-loops-in-llvm.hipi
is not made here: it is a damaged text bundle the differential suite found
(LLVM 22 lists it forever), kept as found."""
import struct

MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
HIP = b"hip-amdgcn-amd-amdhsa--gfx90a"
HOST = b"host-x86_64-unknown-linux-gnu-"


def entry(off, size, ident):
    return struct.pack("<QQQ", off, size, len(ident)) + ident


def bundle(entries, data=b""):
    return MAGIC + struct.pack("<Q", len(entries)) + b"".join(entries) + data


def write(name, data):
    with open(name, "wb") as f:
        f.write(data)


good = bundle([entry(139, 9, HOST), entry(148, 25, HIP)],
              b"HOSTDATA\nContent of device file 1\n")
assert len(good) == 173
# Cut inside the second header entry, the first entry good (its data points
# into the header): LLVM 22 segfaults.
write("truncated-second-entry.bc",
      bundle([entry(24, 4, HOST), entry(148, 25, HIP)])[:100])
# Second entry's data runs past the end of the file.
write("second-entry-past-end.bc",
      bundle([entry(139, 9, HOST), entry(148, 2500, HIP)],
             b"HOSTDATA\nContent of device file 1\n"))
# A count far larger than the file can hold, one good entry.
write("huge-count.bc",
      MAGIC + struct.pack("<Q", 1 << 62) + entry(85, 4, HIP) + b"DATA")
# Second entry claims an ID of 2^63 bytes.
write("id-length-2-63.bc",
      MAGIC + struct.pack("<Q", 2) + entry(200, 1, HIP) +
      struct.pack("<QQQ", 200, 1, 1 << 63) + b"x" * 200)
# Offset + size wraps around 2^64 in the second entry: LLVM lists it (so do
# we) and crashes reading it (we stop with an error).
write("offset-wraps.bc",
      bundle([entry(139, 9, HOST),
              entry(0xFFFFFFFFFFFFFFF0, 0x20, HIP)],
             b"HOSTDATA\nContent of device file 1\n"))
# Second entry has offset 0.
write("second-offset-zero.bc",
      bundle([entry(139, 9, HOST), entry(0, 1, HIP)],
             b"HOSTDATA\nContent of device file 1\n"))
# A text bundle whose entry has no END marker: LLVM copies heap memory into
# the output until the write fails.
write("missing-end.ll",
      b"\n; __CLANG_OFFLOAD_BUNDLE____START__ " + HIP + b"\nsome IR\n")
