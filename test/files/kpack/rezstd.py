# rezstd.py: python3 rezstd.py PYTHONDIR IN OUT: the kpack archive IN
# written again by rocm-kpack with its ZstdCompressor (level 3), the code
# objects in the same order, their metadata kept: what offload kpack split
# --compress=zstd writes.  The splitter itself writes "none" alone.
import sys
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from rocm_kpack.kpack import PackedKernelArchive
from rocm_kpack.compression import ZstdCompressor
src = PackedKernelArchive.read(Path(sys.argv[2]))
out = PackedKernelArchive(src.group_name, src.gfx_arch_family, src.gfx_arches,
                          compressor=ZstdCompressor())
entries = sorted((e["ordinal"], key, arch, e.get("metadata"))
                 for key, arches in src.toc.items()
                 for arch, e in arches.items())
for _, key, arch, meta in entries:
    out.add_kernel(out.prepare_kernel(key, arch, src.get_kernel(key, arch),
                                      metadata=meta))
out.finalize_archive()
out.write(Path(sys.argv[3]))
