# run_ref.py: run a module of AMD's reference splitter (ROCm/rocm-kpack's
# python/) as the kpack tests need it:  python3 run_ref.py PYTHONDIR MODULE
# ARGS...  Directories are listed in name order (bytes), the order offload
# kpack split walks them in (os.scandir's own order is the file system's);
# Python 3.11 gets the TemporaryDirectory(delete=...) argument the
# splitter uses.  Our code; nothing of theirs.
import os, sys, tempfile
_scandir = os.scandir
class _Sorted:
    def __init__(self, path="."):
        with _scandir(path) as it:
            self.entries = sorted(it, key=lambda d: os.fsencode(d.name))
    def __enter__(self):
        return iter(self.entries)
    def __exit__(self, *a):
        return False
    def __iter__(self):
        return iter(self.entries)
    def close(self):
        pass
os.scandir = _Sorted
if sys.version_info < (3, 12):
    _TD = tempfile.TemporaryDirectory
    class TemporaryDirectory(_TD):
        def __init__(self, *a, delete=True, **k):
            super().__init__(*a, **k)
            if not delete:
                self._finalizer.detach()
    tempfile.TemporaryDirectory = TemporaryDirectory
sys.path.insert(0, sys.argv.pop(1))
import runpy
runpy.run_module(sys.argv.pop(1), run_name="__main__")
