"""A signal while the library reads a pipe whose writer stays open: the
read is cut short (EINTR), the extension's hook runs the signal's Python
handler, and what it raises (Ctrl-C's KeyboardInterrupt) stops the call as
its exception, at once, not when the writer closes.  Each case runs in a
child Python that reads a pipe of the test's, which never writes to it.
Run by test/python.test, as test_offcode.py is."""
import errno
import os
import signal
import subprocess
import sys
import time

import pytest

CHILD = r"""
import os, signal, sys
import offcode

how, fd = sys.argv[1], int(sys.argv[2])

def handler(signum, frame):
    raise ValueError("the handler's")
signal.signal(signal.SIGUSR1, handler)
print("reading", flush=True)
if how == "source":
    offcode.Source(fd)
elif how == "source-path":
    offcode.Source("/dev/fd/%d" % fd)
elif how == "source-stdin":
    offcode.Source("-")
elif how == "open":
    offcode.open("/dev/fd/%d" % fd)
elif how == "open-fd":
    offcode.open(fd)
elif how == "walk":
    offcode.walk(fd, lambda n: None)
elif how == "walk-path":
    offcode.walk("/dev/fd/%d" % fd, lambda n: None)
print("returned", flush=True)
"""

CALLS = ["source", "source-path", "source-stdin", "open", "open-fd", "walk",
         "walk-path"]


def interrupted(how, sig):
    """The child's stdout, the last line of its stderr and its status
    after sig, sent once it is reading (its writer never closed)."""
    r, w = os.pipe()
    child = subprocess.Popen([sys.executable, "-c", CHILD, how, str(r)],
                             stdin=r, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, pass_fds=(r,), text=True)
    os.close(r)
    try:
        assert child.stdout.readline() == "reading\n"
        # (into the read: a signal before it raises the same from the
        # bytecode before the call)
        time.sleep(0.3)
        child.send_signal(sig)
        out, err = child.communicate(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        os.close(w)
    return out, err.splitlines()[-1:], child.returncode


@pytest.mark.parametrize("how", CALLS)
def test_ctrl_c_while_a_pipe_is_read_raises_keyboard_interrupt(how):
    # (an uncaught KeyboardInterrupt ends Python by SIGINT, after its
    # traceback, as a shell expects of Ctrl-C: status -SIGINT)
    assert interrupted(how, signal.SIGINT) == ("", ["KeyboardInterrupt"], -signal.SIGINT)


@pytest.mark.parametrize("how", CALLS)
def test_a_handler_that_raises_stops_the_read_with_its_exception(how):
    assert interrupted(how, signal.SIGUSR1) == ("", ["ValueError: the handler's"], 1)


def test_a_handler_that_does_not_raise_lets_the_read_go_on(tmp_path):
    # SIGUSR2's handler notes the signal and returns: the read goes on
    # and ends with the writer, its bytes read whole
    code = r"""
import os, signal, sys
import offcode
seen = []
signal.signal(signal.SIGUSR2, lambda s, f: seen.append(s))
print("reading", flush=True)
s = offcode.Source(int(sys.argv[1]))
print(bytes(s.bytes), len(seen))
"""
    r, w = os.pipe()
    child = subprocess.Popen([sys.executable, "-c", code, str(r)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             pass_fds=(r,), text=True)
    os.close(r)
    try:
        assert child.stdout.readline() == "reading\n"
        time.sleep(0.3)
        child.send_signal(signal.SIGUSR2)
        time.sleep(0.3)
        os.write(w, b"data")
    finally:
        os.close(w)
    out, err = child.communicate(timeout=10)
    assert (out, err, child.returncode) == ("b'data' 1\n", "", 0)


def test_a_handler_that_does_not_raise_lets_a_fifos_wait_go_on(tmp_path):
    # a FIFO's open waits for its writer: SIGUSR2's handler returns, the
    # open is tried again, and the writer that comes after is read
    fifo = str(tmp_path / "fifo")
    os.mkfifo(fifo)
    code = r"""
import signal, sys
import offcode
seen = []
signal.signal(signal.SIGUSR2, lambda s, f: seen.append(s))
print("reading", flush=True)
s = offcode.Source(sys.argv[1])
print(bytes(s.bytes), len(seen))
"""
    child = subprocess.Popen([sys.executable, "-c", code, fifo],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline() == "reading\n"
        time.sleep(0.3)
        child.send_signal(signal.SIGUSR2)
        time.sleep(0.3)
        # (no reader yet is ENXIO: a child that gave up fails by the
        # deadline, not by a hang here)
        deadline = time.monotonic() + 10
        while True:
            try:
                w = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
                break
            except OSError as e:
                assert e.errno == errno.ENXIO and time.monotonic() < deadline
                time.sleep(0.05)
        os.write(w, b"data")
        os.close(w)
        out, err = child.communicate(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert (out, err, child.returncode) == ("b'data' 1\n", "", 0)
