# ompcraft.py KIND FILE: test/files/inspect/ompapp with its OpenMP image
# table made hostile (prune.test); the offsets are that file's: the
# descriptor at 0x2dc0 (NumDeviceImages in the file at 0x1dc0, its
# DeviceImages pointer a RELATIVE relocation at 0x2dc8), the array of two
# images at 0x2d80, .data's word at 0x3008 (file 0x2008) and its pointer
# at 0x3010.  Writes the result to stdout.
import struct, sys
b = bytearray(open(sys.argv[2], "rb").read())
kind = sys.argv[1]
def addend(addr):   # file offset of the addend of the RELATIVE reloc at addr
    for o in range(0x4d8, 0x4d8 + 0x210, 24):
        if struct.unpack_from("<Q", b, o)[0] == addr:
            return o + 16
    raise SystemExit("ompcraft: no relocation at 0x%x" % addr)
if kind == "count":      # NumDeviceImages 2^32 - 1
    struct.pack_into("<I", b, 0x1dc0, 0xffffffff)
elif kind == "images":   # DeviceImages out of the address space
    struct.pack_into("<Q", b, addend(0x2dc8), 0xfffffffffffff000)
elif kind == "start":    # an ImageStart far past the end of the file
    struct.pack_into("<Q", b, addend(0x2d80), 0x7fffffff0000)
elif kind == "entries":  # the kept image's EntriesBegin out of range
    struct.pack_into("<Q", b, addend(0x2db0), 0xfffffffffffffff8)
elif kind == "twice":    # a second descriptor of the array: 2 images, then it
    struct.pack_into("<I", b, 0x2008, 2)
    struct.pack_into("<Q", b, addend(0x3010), 0x2d80)
sys.stdout.buffer.write(b)
