# onpty.py COMMAND...: run COMMAND with its standard error on a
# pseudo-terminal (standard output stays where it is) and print what came
# to that terminal, a carriage return as a line break and the erase of a
# line (ESC [ K) as "<erase>", so that a progress line can be compared.
import os
import pty
import subprocess
import sys

master, slave = pty.openpty()
p = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stderr=slave)
os.close(slave)
got = b""
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:
        break
    if not chunk:
        break
    got += chunk
rc = p.wait()
text = got.replace(b"\r\n", b"\n").replace(b"\x1b[K", b"<erase>").replace(b"\r", b"\n")
sys.stdout.write(text.decode("utf-8", "replace").lstrip("\n"))
sys.exit(rc)
