#!/usr/bin/env python3
"""make bench: our tools and LLVM 22's on the same work, in one run.

  bench.py [--mb N] [--runs N] [--close-runs N] [--only JOB,...]

Makes its inputs in a temporary directory it removes (two inputs of N MB
each, default 500: half incompressible, half like real code, and a shared
library whose .hip_fatbin holds 80 bundles), runs each job with both tools
(and cat/cp/zstd as the floor), and prints wall time, CPU time and peak RSS
with the ratio LLVM/ours, and our time over the floor's.  Each figure is the
best of --runs runs (default 3; --close-runs, default 7, for ours and the
floor where there is one; CPU time the least of them, peak RSS the
largest), each run into new output files.  LLVM has
no ls or extract: llvm-objdump --offloading, which lists and writes out
every code object of the library, stands in for both.

Then the library's sizes: pruned to gfx90a, zstd -3 of it whole and of
the pruned one (prune is also timed against zstd -3, the floor there).
And prune --compress of clib.so, a library like it (but stripped) whose
80 bundles hold code-like bytes, each code object compressing alone, against cp and zstd -3 (-T1 and -T2) of it,
with its sizes before and after.

Then offload ccob -c (from a file and from a pipe) and -d of the code-like
input, against zstd -3 --long=27 -T1 and zstd -d; and prune --compress of
Debian sid's librocsparse.so.1.0 where it is here (test/real/rocsparse.sh,
or BENCH_COMPRESS_LIB) against zstd -3 -T1 of it, zstd -3 --long=27 -T1
(LLVM's parameters) and the work its CCOBs' bytes ask for without I/O
(test/bench_ccob_floor.c), a row each, with each command's busiest
thread's CPU time (the wall time it would take on an idle machine).

Then the offcode Python package (issue 37) on the same librocsparse:
listing it and writing out every code object of it from Python
(test/bench_offcode.py), against offload ls (and ls --json) and offload
extract, the floor (the target: within 1.5x), and reading every code
object into Python (as bytes) against extract; the extension is built
here against this tree's liboffcode (build/lib), its bytecode compiled as
an installed package's is.  The bare interpreter's start is a row of its
own, and the ls row is printed again with it taken out.

Then prune -r to gfx90a of a real install where one is here (Debian sid's
hipBLASLt library/, see test/real/hipblaslt.sh, or BENCH_PRUNE_TREE),
against cp -a of it, and -n against du --keep of it.

Then prune --keep gfx90a of an OCI image (issue 40) whose second layer
holds clib.so, gzip and zstd, against the floor the issue sets: that
layer decompressed and compressed again (zcat | gzip -6, zstd -dc |
zstd -3), ours -j1 as the floor is one thread; and of one whose two
layers hold it, -j1 and -j2 (layers in parallel), against both layers
recompressed.  With --only "image 10 GB" alone: an image of 10 GB
(test/image/mkbig.py) for its peak RSS.

Then NVIDIA: a CUDA library (BENCH_CUDA_LIB, else the CUDA toolkits'
libcublasLt.so installed under /usr/local/cuda and /usr/lib, else one made
here of the nvcc-built fixtures' fatbins, repeated to N MB in a
.nv_fatbin section) listed and extracted whole by ours and by cuobjdump
(-lelf -lptx; -xelf all -xptx all) where it is installed and reads the
library, against cp -r of what we extracted (the same bytes written).
"""
import argparse
import glob
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.path.join(HERE, "..", "build", "bin")
# Ours as LLVM 22's tools (against LLVM 22's), and as LLVM 23's (the
# same jobs, "(23)" rows, against the floor: LLVM 23 lives in a chroot).
OURS = os.path.join(BIN, "llvm-22", "clang-offload-bundler")
OURS23 = os.path.join(BIN, "llvm-23", "clang-offload-bundler")
LLVM = "/usr/lib/llvm-22/bin/clang-offload-bundler"
OURS_PKG = os.path.join(BIN, "llvm-22", "llvm-offload-binary")
OURS23_PKG = os.path.join(BIN, "llvm-23", "llvm-offload-binary")
LLVM_PKG = "/usr/lib/llvm-22/bin/llvm-offload-binary"
OURS_LS = os.path.join(BIN, "offload") + " ls"
OURS_EXTRACT = os.path.join(BIN, "offload") + " extract"
OURS_PRUNE = os.path.join(BIN, "offload") + " prune"
# LLVM has no ls: llvm-objdump --offloading lists (and writes out) the
# code objects of a .hip_fatbin, the nearest thing it does.
LLVM_OBJDUMP = "/usr/lib/llvm-22/bin/llvm-objdump --offloading"
LLVM_OBJCOPY = "/usr/lib/llvm-22/bin/llvm-objcopy"
CLANG = "/usr/lib/llvm-22/bin/clang"
# A linked HIP library holds one bundle per translation unit.
FATBIN_BUNDLES = 80
# prune -r of a real install (issue 36), where it is here: Debian sid's
# hipBLASLt library/ (test/real/hipblaslt.sh), or BENCH_PRUNE_TREE.
PRUNE_TREE = os.environ.get(
    "BENCH_PRUNE_TREE", "/var/cache/offload-test/real/hipblaslt/usr/lib/"
    "x86_64-linux-gnu/hipblaslt/library")
COMPRESS_LIB = os.environ.get(
    "BENCH_COMPRESS_LIB", "/var/cache/offload-test/real/rocsparse/pkg/usr/"
    "lib/x86_64-linux-gnu/librocsparse.so.1.0")
# prune of a real package and image (issues 41 and 40), where they are
# here: sid contrib's libtorch-cuda-2.6 (test/real/deb.sh), or BENCH_DEB,
# and test/real/image.sh's rocSPARSE image, or BENCH_IMAGE.
BENCH_DEB = os.environ.get("BENCH_DEB", "/var/cache/offload-test/debs/"
                           "libtorch-cuda-2.6_*_amd64.deb")
BENCH_IMAGE = os.environ.get("BENCH_IMAGE",
                             "/var/cache/offload-test/image-rocsparse")
BENCH_DEB_KEEP = os.environ.get("BENCH_DEB_KEEP", "sm_80")
BENCH_IMAGE_KEEP = os.environ.get("BENCH_IMAGE_KEEP", "gfx90a")
OURS_CCOB = os.path.join(BIN, "offload") + " ccob"
# The offcode Python package's jobs: Debian's Python, this tree's library;
# its listings run this many times a run (see python_jobs).
PYTHON = "/usr/bin/python3"
PY_REPEAT = 20
# runs of python_said's listings (times bench's runs)
PY_TIMED = 20
OFFCODE_LIBDIR = os.path.abspath(os.path.join(HERE, "..", "build", "lib"))
HOST_OBJECT = os.path.join(HERE, "objects", "fixtures",
                           "clang-x86_64-linux-gnu.o")
# Startup is too short to time one run against the shell's own start: the
# command runs this many times in one shell, and the figure is per run.
REPEAT = 200
TARGETS = "host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a," \
          "hip-amdgcn-amd-amdhsa--gfx1100"
CLANG = "/usr/lib/llvm-22/bin/clang"
# The kernel library (ls --kernels): one translation unit of KERNEL_COUNT
# kernels for each of KERNEL_ARCHS, linked KERNEL_COPIES times into one
# shared library: 4096 kernels in 256 code objects, about 1 GB.
KERNEL_ARCHS = ("gfx906", "gfx90a", "gfx942", "gfx1100")
KERNEL_COUNT = 16
KERNEL_COPIES = 64
KERNEL_BYTES = 256 << 10     # machine code in each kernel
NVCC = "/usr/local/cuda/bin/nvcc"
FATBINARY = "/usr/local/cuda/bin/fatbinary"
NV_ARCHS = ("75", "80", "90", "120")
# Evict a file from the page cache (posix_fadvise DONTNEED, as GNU dd's
# iflag=nocache does): the next read of it comes from the disk.
EVICT = "dd if={F} iflag=nocache count=0 status=none && "


def descendants(pid):
    """pid and every process under it (/proc/PID/task/TID/children)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for tid in os.listdir("/proc/%d/task" % p):
                with open("/proc/%d/task/%s/children" % (p, tid)) as f:
                    todo += [int(c) for c in f.read().split()]
        except OSError:
            pass
    return out


def thread_cpu(pids, seen):
    """Each thread's CPU seconds so far (its schedstat), into seen."""
    for p in pids:
        try:
            tids = os.listdir("/proc/%d/task" % p)
        except OSError:
            continue
        for tid in tids:
            try:
                with open("/proc/%d/task/%s/schedstat" % (p, tid)) as f:
                    seen[(p, tid)] = int(f.read().split()[0]) / 1e9
            except (OSError, ValueError, IndexError):
                pass


def run_once(cmd, cwd, repeat, fresh, threads=False):
    """Wall time, CPU time, peak RSS (MB) of one run of cmd, and with
    threads the CPU time of its busiest thread (else None).  GNU time
    measures, so that Python's own memory (copied into a forked child before
    exec) does not count.  With repeat, cmd runs that many times in one shell
    and the times are per run.  The files in fresh are removed first: every
    run, ours, LLVM's and the floor's, writes new files, since replacing a
    large file costs the release of its old pages (about 1 s per GB on ext4
    here) and would count in one run and not another.

    The busiest thread's CPU time is what the command's wall time would
    be on an idle machine were that thread never kept waiting, and no
    less: on this shared machine each session's processes get one share
    of the CPUs (the kernel's autogroups), so that a second thread adds
    nothing to a command's share and the wall time measures the load.
    Polled every 5 ms from /proc (a thread's last 5 ms may be missed).

    The CPU time is the kernel's, to the microsecond (wait4's rusage of
    time, which holds the shell's and the command's): GNU time prints it
    in hundredths, user and system each cut short, so that a run of a few
    milliseconds was known to half a millisecond a repeat at best."""
    if repeat > 1:
        cmd = "i=0; while [ $i -lt %d ]; do %s; i=$((i+1)); done" % (
            repeat, cmd)
    for name in fresh:
        path = os.path.join(cwd, name)
        if os.path.isdir(path):
            shutil.rmtree(path)
        elif os.path.lexists(path):
            os.unlink(path)
    # The last run's output is still being written back: let that end
    # first, so that no run pays for the one before it.
    os.sync()
    start = time.monotonic()
    # Standard error into a file: polling, nothing reads a pipe.
    with tempfile.TemporaryFile("w+") as errf:
        p = subprocess.Popen(["/usr/bin/time", "-f", "%U %S %M", "sh",
                              "-c", cmd], cwd=cwd,
                             stdout=subprocess.DEVNULL, stderr=errf)
        seen = {}
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG if threads else 0)
            if pid:
                break
            # time's and the shell's threads too: they hardly run.
            thread_cpu(descendants(p.pid), seen)
            time.sleep(0.005)
        p.returncode = os.waitstatus_to_exitcode(status)
        wall = time.monotonic() - start
        errf.seek(0)
        err = errf.read()
    if p.returncode != 0:
        raise SystemExit("bench: failed: %s\n%s" % (cmd, err))
    rss = err.strip().split("\n")[-1].split()[2]
    return (wall / repeat, (usage.ru_utime + usage.ru_stime) / repeat,
            int(rss) / 1024.0, max(seen.values()) if seen else None)


def measure(cmds, cwd, repeat=1, threads=False):
    """For each (cmd, fresh, runs) of cmds: the best wall time, the least
    CPU time and the largest peak RSS over its runs (a shared machine only
    ever adds to the times), and with threads the least CPU time of its
    busiest thread (run_once).  The commands take turns, run by run, so
    that what the machine does meanwhile falls on all of them alike."""
    best = [None] * len(cmds)
    for r in range(max(c[2] for c in cmds)):
        for i, (cmd, fresh, runs) in enumerate(cmds):
            if r >= runs:
                continue
            sample = run_once(cmd, cwd, repeat, fresh, threads)
            if best[i] is None:
                best[i] = sample
                continue
            best[i] = (min(best[i][0], sample[0]),
                       min(best[i][1], sample[1]),
                       max(best[i][2], sample[2]),
                       min(best[i][3], sample[3]) if threads else None)
    return best


def make_inputs(d, mb):
    size = mb * 1024 * 1024
    with open(os.path.join(d, "random.bin"), "wb") as f:
        left = size
        while left:
            n = min(left, 1 << 24)
            f.write(os.urandom(n))
            left -= n
    # Code-like: a vocabulary of byte strings, repeated (compresses ~3x).
    r = random.Random(1)
    words = [os.urandom(r.randint(8, 200)) for _ in range(20000)]
    with open(os.path.join(d, "code.bin"), "wb") as f:
        written = 0
        while written < size:
            chunk = b"".join(r.choice(words) for _ in range(50000))
            chunk = chunk[:size - written]
            f.write(chunk)
            written += len(chunk)
    open(os.path.join(d, "host"), "wb").close()
    shutil.copy(HOST_OBJECT, os.path.join(d, "host.o"))
    make_library(d, size)
    make_library(d, size, "code.bin", "clib.so")


def kernel_jobs(runs, nv):
    """ls --kernels on klib.so and klibz.so, warm (the file just read) and
    cold (evicted from the page cache first), against cat of the file, and
    for the CCOBs against zstd -d of their frames too."""
    L = "{K} --kernels klib%s.so"
    jobs = []
    for z in ("", "z"):
        what = "CCOBs" if z else "bundles"
        cat = "cat klib%s.so > /dev/null" % z
        jobs.append(("kernels %s warm" % what, L % z, (), cat, (),
                     runs))
        ev = EVICT.format(F="klib%s.so" % z)
        jobs.append(("kernels %s cold" % what, ev + L % z, (),
                     ev + cat, (), runs))
        if z:
            jobs.append(("kernels CCOBs/zstd -d", L % z, (),
                         "zstd -q -d -c ccobs.zst > /dev/null", (), runs))
    for z in ("", "z") if nv else ():
        what = "NV zstd" if z else "NV fatbins"
        lib = "nvlib%s.so" % z
        ev = EVICT.format(F=lib)
        cmd = "{K} --kernels " + lib
        cat = "cat %s > /dev/null" % lib
        jobs.append(("kernels %s warm" % what, cmd, (), cat, (), runs))
        jobs.append(("kernels %s cold" % what, ev + cmd, (), ev + cat, (),
                     runs))
    return jobs


def make_library(d, size, src="random.bin", out="lib.so"):
    """lib.so: a shared library whose .hip_fatbin holds FATBIN_BUNDLES
    bundles at 4096 alignment (two GPU targets each), size bytes in all, as
    a large HIP library does; its code objects are random.bin's bytes.
    clib.so, the same of code-like bytes, each code object its own (src
    is then only opened), for --compress."""
    each = max(4096, size // FATBIN_BUNDLES // 2)
    fatbin = out + ".fatbin"
    r = random.Random(3)
    with open(os.path.join(d, src), "rb") as s, \
            open(os.path.join(d, fatbin), "wb") as f:
        for b in range(FATBIN_BUNDLES if src != "random.bin" else 1):
            for k in range(2):
                with open(os.path.join(d, "dev%d" % k), "wb") as dev:
                    if src == "random.bin":
                        dev.write(s.read(each))
                        continue
                    # A code object of its own vocabulary, which it
                    # repeats as machine code does: it compresses alone
                    # (code.bin's 2 MB vocabulary repeats only across
                    # objects).
                    words = [r.randbytes(r.randint(8, 200))
                             for _ in range(1000)]
                    left = each
                    while left:
                        chunk = b"".join(r.choices(words, k=20000))[:left]
                        dev.write(chunk)
                        left -= len(chunk)
            subprocess.run([OURS, "-type=o", "-bundle-align=4096",
                            "-targets=" + TARGETS, "-input=/dev/null",
                            "-input=dev0", "-input=dev1",
                            "-output=one.hipfb"], cwd=d, check=True)
            one = open(os.path.join(d, "one.hipfb"), "rb").read()
            one += b"\0" * (-len(one) % 4096)
            # The random library repeats its one bundle.
            for _ in range(FATBIN_BUNDLES if src == "random.bin" else 1):
                f.write(one)
    # Linked by lld as a HIP library is: .hip_fatbin in a read-only
    # PT_LOAD (what offload prune cuts the freed pages out of).
    with open(os.path.join(d, "fatbin.s"), "w") as f:
        f.write('.section .hip_fatbin,"a",@progbits\n.p2align 12\n'
                '.incbin "%s"\n.text\n.globl f\nf: ret\n' % fatbin)
    subprocess.run([CLANG, "-shared", "-fuse-ld=lld", "-o", out,
                    "fatbin.s"], cwd=d, check=True)
    # clib.so as installed libraries are, stripped: prune cuts what it
    # frees by default.
    if out != "lib.so":
        subprocess.run([LLVM_OBJCOPY, "--strip-all", out], cwd=d,
                       check=True)
    with open(os.path.join(d, "tiny"), "wb") as f:
        f.write(b"device code\n")


def kernel_source(count, each):
    """A HIP translation unit of count kernels from one template, each
    starting with `each` bytes of machine code made of bulk.bin (.incbin
    in inline assembly: a large kernel costs clang nothing to compile);
    each processor's kernels take a different part of bulk.bin, so that
    no two code objects of a bundle compress as one."""
    out = ['#include "nohip.h"',
           "template <int K> __device__ __attribute__((always_inline))",
           "float body(const float *a, float x, int n) {",
           "  float s = x;",
           "#pragma unroll",
           "  for (int i = 0; i < 8; i++)",
           "    s = s * a[(i * K + n) & 1023] + a[(i + K) & 511] / (s + 1.0f);",
           "  return s;", "}"]
    for i, arch in enumerate(KERNEL_ARCHS if each else ()):
        out.append("#%s defined(__%s__)" % ("if" if not i else "elif", arch))
        out.append('#define BULK(k) asm volatile(".incbin \\"bulk.bin\\", "'
                   ' #k " * %d + %d, %d")' % (each, i * count * each, each))
    out += ["#else" if each else "", "#define BULK(k)",
            "#endif" if each else ""]
    for k in range(count):
        out.append("__global__ void k%d(float *o, const float *a, int n) "
                   "{ BULK(%d); o[n] = body<%d>(a, o[n + 1], n); }" % (
                       k, k, k + 1))
    return "\n".join(out) + "\n"


def make_kernel_library(d):
    """klib.so and klibz.so: KERNEL_COPIES copies of one HIP object (the
    copies' host symbols made local, so that they link), uncompressed
    bundles and CCOBs (--offload-compress); ccobs.zst, the zstd frames of
    klibz.so's CCOBs one after another (what decompressing them takes).
    The bulk is code-like bytes (compresses about 2.4x, as machine code
    does).  False when clang-22 is missing."""
    if not os.path.exists(CLANG):
        return False
    r = random.Random(2)
    words = [bytes(r.getrandbits(8) for _ in range(r.randint(8, 200)))
             for _ in range(20000)]
    size = len(KERNEL_ARCHS) * KERNEL_COUNT * KERNEL_BYTES
    bulk = bytearray()
    while len(bulk) < size:
        bulk += r.choice(words)
    with open(os.path.join(d, "bulk.bin"), "wb") as f:
        f.write(bulk[:size])
    with open(os.path.join(d, "k.hip"), "w") as f:
        f.write(kernel_source(KERNEL_COUNT, KERNEL_BYTES))
    archs = ["--offload-arch=" + a for a in KERNEL_ARCHS]
    for z, suffix in (([], ""), (["--offload-compress"], "z")):
        cc = [CLANG, "-x", "hip"] + archs + z + [
            "-nogpulib", "-nogpuinc", "-I" + os.path.join(HERE, "objects",
                                                          "hip"),
            "-O2", "-fPIC", "-c", "k.hip", "-o", "k%s.o" % suffix]
        subprocess.run(cc, cwd=d, check=True)
        objs = ["k%s.o" % suffix]
        for i in range(1, KERNEL_COPIES):
            objs.append("k%s%d.o" % (suffix, i))
            subprocess.run([LLVM_OBJCOPY, "-w", "--localize-symbol=_Z*",
                            "--localize-symbol=__hip_cuid_*", objs[0],
                            objs[-1]], cwd=d, check=True)
        subprocess.run([CLANG, "-shared", "-fuse-ld=lld", "-o",
                        "klib%s.so" % suffix] + objs, cwd=d, check=True)
        for o in objs:
            os.unlink(os.path.join(d, o))
    data = open(os.path.join(d, "klibz.so"), "rb").read()
    with open(os.path.join(d, "ccobs.zst"), "wb") as f:
        at = data.find(b"CCOB")
        while at >= 0:
            hsize = {1: 20, 2: 24, 3: 32}[data[at + 4]]
            total = int.from_bytes(data[at + 8:at + 16], "little")
            f.write(data[at + hsize:at + total])
            at = data.find(b"CCOB", at + total)
    return True


def make_nv_library(d):
    """nvlib.so and nvlibz.so: a host ELF file whose .nv_fatbin holds
    KERNEL_COPIES NVIDIA fatbins of one cubin per NV_ARCHS, each of
    KERNEL_COUNT kernels (nvcc) and KERNEL_COUNT * KERNEL_BYTES of
    bulk.bin in a section of its own (ptxas would take hours to make that
    much machine code); nvlibz.so's fatbins are zstd-compressed
    (fatbinary --compress-all).  False when nvcc is missing."""
    if not os.path.exists(NVCC) or not os.path.exists(FATBINARY):
        return False
    with open(os.path.join(d, "k.cu"), "w") as f:
        f.write(kernel_source(KERNEL_COUNT, 0).replace(
            '#include "nohip.h"', "").replace(
            "__attribute__((always_inline))", "__forceinline__"))
    each = KERNEL_COUNT * KERNEL_BYTES
    images = []
    for i, a in enumerate(NV_ARCHS):
        subprocess.run([NVCC, "-cubin", "-arch=sm_" + a, "k.cu", "-o",
                        "k%s.cubin" % a], cwd=d, check=True)
        with open(os.path.join(d, "bulk.bin"), "rb") as f:
            f.seek(i * each % os.path.getsize(os.path.join(d, "bulk.bin")))
            part = f.read(each)
        with open(os.path.join(d, "bulk%s" % a), "wb") as f:
            f.write(part)
        subprocess.run([LLVM_OBJCOPY, "--add-section", ".nv.bulk=bulk" + a,
                        "k%s.cubin" % a, "big%s.cubin" % a], cwd=d,
                       check=True)
        images.append("--image3=kind=elf,sm=%s,file=big%s.cubin" % (a, a))
    for z, suffix in (([], ""), (["--compress-all"], "z")):
        subprocess.run([FATBINARY, "--create=one%s.fatbin" % suffix] + z +
                       images, cwd=d, check=True)
        one = open(os.path.join(d, "one%s.fatbin" % suffix), "rb").read()
        one += b"\0" * (-len(one) % 8)
        with open(os.path.join(d, "nvfatbin%s" % suffix), "wb") as f:
            for _ in range(KERNEL_COPIES):
                f.write(one)
        subprocess.run([LLVM_OBJCOPY, "--add-section",
                        ".nv_fatbin=nvfatbin%s" % suffix,
                        "--set-section-flags", ".nv_fatbin=alloc,readonly",
                        "/bin/true", "nvlib%s.so" % suffix], cwd=d,
                       check=True)
        os.unlink(os.path.join(d, "nvfatbin%s" % suffix))
    return True


CUDA_LIBS = ["/usr/local/cuda/lib64/libcublasLt.so.*",
             "/usr/lib/x86_64-linux-gnu/libcublasLt.so.*"]
NV_FIXTURES = [os.path.join(HERE, "files", "nv118", "a.fatbin"),
               os.path.join(HERE, "files", "nv", "mode-speed.fatbin"),
               os.path.join(HERE, "files", "nv", "all-default.fatbin")]


def cuda_libraries(d, mb):
    """(name, path) of the CUDA libraries to time: BENCH_CUDA_LIB, or each
    toolkit's libcublasLt.so, or one made of our nvcc-built fatbins."""
    if os.environ.get("BENCH_CUDA_LIB"):
        return [(os.path.basename(os.environ["BENCH_CUDA_LIB"]),
                 os.environ["BENCH_CUDA_LIB"])]
    found, seen = [], set()
    for pattern in CUDA_LIBS:
        for path in sorted(glob.glob(pattern)):
            real = os.path.realpath(path)
            if real in seen or os.path.getsize(real) < (100 << 20):
                continue
            seen.add(real)
            found.append((os.path.basename(real), real))
            break
    if found:
        return found
    # None installed: the fixtures' fatbins (sm_80, sm_75, PTX; plain,
    # LZ4 and zstd entries), one after another to mb MB, as the
    # .nv_fatbin section of a shared library.
    blob = b"".join(open(f, "rb").read() for f in NV_FIXTURES)
    with open(os.path.join(d, "nvfatbin"), "wb") as f:
        for _ in range(max(1, (mb << 20) // len(blob))):
            f.write(blob)
    subprocess.run([LLVM_OBJCOPY, "--add-section", ".nv_fatbin=nvfatbin",
                    "--set-section-flags", ".nv_fatbin=alloc,readonly",
                    "/bin/true", "libnv.so"], cwd=d, check=True)
    return [("libnv.so (made here)", os.path.join(d, "libnv.so"))]


def cuobjdump_reads(lib):
    """Whether cuobjdump is installed and lists ELF entries of lib (CUDA
    11's does not read CUDA 13's libraries)."""
    try:
        p = subprocess.run(["cuobjdump", "-lelf", lib], capture_output=True,
                           text=True)
    except FileNotFoundError:
        return False
    return p.returncode == 0 and "ELF file" in p.stdout


def nv_jobs(d, args):
    """ls and extract of each CUDA library, ours against cuobjdump and cp."""
    ours = os.path.join(BIN, "offload")
    print("\nNVIDIA: ours against cuobjdump (x: its figure over ours) "
          "and the floor; load average %.2f %.2f %.2f" % os.getloadavg())
    print("%-34s %8s %8s %8s | %8s %8s %8s | %6s | %7s %6s" % (
        "job", "ours s", "cpu s", "RSS MB", "cuobj s", "cpu s", "RSS MB",
        "wall x", "floor s", "/floor"))
    for name, lib in cuda_libraries(d, args.mb):
        cu = cuobjdump_reads(lib)
        size = os.path.getsize(lib) >> 20
        for job, cmd, theirs, floor, fresh, runs in (
                ("ls %s (%d MB)" % (name, size), ours + " ls " + lib,
                 "cuobjdump -lelf -lptx " + lib, None, (), args.runs),
                ("extract it all", "mkdir ex.ours && " + ours +
                 " extract -q -o ex.ours " + lib,
                 "mkdir ex.cu && cd ex.cu && cuobjdump -xelf all "
                 "-xptx all " + lib, "cp -r ex.ours cp.dir",
                 ("ex.ours", "ex.cu", "cp.dir"), args.runs)):
            cmds = [(cmd, ["ex.ours"] if fresh else [], runs)]
            if cu:
                cmds.append((theirs, ["ex.cu"] if fresh else [], runs))
            if floor:
                cmds.append((floor, ["cp.dir"], runs))
            got = measure(cmds, d)
            o, t = got[0], got[1] if cu else None
            fl = got[-1] if floor else None
            print("%-34s %8.3f %8.3f %8.1f | %8s %8s %8s | %6s | %7s %6s" % (
                job, o[0], o[1], o[2],
                "%.3f" % t[0] if t else "-", "%.3f" % t[1] if t else "-",
                "%.1f" % t[2] if t else "-",
                "%.2f" % (t[0] / o[0]) if t else "-",
                "%.3f" % fl[0] if fl else "-",
                "%.2f" % (o[0] / fl[0]) if fl else "-"))
        out = os.path.join(d, "ex.ours")
        if os.path.isdir(out):
            files = os.listdir(out)
            print("  extracted: %d files, %d MB; cuobjdump %s" % (
                len(files), sum(os.path.getsize(os.path.join(out, f))
                                for f in files) >> 20,
                "reads it" if cu else "not installed or cannot read it"))
        for k in ("ex.ours", "ex.cu", "cp.dir"):
            shutil.rmtree(os.path.join(d, k), ignore_errors=True)
        # Other work on the machine shows in every figure: say how much.
        print("  load average after it: %.2f %.2f %.2f" % os.getloadavg())


def prune_tree_jobs(d, runs, only):
    """prune -r of PRUNE_TREE (a copy: it prunes in place) to gfx90a,
    against cp -a of it, and -n against du --keep (issue 36: within 1.5x
    and 2x).  None where the tree is not here."""
    if not os.path.isdir(PRUNE_TREE) or (only and not any(
            p.startswith("prune -r") or "prune -r".startswith(p)
            for p in only)):
        return []
    subprocess.run(["cp", "-a", PRUNE_TREE, os.path.join(d, "tree")],
                   check=True)
    du = os.path.join(BIN, "offload") + " du -q --keep gfx90a tree"
    return [
        ("prune -r tree", "{R} -r -q --keep gfx90a tree", (),
         "cp -a tree cpa.dir", ("cpa.dir",), runs),
        ("prune -r -n tree", "{R} -r -q -n --keep gfx90a tree", (), du, (),
         runs),
    ]


def wanted(name, only):
    """Whether --only asks for the job name."""
    return not only or any(name.startswith(p) or p.startswith(name)
                           for p in only)


def package_jobs(d, runs, only):
    """prune of a real .deb (BENCH_DEB) against its floor, dpkg-deb -b of
    the pruned tree with the package's compressor at dpkg-deb's level
    (issue 41: be no slower); prune of a real image (BENCH_IMAGE) against
    its floor, each layer prune changes decompressed and compressed again
    by its codec's tool at our level (gzip -6, zstd -3; issue 40: within
    1.5x).  Ours runs once first, to know the tree and the layers.  None
    where the inputs are not here."""
    jobs = []
    debs = sorted(glob.glob(BENCH_DEB))
    if debs and wanted("prune .deb", only):
        deb = debs[-1]
        members = subprocess.run(["ar", "t", deb], capture_output=True,
                                 text=True, check=True).stdout.split()
        data = [m for m in members if m.startswith("data.tar")][0]
        z = {".xz": "xz", ".zst": "zstd", ".gz": "gzip"}.get(
            os.path.splitext(data)[1], "none")
        pruned = os.path.join(d, "pkg.first")
        subprocess.run(OURS_PRUNE + " -q --keep %s %s -o %s >/dev/null" % (
            BENCH_DEB_KEEP, deb, pruned), shell=True, check=True)
        subprocess.run(["dpkg-deb", "-R", pruned, os.path.join(d, "pkgtree")],
                       check=True)
        os.unlink(pruned)
        jobs.append(("prune .deb, vs dpkg-deb",
                     "{R} -q --keep %s %s -o pkg.{N}" % (BENCH_DEB_KEEP, deb),
                     ("pkg.{N}",),
                     "dpkg-deb --root-owner-group -Z%s -b pkgtree fl.deb "
                     ">/dev/null" % z, ("fl.deb",), runs))
    if os.path.isfile(os.path.join(BENCH_IMAGE, "index.json")) and \
            wanted("prune image", only):
        said = subprocess.run(
            OURS_PRUNE + " -n --keep %s %s" % (BENCH_IMAGE_KEEP, BENCH_IMAGE),
            shell=True, capture_output=True, text=True, check=True).stdout
        floor = []
        for line in said.splitlines():
            # "layer sha256:DIGEST: ...": the layers that change.
            if not line.startswith("layer ") or "unchanged" in line:
                continue
            blob = layer_blob(BENCH_IMAGE, line.split()[1].rstrip(":")[7:])
            tool = "zstd -q -3 -T1" if blob[1] == "zstd" else "gzip -6"
            floor.append("%s -dc %s | %s > /dev/null" % (
                "zstd -q" if blob[1] == "zstd" else "gzip", blob[0], tool))
        if floor:
            jobs.append(("prune image, vs recompress",
                         "{R} -q --keep %s %s -o img.{N}" % (
                             BENCH_IMAGE_KEEP, BENCH_IMAGE),
                         ("img.{N}",), " && ".join(floor), (), runs))
    return jobs


def layer_blob(layout, digest):
    """The blob path and codec ("gzip", "zstd") of the layer of layout
    (its first manifest) whose digest is digest (hex)."""
    import json
    index = json.load(open(os.path.join(layout, "index.json")))
    man = json.load(open(os.path.join(layout, "blobs", "sha256",
                                      index["manifests"][0]["digest"][7:])))
    layer = [x for x in man["layers"] if x["digest"][7:] == digest][0]
    return (os.path.join(layout, "blobs", "sha256", digest),
            "zstd" if layer["mediaType"].endswith("zstd") else "gzip")


def ccob_floor(d, lib):
    """The command of the third floor of real_compress_jobs, or None:
    test/bench_ccob_floor.c built here, given lib's bundles (their offsets
    and sizes, as offload ls lists them)."""
    exe = os.path.join(d, "ccob_floor")
    top = os.path.join(HERE, "..")
    p = subprocess.run(["cc", "-O2", "-o", exe,
                        os.path.join(HERE, "bench_ccob_floor.c"),
                        os.path.join(top, "build", "obj", "core",
                                     "md5lanes.o"), "-lzstd", "-lmd"],
                       capture_output=True, text=True)
    if p.returncode:
        print("bench: no floor of the CCOBs' own work: %s" % p.stderr)
        return None
    ls = subprocess.run([os.path.join(BIN, "offload"), "ls", lib],
                        capture_output=True, text=True, check=True).stdout
    with open(os.path.join(d, "bundles.txt"), "w") as f:
        for line in ls.splitlines():
            w = line.split()
            # "    bundle #N at OFFSET: SIZE bytes, ..."
            if len(w) > 4 and w[0] == "bundle" and w[2] == "at":
                f.write("%s %s\n" % (w[3].rstrip(":"), w[4]))
    return "./ccob_floor %s < bundles.txt" % lib


def real_compress_jobs(d, runs):
    """prune --compress of Debian sid's librocsparse.so.1.0 (1.67 GB; see
    test/real/rocsparse.sh, or BENCH_COMPRESS_LIB) on two threads and on
    one, against both floors of issue 36 in the same turns: zstd -3 -T1 of
    it (CPU within 1.1x, wall under it with two threads, peak RSS under
    256 MB) and zstd -3 --long=27 -T1 (LLVM's parameters, which the CCOBs'
    bytes pin: long-distance matching, a 2^27 window); and a third, the
    work those bytes ask for and no I/O (test/bench_ccob_floor.c: each
    bundle compressed by LLVM's zstd call and hashed, the file mapped whole
    first, so its RSS is the file's).  With each command's busiest
    thread's CPU time (run_once), what its wall time would be on an idle
    machine.  None where the file is not here."""
    if not os.path.exists(COMPRESS_LIB):
        return []
    lib = COMPRESS_LIB
    pc = "{R} -q --compress %s %s -o rc.{N}"
    floors = [("zstd --long=27", "zstd -q -3 --long=27 -T1 -f %s -o z9.out"
               % lib, ("z9.out",))]
    own = ccob_floor(d, lib)
    if own:
        floors.append(("LLVM's zstd+MD5", own, ()))
    more = {"label": "zstd -3 -T1", "floors": floors, "threads": True}
    return [
        ("rocsparse -j%d, vs zstd" % j, pc % ("-j%d" % j, lib), ("rc.{N}",),
         "zstd -q -3 -T1 -f %s -o z8.out" % lib, ("z8.out",), runs, 1, more)
        for j in (2, 1)
    ]


def python_jobs(d, runs):
    """The offcode package listing COMPRESS_LIB and writing out all its
    code objects (test/bench_offcode.py), against offload ls and offload
    extract of it (issue 37: within 1.5x).  None where the library, or
    Python's headers and setuptools, are not here."""
    if not os.path.exists(COMPRESS_LIB):
        return []
    built = os.path.join(d, "offcode-py")
    env = dict(os.environ, OFFCODE_CFLAGS="-I" + os.path.join(HERE, "..", "include"),
               OFFCODE_LIBS="-L%s -loffcode" % OFFCODE_LIBDIR)
    p = subprocess.run([PYTHON, "setup.py", "-q", "build", "--build-base",
                        os.path.join(d, "offcode-build"), "--build-lib", built],
                       cwd=os.path.join(HERE, ".."), env=env,
                       capture_output=True, text=True)
    if p.returncode:
        print("bench: the offcode extension did not build:\n" + p.stderr)
        return []
    # Its bytecode, as pip and Debian's packaging leave it installed (with
    # PYTHONDONTWRITEBYTECODE set, each run would compile __init__.py).
    subprocess.run([PYTHON, "-m", "compileall", "-q", built],
                   capture_output=True)
    py = "PYTHONPATH=%s LD_LIBRARY_PATH=%s %s %s" % (
        built, OFFCODE_LIBDIR, PYTHON, os.path.join(HERE, "bench_offcode.py"))
    lib = COMPRESS_LIB
    return [
        # The interpreter's own start and the script's (bench_offcode.py
        # startup: offcode not imported), which no listing from Python
        # can go under (python_said takes it out of the ls row's figure).
        # (a listing takes some 10 ms: each run of these is PY_REPEAT of
        # them in one shell, the figures per run, so that CPU time, which
        # GNU time gives in hundredths, says something)
        ("python startup", "{Y} startup", (),
         "%s %s" % (OURS_LS, lib), (), runs, PY_REPEAT),
        ("python ls rocsparse", "{Y} ls %s" % lib, (),
         "%s %s" % (OURS_LS, lib), (), runs, PY_REPEAT),
        ("python ls, vs --json", "{Y} ls %s" % lib, (),
         "%s --json %s" % (OURS_LS, lib), (), runs, PY_REPEAT),
        # the same lines from the streaming walk (offcode.walk): no
        # record kept, against offload ls too
        ("python walk rocsparse", "{Y} walk %s" % lib, (),
         "%s %s" % (OURS_LS, lib), (), runs, PY_REPEAT),
        ("python extract rocsparse", "{Y} extract %s py.{N}" % lib,
         ("py.{N}",), "%s -q -o px.out --all %s" % (OURS_EXTRACT, lib),
         ("px.out",), runs),
        # every code object handed to Python as bytes (each_code), none
        # written: against extract too
        ("python read rocsparse", "{Y} read %s" % lib, (),
         "%s -q -o px.out --all %s" % (OURS_EXTRACT, lib), ("px.out",),
         runs),
    ], py


def python_said(results, d, runs):
    """Listing from Python against offload ls (issue 37: within 1.5x), the
    interpreter's start taken out: the CPU time (wait4's, the whole
    process: exec, imports, the listing, exit) of bench_offcode.py ls
    (offcode.open) and walk (offcode.walk), less that of its startup mode
    (the interpreter's start and exit, offcode not imported), against
    offload ls's.  The four take turns, PY_TIMED runs each (times bench's
    runs), and their medians are compared: the rows above are each the
    least of a few runs of 20, whose difference swung from 0.7x to 1.6x
    between runs here, and a medians' figure still moves by some 0.15x
    between runs of 60 on this machine."""
    built = os.path.join(d, "offcode-py")
    if "python ls rocsparse" not in results or not os.path.isdir(built):
        return
    env = dict(os.environ, PYTHONPATH=built, LD_LIBRARY_PATH=OFFCODE_LIBDIR)
    script = os.path.join(HERE, "bench_offcode.py")
    cmds = {
        "start": [PYTHON, script, "startup"],
        "open": [PYTHON, script, "ls", COMPRESS_LIB],
        "walk": [PYTHON, script, "walk", COMPRESS_LIB],
        "ls": [os.path.join(BIN, "offload"), "ls", COMPRESS_LIB],
    }
    cpu = {k: [] for k in cmds}
    with open(os.devnull, "wb") as null:
        for _ in range(max(runs, 1) * PY_TIMED):
            for k, argv in cmds.items():
                pid = os.posix_spawn(argv[0], argv, env,
                                     file_actions=[(os.POSIX_SPAWN_DUP2,
                                                    null.fileno(), 1)])
                _, status, ru = os.wait4(pid, 0)
                if status:
                    raise SystemExit("bench: %s failed" % " ".join(argv))
                cpu[k].append(ru.ru_utime + ru.ru_stime)

    def median(v):
        return sorted(v)[len(v) // 2]
    m = {k: median(v) for k, v in cpu.items()}
    print("python listing of rocsparse, CPU medians of %d runs taking turns: "
          "start %.2f ms, open %.2f ms, walk %.2f ms, offload ls %.2f ms; "
          "the start taken out: open %.2fx, walk %.2fx offload ls" % (
              len(cpu["ls"]), m["start"] * 1e3, m["open"] * 1e3,
              m["walk"] * 1e3, m["ls"] * 1e3,
              (m["open"] - m["start"]) / m["ls"],
              (m["walk"] - m["start"]) / m["ls"]))

MKIMAGE = os.path.join(HERE, "image", "mkimage.py")
DIGEST = os.path.join(HERE, "image", "digest.py")


def image_jobs(d, runs, only):
    """prune --keep gfx90a of an image of two layers (test/image/mkimage.py:
    a small base; the fixtures' HIP program and library with clib.so added
    as usr/lib/libbig.so), its layers gzip (mkimage's level 9) or zstd -3,
    against the changed layer decompressed and compressed again at the
    codecs' defaults.  Made only when an image job is asked for."""
    if only and not any(("image".startswith(p) or p.startswith("image"))
                        and not p.startswith("image 10") for p in only):
        return []
    jobs = []
    for codec, floor in (("gzip", "zcat %s | gzip -6 > fi.out"),
                         ("zstd", "zstd -q -dc %s | zstd -q -3 > fi.out")):
        img = "img." + codec
        subprocess.run([sys.executable, MKIMAGE, img, "--codec", codec,
                        "--add", "usr/lib/libbig.so=clib.so"], cwd=d,
                       check=True)
        layer = subprocess.run([sys.executable, DIGEST, img, "1"], cwd=d,
                               check=True, capture_output=True,
                               text=True).stdout.strip()
        blob = "%s/blobs/sha256/%s" % (img, layer)
        print("image prune, %s: a layer of %d bytes holding clib.so (%d "
              "bytes); floor: %s" % (codec, os.path.getsize(
                  os.path.join(d, blob)), os.path.getsize(
                      os.path.join(d, "clib.so")), floor % "LAYER"))
        jobs.append(("image prune, %s" % codec,
                     "{R} -q -j1 --keep gfx90a %s -o io.{N}" % img,
                     ("io.{N}",), floor % blob, ("fi.out",), runs))
    # Two layers that change (clib.so in each), -j1 and -j2: layers in
    # parallel, against both layers recompressed one after the other.
    img = "img.zstd2"
    subprocess.run([sys.executable, MKIMAGE, img, "--codec", "zstd",
                    "--add0", "usr/lib/libbig0.so=clib.so",
                    "--add", "usr/lib/libbig.so=clib.so"], cwd=d, check=True)
    floor = " && ".join(
        "zstd -q -dc %s/blobs/sha256/%s | zstd -q -3 > fi%d.out" % (
            img, subprocess.run([sys.executable, DIGEST, img, str(i)],
                                cwd=d, check=True, capture_output=True,
                                text=True).stdout.strip(), i)
        for i in (0, 1))
    for j in (1, 2):
        jobs.append(("image 2 layers, -j%d" % j,
                     "{R} -q -j%d --keep gfx90a %s -o i2.{N}" % (j, img),
                     ("i2.{N}",), floor, ("fi0.out", "fi1.out"), runs))
    return jobs


MKBIG = os.path.join(HERE, "image", "mkbig.py")
BIGLIB = os.path.join(HERE, "biglib.py")


def image_big_jobs(d, runs, only):
    """prune --keep gfx90a of an image of 10 GB (test/image/mkbig.py: one
    zstd layer of 8.4 GiB of zeros, then a sparse fat binary of 1.7 GiB,
    test/biglib.py's, 111 bundles of eight 2 MiB code objects), for its
    peak RSS (issue 40: under 512 MB whatever the largest file; the
    library is held in a temporary file), against the layer decompressed
    and compressed again.  Made only when --only names it ("image 10
    GB"): it takes minutes and 2 GB of disk."""
    if not only or not any(p.startswith("image 10") for p in only):
        return []
    subprocess.run([sys.executable, BIGLIB, "make", "big.so", "111", "9",
                    "2048"], cwd=d, check=True)
    subprocess.run([sys.executable, MKBIG, "img.big", "8600", "big.so"],
                   cwd=d, check=True)
    layer = subprocess.run([sys.executable, DIGEST, "img.big", "0"], cwd=d,
                           check=True, capture_output=True,
                           text=True).stdout.strip()
    tar = 8600 * (1 << 20) + os.path.getsize(os.path.join(d, "big.so"))
    os.unlink(os.path.join(d, "big.so"))
    print("image 10 GB: a zstd layer of %d bytes holding %d bytes of tar; "
          "floor: zstd -dc LAYER | zstd -3" % (os.path.getsize(os.path.join(
              d, "img.big", "blobs", "sha256", layer)), tar))
    return [("image 10 GB", "{R} -q --keep gfx90a img.big -o ib.{N}",
             ("ib.{N}",), "zstd -q -dc img.big/blobs/sha256/%s | zstd -q -3 "
             "> fb.out" % layer, ("fb.out",), runs)]


def tree_said(d):
    """Which tree the prune -r jobs pruned."""
    tree = os.path.join(d, "tree")
    if not os.path.isdir(tree):
        return
    n = size = 0
    for top, _, files in os.walk(tree):
        for f in files:
            n += 1
            size += os.path.getsize(os.path.join(top, f))
    print("prune -r tree: a copy of %s, %d files, %d bytes; floors: cp -a "
          "of it, and du --keep gfx90a of it for -n" % (PRUNE_TREE, n, size))


def sizes(d):
    """The library's size before and after: pruned (and shrunk), zstd -3
    of it whole, zstd -3 of the smallest pruned one."""
    lib = os.path.join(d, "lib.so")
    pruned = os.path.join(d, "pr.ours")
    if not os.path.exists(lib) or not os.path.exists(pruned) or \
            not shutil.which("zstd"):
        return
    row = [("lib.so", lib), ("pruned to gfx90a", pruned)]
    if os.path.exists(os.path.join(d, "ps.ours")):
        row.append(("pruned, --always-shrink", os.path.join(d, "ps.ours")))
    for name, src in (("zstd -3 of lib.so", lib),
                      ("zstd -3 of the pruned", row[-1][1])):
        out = src + ".zst"
        subprocess.run(["zstd", "-q", "-3", "-f", src, "-o", out],
                       check=True)
        row.append((name, out))
    base = os.path.getsize(lib)
    print("%-24s %12s %7s" % ("size", "bytes", "of lib"))
    for name, path in row:
        n = os.path.getsize(path)
        print("%-24s %12d %6.1f%%" % (name, n, 100.0 * n / base))


def compressed_sizes(d):
    """clib.so before and after prune --compress, and zstd -3 of it."""
    lib = os.path.join(d, "clib.so")
    ours = os.path.join(d, "pc.ours")
    if not os.path.exists(ours):
        return
    z = lib + ".zst"
    subprocess.run(["zstd", "-q", "-3", "-f", lib, "-o", z], check=True)
    base = os.path.getsize(lib)
    print("%-24s %12s %7s" % ("size", "bytes", "of clib"))
    for name, path in (("clib.so", lib), ("prune --compress", ours),
                       ("zstd -3 of clib.so", z)):
        n = os.path.getsize(path)
        print("%-24s %12d %6.1f%%" % (name, n, 100.0 * n / base))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=500)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--close-runs", type=int, default=7)
    ap.add_argument("--only", default="",
                    help="comma-separated job name prefixes to run "
                    "(nvidia: the NVIDIA jobs)")
    args = ap.parse_args()
    if not os.path.exists("/usr/bin/time"):
        print("bench: needs GNU time (apt-get install time)")
        return 1
    if not os.path.exists(LLVM):
        print("bench: LLVM 22 is not installed (%s)" % LLVM)
        return 1
    d = tempfile.mkdtemp(prefix="offload-bench-")
    try:
        only = args.only.split(",") if args.only else []
        # The NVIDIA and Python jobs make inputs of their own; the real
        # package and image jobs need none.
        if not only or any(not p.startswith(("nvidia", "python",
                                             "prune .deb", "prune image",
                                             "rocsparse", "image 10"))
                           for p in only):
            make_inputs(d, args.mb)
        want_kernels = not only or any(
            "kernels".startswith(p) or p.startswith("kernels") for p in only)
        if want_kernels and not make_kernel_library(d):
            print("bench: no kernel library: clang-22 is not installed")
            want_kernels = False
        want_nv = want_kernels and make_nv_library(d)
        big = "-input=host -input=random.bin -input=code.bin"
        obj = "-input=host.o -input=random.bin -input=code.bin"
        # name, command, its outputs, floor, the floor's outputs, runs,
        # repeat.  {N} is "ours" or "llvm".
        U = TARGETS.split(",", 1)[1]
        jobs = [
            ("startup (--version)", "{B} --version", (), None, (), 3,
             REPEAT),
            ("tiny bundle", "{B} -type=bc -targets=" + TARGETS +
             " -input=host -input=tiny -input=tiny -output=t.bc", (), None,
             (), 3, REPEAT),
            ("bundle 2x%d MB" % args.mb, "{B} -type=o -bundle-align=4096"
             " -targets=" + TARGETS + " " + big + " -output=b.{N}",
             ("b.{N}",), "cat random.bin code.bin > cat.out", ("cat.out",),
             args.runs),
            ("list", "{B} -type=o -list -input=b.{N}", (), None, (),
             args.runs),
            ("unbundle both", "{B} -type=o -unbundle -targets=" + U +
             " -input=b.{N} -output=u1.{N} -output=u2.{N}",
             ("u1.{N}", "u2.{N}"),
             "cp random.bin cp1.out && cp code.bin cp2.out",
             ("cp1.out", "cp2.out"), args.runs),
            ("compressed bundle", "{B} -type=o -compress -targets=" + TARGETS +
             " " + big + " -output=c.{N}", ("c.{N}",),
             "cat random.bin code.bin | zstd -q -3 --long -c > z.out",
             ("z.out",), args.runs),
            # The floor: zstd -d of the same frames, written to one file.
            ("unbundle compressed", "{B} -type=o -unbundle -targets=" + U +
             " -input=c.{N} -output=v1.{N} -output=v2.{N}",
             ("v1.{N}", "v2.{N}"), "zstd -q -d -c z.out > zd.out",
             ("zd.out",), args.runs),
            ("object bundle 2x%d MB" % args.mb, "{B} -type=o -targets=" +
             TARGETS + " " + obj + " -output=o.{N}", ("o.{N}",),
             "cat host.o random.bin code.bin > cat.out", ("cat.out",),
             args.runs),
            ("object host unbundle", "{B} -type=o -unbundle -targets=" +
             TARGETS.split(",", 1)[0] + " -input=o.{N} -output=h.{N}",
             ("h.{N}",), "cp host.o cp3.out", ("cp3.out",), args.runs),
            ("package %d MB image" % args.mb, "{P} -o p.{N} --image=file="
             "random.bin,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip",
             ("p.{N}",), "cp random.bin cp4.out", ("cp4.out",), args.runs),
            ("extract %d MB image" % args.mb, "{P} p.{N} --image=file=x.{N},"
             "arch=gfx90a", ("x.{N}",), "cp random.bin cp5.out", ("cp5.out",),
             args.runs),
            ("ls library (%d bundles)" % FATBIN_BUNDLES, "{L} lib.so", (),
             None, (), args.runs),
            ("extract gfx90a from it",
             "mkdir -p ex.{N} && {X} -t gfx90a -o ex.{N} lib.so", ("ex.{N}",),
             "cp lib.so.fatbin cp6.out", ("cp6.out",), args.runs),
            # LLVM has no prune: ours against cp of what it writes (the
            # commands take turns, ours first: pr.ours is there).
            ("prune it to gfx90a", "{R} --keep gfx90a lib.so -o pr.{N}",
             ("pr.{N}",), "cp pr.ours cp7.out", ("cp7.out",), args.runs),
            # The layout GNU strip cannot keep, but the smaller file: lld
            # leaves no room after the ELF header for the default's table.
            ("prune, --always-shrink", "{R} --always-shrink --keep gfx90a "
             "lib.so -o ps.{N}", ("ps.{N}",), "cp ps.ours cp8.out",
             ("cp8.out",), args.runs),
        ]
        # The bundler's and the packager's jobs again, in LLVM 23 mode.
        jobs += [(name + " (23)", cmd.replace("{B}", "{B23}").replace(
            "{P}", "{P23}").replace(".{N}", ".{N}23"), tuple(
                o.replace(".{N}", ".{N}23") for o in outs)) + tuple(rest)
                 for name, cmd, outs, *rest in jobs
                 if "{B}" in cmd or "{P}" in cmd]
        # What a user slimming a library would do instead: compress it.
        if shutil.which("zstd"):
            jobs.append(("prune, against zstd -3", "{R} --keep gfx90a "
                         "lib.so -o pz.{N}", ("pz.{N}",),
                         "zstd -q -3 -f lib.so -o z3.out", ("z3.out",),
                         args.runs))
            # --compress: every bundle of clib.so a CCOB (version 2, as
            # ROCm 6 reads; the library names no HIP runtime), against
            # cp of the library and zstd -3 of it whole, on one thread
            # and on two.
            pc = "{R} --compress --ccob-version=2 clib.so -o pc.{N}"
            jobs += [
                ("compress lib, vs cp", pc, ("pc.{N}",),
                 "cp clib.so cp9.out", ("cp9.out",), args.runs),
                ("compress lib, vs zstd -3", pc, ("pc.{N}",),
                 "zstd -q -3 -T1 -f clib.so -o z4.out", ("z4.out",),
                 args.runs),
                ("compress lib, vs -T2", pc, ("pc.{N}",),
                 "zstd -q -3 -T2 -f clib.so -o z5.out", ("z5.out",),
                 args.runs),
            ]
            # ccob -c and -d of the code-like input (issue 36: flat
            # memory), against zstd with LLVM's parameters (-3, windows
            # of 2^27 matched far back); -c from a pipe too.
            jobs += [
                ("ccob -c", "{C} -q -c code.bin > cc.{N}", ("cc.{N}",),
                 "zstd -q -3 --long=27 -T1 -c code.bin > z6.out",
                 ("z6.out",), args.runs),
                ("ccob -c from a pipe", "cat code.bin | {C} -q -c > cp.{N}",
                 ("cp.{N}",),
                 "cat code.bin | zstd -q -3 --long=27 -T1 -c > z7.out",
                 ("z7.out",), args.runs),
                ("ccob -d", "{C} -q -d -c cc.ours > cd.{N}", ("cd.{N}",),
                 "zstd -q -d -c z6.out > zd2.out", ("zd2.out",), args.runs),
            ]
            if not only or any(p.startswith("rocsparse") or
                               "rocsparse".startswith(p) for p in only):
                jobs += real_compress_jobs(d, args.runs)
        if want_kernels:
            jobs += kernel_jobs(args.runs, want_nv)
        jobs += prune_tree_jobs(d, args.runs, only)
        py_cmd = ""
        if not only or any(p.startswith("python") for p in only):
            got = python_jobs(d, args.runs)
            if got:
                jobs += got[0]
                py_cmd = got[1]
        jobs += image_jobs(d, args.runs, only)
        jobs += image_big_jobs(d, args.runs, only)
        jobs += package_jobs(d, args.runs, only)
        if only:
            jobs = [j for j in jobs
                    if any(j[0].startswith(p) for p in only)]
        nvidia = not only or "nvidia" in only
        if jobs:
            print("%-22s %8s %7s %7s | %8s %7s %7s | %6s %6s | %7s %7s %7s "
                  "%6s %6s" % (
                      "job", "ours s", "cpu s", "RSS MB", "llvm s", "cpu s",
                      "RSS MB", "wall x", "RSS x", "floor s", "cpu s",
                      "RSS MB", "/floor", "cpu/fl"))
        results = {}
        for name, cmd, outs, floor, floor_outs, runs, *rest in jobs:
            repeat = rest[0] if rest else 1
            # Floors after the first (measured in the same turns) and
            # the busiest thread's CPU time (real_compress_jobs).
            more = rest[1] if len(rest) > 1 else {}
            # Ours against the floor is the target, and the machine's
            # noise only ever adds: more runs of both, for a surer best.
            close = max(runs, args.close_runs) if floor else runs
            llvm_has = "{R}" not in cmd and "{K}" not in cmd and \
                "23}" not in cmd and "{C}" not in cmd and "{Y}" not in cmd
            cmds = [(cmd.format(B=OURS, P=OURS_PKG, L=OURS_LS,
                                X=OURS_EXTRACT, R=OURS_PRUNE, K=OURS_LS,
                                C=OURS_CCOB, Y=py_cmd,
                                B23=OURS23, P23=OURS23_PKG, N="ours"),
                     [o.format(N="ours") for o in outs], close)]
            if llvm_has:
                cmds.append((cmd.format(
                    B=LLVM, P=LLVM_PKG, L=LLVM_OBJDUMP, B23="", P23="",
                    X="mkdir -p ex.llvm && cd ex.llvm && " + LLVM_OBJDUMP +
                    " ../lib.so #", N="llvm"),
                    [o.format(N="llvm") for o in outs], runs))
            if floor:
                cmds.append((floor, floor_outs, close))
            extra = more.get("floors", [])
            cmds += [(c, o, close) for _, c, o in extra]
            got = measure(cmds, d, repeat, more.get("threads", False))
            ours = got[0]
            theirs = got[1] if llvm_has else None
            fl = got[-1 - len(extra)] if floor else None
            results[name] = (ours, fl)
            floor_cols = ("%7.3f %7.2f %7.1f %6.2f %6.2f" % (
                fl[0], fl[1], fl[2], ours[0] / fl[0],
                ours[1] / fl[1] if fl[1] else 0) if fl else
                "%7s %7s %7s %6s %6s" % ("-", "-", "-", "-", "-"))
            if not llvm_has:
                print("%-22s %8.4f %7.2f %7.1f | %8s %7s %7s | %6s %6s | %s"
                      % (name, ours[0], ours[1], ours[2], "-", "-", "-", "-",
                         "-", floor_cols))
                for (label, _, _), f in zip(extra, got[-len(extra):]
                                            if extra else []):
                    print("%-22s %8.4f %7.2f %7.1f | %8s %7s %7s | %6s %6s "
                          "| %7.3f %7.2f %7.1f %6.2f %6.2f" % (
                              "  vs " + label, ours[0], ours[1], ours[2],
                              "-", "-", "-", "-", "-", f[0], f[1], f[2],
                              ours[0] / f[0], ours[1] / f[1] if f[1] else 0))
                if more.get("threads"):
                    fls = [fl] + got[-len(extra):] if extra else [fl]
                    print("  busiest thread's CPU s (idle-machine wall): "
                          "ours %.2f; %s" % (ours[3], ", ".join(
                              "%s %.2f (/floor %.2f)" % (lb, f[3],
                                                         ours[3] / f[3])
                              for lb, f in zip([more.get("label", "floor")]
                                               + [e[0] for e in extra],
                                               fls))))
                continue
            print("%-22s %8.4f %7.2f %7.1f | %8.4f %7.2f %7.1f | %6.2f %6.2f "
                  "| %s" % (
                      name, ours[0], ours[1], ours[2], theirs[0], theirs[1],
                      theirs[2], theirs[0] / ours[0], theirs[2] / ours[2],
                      floor_cols))
        python_said(results, d, args.runs)
        for out, how in (("pr.ours", ""), ("ps.ours", ", --always-shrink")):
            if not os.path.exists(os.path.join(d, out)):
                continue
            st = os.stat(os.path.join(d, out))
            print("pruned lib.so%s: %d bytes, %d of them on disk (was %d)" % (
                how, st.st_size, st.st_blocks * 512,
                os.path.getsize(os.path.join(d, "lib.so"))))
        tree_said(d)
        sizes(d)
        compressed_sizes(d)
        for a, b in (("b.ours", "b.llvm"), ("c.ours", "c.llvm"),
                     ("o.ours", "o.llvm"), ("h.ours", "h.llvm"),
                     ("p.ours", "p.llvm"), ("x.ours", "x.llvm")):
            if not os.path.exists(os.path.join(d, a)):
                continue
            same = subprocess.run(["cmp", "-s", a, b], cwd=d).returncode == 0
            print("%s and %s: %s" % (a, b, "identical" if same else "DIFFER"))
        if jobs:
            print("(x columns: LLVM's figure over ours; above 1 means we "
                  "are faster or smaller.  /floor: our wall time over the "
                  "floor's; cpu/fl: our CPU time over the floor's.  Wall: "
                  "the best run; CPU: the least; RSS: the largest)")
        if nvidia:
            nv_jobs(d, args)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
