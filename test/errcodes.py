#!/usr/bin/env python3
"""errcodes.py: error records say what kind of failure they are (core/err.h).

A caller acts on a failure by its code (ERR_TRUNCATED, ERR_MALFORMED,
ERR_NOMEM, ERR_NOTHING...), never by its text.  Two things are checked
over the .c files of applets/, ops/, formats/ and core/:
  - the err_* calls that leave ERR_OTHER (err_set, err_file, and
    err_code_set, err_llvm or err_wrap given ERR_OTHER) are no more, in
    each folder, than LIMITS says: lower a limit when you give sites
    codes; raise it only for failures no caller could tell apart (a
    refusal, a limit reached, an internal check), never for damage in
    the data, which is ERR_TRUNCATED or ERR_MALFORMED (err_cut, err_bad);
  - no strcmp, strstr or memcmp (or their kin) reads an error's why or
    msg: text is for people.
Printed, one a line, and exit 1: each folder over its limit, each call
that reads an error's text.  With -v, the share of ERR_OTHER first.
Usage: errcodes.py [-v] [TOP]
"""
import os
import re
import sys

LAYERS = ("core", "formats", "ops", "lib", "applets")
# ERR_OTHER is left for what no caller tells apart: a limit reached, an
# encoder's failure, a kind of file not read here, a usage error.
# (formats 36 -> 38, ops 39 -> 57 with kpack split: its refusals of
# hosts it cannot split and its archive limits; prune refusing packages
# that would not fit where they are; split refusing a tree with a FIFO;
# the split binaries' resolver, ops/kpack_find.c, refusing an archive
# path that is no regular file: a kind of file not read.  formats 38 -> 41
# with the kpack readers' bounds (TOC, .rocm_kpack_ref), refused as a
# limit reached, and the writer's, which writes nothing they would refuse.
# lib 1: liboffcode's prune refusing a file that would keep no device
# code, as the prune applet refuses it.  core 44 -> 46: 45 on main before,
# and SHA-256's libcrypto that cannot be loaded, core/sha256.c.)
LIMITS = {"core": 46, "formats": 41, "ops": 57, "lib": 1, "applets": 3}

CALL = re.compile(r"\berr_(set|file|code_set|code_file|llvm|wrap|sys|nomem|bad|"
                  r"cut)"
                  r"\(\s*([^,()]*(?:\([^()]*\))?[^,()]*)(?:,\s*(\w+))?")
LEAVES_OTHER = {"set": True, "file": True}
CODED = {"code_set", "code_file", "llvm", "wrap"}
TEXT_CMP = re.compile(r"\b(strstr|strcasestr|strcmp|strncmp|strcasecmp|"
                      r"strncasecmp|memcmp|memmem)\(")
ERR_TEXT = re.compile(r"(\.|->)(why|msg)\b")


def strip(text):
    """Comments and string literals blanked, lines kept."""
    text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)),
                  text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r'"(?:[^"\\\n]|\\.)*"', '""', text)


def args_of(text, at):
    """The text between the parenthesis at `at` and its match."""
    depth, i = 0, at
    while i < len(text):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return text[at + 1:i]
        i += 1
    return text[at + 1:]


def main():
    args = [a for a in sys.argv[1:] if a != "-v"]
    verbose = "-v" in sys.argv[1:]
    top = args[0] if args else \
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    calls, other, bad = {}, {}, []
    for layer in LAYERS:
        calls[layer] = other[layer] = 0
        if not os.path.isdir(os.path.join(top, layer)):
            continue    # a tree without it (lib/, in a test's scratch tree)
        for name in sorted(os.listdir(os.path.join(top, layer))):
            if not name.endswith(".c"):
                continue
            path = os.path.join(layer, name)
            with open(os.path.join(top, path), encoding="utf-8",
                      errors="replace") as f:
                text = strip(f.read())
            if path != os.path.join("core", "err.c"):
                for m in CALL.finditer(text):
                    calls[layer] += 1
                    kind, code = m.group(1), m.group(3)
                    if kind in LEAVES_OTHER or \
                            (kind in CODED and code == "ERR_OTHER"):
                        other[layer] += 1
            for m in TEXT_CMP.finditer(text):
                if ERR_TEXT.search(args_of(text, m.end() - 1)):
                    line = text.count("\n", 0, m.start()) + 1
                    bad.append("%s:%d: %s reads an error's text" %
                               (path, line, m.group(1)))
    if verbose:
        total, left = sum(calls.values()), sum(other.values())
        print("%d of %d err_* calls leave ERR_OTHER (%.0f%%)" %
              (left, total, 100.0 * left / total if total else 0))
        for layer in LAYERS:
            print("  %-8s %3d of %3d (limit %d)" %
                  (layer, other[layer], calls[layer], LIMITS[layer]))
    for layer in LAYERS:
        if other[layer] > LIMITS[layer]:
            bad.append("%s/: %d err_* calls leave ERR_OTHER, more than "
                       "its limit of %d: give the new ones a code" %
                       (layer, other[layer], LIMITS[layer]))
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
