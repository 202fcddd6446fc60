#!/usr/bin/env python3
"""Write the damaged-archive corpus: each file must get one clear error
from formats/ar (test/ar.test holds the messages).  Run from this
directory; the files are committed.  Where LLVM 22 reads the same damage,
the message is LLVM's; LLVM's bundler silently writes partial archives for
several of these and reads past the end of the buffer for some."""
import struct


def hdr(name, size, date=b"0", uid=b"0", gid=b"0", mode=b"644", term=b"`\n"):
    def f(v, w):
        v = v if isinstance(v, bytes) else str(v).encode()
        return v + b" " * (w - len(v))
    return (f(name, 16) + f(date, 12) + f(uid, 6) + f(gid, 6) + f(mode, 8) +
            f(size, 10) + term)


def member(name, data, **kw):
    return hdr(name, len(data), **kw) + data + (b"\n" if len(data) % 2 else b"")


def gnu_symtab(entries):
    """entries: (name, member header offset)"""
    body = struct.pack(">I", len(entries))
    body += b"".join(struct.pack(">I", off) for _, off in entries)
    body += b"".join(n + b"\0" for n, _ in entries)
    if len(body) % 2:
        body += b"\0"
    return hdr(b"/", len(body), mode=b"0") + body


def write(name, data):
    with open(name, "wb") as f:
        f.write(data)


A = b"!<arch>\n"
good = member(b"a.o/", b"hello\n") + member(b"b.txt/", b"xyz")

write("not-an-archive.a", b"hello, world\n")
write("aix-big.a", b"<bigaf>\n" + b"0" * 120)
# A header cut short, with and without a readable name.
write("short-header.a", A + member(b"a.o/", b"hi") + hdr(b"cut.o/", 4)[:30])
write("very-short-header.a", A + member(b"a.o/", b"hi") + b"cut.o/")
write("bad-terminator.a", A + member(b"a.o/", b"hi") +
      member(b"b.o/", b"data", term=b"X\n"))
write("size-not-decimal.a", A + hdr(b"a.o/", b"12a") + b"x" * 12)
write("size-empty.a", A + hdr(b"a.o/", b"") + b"x" * 12)
write("size-past-end.a", A + member(b"a.o/", b"hi") + hdr(b"b.o/", 1000) +
      b"only a little")
# An odd-sized last member without its padding byte.
write("missing-pad.a", A + hdr(b"a.o/", 3) + b"abc")
write("long-name-not-digits.a", A + member(b"//", b"long_member_name.o/\n") +
      member(b"/1x", b"data"))
write("long-name-past-table.a", A + member(b"//", b"long_member_name.o/\n") +
      member(b"/99", b"data"))
write("long-name-unterminated.a", A +
      member(b"//", b"long_member_name.o\n\n") + member(b"/0", b"data"))
write("long-name-no-table.a", A + member(b"a.o/", b"x") + member(b"/0", b"y"))
write("bsd-name-not-digits.a", A + member(b"#1/1x", b"abcdefgh"))
write("bsd-name-past-member.a", A + member(b"#1/100", b"abcdefgh"))
# A BSD archive (its symbol table named "#1/12") whose next name starts
# with a blank.
write("bsd-leading-space.a", A + member(b"#1/12", b"__.SYMDEF\0\0\0" +
                                        b"\0" * 8) + member(b" b.o", b"xy"))
write("coff-bad-second.a", A + member(b"/", b"\0" * 4) + member(b"/12", b"y"))
write("thin-bsd-name.a", b"!<thin>\n" + hdr(b"#1/4", 4))
# "__.SYMDEF/" reads as "__.SYMDEF": a BSD symbol table, here outside.
write("thin-bsd-symtab.a", b"!<thin>\n" + hdr(b"__.SYMDEF/", 4))
# Symbol tables that lie (formats/ar's ar_symbols and ar_validate).
first = 8 + 60 + 4 + 4 + 4          # where a.o's header lands after "/"
write("symtab-count-too-big.a", A + hdr(b"/", 8, mode=b"0") +
      struct.pack(">II", 1000, first) + good)
write("symtab-name-unterminated.a", A + hdr(b"/", 12, mode=b"0") +
      struct.pack(">II", 1, first) + b"symb" + good)
write("symtab-offset-not-member.a", A + gnu_symtab([(b"sym", 9)]) + good)
write("sym64-count-too-big.a", A + hdr(b"/SYM64/", 16, mode=b"0") +
      struct.pack(">QQ", 1 << 40, 0) + good)
write("bsd-symtab-past-end.a", A + member(b"__.SYMDEF/", struct.pack(
    "<IIII", 64, 0, 8, 0)) + member(b"a.o", b"xy"))
write("coff-symtab-bad-index.a", A + member(b"/", b"\0" * 4) +
      member(b"/", struct.pack("<II", 0, 1) + struct.pack("<H", 1) + b"s\0") +
      member(b"a.o/", b"xy"))
# Header fields only the attribute reader checks.
write("bad-date.a", A + member(b"a.o/", b"hi", date=b"-5"))
write("bad-mode.a", A + member(b"a.o/", b"hi", mode=b"648"))
write("bad-uid.a", A + member(b"a.o/", b"hi", uid=b"0x1"))
