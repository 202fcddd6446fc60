# offload: one executable for LLVM's GPU offload-binary tools.
# Plain GNU make: `make`, `make check` (T=SUITE for one), `make check-long`,
# `make check-lit`, `make install`, `make demo`, `make fuzz FUZZ_SECONDS=N`.

CC ?= cc
PKG_CONFIG ?= pkg-config
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec
MANDIR ?= $(PREFIX)/share/man/man1
MAN3DIR ?= $(PREFIX)/share/man/man3
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
DESTDIR ?=

# libbz2 has no pkg-config file in Debian 12: named at the end.
LIBS_PKG := libelf libzstd zlib libxxhash libmd liblz4 msgpack jansson liblzma
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(LIBS_PKG) libcrypto 2>/dev/null)
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(LIBS_PKG) 2>/dev/null || echo -lelf -lzstd -lz -lxxhash -lmd -llz4 -lmsgpackc -ljansson -llzma) -liberty -lbz2
# libcrypto is not linked but loaded by core/sha256.c when the first
# digest is made (its relocations cost every start more than half a
# millisecond, and only images and packages are hashed): by the name the
# libcrypto.so we would have linked gives itself, its SONAME.
CRYPTO_SO := $(or $(wildcard $(shell $(PKG_CONFIG) --variable=libdir libcrypto 2>/dev/null)/libcrypto.so),$(shell $(CC) -print-file-name=libcrypto.so))
CRYPTO_SONAME := $(shell objdump -p $(CRYPTO_SO) 2>/dev/null | sed -n 's/^ *SONAME *//p')
PKG_CFLAGS += $(if $(CRYPTO_SONAME),-DLIBCRYPTO_SONAME='"$(CRYPTO_SONAME)"')

CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wno-format-nonliteral
# Position-independent and hidden by default: the same objects make the
# binary and liboffcode.so, which exports only what include/offcode.h marks.
ALL_CFLAGS := -std=c11 -D_GNU_SOURCE -pthread -fPIC -fvisibility=hidden $(WARN) $(PKG_CFLAGS) $(CFLAGS) -MMD -MP
# The library is linked with every name resolved, but under the sanitizers,
# whose runtime the program that loads it brings.
OFFCODE_NO_UNDEFINED := -Wl,--no-undefined
ifeq ($(SANITIZE),1)
ALL_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
OFFCODE_NO_UNDEFINED :=
endif

# The applet registry, applets/applets.def (see there), also read by
# applets/main.c: each ALIAS row is a link to offload, made in build/bin and
# installed; an applet's man page is man/<name>.1 of one of its names.
REGISTRY := applets/applets.def
APPLET_LINKS := ${shell sed -n 's/^ALIAS("\([^"]*\)").*/\1/p' $(REGISTRY)}
APPLET_NAMES := ${shell sed -n 's/^[A-Z]*("\([^"]*\)".*/\1/p' $(REGISTRY)}
MANPAGES := man/offload.1 $(wildcard $(APPLET_NAMES:%=man/%.1))
# The LLVM names (aliases of the applets whose llvm column is 1) and the
# LLVM releases they follow: build/bin/llvm-N/ and $(LIBEXECDIR)/offload/
# llvm-N/ hold a link per LLVM name, for `clang-N -B DIR/` (the directory
# selects the release, applets/main.c), DIRALIAS names only there.
LLVM_LINKS := ${shell awk '/^APPLET\(/ { llvm = $$0 ~ /_main, 1,/ } /^(DIR)?ALIAS\(/ && llvm && /"(clang|llvm)-/ { sub(/^(DIR)?ALIAS\("/, ""); sub(/".*/, ""); print }' $(REGISTRY)}
LLVM_RELEASES := 22 23 24
LLVM_DIR_LINKS := $(foreach v,$(LLVM_RELEASES),$(LLVM_LINKS:%=build/bin/llvm-$(v)/%))

# core/, formats/ and ops/ are a library, build/liboffload.a, built once and
# linked by the binary (with the applets), the unit programs and the fuzz
# targets' replayers; each takes from it just the objects it needs.
LIB_SRCS := $(wildcard core/*.c formats/*.c ops/*.c)
LIB_OBJS := $(LIB_SRCS:%.c=build/obj/%.o)
LIB := build/liboffload.a
APPLET_OBJS := $(patsubst %.c,build/obj/%.o,$(wildcard applets/*.c))
BIN := build/bin/offload

# liboffcode, the public library (lib/, include/offcode.h): the shared
# library, soname liboffcode.so.0, exporting the offcode_* names alone
# (lib/offcode.map), and the static archive, one object whose other names
# are made local, so that neither brings core/, formats/ or ops/ names into
# a program that links it.
OFFCODE_SRCS := $(wildcard lib/*.c)
OFFCODE_OBJS := $(OFFCODE_SRCS:%.c=build/obj/%.o)
OFFCODE_VERSION := 0.1.0
OFFCODE_SONAME := liboffcode.so.0
OFFCODE_SO := build/lib/liboffcode.so.$(OFFCODE_VERSION)
OFFCODE_A := build/lib/liboffcode.a
OFFCODE_MAN3 := man/offcode.3 $(filter-out man/offcode.3,$(wildcard man/offcode*.3))

ifneq ($(V),1)
Q := @
endif

all: $(BIN) $(APPLET_LINKS:%=build/bin/%) $(LLVM_DIR_LINKS) \
	$(OFFCODE_SO) build/lib/$(OFFCODE_SONAME) build/lib/liboffcode.so \
	$(OFFCODE_A)

$(OFFCODE_SO): $(OFFCODE_OBJS) $(LIB) lib/offcode.map
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) -shared $(LDFLAGS) -Wl,-soname,$(OFFCODE_SONAME) \
		-Wl,--version-script=lib/offcode.map $(OFFCODE_NO_UNDEFINED) \
		-o $@ $(OFFCODE_OBJS) $(LIB) $(PKG_LIBS) -pthread

build/lib/$(OFFCODE_SONAME) build/lib/liboffcode.so: $(OFFCODE_SO)
	$(Q)ln -sf $(notdir $(OFFCODE_SO)) $@

$(OFFCODE_A): $(OFFCODE_OBJS) $(LIB)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  AR      $@")
	$(Q)$(CC) -r -nostdlib -o build/obj/offcode.o $(OFFCODE_OBJS) $(LIB)
	$(Q)objcopy --localize-hidden build/obj/offcode.o
	$(Q)rm -f $@ && $(AR) rcs $@ build/obj/offcode.o

$(BIN): $(APPLET_OBJS) $(OFFCODE_OBJS) $(LIB)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

$(LIB): $(LIB_OBJS)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# Objects remember the flags they were built with: switching to SANITIZE=1,
# CC=clang or other CFLAGS rebuilds everything.
FLAGS_STAMP := build/obj/.flags
$(FLAGS_STAMP): FORCE
	@mkdir -p $(@D)
	@echo '$(CC) $(ALL_CFLAGS) $(LDFLAGS)' | cmp -s - $@ || echo '$(CC) $(ALL_CFLAGS) $(LDFLAGS)' > $@

build/obj/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(APPLET_LINKS:%=build/bin/%): $(BIN)
	$(Q)ln -sf offload $@

$(LLVM_DIR_LINKS): $(BIN)
	$(Q)mkdir -p $(@D) && ln -sf ../offload $@

# Unit programs: test/<name>/<name>_test.c, each linked with the library.
UNIT_SRCS := $(wildcard test/*/*_test.c)
UNIT := $(addprefix build/test/,$(basename $(notdir $(UNIT_SRCS))))
.SECONDEXPANSION:
$(UNIT): build/test/%: build/obj/test/$$(subst _test,,$$*)/%.o $(LIB)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

# The fault-injection library test/writefaults.test and lazyload.test
# preload (see
# test/faultinject/faultinject.c): test code, built without sanitizers.
FAULTINJECT := build/test/faultinject.so
$(FAULTINJECT): test/faultinject/faultinject.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) -shared -fPIC -std=c11 $(WARN) $(CFLAGS) -o $@ $< -ldl

# The race library test/races.test preloads (test/raceinject/raceinject.c):
# test code too, built without sanitizers.
RACEINJECT := build/test/raceinject.so
$(RACEINJECT): test/raceinject/raceinject.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) -shared -fPIC -std=c11 $(WARN) $(CFLAGS) -o $@ $<

# Fuzz targets: every test/fuzz/<name>.c but replay.c (see test/fuzz/README).
# Under `make check` each is linked with replay.c and the library and
# replays its seed corpus; `make fuzz` builds them with clang's libFuzzer.
FUZZ_NAMES := $(filter-out replay,$(basename $(notdir $(wildcard test/fuzz/*.c))))
FUZZ_REPLAY := $(FUZZ_NAMES:%=build/test/fuzz/%)

build/test/fuzz/%: build/obj/test/fuzz/%.o build/obj/test/fuzz/replay.o $(LIB)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

# (kept, not removed as intermediates: their .d files name their headers)
TEST_OBJS := $(UNIT_SRCS:%.c=build/obj/%.o) \
	$(patsubst %.c,build/obj/%.o,$(wildcard test/fuzz/*.c))
.SECONDARY: $(TEST_OBJS)

# `make check` runs the suites several at once (test/run.sh), `make check
# T='ls extract'` just those; `make check-long` the random differential
# suites, long, on a fresh seed it prints (DIFF_SEED=N repeats a run).
# The library's own tests (test/libtest.test): C programs built against
# the header as installed (-Iinclude) and the shared library.
LIBTEST_SRCS := $(wildcard test/lib/*.c)
LIBTEST := $(LIBTEST_SRCS:test/lib/%.c=build/test/lib/%)
build/test/lib/%: test/lib/%.c include/offcode.h build/lib/liboffcode.so
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE -pthread $(WARN) $(CFLAGS) \
		$(filter -fsanitize% -fno-omit%,$(ALL_CFLAGS)) -Iinclude -o $@ $< \
		$(LDFLAGS) -Lbuild/lib -Wl,-rpath,'$$ORIGIN/../../lib' -loffcode

check: all $(UNIT) $(FUZZ_REPLAY) $(FAULTINJECT) $(RACEINJECT) $(LIBTEST)
	@sh test/run.sh $(T)

LONG_SUITES := differential differential-23 ar-diff ar-diff-23 packdiff packdiff-23 packdiff-24 bundler-23 bundler-24 sweep-24 faults
check-long: all $(UNIT)
	@DIFF_SEED=$${DIFF_SEED:-random} DIFF_CASES=$${DIFF_CASES:-2000} \
	AR_DIFF_CASES=$${AR_DIFF_CASES:-600} \
	PACKAGER_DIFF_CASES=$${PACKAGER_DIFF_CASES:-400} \
	PACKAGER_ARCHIVE_CASES=$${PACKAGER_ARCHIVE_CASES:-150} \
	PACKAGER_DIFF_CASES_23=$${PACKAGER_DIFF_CASES_23:-200} \
	PACKAGER_DIFF_CASES_24=$${PACKAGER_DIFF_CASES_24:-150} \
	PACKAGER_ARCHIVE_CASES_24=$${PACKAGER_ARCHIVE_CASES_24:-30} \
	DIFF_CASES_23=$${DIFF_CASES_23:-600} \
	AR_DIFF_CASES_23=$${AR_DIFF_CASES_23:-200} \
	FAULTS_MB=$${FAULTS_MB:-1024} \
	sh test/run.sh $(or $(T),$(LONG_SUITES))

# LLVM's own lit tests of the bundler, the packager and llvm-offload-binary
# (from Debian's source packages of LLVM 22, 23 and 24, fetched once into
# /var/cache/offload-test), run with LLVM's tools and then with ours in
# each release's mode (test/lit/check.sh; LIT_RELEASES='23' for one).
check-lit: all
	@sh test/lit/check.sh $(LIT_RELEASES)

# Proofs on real packages, opt-in: each test/real/*.sh says SKIP when what
# it needs (a Debian package in /var/cache/offload-test/debs) is not there.
check-real: all
	@for t in test/real/*.sh; do echo "== $$t"; sh $$t || exit 1; done

# libFuzzer needs clang and its runtime (Debian: libclang-rt-22-dev).
ifeq ($(origin FUZZ_CC),undefined)
FUZZ_CC := $(shell command -v clang-22 || command -v clang)
endif
FUZZ_SECONDS ?= 10
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) $(PKG_CFLAGS) -O1 -g \
	-fno-omit-frame-pointer -fno-sanitize-recover=all
FUZZ_OBJS := $(patsubst build/obj/%,build/fuzz/obj/%,$(LIB_OBJS))
FUZZ_STAMP := build/fuzz/obj/.flags

$(FUZZ_STAMP): FORCE
	@mkdir -p $(@D)
	@echo '$(FUZZ_CC) $(FUZZ_CFLAGS)' | cmp -s - $@ || echo '$(FUZZ_CC) $(FUZZ_CFLAGS)' > $@

build/fuzz/obj/%.o: %.c $(FUZZ_STAMP)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined -MMD -MP -c -o $@ $<

build/fuzz/liboffload.a: $(FUZZ_OBJS)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

build/fuzz/%: test/fuzz/%.c test/fuzz/fuzz.h build/fuzz/liboffload.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined -o $@ $< build/fuzz/liboffload.a $(PKG_LIBS)

# Each target for FUZZ_SECONDS, one after another, nice'd; new inputs go to
# build/fuzz/new/<name>/, crashes to build/fuzz/crashes/<name>/.
fuzz: $(FUZZ_NAMES:%=build/fuzz/%)
	@FUZZ_SEED='$(FUZZ_SEED)' FUZZ_RUNS='$(FUZZ_RUNS)' \
		sh test/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_NAMES)

demo: all
	@sh test/demo.sh

# Ours against LLVM 22 on the same work (BENCH_MB per input, default 500).
bench: all
	@python3 test/bench.py --mb $(or $(BENCH_MB),500) $(if $(BENCH_ONLY),--only "$(BENCH_ONLY)")

# Completion: bash-completion loads completions/<command> on first use, so
# each link gets its name there too; zsh's file names its commands itself.
# mkdir -p, not install -d: install -d gives a directory that already
# exists mode 0755, so `make install BINDIR=/tmp` (or a DESTDIR and PREFIX
# that land on a shared directory) would take /tmp's sticky bit and its
# write permission from everyone.
install: all
	mkdir -p $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) \
		$(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) \
		$(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(MAN3DIR)
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/offload
	for l in $(APPLET_LINKS); do ln -sf offload $(DESTDIR)$(BINDIR)/$$l; done
	install -m 644 $(MANPAGES) $(DESTDIR)$(MANDIR)/
	install -m 644 completion/offload.bash $(DESTDIR)$(BASHCOMPDIR)/offload
	for l in $(APPLET_LINKS); do ln -sf offload $(DESTDIR)$(BASHCOMPDIR)/$$l; done
	install -m 644 completion/_offload $(DESTDIR)$(ZSHCOMPDIR)/_offload
	for v in $(LLVM_RELEASES); do \
		mkdir -p $(DESTDIR)$(LIBEXECDIR)/offload/llvm-$$v && \
		for l in $(LLVM_LINKS); do \
			ln -sfr $(DESTDIR)$(BINDIR)/offload $(DESTDIR)$(LIBEXECDIR)/offload/llvm-$$v/$$l || exit 1; \
		done; \
	done
	install -m 644 include/offcode.h $(DESTDIR)$(INCLUDEDIR)/offcode.h
	install -m 644 $(OFFCODE_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(OFFCODE_SO)) $(DESTDIR)$(LIBDIR)/$(OFFCODE_SONAME)
	ln -sf $(OFFCODE_SONAME) $(DESTDIR)$(LIBDIR)/liboffcode.so
	install -m 644 $(OFFCODE_A) $(DESTDIR)$(LIBDIR)/liboffcode.a
	install -m 644 $(OFFCODE_MAN3) $(DESTDIR)$(MAN3DIR)/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
		-e 's|@VERSION@|$(OFFCODE_VERSION)|' \
		-e 's|@LIBS_PRIVATE@|$(PKG_LIBS) -pthread|' \
		lib/offcode.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/offcode.pc

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/offload
	for l in $(APPLET_LINKS); do rm -f $(DESTDIR)$(BINDIR)/$$l; done
	for m in $(notdir $(MANPAGES)); do rm -f $(DESTDIR)$(MANDIR)/$$m; done
	for l in offload $(APPLET_LINKS); do rm -f $(DESTDIR)$(BASHCOMPDIR)/$$l; done
	rm -f $(DESTDIR)$(ZSHCOMPDIR)/_offload
	for v in $(LLVM_RELEASES); do \
		for l in $(LLVM_LINKS); do rm -f $(DESTDIR)$(LIBEXECDIR)/offload/llvm-$$v/$$l; done; \
		rmdir $(DESTDIR)$(LIBEXECDIR)/offload/llvm-$$v 2>/dev/null || :; \
	done
	rmdir $(DESTDIR)$(LIBEXECDIR)/offload 2>/dev/null || :
	rm -f $(DESTDIR)$(INCLUDEDIR)/offcode.h $(DESTDIR)$(PKGCONFIGDIR)/offcode.pc
	rm -f $(DESTDIR)$(LIBDIR)/$(notdir $(OFFCODE_SO)) \
		$(DESTDIR)$(LIBDIR)/$(OFFCODE_SONAME) \
		$(DESTDIR)$(LIBDIR)/liboffcode.so $(DESTDIR)$(LIBDIR)/liboffcode.a
	for m in $(notdir $(OFFCODE_MAN3)); do rm -f $(DESTDIR)$(MAN3DIR)/$$m; done

clean:
	rm -rf build

.PHONY: all check check-long check-lit check-real demo bench fuzz install uninstall clean FORCE
FORCE:
-include $(APPLET_OBJS:.o=.d) $(LIB_OBJS:.o=.d) $(OFFCODE_OBJS:.o=.d) $(TEST_OBJS:.o=.d) $(FUZZ_OBJS:.o=.d)
