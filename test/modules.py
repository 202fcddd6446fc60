#!/usr/bin/env python3
"""modules.py: the house's one-way flow, checked (HACKING.md, "The layers").

A module is a .c file and the .h of the same name (ops/prune.c and
ops/prune.h are one); a header with no .c is a module of its own.
Two kinds of edge are derived between the modules of applets/, lib/ (the
public library, liboffcode), ops/, formats/ and core/, and taken together as
one graph:
  - includes: each #include "..." of one of them;
  - calls: each global symbol an object file of build/obj uses and another
    one defines (nm), which also sees a function declared in a shared header
    but defined elsewhere.
Printed, one a line, and exit 1: every cycle of the one graph (the modules
of each strongly connected part, as one cycle through them), every edge
against the flow
applets -> lib -> ops -> formats -> core, every function (or extern object) a
header declares that is not defined in the header's own .c: a header
declares one file's functions (X.h those of X.c; X_impl.h, the inside of
X.c that its parts share, also X.c's), so that a hub header cannot hide
an edge (HEADER_EXCEPTIONS lists the ones allowed, each with its reason),
every function the public header include/offcode.h declares that no
module of lib/ defines (it declares the library's functions alone), and
every edge from a client applet (CLIENT_APPLETS, du, ls and extract, and
their parts: the applets that read through liboffcode alone, issue 37) to
a module of ops/ or formats/, or of core/ but the command line's own
(CLIENT_CORE): it reads what it reads through include/offcode.h, as any
program does; OWED lists the edges a client still has (none now: ls and
extract owe nothing), and a row no edge needs is named too, so that the
list only shrinks.
Nothing printed and exit 0 when the house is in order.
Usage: modules.py [--owed CLIENT=MODULE]... [TOP]  (the source tree;
objects in TOP/build/obj; --owed: one more row of OWED, for a test's tree).
"""
import os
import re
import subprocess
import sys

LAYERS = {"core": 0, "formats": 1, "ops": 2, "lib": 3, "applets": 4}
PUBLIC_HEADER = os.path.join("include", "offcode.h")
# A tree may lack these (a test's scratch tree of four layers).
OPTIONAL_LAYERS = {"lib"}


def layers(top):
    """The layers top has: an optional one when it is there and built
    (a test's tree may build the binary alone)."""
    def built(l):
        d = os.path.join(top, "build", "obj", l)
        return os.path.isdir(os.path.join(top, l)) and os.path.isdir(d) and \
            any(n.endswith(".o") for n in os.listdir(d))
    return [l for l in LAYERS if l not in OPTIONAL_LAYERS or built(l)]
# The applets that read through the public library alone (issue 37), and
# their parts (applets/ls_json is ls's): none of them includes or calls a
# module of ops/ or formats/, nor one of core/ but the command line's own
# machinery (CLIENT_CORE), save what OWED still lists.
CLIENT_APPLETS = ("du", "ls", "extract")
BELOW_THE_LIBRARY = {"ops", "formats"}
# core/ that a client may use: what any applet does with its own command
# line and outputs, not a way into an artefact's bytes.  err: the applet's
# own failure records (messages.c says them); select: -t's rules, to say
# which took nothing; env: the tool's variables; json: ls --json's and du
# --json's writer; strjoin: strings; tree: the files under a directory
# argument; io_out, io_write: an output written whole or not at all.
CLIENT_CORE = {"core/err", "core/select", "core/env", "core/json",
               "core/strjoin", "core/tree", "core/io_out", "core/io_write"}
# What a client still reads below the library, edge by edge, until the
# public API has what it needs (issue 37): a new edge from a client
# fails, and so does a row here that no edge needs any more (strike it:
# the list only shrinks).  Empty: ls and extract read their inputs
# (offcode_source_*: a file mapped, a pipe read once for both of
# extract's passes, a URI's first bytes), walks (offcode_walk_*), names,
# URIs, split binaries, packages and images (offcode_layer_walk,
# offcode_layer_walk_bytes) and kernels (offcode_code_kernels) through
# the library alone.  A test's tree may owe more (--owed).
OWED = {
}
OWED = {(a, b) for a, bs in OWED.items() for b in bs.split()}


def is_client(mod):
    """applets/ls, applets/ls_json, applets/du_sums: a client applet or a
    part of one."""
    layer, _, name = mod.partition("/")
    return layer == "applets" and name.split("_")[0] in CLIENT_APPLETS


def below_the_library(mod):
    """Whether a client may not reach mod (OWED aside)."""
    layer = mod.split("/")[0]
    return layer in BELOW_THE_LIBRARY or \
        (layer == "core" and mod not in CLIENT_CORE)
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

# (header, name): declared there though defined in another file, and why.
# None now; a row needs its reason.
HEADER_EXCEPTIONS = {
}


def module_of(path):
    """'applets/bundler.c' -> 'applets/bundler'; None outside the layers."""
    path = os.path.normpath(path)
    parts = path.split(os.sep)
    if len(parts) != 2 or parts[0] not in LAYERS:
        return None
    return os.path.splitext(path)[0]


def include_edges(top):
    """Each #include "..." between modules.  A header with no .c of its
    own (prune_impl.h, bytes.h) is a module of its own, not a way
    through: who includes it depends on it, and it on what it includes,
    so a loop through it is a loop."""
    edges = set()
    for layer in layers(top):
        for name in sorted(os.listdir(os.path.join(top, layer))):
            if not name.endswith((".c", ".h")):
                continue
            src = os.path.join(layer, name)
            with open(os.path.join(top, src), encoding="utf-8",
                      errors="replace") as f:
                text = f.read()
            for inc in INCLUDE.findall(text):
                dst = module_of(os.path.join(layer, inc))
                if dst is not None and dst != module_of(src):
                    edges.add((module_of(src), dst))
    return edges


def call_edges(top, defined=None):
    """The call edges; defined, when given, receives each global symbol's
    defining module."""
    objdir = os.path.join(top, "build", "obj")
    defined = {} if defined is None else defined
    used = []
    for layer in layers(top):
        d = os.path.join(objdir, layer)
        # An object whose source moved or went (a stale build) is no
        # module.
        objs = sorted(n for n in os.listdir(d) if n.endswith(".o") and
                      os.path.exists(os.path.join(top, layer, n[:-2] + ".c"))) \
            if os.path.isdir(d) else []
        if not objs and layer in OPTIONAL_LAYERS:
            continue    # not built in this tree (a test's partial build)
        if not objs:
            sys.exit("modules.py: no objects in %s: build first" % d)
        # One nm for the layer (an nm a file cost a few seconds a run):
        # -A puts "NAME.o:" before each line of the file's (the last colon
        # of the line: a C symbol has none).
        out = subprocess.run(["nm", "-g", "-A"] + objs, cwd=d,
                             capture_output=True, text=True, check=True)
        for line in out.stdout.splitlines():
            name, _, line = line.rpartition(":")
            mod = os.path.join(layer, name[:-2])
            f = line.split()
            if len(f) == 2 and f[0] == "U":
                used.append((mod, f[1]))
            elif len(f) == 3 and f[1] not in "Uvw":
                defined[f[2]] = mod
    return {(mod, defined[sym]) for mod, sym in used
            if sym in defined and defined[sym] != mod}


def declared(text):
    """The functions and extern objects a header declares at file scope
    (not static ones, not what a typedef, struct or macro names)."""
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', '', text)
    text = re.sub(r'^\s*#(?:[^\n]*\\\n)*[^\n]*', '', text, flags=re.M)
    text = re.sub(r'__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)', ' ',
                  text)
    statements, cur, depth = [], [], 0
    for ch in text:
        if ch == '{':
            depth += 1
        elif ch == '}':
            depth -= 1
            if depth == 0:     # a definition: a struct, an inline function
                cur = []
                continue
        if depth == 0 and ch == ';':
            statements.append(''.join(cur).strip())
            cur = []
            continue
        if depth == 0:
            cur.append(ch)
    names = []
    for st in statements:
        if not st or re.match(r'(typedef|static)\b', st):
            continue
        m = re.search(r'(\w+)\s*\(', st)
        if m and m.group(1) not in C_WORDS and \
                not st[m.end():].lstrip().startswith('*'):
            names.append(m.group(1))        # a function
        elif re.match(r'extern\b', st) and '(' not in st:
            m = re.search(r'(\w+)\s*(\[[^\]]*\]\s*)*$', st)
            if m:
                names.append(m.group(1))    # an object
    return names


C_WORDS = set("""void char short int long float double signed unsigned _Bool
bool const volatile extern inline struct union enum restrict _Noreturn
register auto sizeof""".split())


def header_decls(top, defined):
    """Each name a header declares that its own .c does not define."""
    bad = []
    for layer in layers(top):
        for name in sorted(os.listdir(os.path.join(top, layer))):
            if not name.endswith(".h"):
                continue
            header = os.path.join(layer, name)
            own = os.path.join(layer, re.sub(r"(_impl)?\.h$", "", name))
            with open(os.path.join(top, header), encoding="utf-8",
                      errors="replace") as f:
                text = f.read()
            for sym in declared(text):
                where = defined.get(sym)
                if where == own or (header, sym) in HEADER_EXCEPTIONS:
                    continue
                bad.append("header declares another file's function: %s: %s "
                           "(defined %s)" % (header, sym, where + ".c" if where
                                             else "nowhere"))
    return bad


def public_decls(top, defined):
    """Each function the public header declares that lib/ does not
    define."""
    path = os.path.join(top, PUBLIC_HEADER)
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        text = f.read()
    text = re.sub(r'\bOFFCODE_API\b', ' ', text)
    if not any(m.startswith("lib/") for m in defined.values()):
        return []       # the library is not built in this tree
    return ["public header declares what lib/ does not define: %s: %s" %
            (PUBLIC_HEADER, sym) for sym in declared(text)
            if not defined.get(sym, "").startswith("lib/")]


def cycles(edges):
    """One cycle through each strongly connected part (Tarjan's)."""
    graph = {}
    for a, b in sorted(edges):
        graph.setdefault(a, []).append(b)
        graph.setdefault(b, [])
    index, low, stack, on, parts = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                parts.append(set(part))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    found = []
    for part in parts:
        # A shortest way back to the first module, inside the part.
        start = min(part)
        prev, todo = {start: None}, [start]
        end = None
        while todo and end is None:
            nxt = []
            for v in todo:
                for w in graph[v]:
                    if w == start:
                        end = v
                        break
                    if w in part and w not in prev:
                        prev[w] = v
                        nxt.append(w)
                if end is not None:
                    break
            todo = nxt
        path = [start]
        v = end
        while v != start:
            path.insert(1, v)
            v = prev[v]
        found.append(path + [start])
    return sorted(found)


def main():
    global OWED
    args = sys.argv[1:]
    while len(args) >= 2 and args[0] == "--owed":
        a, _, b = args[1].partition("=")
        OWED = OWED | {(a, b)}
        args = args[2:]
    top = args[0] if args else \
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    bad = []
    defined = {}
    inc, call = include_edges(top), call_edges(top, defined)
    for what, edges in (("include", inc), ("call", call)):
        for a, b in sorted(edges):
            if LAYERS[a.split("/")[0]] < LAYERS[b.split("/")[0]]:
                bad.append("%s against the flow: %s -> %s" % (what, a, b))
    for what, edges in (("includes", inc), ("calls", call)):
        for a, b in sorted(edges):
            if is_client(a) and below_the_library(b) and (a, b) not in OWED:
                bad.append("a client of liboffcode %s what is below it: "
                           "%s -> %s" % (what, a, b))
    # A debt is settled when its client is there without the edge (a
    # test's scratch tree has none of them).
    for a, b in sorted(OWED - inc - call):
        if any(os.path.exists(os.path.join(top, a + x)) for x in (".c", ".h")):
            bad.append("a client of liboffcode no longer reads below it, "
                       "strike it from OWED: %s -> %s" % (a, b))
    # One graph: a loop may go by an include one way and a call the other.
    for c in cycles(inc | call):
        bad.append("cycle: %s" % " -> ".join(c))
    bad += header_decls(top, defined)
    bad += public_decls(top, defined)
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
