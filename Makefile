# offload: one executable for LLVM's GPU offload-binary tools.
# Plain GNU make: `make`, `make check` (`make check-long`), `make install`, `make demo`,
# `make fuzz FUZZ_SECONDS=N`.

CC ?= cc
PKG_CONFIG ?= pkg-config
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man/man1
DESTDIR ?=

LIBS_PKG := libelf libzstd zlib libxxhash libmd liblz4
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(LIBS_PKG) 2>/dev/null)
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(LIBS_PKG) 2>/dev/null || echo -lelf -lzstd -lz -lxxhash -lmd -llz4)

CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wno-format-nonliteral
ALL_CFLAGS := -std=c11 -D_GNU_SOURCE -pthread $(WARN) $(PKG_CFLAGS) $(CFLAGS) -MMD -MP
ifeq ($(SANITIZE),1)
ALL_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
endif

# Every name the executable answers to, besides its own (see applets/main.c).
APPLET_LINKS := clang-offload-bundler offload-bundler offload-ccob offload-unpack-archive \
	llvm-offload-binary clang-offload-packager offload-packager \
	offload-ls offload-extract offload-prune
MANPAGES := man/offload.1 man/clang-offload-bundler.1 man/offload-ccob.1 man/offload-unpack-archive.1 \
	man/llvm-offload-binary.1 man/offload-ls.1 man/offload-extract.1 \
	man/offload-prune.1

SRCS := $(wildcard applets/*.c core/*.c formats/*.c)
OBJS := $(SRCS:%.c=build/obj/%.o)
BIN := build/bin/offload

ifneq ($(V),1)
Q := @
endif

all: $(BIN) $(APPLET_LINKS:%=build/bin/%)

$(BIN): $(OBJS)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $(OBJS) $(PKG_LIBS)

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

# Unit programs for the core tables, each linked with just what it tests.
build/test/triple_test: test/triple/triple_test.c core/triple.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $(filter %.c,$^) $(LDFLAGS)
build/test/targetid_test: test/targetid/targetid_test.c core/targetid.c core/triple.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $(filter %.c,$^) $(LDFLAGS)

build/test/llvmhash_test: test/llvmhash/llvmhash_test.c core/llvmhash.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $(filter %.c,$^) $(LDFLAGS)
build/test/elfscan_test: test/elfscan/elfscan_test.c core/elfscan.c core/io.c core/err.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $(filter %.c,$^) $(LDFLAGS) $(PKG_LIBS)

build/test/package_test: test/package/package_test.c formats/package.c core/strtab.c core/strmap.c core/err.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $(filter %.c,$^) $(LDFLAGS) $(PKG_LIBS)

# The archive and bitcode formats, with the core files they stand on.
AR_TEST_SRCS := test/ar/ar_test.c formats/ar.c formats/ar_write.c \
	formats/ar_symbols.c formats/bitcode.c formats/bitstream.c \
	core/elfscan.c core/io.c \
	core/err.c core/strmap.c
build/test/ar_test: $(AR_TEST_SRCS) $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $(filter %.c,$^) $(LDFLAGS) $(PKG_LIBS)

UNIT := build/test/triple_test build/test/targetid_test build/test/llvmhash_test \
	build/test/elfscan_test build/test/ar_test build/test/package_test

# Fuzz targets: every test/fuzz/<name>.c but replay.c (see test/fuzz/README).
# Under `make check` each is linked with replay.c and the normal objects and
# replays its seed corpus; `make fuzz` builds them with clang's libFuzzer.
FUZZ_NAMES := $(filter-out replay,$(basename $(notdir $(wildcard test/fuzz/*.c))))
LIB_OBJS := $(filter build/obj/core/% build/obj/formats/%,$(OBJS))
FUZZ_REPLAY := $(FUZZ_NAMES:%=build/test/fuzz/%)

build/test/fuzz/%: test/fuzz/%.c test/fuzz/replay.c test/fuzz/fuzz.h $(LIB_OBJS) $(FLAGS_STAMP)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $(filter %.c,$^) $(LIB_OBJS) $(LDFLAGS) $(PKG_LIBS)

check: all $(UNIT) $(FUZZ_REPLAY)
	@sh test/run.sh

# The same with a fresh seed (printed; DIFF_SEED=N replays it) and ten times
# the random cases.
check-long: all $(UNIT) $(FUZZ_REPLAY)
	@DIFF_SEED=$${DIFF_SEED:-random} DIFF_CASES=$${DIFF_CASES:-3000} \
	AR_DIFF_CASES=$${AR_DIFF_CASES:-1000} \
	PACKAGER_DIFF_CASES=$${PACKAGER_DIFF_CASES:-700} \
	PACKAGER_ARCHIVE_CASES=$${PACKAGER_ARCHIVE_CASES:-300} sh test/run.sh

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
	$(Q)rm -f $@ && ar rcs $@ $^

build/fuzz/%: test/fuzz/%.c test/fuzz/fuzz.h build/fuzz/liboffload.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined -o $@ $< build/fuzz/liboffload.a $(PKG_LIBS)

# Each target for FUZZ_SECONDS, one after another, nice'd; new inputs go to
# build/fuzz/new/<name>/, crashes to build/fuzz/crashes/<name>/.
fuzz: $(FUZZ_NAMES:%=build/fuzz/%)
	@sh test/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_NAMES)

demo: all
	@sh test/demo.sh

# Ours against LLVM 22 on the same work (BENCH_MB per input, default 500).
bench: all
	@python3 test/bench.py --mb $(or $(BENCH_MB),500)

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/offload
	for l in $(APPLET_LINKS); do ln -sf offload $(DESTDIR)$(BINDIR)/$$l; done
	install -m 644 $(MANPAGES) $(DESTDIR)$(MANDIR)/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/offload
	for l in $(APPLET_LINKS); do rm -f $(DESTDIR)$(BINDIR)/$$l; done
	for m in $(notdir $(MANPAGES)); do rm -f $(DESTDIR)$(MANDIR)/$$m; done

clean:
	rm -rf build

.PHONY: all check check-long demo bench fuzz install uninstall clean FORCE
FORCE:
-include $(OBJS:.o=.d) $(FUZZ_OBJS:.o=.d)
