/* Fuzz target: llvm-objcopy's COFF rewrite (formats/coffcopy.c), with two
 * bundle sections added and with the bundle sections removed: whatever it
 * writes is a COFF object whose sections all resolve, the added sections
 * come last with their bytes, and removing them again gives the sections
 * (names and bytes) of the input's own rewrite without them.  (Not all its
 * bytes: a symbol with an empty name is written as LLVM writes it, as if
 * named at string-table offset 0, and is read back by that name.)
 * Outputs are capped at 64 MiB (RLIMIT_FSIZE, SIGXFSZ ignored, so the
 * write fails): a few KB declaring gigabytes of uninitialised data make
 * that many zeros, as llvm-objcopy writes them, and mapping three such
 * outputs took 12 GB (a 15-minute run's out-of-memory, kept in the corpus).
 * libFuzzer: -max_len=8192
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>

#include "fuzz.h"
#include "../../formats/bundle.h"
#include "../../formats/coff.h"
#include "../../formats/coffcopy.h"
#include "../../core/io_in.h"
#include "../../core/io_out.h"
#include "../../core/io_scratch.h"

struct found {
	const uint8_t *base;
	size_t n, nbundle;
	uint64_t off[2], size[2];
};

/* An object's sections, as many as -max_len leaves room for. */
struct table {
	size_t n;
	struct coff_section s[256];
};

static bool want_all(void *ctx, const char *name, size_t name_len)
{
	(void)ctx;
	fuzz_touch(name, name_len);
	return true;
}

static int each(void *ctx, const struct coff_section *s, struct err *e)
{
	struct found *f = ctx;

	(void)e;
	f->n++;
	if (s->name_len >= BUNDLE_MAGIC_LEN &&
	    !memcmp(s->name, BUNDLE_MAGIC, BUNDLE_MAGIC_LEN)) {
		if (f->nbundle < 2) {
			f->off[f->nbundle] = s->offset;
			f->size[f->nbundle] = s->size;
		}
		f->nbundle++;
	}
	return 0;
}

static int note(void *ctx, const struct coff_section *s, struct err *e)
{
	struct table *t = ctx;

	(void)e;
	if (t->n < sizeof(t->s) / sizeof(t->s[0]))
		t->s[t->n] = *s;
	t->n++;
	return 0;
}

/* Both objects' sections agree in name and bytes, one by one. */
static bool same_sections(const uint8_t *a, size_t alen, const uint8_t *b,
			  size_t blen)
{
	static struct table ta, tb;
	uint16_t ma, mb;
	bool ba, bb;
	struct err e;

	ta.n = tb.n = 0;
	FUZZ_CHECK(coff_sections(a, alen, want_all, note, &ta, &ma, &ba,
				 &e) == 0);
	FUZZ_CHECK(coff_sections(b, blen, want_all, note, &tb, &mb, &bb,
				 &e) == 0);
	if (ta.n != tb.n || ma != mb || ba != bb)
		return false;
	for (size_t i = 0; i < ta.n && i < sizeof(ta.s) / sizeof(ta.s[0]);
	     i++) {
		const struct coff_section *x = &ta.s[i], *y = &tb.s[i];

		if (x->name_len != y->name_len ||
		    memcmp(x->name, y->name, x->name_len) ||
		    x->size != y->size ||
		    memcmp(a + x->offset, b + y->offset, (size_t)x->size))
			return false;
	}
	return true;
}

/* A section named "/926" or so (its name in the string table) is written
 * with that name in its header, as llvm-objcopy writes a short name: read
 * back, it is a reference into the string table.  LLVM 22's output is the
 * same unreadable file (the fuzzer found one, now in the corpus). */
static int slash_name(void *ctx, const struct coff_section *s, struct err *e)
{
	(void)e;
	if (s->name_len && s->name_len <= 8 && s->name[0] == '/')
		*(bool *)ctx = true;
	return 0;
}

static bool is_bundle(void *ctx, const char *name, size_t len)
{
	(void)ctx;
	return len >= BUNDLE_MAGIC_LEN && !memcmp(name, BUNDLE_MAGIC,
						  BUNDLE_MAGIC_LEN);
}

/* Write with coffcopy into a scratch file and map it: 0, or -1. */
static int rewrite(const uint8_t *data, size_t size, coff_want_fn *drop,
		   const struct coffcopy_add *add, size_t nadd,
		   struct io_out *out, struct io_in *view)
{
	struct err e;

	if (io_scratch_open(out, &e) < 0)
		return -1;
	if (coffcopy_write(data, size, drop, NULL, add, nadd, out, &e) < 0) {
		FUZZ_CHECK(e.msg[0] != 0);
		return -1;
	}
	if (io_scratch_map(out, view, &e) < 0) {
		/* Only the cap on outputs may stop what was written. */
		FUZZ_CHECK(e.errnum == EFBIG);
		return -1;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t zero[1], dev[] = "device code";
	const struct coffcopy_add add[2] = {
		{ .name = BUNDLE_MAGIC "host-x86_64-pc-windows-msvc-",
		  .data = zero, .size = 1 },
		{ .name = BUNDLE_MAGIC "hip-amdgcn-amd-amdhsa--gfx90a",
		  .data = dev, .size = sizeof(dev) },
	};
	struct io_out o1 = { .fd = -1 }, o2 = { .fd = -1 }, o3 = { .fd = -1 };
	struct io_in v1 = { .fd = -1 }, v2 = { .fd = -1 }, v3 = { .fd = -1 };
	struct found f = { 0 };
	uint16_t machine;
	bool bigobj;
	struct err e;

	bool ambiguous = false;

	fuzz_cap_outputs();
	if (!coff_has_magic(data, size) ||
	    coff_sections(data, size, want_all, slash_name, &ambiguous,
			  &machine, &bigobj, &e) < 0 || ambiguous)
		goto out;
	if (rewrite(data, size, NULL, add, 2, &o1, &v1) == 0) {
		f.base = v1.data;
		FUZZ_CHECK(coff_sections(v1.data, v1.len, want_all, each, &f,
					 &machine, &bigobj, &e) == 0);
		FUZZ_CHECK(f.nbundle >= 2);
		/* The two added, last, with their bytes. */
		if (f.nbundle == 2) {
			FUZZ_CHECK(f.size[0] == 1 && v1.data[f.off[0]] == 0);
			FUZZ_CHECK(f.size[1] == sizeof(dev) &&
				   !memcmp(v1.data + f.off[1], dev, sizeof(dev)));
		}
		/* Unbundling the host is the input without its bundles,
		 * rewritten: both ways round give the same sections.  (Our
		 * output may fail where the input did not, as LLVM's does:
		 * uninitialised data that were none in the file are zeros in
		 * it, and a control-flow-guard table needs its symbol once
		 * it has bytes.) */
		if (rewrite(v1.data, v1.len, is_bundle, NULL, 0, &o2, &v2) == 0 &&
		    rewrite(data, size, is_bundle, NULL, 0, &o3, &v3) == 0)
			FUZZ_CHECK(same_sections(v2.data, v2.len, v3.data,
						 v3.len));
	}
out:
	/* The views are the outputs' maps, gone with them. */
	io_out_discard(&o1);
	io_out_discard(&o2);
	io_out_discard(&o3);
	return 0;
}
