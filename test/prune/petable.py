#!/usr/bin/env python3
"""petable.py FILE: what a Windows OpenMP program (a PE32+ image linked
with -debug:symtab, so its symbol .omp_offloading.descriptor is named)
hands the offload runtime, printed as test/prune/stubomptarget.c prints
it: the descriptor's image count, then each image it lists (an AMDGPU
code object's EF_AMDGPU_MACH, or a package) with its size and an FNV-1a
hash of its bytes.  Read from the file, as the loader maps it at its
preferred base: an independent check of what prune rewrote."""
import struct
import sys


def main():
    d = open(sys.argv[1], 'rb').read()
    pe = struct.unpack_from('<I', d, 0x3c)[0]
    nsec, _, symtab, nsym, optsz = struct.unpack_from('<HIIIH', d, pe + 6)
    opt = pe + 24
    base = struct.unpack_from('<Q', d, opt + 24)[0]
    secs = []
    for i in range(nsec):
        h = opt + optsz + 40 * i
        vs, va, rs, ptr = struct.unpack_from('<IIII', d, h + 8)
        secs.append((base + va, vs or rs, min(vs or rs, rs), ptr))

    def at(addr, n):
        for va, vs, raw, ptr in secs:
            if va <= addr and addr + n <= va + raw:
                return d[ptr + addr - va:ptr + addr - va + n]
        sys.exit('petable.py: address 0x%x is in no section' % addr)

    strtab = symtab + 18 * nsym
    desc = None
    i = 0
    while i < nsym:
        s = symtab + 18 * i
        if d[s:s + 4] == b'\0\0\0\0':
            off = struct.unpack_from('<I', d, s + 4)[0]
            name = d[strtab + off:d.index(b'\0', strtab + off)]
        else:
            name = d[s:s + 8].rstrip(b'\0')
        value, sec = struct.unpack_from('<Ih', d, s + 8)
        if name == b'.omp_offloading.descriptor':
            desc = secs[sec - 1][0] + value
        i += 1 + d[s + 17]
    if desc is None:
        sys.exit('petable.py: no .omp_offloading.descriptor')
    count = struct.unpack('<i', at(desc, 4))[0]
    images = struct.unpack('<Q', at(desc + 8, 8))[0]
    print('register %d images' % count)
    for k in range(count):
        start, end = struct.unpack('<QQ', at(images + 32 * k, 16))
        p = at(start, end - start)
        h = 0xcbf29ce484222325
        for c in p:
            h = ((h ^ c) * 0x100000001b3) & 0xffffffffffffffff
        if len(p) >= 52 and p[:4] == b'\x7fELF':
            print('  image elf mach 0x%02x %d %016x'
                  % (struct.unpack_from('<I', p, 48)[0] & 0xff, len(p), h))
        else:
            kind = 'package' if p[:4] == b'\x10\xff\x10\xad' else 'unknown'
            print('  image %s %d %016x' % (kind, len(p), h))


main()
