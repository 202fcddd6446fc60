#!/usr/bin/env python3
"""An ar member's bytes to stdout: member.py ARCHIVE NAME."""
import sys

raw = open(sys.argv[1], "rb").read()
at = 8
while at < len(raw):
    h = raw[at:at + 60]
    size = int(h[48:58])
    if h[:16].decode().rstrip(" /") == sys.argv[2]:
        sys.stdout.buffer.write(raw[at + 60:at + 60 + size])
    at += 60 + size + (size & 1)
