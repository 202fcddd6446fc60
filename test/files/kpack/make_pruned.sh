#!/bin/sh
# make_pruned.sh: regenerate test/files/kpack/pruned/, the archives of
# kpack_prune.test, by running AMD's reference archive writer (ROCm/
# rocm-kpack, python/rocm_kpack/kpack.py, PackedKernelArchive) on the code
# objects of the committed archives (split/.kpack/*.kpack, made by
# make.sh).  Never commits their code: only what their writer writes.
#   KPACK_SRC=DIR   a checkout of ROCm/rocm-kpack (its python/ is used)
#   KPACK_OUT=DIR   where to write (default: pruned/ here), for
#                   kpack_prune.test to check the committed files
# Needs python3 with msgpack and zstandard.
#
# Out, each kernel added in the order: for each archive (gfx90a, gfx1100),
# each TOC key, each target (what make.sh's zstd.kpack does):
#   none2.kpack          both targets' code objects, "none", family gfx90a,
#                        arches [gfx90a, gfx1100], with the splitter's
#                        metadata ({target: bundle ID, source_prefix})
#   none2-gfx1100.kpack  the same of gfx1100 alone (family gfx1100): what
#                        offload prune --keep gfx1100 must make of none2
#   zstd-gfx90a.kpack    zstd.kpack's (make.sh) of gfx90a alone, family
#                        gfx90a, zstd-per-kernel at rocm-kpack's level 3
#   zstd-gfx1100.kpack   the same of gfx1100 alone, family gfx1100
set -eu
here=$(cd "$(dirname "$0")" && pwd)
: "${KPACK_SRC:?set KPACK_SRC to a checkout of ROCm/rocm-kpack}"
out=${KPACK_OUT:-$here/pruned}
mkdir -p "$out"
/usr/bin/python3 - "$KPACK_SRC/python" "$out" "$here/split/.kpack/t_gfx90a.kpack" \
	"$here/split/.kpack/t_gfx1100.kpack" <<'PYEOF'
import sys
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from rocm_kpack.kpack import PackedKernelArchive
from rocm_kpack.compression import ZstdCompressor

out = Path(sys.argv[2])
kernels = []
for a in sys.argv[3:]:
    src = PackedKernelArchive.read(Path(a))
    for key, arches in src.toc.items():
        for arch in arches:
            kernels.append((key, arch, src.get_kernel(key, arch)))

def write(name, family, arches, compressor, meta):
    k = PackedKernelArchive("t", family, arches, compressor=compressor)
    for key, arch, data in kernels:
        if arch in arches:
            m = {"target": "hipv4-amdgcn-amd-amdhsa--" + arch,
                 "source_prefix": "stage"} if meta else None
            k.add_kernel(k.prepare_kernel(key, arch, data, metadata=m))
    k.finalize_archive()
    k.write(out / name)

write("none2.kpack", "gfx90a", ["gfx90a", "gfx1100"], None, True)
write("none2-gfx1100.kpack", "gfx1100", ["gfx1100"], None, True)
write("zstd-gfx90a.kpack", "gfx90a", ["gfx90a"], ZstdCompressor(), False)
write("zstd-gfx1100.kpack", "gfx1100", ["gfx1100"], ZstdCompressor(), False)
PYEOF
