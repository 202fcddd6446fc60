#!/usr/bin/env python3
"""hostile.py: hostile names for json.test, and the JSON string rule of
core/json.h written again on Python's own UTF-8 decoder.

  hostile.py make        in the current directory: f-NAME for each name
                         (four bytes of junk), the directory d-NAME of an
                         invalid one, b.bundle (an offload bundle whose
                         entries' IDs end in each name) and k.kpack (a kpack
                         archive whose keys, and one arch, hold them)
  hostile.py strings JQ  standard input as JSON: the ascii() of each string
                         JQ picks, one a line, sorted ("files.path" for
                         ls's paths, "files.containers.entries.id",
                         "targets.target" for du's); fails unless the text
                         is strict JSON (no raw control character, no
                         invalid UTF-8); nulls are left out
  hostile.py differ JSON_TEST  random bytes through JSON_TEST (json_test),
                         decoded by json.loads and compared with the rule;
                         "same" or the first difference
"""
import codecs
import json
import os
import random
import struct
import subprocess
import sys

NAMES = [
    b"caf\xc3\xa9",             # valid, two bytes
    b"e\xf0\x9f\x98\x80",       # valid, four bytes (U+1F600)
    b"m\xf4\x8f\xbf\xbf",       # valid, U+10FFFF, the last
    b"s\xed\x9f\xbf\xee\x80\x80",   # valid, U+D7FF and U+E000 around the surrogates
    b"\xed\xa0\x80",            # a surrogate (U+D800)
    b"\xe0\x80\xaf",            # overlong '/'
    b"\xc0\xaf",                # overlong '/', two bytes
    b"\xf4\x90\x80\x80",        # past U+10FFFF
    b"\xf5\x80\x80\x80",        # F5..F7 start nothing
    b"\xf7\xbf\xbf\xbf",
    b"t\xe2\x82",               # cut short
    b"\xff\xfe",
    b"q\"b\\s",                 # quote, backslash
    b"c\x01\x1b[1m\x7f\t\n",    # control characters, ESC, DEL
]


def latin1_bytes(err):
    """Each byte of no valid character as the code point of its value."""
    bad = err.object[err.start:err.end]
    return "".join(chr(b) for b in bad), err.end


codecs.register_error("json-test-latin1", latin1_bytes)


def rule(b):
    return b.decode("utf-8", "json-test-latin1")


def mp(o):
    """MessagePack of maps, arrays, byte strings and small integers."""
    if isinstance(o, dict):
        return bytes([0x80 | len(o)]) + b"".join(mp(k) + mp(v)
                                                 for k, v in o.items())
    if isinstance(o, list):
        return bytes([0x90 | len(o)]) + b"".join(mp(v) for v in o)
    if isinstance(o, str):
        o = o.encode()
    if isinstance(o, bytes):
        return bytes([0xa0 | len(o)]) + o if len(o) < 32 else \
            b"\xd9" + bytes([len(o)]) + o
    return bytes([o]) if o < 128 else b"\xcd" + struct.pack(">H", o)


def bundle(ids):
    """An offload bundle, eight bytes of each entry."""
    head = b"__CLANG_OFFLOAD_BUNDLE__" + struct.pack("<Q", len(ids))
    at = len(head) + sum(24 + len(i) for i in ids)
    for n, i in enumerate(ids):
        head += struct.pack("<QQQ", at + 8 * n, 8, len(i)) + i
    return head + b"".join(b"%08d" % n for n in range(len(ids)))


def kpack():
    """Scheme none, one code object per key (each its own blob)."""
    code = b"\x7fELF" + b"\0" * 60
    keys = [(b"k" + n + b"#0", b"gfx90a") for n in NAMES]
    keys.append((b"x#0", b"gfx90a" + NAMES[4]))
    toc = {k: {a: {"type": "hsaco", "ordinal": i, "original_size": len(code)}}
           for i, (k, a) in enumerate(keys)}
    head = {"compression_scheme": "none",
            "gfx_arches": [b"gfx90a", b"gfx90a" + NAMES[4]],
            "blobs": [{"offset": 64 + len(code) * i, "size": len(code)}
                      for i in range(len(keys))],
            "toc": toc}
    blob = code * len(keys)
    return (b"KPAK" + struct.pack("<IQ", 1, 64 + len(blob)) + b"\0" * 48 +
            blob + mp(head))


def make():
    for n in NAMES:
        with open(b"f-" + n, "wb") as f:
            f.write(b"junk")
    os.mkdir(b"d-" + NAMES[4])
    ids = [b"host-x86_64-unknown-linux-gnu-"]
    ids += [b"hipv4-amdgcn-amd-amdhsa--gfx90a" + n for n in NAMES]
    with open("b.bundle", "wb") as f:
        f.write(bundle(ids))
    with open("k.kpack", "wb") as f:
        f.write(kpack())


def pick(obj, keys):
    if isinstance(obj, list):
        for o in obj:
            yield from pick(o, keys)
    elif not keys:
        yield obj
    elif isinstance(obj, dict) and keys[0] in obj:
        yield from pick(obj[keys[0]], keys[1:])


def strings(jq):
    raw = sys.stdin.buffer.read()
    # Strict: the text is UTF-8 and json.loads takes no control character
    # in a string.
    doc = json.loads(raw.decode("utf-8"))
    for s in sorted(s for s in pick(doc, jq.split(".")) if s is not None):
        print(ascii(s))


def differ(json_test):
    rnd = random.Random(20260134)
    # Bytes where UTF-8 goes wrong more often than not: leads, ends of
    # ranges, continuations, controls, quotes.
    pool = (list(range(0x80, 0x100)) + [0x22, 0x5c, 0x7f, 0x1b, 0, 0x0a] +
            list(b"azAZ09 "))
    for _ in range(100):
        b = bytes(rnd.choice(pool) for _ in range(rnd.randrange(1, 400)))
        b += "".join(chr(rnd.randrange(0x80, 0x110000)) for _ in range(8)
                     ).encode("utf-8", "surrogatepass")
        out = subprocess.run([json_test], input=b, capture_output=True,
                             check=True).stdout
        got = json.loads(out.decode("utf-8"))
        if got != rule(b):
            print("differs: %r -> %r" % (b, out))
            return 1
    print("same")
    return 0


def main():
    if sys.argv[1] == "make":
        make()
    elif sys.argv[1] == "strings":
        strings(sys.argv[2])
    elif sys.argv[1] == "differ":
        return differ(sys.argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main())
