#!/usr/bin/env python3
"""Damaged inputs through the bundler's LLVM 23 mode (issue 34).

Bundles cut short at each boundary of their headers and entries, and with
each header field set to values that break it: binary bundles (alone,
back to back, enough IDs that LLVM's map grows), text bundles, CCOBs
(zstd and zlib, versions 1 to 3, back to back, before and after a binary
bundle), object bundles (ELF and COFF) and archives of them; every one
listed and unbundled as LLVM 23.1.4's clang-offload-bundler lists and
unbundles it.  Where LLVM 23 answers, our answer is the same: exit
status, stdout, stderr, the outputs written; or, where the man page
says we differ (DOCUMENTED below), one error line of the kind it says.
Where LLVM crashes, hangs, reads outside the file or does what is
undefined, ours is one error line, exit 1, nothing on stdout and no
output (man/clang-offload-bundler.1, DIFFERENCES).  The golden records
what LLVM 23 did; the suite (bundler.test) checks against it in seconds,
where the root may not be.

  sweep23.py check [BINDIR]  ours (build/bin) against the golden
                             (test/golden/sweep23.golden)
  sweep23.py record          LLVM 23 in its root (test/refroot.sh): the
                             golden, on stdout
  sweep23.py live [BINDIR]   both in the root, compared, no golden
  sweep23.py live22 [BINDIR] the same inputs through LLVM 22 (installed
                             here) and our LLVM 22 mode, compared
  sweep23.py live24 [BINDIR] the same inputs through LLVM 24 and our LLVM
                             24 mode, both in LLVM 24's root, compared
  sweep23.py seeds           write test/files/sweep23/ (the object
                             bundles, made by BINDIR's bundler)

The inputs are made here from the seeds, the same every time; each case
is one command run in a directory of its own with the inputs in in/.
"""
import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cases  # noqa: E402
import elfmut  # noqa: E402

TOP = os.path.dirname(HERE)
SEEDS = os.path.join(HERE, "files", "sweep23")
LLVM22 = "/usr/lib/llvm-22/bin"
GOLDEN = os.environ.get("SWEEP23_GOLDEN") or \
    os.path.join(HERE, "golden", "sweep23.golden")
MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
HOST = b"host-x86_64-unknown-linux-gnu-"
HIP = b"hip-amdgcn-amd-amdhsa--gfx90a"
HIP2 = b"hip-amdgcn-amd-amdhsa--gfx1100"
U64 = 1 << 64


# --- bundles, made as LLVM writes them -----------------------------------

def binary(items):
    """A binary bundle of items [(id, data)], no alignment."""
    at = len(MAGIC) + 8 + sum(24 + len(i) for i, _ in items)
    head, data = [], b""
    for ident, d in items:
        head.append(struct.pack("<QQQ", at, len(d), len(ident)) + ident)
        data += d
        at += len(d)
    return MAGIC + struct.pack("<Q", len(items)) + b"".join(head) + data


def binary_fields(d, at=0):
    """Offsets of the 8-byte fields of the binary bundle header at d[at:]
    (the count, then each entry's offset, size and ID length), and of the
    ends of its IDs and entries' data."""
    fields, ends = [at + 24], []
    pos = at + 32
    count, = struct.unpack_from("<Q", d, at + 24)
    for _ in range(count):
        off, size, n = struct.unpack_from("<QQQ", d, pos)
        fields += [pos, pos + 8, pos + 16]
        pos += 24 + n
        ends += [pos, at + off, at + off + size]
    return fields, ends


def zstd_raw(data):
    """One zstd frame of one raw block (the format, without a library)."""
    n = len(data)
    head = bytes([0x20, n]) if n < 256 else \
        bytes([0x60]) + struct.pack("<H", n - 256)
    return struct.pack("<I", 0xFD2FB528) + head + \
        (1 | n << 3).to_bytes(3, "little") + data


def ccob(data, method=1, version=3):
    comp = zstd_raw(data) if method else zlib.compress(data, 0)
    h, = struct.unpack("<Q", hashlib.md5(data).digest()[:8])
    if version == 3:
        return b"CCOB" + struct.pack("<HHQQQ", 3, method, 32 + len(comp),
                                     len(data), h) + comp
    if version == 2:
        return b"CCOB" + struct.pack("<HHIIQ", 2, method, 24 + len(comp),
                                     len(data), h) + comp
    return b"CCOB" + struct.pack("<HHIQ", 1, method, len(data), h) + comp


# Field offsets and widths of a CCOB header, by version.
CCOB_FIELDS = {3: [(4, 2), (6, 2), (8, 8), (16, 8), (24, 8)],
               2: [(4, 2), (6, 2), (8, 4), (12, 4), (16, 8)],
               1: [(4, 2), (6, 2), (8, 4), (12, 8)]}

START = b"// __CLANG_OFFLOAD_BUNDLE____START__ "
END = b"// __CLANG_OFFLOAD_BUNDLE____END__ "


def text(items):
    return b"".join(b"\n" + START + i + b"\n" + d + b"\n" + END + i + b"\n"
                    for i, d in items)


def ar(members):
    out = b"!<arch>\n"
    for name, data in members:
        out += (name + b"/").ljust(16) + b"0".ljust(12) + b"0".ljust(6) + \
            b"0".ljust(6) + b"644".ljust(8) + \
            str(len(data)).encode().ljust(10) + b"`\n" + data
        out += b"\n" * (len(data) % 2)
    return out


# --- the corpus ------------------------------------------------------------

B3 = binary([(HOST, b"HOSTDATA\n"), (HIP, b"Content of device file 1\n"),
             (HIP2, b"device 2")])
HIP942 = b"hip-amdgcn-amd-amdhsa--gfx942"
B2 = binary([(HIP2, b"other bundle"), (HIP942, b"more")])
# Twelve IDs fill LLVM's map to the brim: the next one makes it grow.
B12 = binary([(b"hip-amdgcn-amd-amdhsa--gfx%d" % (900 + i), b"D%d" % i)
              for i in range(12)])
T2 = text([(HOST, b"host text"), (HIP, b"device text\nline two")])


def values(n, few=False):
    """What a size or offset field is set to in a file of n bytes: 0, the
    bounds, and values that wrap its sums past 2^64."""
    if few:
        return [0, n + 1, U64 - 16]
    return [0, 1, n - 1, n, n + 1, 1 << 63, U64 - 16, U64 - 1]


def cuts(points, n, start=0):
    """Each point and its neighbours, inside [start, n)."""
    return sorted({p + k for p in points for k in (-1, 0, 1)
                   if start <= p + k < n})


def put(d, at, width, v):
    m = bytearray(d)
    m[at:at + width] = (v % (1 << 8 * width)).to_bytes(width, "little")
    return bytes(m)


def binary_inputs(name, d, at=0, fields=7, few=False):
    """The binary bundle at d[at:] cut at each boundary of its header and
    entries, and its first `fields` fields (the count, then two entries'
    offset, size and ID length) set to values()."""
    offsets, ends = binary_fields(d, at)
    for k in cuts([at + 24, at + 32] + offsets + ends + [len(d)], len(d),
                  at):
        yield "%s.t%d" % (name, k), d[:k]
    for f in offsets[:fields]:
        for v in values(len(d) - at, few):
            yield "%s.f%d=%d" % (name, f, v), put(d, f, 8, v)


# Inputs where LLVM 23's behaviour is undefined though it may not crash:
# a CCOB whose version is not 1 to 3 (its getHeaderSize reaches
# llvm_unreachable, so the release build reads on from anywhere).
UNDEFINED = set()


def ccob_inputs(name, d, at=0, version=3, fields=True, read=True):
    """The CCOB at d[at:] cut at each field of its header and in its data,
    and (fields) its version, method and sizes changed.  read: LLVM
    decompresses it (not when it is inside a binary bundle's piece)."""
    n = len(d)
    head = {3: 32, 2: 24, 1: 20}[version]
    for k in cuts([at + f for f, _ in CCOB_FIELDS[version]] +
                  [at + 4, at + head, at + head + 8, n], n, at):
        yield "%s.t%d" % (name, k), d[:k]
    if not fields:
        return
    for f, w in CCOB_FIELDS[version]:
        stored = int.from_bytes(d[at + f:at + f + w], "little")
        if f == 4:
            vals = [0, 1, 2, 3, 4]
        elif f == 6:
            vals = [0, 1, 2]
        elif f == CCOB_FIELDS[version][-1][0]:
            vals = []			# the hash: never checked
        else:
            vals = sorted({0, head, stored - 1, stored + 1, n - at + 1,
                           (1 << 8 * w) - 1})
        for v in vals:
            if v == stored:
                continue
            if f == 4 and v not in (1, 2, 3) and read:
                UNDEFINED.add("%s.f%d=%d" % (name, f, v))
            yield "%s.f%d=%d" % (name, f, v), put(d, at + f, w, v)


def text_inputs(name, d):
    points = []
    for marker in (START, END):
        i = d.find(marker)
        while i >= 0:
            points += [i, i + len(marker), d.index(b"\n", i)]
            i = d.find(marker, i + 1)
    for k in cuts(points + [len(d)], len(d)):
        yield "%s.t%d" % (name, k), d[:k]
    lines = d.split(b"\n")
    for i, line in enumerate(lines):
        if line.startswith(b"//"):
            yield "%s.drop%d" % (name, i), b"\n".join(lines[:i] +
                                                     lines[i + 1:])


def object_inputs(name, d, coff):
    """Cut at the headers and the bundle sections' bounds; the bundle
    sections made to point past the end."""
    points, secs = [len(d)], []
    if coff:
        nsec, = struct.unpack_from("<H", d, 2)
        symtab, nsym = struct.unpack_from("<II", d, 8)
        opt, = struct.unpack_from("<H", d, 16)
        points += [20, 20 + opt + 40 * nsec, symtab]
        for i in range(nsec):
            at = 20 + opt + 40 * i
            size, off = struct.unpack_from("<II", d, at + 16)
            sec = d[at:at + 8].rstrip(b"\0")
            if sec.startswith(b"/"):
                s = symtab + 18 * nsym + int(sec[1:])
                sec = d[s:d.index(b"\0", s)]
            if sec.startswith(MAGIC):
                points += [off, off + size]
                secs.append((at + 20, at + 16, 4))
    else:
        lay = elfmut._layout(d)
        points += [64, lay[3][0][0]]
        for s in lay[3]:
            if s[3] & 0x80000000:		# SHF_EXCLUDE: a bundle section
                points += [s[5], s[5] + s[6]]
                secs.append((s[0] + 0x18, s[0] + 0x20, 8))
    for k in cuts(points, len(d)):
        yield "%s.t%d" % (name, k), d[:k]
    for off, size, w in secs:
        for v in (len(d), (1 << 8 * w) - 1):
            yield "%s.o%d=%d" % (name, off, v), put(d, off, w, v)
            yield "%s.s%d=%d" % (name, size, v), put(d, size, w, v)


def corpus():
    """[(name, bytes, kind)]: kind says how it is listed and unbundled."""
    seeds = {}
    for f in sorted(os.listdir(SEEDS)):
        with open(os.path.join(SEEDS, f), "rb") as fh:
            seeds[f] = fh.read()
    out = []

    def add(kind, items):
        out.extend((n, d, kind) for n, d in items)

    # One bundle; then a second one after it (what LLVM 23 reads on to),
    # after enough IDs that its map grows on the second, after a CCOB.
    add("bc", [("b3", B3)] + list(binary_inputs("b3", B3)))
    add("bc", binary_inputs("bb", B3 + B2, len(B3), few=True))
    add("bc", binary_inputs("mb", B12 + B2, len(B12), fields=0))
    cb = ccob(B3) + B2
    add("bc", binary_inputs("cb", cb, len(ccob(B3)), fields=0))
    # The header IDs LLVM lists again for a header with no entries.
    add("bc", [("b12b3", B12 + B3), ("b3z", B3 + MAGIC + bytes(8)),
               ("b3zc", B3 + MAGIC + b"\1"), ("zb3", MAGIC + bytes(8) + B3)])
    for name, d, version, fields in (("cz", ccob(B3), 3, True),
                                     ("cl", ccob(B3, 0), 3, True),
                                     ("c2", ccob(B3, 1, 2), 2, True),
                                     ("c2l", ccob(B3, 0, 2), 2, False),
                                     ("c1", ccob(B3, 1, 1), 1, True)):
        add("bc", [(name, d)] + list(ccob_inputs(name, d, 0, version,
                                                 fields)))
    for name, d, at in (("cc", ccob(B3) + ccob(B2), len(ccob(B3))),
                        ("cll", ccob(B3, 0) + ccob(B2, 0),
                         len(ccob(B3, 0)))):
        add("bc", [(name, d)] + list(ccob_inputs(name, d, at)))
    bc3 = B3 + ccob(B2)
    add("bc", [("bc3", bc3)] + list(ccob_inputs("bc3", bc3, len(B3),
                                                fields=False)))
    add("bc", [("empty", b""), ("cmb", ccob(B12) + ccob(B2 + B2[:-7])),
               # Headers alone, declaring nothing.
               ("czz", put(ccob(B3)[:32], 16, 8, 0)),
               ("clz", put(ccob(B3, 0)[:32], 16, 8, 0)),
               # A later CCOB whose bundle is damaged: its second entry
               # past the end, its first ID's length wrapping.
               ("ccx", ccob(B3) + ccob(B2[:-3])),
               ("cclx", ccob(B3, 0) + ccob(B2[:-3], 0)),
               ("ccw", ccob(B3) + ccob(put(B2, 48, 8, U64 - 16))),
               ("cc12x", ccob(B3) + ccob(B12[:-2]))])
    add("ll", [("t2", T2)] + list(text_inputs("t2", T2)))
    add("o", [("elf.o", seeds["elf.o"])] +
        list(object_inputs("elf.o", seeds["elf.o"], False)))
    add("ow", [("coff.obj", seeds["coff.obj"])] +
        list(object_inputs("coff.obj", seeds["coff.obj"], True)))
    add("o", [("celf.o", ccob(seeds["elf.o"]))])
    lib = ar([(b"elf.o", seeds["elf.o"]), (b"b3.bc", B3)])
    points = [8, 8 + 60, 8 + 60 + len(seeds["elf.o"]), len(lib) - len(B3)]
    add("a", [("lib.a", lib)] +
        [("lib.a.t%d" % k, lib[:k]) for k in cuts(points, len(lib))] +
        [("lib.a.m%d" % v, lib[:8 + 48] + str(v).encode().ljust(10) +
          lib[8 + 58:]) for v in (0, len(seeds["elf.o"]) + 1)])
    add("a", [("clib.a", ar([(b"c.bc", ccob(B3) + ccob(B2)),
                             (b"b3.bc", B3)]))])
    return out


# The later bundles of the corpus are read for gfx942 (only B2 has it).
TARGETS = {"bc": [HOST, HIP, HIP2, HIP942], "ll": [HOST, HIP, HIP2],
           "o": [HOST[:-1], HIP], "ow": [b"host-x86_64-pc-windows-msvc", HIP],
           "a": [HIP]}


def commands(items):
    """[(case, argv)]: each input listed (L), and unbundled for every
    target its seed has, missing ones allowed (U); archives unbundled
    with -check-input-archive too (C); the seeds and a few more listed
    as -type=o (O, which looks inside) and with a -type no handler takes
    (X)."""
    out = []
    for name, _, kind in items:
        b = ["clang-offload-bundler"]
        arg = ["-type=" + kind.rstrip("w"), "-input=in/" + name]
        targets = [t.decode() for t in TARGETS[kind]]
        outs = ["-output=o%d%s" % (i, ".a" if kind == "a" else "")
                for i in range(len(targets))]
        unbundle = b + ["-unbundle"] + arg + \
            ["-targets=" + ",".join(targets)] + outs
        out.append(("L " + name, b + ["-list"] + arg))
        out.append(("U " + name, unbundle + ["-allow-missing-bundles"]))
        if kind == "a":
            out.append(("C " + name, unbundle + ["-check-input-archive"]))
        if "." not in name or name in TYPED:
            out.append(("O " + name, b + ["-list", "-type=o", arg[1]]))
            out.append(("X " + name, b + ["-list", "-type=x", arg[1]]))
    return out


# Listed as -type=o and -type=x besides the seeds.
TYPED = {"cz.f8=0", "cz.t40", "b3.t220", "elf.o", "coff.obj", "celf.o",
         "lib.a", "clib.a"}


# --- running ----------------------------------------------------------------

# LLVM's tools, in their root: one shell for all the cases (a chroot each
# would cost more than the cases), each case's outputs in r/N/.
RUNNER = r"""
n=0
while IFS= read -r cmd; do
	mkdir "r/$n" && cd "r/$n" && ln -s ../../in in || exit 1
	eval "timeout 5 $cmd" >../$n.out 2>../$n.err
	echo $? >../$n.rc
	rm in
	cd ../.. || exit 1
	n=$((n + 1))
done <cmds
"""

ENV = {"OFFLOAD_LLVM": "23", "LC_ALL": "C",
       # LLVM's crash reports, quicker.
       "LLVM_DISABLE_SYMBOLIZATION": "1", "LLVM_DISABLE_CRASH_REPORT": "1"}


def write_inputs(d, items):
    os.makedirs(os.path.join(d, "in"))
    os.makedirs(os.path.join(d, "r"))
    for name, data, _ in items:
        with open(os.path.join(d, "in", name), "wb") as f:
            f.write(data)


def run_root(d, items, cmds, root, tooldir):
    """The cases in LLVM 23's root (d under it), with tooldir's tools."""
    write_inputs(d, items)
    with open(os.path.join(d, "cmds"), "w") as f:
        f.write("".join(" ".join("'%s'" % a for a in argv) + "\n"
                        for _, argv in cmds))
    with open(os.path.join(d, "run.sh"), "w") as f:
        f.write(RUNNER)
    env = dict(ENV, PATH="%s:/usr/local/bin:/usr/bin:/bin" % tooldir)
    if root.staged:
        env["LD_LIBRARY_PATH"] = root.inner(os.path.join(root.staged, "lib"))
    subprocess.run([root.chroot, root.dir, "sh", "-c", 'cd "$0" && sh run.sh',
                    root.inner(d)], env=env, check=True,
                   stdin=subprocess.DEVNULL)
    out = []
    for i, (case, _) in enumerate(cmds):
        base = os.path.join(d, "r", str(i))
        with open(base + ".rc") as f:
            rc = int(f.read())
        with open(base + ".out", "rb") as f:
            so = f.read()
        with open(base + ".err", "rb") as f:
            se = f.read()
        out.append(record(case, rc, so, se, base))
    return out


def run_here(d, items, cmds, bindir, jobs=2):
    """The cases here, with bindir's tools, each run directly, by `jobs`
    workers in directories of their own under d."""
    write_inputs(d, items)
    env = dict(os.environ, **ENV)
    env["PATH"] = bindir + ":" + env.get("PATH", "")
    for var in ("OFFLOAD_BUNDLER_COMPRESS", "OFFLOAD_BUNDLER_VERBOSE",
                "OFFLOAD_BUNDLER_COMPRESSION_LEVEL",
                "COMPRESSED_BUNDLE_FORMAT_VERSION",
                "OFFLOAD_BUNDLER_IGNORE_ENV_VAR"):
        env.pop(var, None)
    out = [None] * len(cmds)

    def worker(k):
        work = os.path.join(d, "r", str(k))
        os.mkdir(work)
        os.symlink("../../in", os.path.join(work, "in"))
        for i in range(k, len(cmds), jobs):
            case, argv = cmds[i]
            try:
                p = subprocess.run(argv, cwd=work, env=env,
                                   capture_output=True,
                                   stdin=subprocess.DEVNULL, timeout=20)
                rc, so, se = p.returncode, p.stdout, p.stderr
            except subprocess.TimeoutExpired:
                rc, so, se = 124, b"", b""
            except OSError as e:
                rc, so, se = 127, b"", str(e).encode()
            out[i] = record(case, rc if rc >= 0 else 128 - rc, so, se, work)
            for name in os.listdir(work):
                if name != "in":
                    os.unlink(os.path.join(work, name))

    threads = [threading.Thread(target=worker, args=(k,))
               for k in range(jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def crashed(rc, err):
    return rc >= 124 or "LLVM ERROR:" in err or "Stack dump:" in err or \
        "PLEASE submit a bug report" in err


def record(case, rc, out, err, d):
    """What a case did: [case, status, stdout, stderr, outputs], or
    [case, "crash"]; the outputs are the files in d but in/."""
    out, err = out.decode("latin-1"), err.decode("latin-1")
    if crashed(rc, err):
        return [case, "crash"]
    files = []
    for name in sorted(os.listdir(d)):
        if name == "in":
            continue
        with open(os.path.join(d, name), "rb") as f:
            data = f.read()
        files.append("%s %d %s" % (name, len(data),
                                   hashlib.sha256(data).hexdigest()[:16]))
    # LLVM keeps the outputs it wrote before failing; we keep none.
    return [case, rc, out, err, files if rc == 0 else []]


def golden_records(raw):
    """LLVM's records, but "crash" where its behaviour is undefined."""
    return [[r[0], "crash"] if r[0][2:] in UNDEFINED else r for r in raw]


# Where LLVM 23 answers and we differ on purpose, as
# man/clang-offload-bundler.1 (DIFFERENCES) says: our answer is one error
# line matching one of these, LLVM's is what the second part allows
# (None: anything).  A case found here must match one.
DOCUMENTED = [
    # "An ELF file that cannot be parsed ... is an error naming the
    # problem; LLVM 22 silently treats it as a plain file"
    (r"'[^']*': (truncated ELF header|section header table runs past the "
     r"end of the file|no section headers|section \d+ has a bad name|"
     r"bad section name table)", None),
    # "Compressed inputs are checked where LLVM 22 trusts them": the
    # limits, the data decompressing to exactly the declared size
    (r"'[^']*': Failed to decompress input: (header declares \d+ "
     r"uncompressed bytes|decompresses to \d+ bytes, but its header "
     r"declares|compressed data is missing: the header declares)", None),
    # "A section whose bytes run past the end of an object ... using the
    # object as a host" fails (llvm-objcopy fails there too)
    (r"'[^']*': (section \d+ runs past the end of the file|COFF section "
     r"\d+ '[^']*' \(offset \d+, size \d+\) runs past the end of the file)",
     "'llvm-objcopy' tool failed"),
    # "only taking out an entry whose bytes are not there fails (The end
    # of the file was unexpectedly encountered)", naming the file
    (r"'[^']*': The end of the file was unexpectedly encountered",
     "error: The end of the file was unexpectedly encountered"),
    # "Unbundling an archive (--type=a) refuses a damaged archive ...
    # LLVM 22 writes partial archives and exits 0"
    (r"'[^']*': truncated or malformed archive \(", None),
]


def escaped(err):
    """LLVM's message with its control bytes as we print them: "\\ooo"
    (a member's name in an archive's damage, which LLVM prints raw)."""
    return re.sub(r"[\x00-\x08\x0b-\x1f\x7f]",
                  lambda m: "\\%03o" % ord(m.group(0)), err)


def one_error(got, listed=""):
    """The error line of a record of one error line, exit 1, no output,
    and on stdout nothing or what LLVM listed before failing (a prefix
    of listed); else None."""
    if got[1] == "crash":
        return None
    rc, out, err, files = got[1:]
    prefix = "clang-offload-bundler: error: "
    if rc != 1 or not listed.startswith(out) or files or \
            err.count("\n") != 1 or not err.startswith(prefix) or \
            not err.endswith("\n"):
        return None
    return err[len(prefix):-1]


def judge(want, got):
    """None when got is right for want, else why not."""
    if want == got:
        return None
    if want[1] != "crash" and want[1:3] + [escaped(want[3])] + want[4:] == \
            got[1:]:
        return None
    line = one_error(got)
    if want[1] == "crash":
        # LLVM crashed, hung or its behaviour is undefined.
        return None if line is not None else \
            "LLVM crashes here: one error line and exit 1 wanted"
    if line is None:
        line = one_error(got, want[2])
    if line is None:
        return "differs"
    # An entry whose offset and size wrap past 2^64: LLVM reads its bytes
    # from outside the file (and writes them, or dies).
    m = re.match(r"'[^']*': bundle entry '.*' has data past the end of the "
                 r"file \(offset (\d+), size (\d+)\)$", line)
    if m and int(m.group(1)) + int(m.group(2)) >= U64:
        return None
    for ours, theirs in DOCUMENTED:
        if re.match(ours, line) and (theirs is None or theirs in want[3]):
            return None
    return "differs"


def compare(wants, gots):
    passed = failed = 0
    golden = {w[0]: w for w in wants}
    for got in gots:
        want = golden.pop(got[0], None)
        why = "no golden record (regenerate: test/sweep23.py record)" \
            if want is None else judge(want, got)
        if why is None:
            passed += 1
            continue
        failed += 1
        print("FAIL: %s: %s\n  llvm:    %s\n  offload: %s" % (
            got[0], why, json.dumps(want[1:] if want else None),
            json.dumps(got[1:])))
    if golden:
        print("FAIL: %d golden records of no case, %s first (regenerate: "
              "test/sweep23.py record)" % (len(golden), next(iter(golden))))
        failed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def write_golden(records, f):
    f.write("# What LLVM 23.1.4's clang-offload-bundler did with the "
            "inputs of test/sweep23.py,\n# one case a line: "
            "[case, status, stdout, stderr, outputs], or [case, \"crash\"]"
            "\n# where it crashed, hung or its behaviour is undefined.\n"
            "# Regenerate: python3 test/sweep23.py record > "
            "test/golden/sweep23.golden\n")
    for r in records:
        f.write(json.dumps(r) + "\n")


def read_golden():
    with open(GOLDEN, encoding="utf-8") as f:
        return [json.loads(l) for l in f if l.strip() and
                not l.startswith("#")]


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    bindir = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else
                             os.path.join(TOP, "build", "bin"))
    if mode == "seeds":
        return make_seeds(bindir)
    if mode not in ("check", "record", "live", "live22", "live24"):
        print(__doc__, file=sys.stderr)
        return 2
    items = corpus()
    cmds = commands(items)
    if mode in ("check", "live22"):
        d = tempfile.mkdtemp(prefix="offload-sweep23-")
        try:
            if mode == "check":
                return compare(read_golden(), run_here(d, items, cmds,
                                                       bindir))
            ENV["OFFLOAD_LLVM"] = "22"
            want = run_here(d, items, cmds, LLVM22)
            shutil.rmtree(d)
            os.mkdir(d)
            return compare(want, run_here(d, items, cmds, bindir))
        finally:
            shutil.rmtree(d, ignore_errors=True)
    release = "23"
    if mode == "live24":
        release, mode = "24", "live"
        ENV["OFFLOAD_LLVM"] = release
    root = cases.Root(release)
    why = root.why_not()
    if why:
        required = os.environ.get("REQUIRE_LLVM") == "1"
        print("%s: %s" % ("FAIL" if required else "SKIP", why))
        print("0 passed, %d failed" % (1 if required else 0))
        return 1 if required else 0
    try:
        ours = root.stage(bindir) if mode == "live" else None
        d = root.mkdtemp("offload-sweep23-")
        want = golden_records(run_root(d, items, cmds, root, root.llvm))
        shutil.rmtree(d, ignore_errors=True)
        if mode == "record":
            write_golden(want, sys.stdout)
            return 0
        d = root.mkdtemp("offload-sweep23-")
        got = run_root(d, items, cmds, root, ours)
        shutil.rmtree(d, ignore_errors=True)
        return compare(want, got)
    finally:
        root.close()


def make_seeds(bindir):
    """The object bundles: an ELF and a COFF host object (test/objects/
    fixtures) with two device entries."""
    os.makedirs(SEEDS, exist_ok=True)
    fix = os.path.join(HERE, "objects", "fixtures")
    with tempfile.TemporaryDirectory() as d:
        for name, host in (("elf.o", "clang-x86_64-linux-gnu.o"),
                           ("coff.obj", "clang-x86_64-windows-msvc.obj")):
            with open(os.path.join(d, "dev"), "wb") as f:
                f.write(b"device code for gfx90a\n")
            with open(os.path.join(d, "dev2"), "wb") as f:
                f.write(b"device code for gfx1100\n")
            t = "host-x86_64-unknown-linux-gnu" if name == "elf.o" else \
                "host-x86_64-pc-windows-msvc"
            subprocess.run([os.path.join(bindir, "clang-offload-bundler"),
                            "-type=o", "-targets=%s,%s,%s" % (
                                t, HIP.decode(), HIP2.decode()),
                            "-input=" + os.path.join(fix, host),
                            "-input=" + os.path.join(d, "dev"),
                            "-input=" + os.path.join(d, "dev2"),
                            "-output=" + os.path.join(SEEDS, name)],
                           check=True, env=dict(os.environ, OFFLOAD_LLVM="23"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
