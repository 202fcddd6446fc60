/* Fuzz target: a file pruned (ops/prune.c): planned with a keep rule
 * that drops every other entry, then written to a scratch file.  Whatever
 * the bytes, the plan's patches lie inside the file, in order, none growing
 * a range it rewrites in place, and the counts add up; a linked file made
 * smaller (ops/elf_shrink.c) has its edits in order inside the file,
 * cuts of whole pages, and the file written is as long as planned, its
 * PT_LOADs inside it, in address order, not overlapping.  Limits are
 * small: at most 1 MiB inflated, 64 times the compressed bytes.  An ELF
 * file's last e_ident padding byte (15) says where a grown program header
 * table goes; byte 14, odd, asks for --compress (two threads).
 * libFuzzer: -max_len=65536
 */
#include <string.h>

#include "fuzz.h"
#include "../../core/bytes.h"
#include "../../ops/prune.h"
#include "../../ops/prune_plan.h"
#include "../../core/io_in.h"
#include "../../core/io_out.h"
#include "../../core/io_scratch.h"

/* The shrunk file's PT_LOADs: inside it, in address order, disjoint. */
static void check_loads(const uint8_t *b, size_t len)
{
	uint64_t phoff, end = 0;
	size_t phnum;

	FUZZ_CHECK(len >= 64);
	phoff = get_le(b + 32, 8);
	phnum = get_le(b + 56, 2);
	FUZZ_CHECK(phoff <= len && phnum * 56 <= len - phoff);
	for (size_t i = 0; i < phnum; i++) {
		const uint8_t *p = b + phoff + i * 56;
		uint64_t off = get_le(p + 8, 8), va = get_le(p + 16, 8);
		uint64_t fsz = get_le(p + 32, 8), msz = get_le(p + 40, 8);

		if (get_le(p, 4) != 1)
			continue;
		FUZZ_CHECK(off <= len && fsz <= len - off && fsz <= msz);
		FUZZ_CHECK(va >= end);
		end = va + msz;
	}
}

static bool every_other(void *ctx, const struct prune_entry *en)
{
	unsigned *n = ctx;

	fuzz_touch(en->sel.id, en->sel.id_len);
	fuzz_touch(en->sel.arch, en->sel.arch_len);
	fuzz_touch(en->sel.triple, en->sel.triple_len);
	return en->sel.host || (*n)++ % 2;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned n = 0;
	struct prune_opts o = {
		.keep = every_other, .ctx = &n, .level = 1,
		.limits = { .max_ratio = 64, .max_size = 1u << 20 },
		/* Every choice of where a grown program header table goes. */
		.shrink = size > 15 ? data[15] % 3 : PRUNE_SHRINK_AUTO,
		/* --compress, on two threads, when byte 14 is odd. */
		.compress = size > 14 && (data[14] & 1),
		.compress_method = CCOB_ZSTD, .ccob_version = 3, .threads = 2,
	};
	struct prune_plan plan;
	struct io_in in = { .data = data, .len = size, .fd = -1 };
	struct io_out out = { .fd = -1 };
	uint64_t end = 0;
	struct err e;

	if (prune_plan(data, size, &o, &plan, &e) < 0) {
		FUZZ_CHECK(e.msg[0]);
		return 0;
	}
	for (size_t i = 0; i < plan.n; i++) {
		const struct prune_patch *p = &plan.patch[i];

		FUZZ_CHECK(p->offset >= end && p->offset <= size &&
			   p->old_size <= size - p->offset);
		FUZZ_CHECK(!p->in_place || p->new_size <= p->old_size);
		end = p->offset + p->old_size;
	}
	FUZZ_CHECK(plan.entries_kept + plan.entries_dropped >= plan.device_kept);
	end = 0;
	for (size_t i = 0; i < plan.shrink.n; i++) {
		const struct elf_shrink_edit *ed = &plan.shrink.edit[i];

		FUZZ_CHECK(ed->offset >= end && ed->offset <= size &&
			   ed->len <= size - ed->offset);
		FUZZ_CHECK(ed->kind != ELF_SHRINK_CUT ||
			   (ed->offset % 4096 == 0 && ed->len % 4096 == 0));
		end = ed->offset + ed->len;
	}
	fuzz_cap_outputs();	/* a COFF section may declare 4 GiB of zeros */
	if (io_scratch_open(&out, &e) == 0) {
		struct io_in view;

		if (prune_write(&in, &plan, &out, &e) == 0 &&
		    plan.shrink.n && io_scratch_map(&out, &view, &e) == 0) {
			FUZZ_CHECK(view.len == plan.shrink.size_after);
			check_loads(view.data, view.len);
		}
		io_out_discard(&out);
	}
	prune_plan_free(&plan);
	return 0;
}
