"""Build of the offcode extension (pyproject.toml has the rest).

Where liboffcode comes from, first that answers:
  OFFCODE_CFLAGS / OFFCODE_LIBS   the compiler's and the linker's flags
  pkg-config offcode              an installed liboffcode (liboffcode-dev)
  this tree                       include/ and the library `make` built
                                  (build/lib), found at run time through an
                                  rpath to it: for trying it out here, not
                                  for installing elsewhere.
"""
import glob
import os
import shlex
import subprocess

from setuptools import Extension, setup

TOP = os.path.dirname(os.path.abspath(__file__))


def pkg_config(*args):
    try:
        out = subprocess.run(["pkg-config", *args, "offcode"], check=True,
                             capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return shlex.split(out)


def flags():
    cflags, libs = os.environ.get("OFFCODE_CFLAGS"), os.environ.get("OFFCODE_LIBS")
    if cflags is not None or libs is not None:
        return shlex.split(cflags or ""), shlex.split(libs or ""), []
    c, l = pkg_config("--cflags"), pkg_config("--libs")
    if c is not None and l is not None:
        return c, l, []
    libdir = os.path.join(TOP, "build", "lib")
    return ["-I" + os.path.join(TOP, "include")], ["-L" + libdir, "-loffcode"], [libdir]


cflags, libs, rpath = flags()
setup(ext_modules=[Extension(
    "offcode._offcode",
    # _offcode.c is the module; the others its parts (its comment lists
    # them), their names hidden: the module's PyInit is all it exports
    sources=["python/offcode/%s.c" % f for f in (
        "_offcode", "errors", "convert", "handle", "open", "listing",
        "container", "code", "layers", "kernels", "nv", "source", "walk", "split")],
    depends=glob.glob(os.path.join("python", "offcode", "*.h")),
    extra_compile_args=cflags + ["-std=c11", "-Wall", "-Wextra",
                                 "-fvisibility=hidden"],
    extra_link_args=libs,
    runtime_library_dirs=rpath,
)])
