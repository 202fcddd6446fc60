# offload: one executable for LLVM's GPU offload-binary tools.
# Plain GNU make: `make`, `make check`, `make install`, `make demo`.

CC ?= cc
PKG_CONFIG ?= pkg-config
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man/man1
DESTDIR ?=

LIBS_PKG := libelf libzstd zlib libxxhash libmd
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(LIBS_PKG) 2>/dev/null)
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(LIBS_PKG) 2>/dev/null || echo -lelf -lzstd -lz -lxxhash -lmd)

CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wno-format-nonliteral
ALL_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) $(PKG_CFLAGS) $(CFLAGS) -MMD -MP
ifeq ($(SANITIZE),1)
ALL_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
endif

# Every name the executable answers to, besides its own (see applets/main.c).
APPLET_LINKS := clang-offload-bundler offload-bundler offload-ccob \
	llvm-offload-binary clang-offload-packager offload-packager
MANPAGES := man/offload.1 man/clang-offload-bundler.1 man/offload-ccob.1 \
	man/llvm-offload-binary.1

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

UNIT := build/test/triple_test build/test/targetid_test build/test/llvmhash_test \
	build/test/elfscan_test build/test/package_test

check: all $(UNIT)
	@sh test/run.sh

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

.PHONY: all check demo bench install uninstall clean FORCE
FORCE:
-include $(OBJS:.o=.d)
