#!/usr/bin/env python3
"""Installed-Size of an unpacked package tree as dpkg-gencontrol computes
it: installed_size.py DIR.  Each regular file and symbolic link its size
in KiB rounded up (a hard-linked file once), anything else 1; DIR itself
and its DEBIAN directory not counted."""
import os
import sys

root = sys.argv[1]
seen = set()
total = 0
for top, dirs, files in os.walk(root):
    if top == root and "DEBIAN" in dirs:
        dirs.remove("DEBIAN")
    for name in dirs + files:
        st = os.lstat(os.path.join(top, name))
        if os.path.isdir(os.path.join(top, name)) and \
                not os.path.islink(os.path.join(top, name)):
            total += 1
            continue
        key = (st.st_dev, st.st_ino)
        if key not in seen:
            total += (st.st_size + 1023) // 1024
        if st.st_nlink > 1:
            seen.add(key)
print(total)
