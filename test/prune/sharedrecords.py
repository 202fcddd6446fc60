#!/usr/bin/env python3
# sharedrecords.py OUT: a version-2 offload package of ten 8-byte images
# (gfx900 ... gfx909) whose entries share their string records: entry i
# names records [0, 3 + i) of one list (triple, kind, then the archs; the
# last "arch" of a list is the one LLVM 23 and we read).  Written again
# with nine of them, each entry takes its own records: longer than it was.
import struct
import sys

n = 10
recs = [('triple', 'amdgcn-amd-amdhsa'), ('kind', 'openmp')]
recs += [('arch', 'gfx%d' % (900 + i)) for i in range(n)]
ent_off = 32
rec_off = ent_off + 40 * n
str_off = rec_off + 24 * len(recs)
strs, rb = b'', b''
for k, v in recs:
    ko = len(strs)
    strs += k.encode() + b'\0'
    vo = len(strs)
    strs += v.encode() + b'\0'
    rb += struct.pack('<QQQ', str_off + ko, str_off + vo, len(v))
img_off = (str_off + len(strs) + 7) & ~7
images = [b'image %d\n' % i for i in range(n)]
eb = b''
for i in range(n):
    eb += struct.pack('<HHIQQQQ', 1, 1, 0, rec_off, 3 + i,
                      img_off + 8 * i, len(images[i]))
total = img_off + 8 * n
b = struct.pack('<4sIQQQ', b'\x10\xff\x10\xad', 2, total, ent_off, n) + eb + rb + strs
b += bytes(img_off - len(b)) + b''.join(images)
open(sys.argv[1], 'wb').write(b)
