# Our lit configuration for LLVM's own tests of the bundler, the packager
# and llvm-offload-binary (test/lit/check.sh copies it beside the tests that
# test/lit/fetch.sh unpacked, and runs lit there).  LLVM's own lit.cfg.py
# needs LLVM's build tree; this one sets what those tests use and nothing
# more.  Parameters (lit -D NAME=VALUE):
#   llvm_bin  the LLVM release's bin directory: FileCheck, not, llvm-ar,
#             clang for %clang, llvm-config for the features
#   tools     a directory put first on PATH: links named clang-offload-bundler,
#             clang-offload-packager and llvm-offload-binary, either to LLVM's
#             tools or to our binary (in an llvm-NN directory: that release's
#             mode)
# -*- Python -*-
import os
import subprocess

import lit.formats

llvm_bin = lit_config.params["llvm_bin"]
tools = lit_config.params["tools"]

config.name = "offload-upstream"
# lit's own shell, as LLVM's test suites run on Linux.
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".c", ".cpp", ".ll", ".test"]
config.excludes = ["Inputs", "SOURCE"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.test_source_root, "Output")
config.target_triple = "x86_64-unknown-linux-gnu"
config.host_triple = config.target_triple

# Nothing from the caller's PATH (nor its OFFLOAD_LLVM) reaches a test.
config.environment["PATH"] = os.pathsep.join([tools, llvm_bin, "/usr/bin", "/bin"])
config.environment.pop("OFFLOAD_LLVM", None)


def llvm_config(*args):
    out = subprocess.run([os.path.join(llvm_bin, "llvm-config")] + list(args),
                         capture_output=True, text=True, check=True)
    return out.stdout.split()


# The features the tests ask for, as the release's LLVM was built.
for target in llvm_config("--targets-built"):
    config.available_features.add(target.lower() + "-registered-target")
if llvm_config("--assertion-mode") == ["ON"]:
    config.available_features.add("asserts")
# Debian builds every LLVM with both codecs (libLLVM links libz and libzstd).
config.available_features.add("zlib")
config.available_features.add("zstd")
config.available_features.add("system-linux")
config.available_features.add("shell")

clang = os.path.join(llvm_bin, "clang")
config.substitutions.append(("%clangxx", clang + "++"))
config.substitutions.append(("%clang_cc1", clang + " -cc1"))
config.substitutions.append(("%clang", clang))
config.substitutions.append(("%itanium_abi_triple", config.target_triple))
config.substitutions.append(("%python", "/usr/bin/python3"))
# The strerror texts of glibc, as LLVM's lit configuration sets them.
for name, text in (("ENOENT", "No such file or directory"),
                   ("EISDIR", "Is a directory"),
                   ("EINVAL", "Invalid argument"),
                   ("EACCES", "Permission denied")):
    config.substitutions.append(("%errc_" + name, "'" + text + "'"))
