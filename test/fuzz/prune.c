/* Fuzz target: a file pruned (formats/prune.c): planned with a keep rule
 * that drops every other entry, then written to /dev/null.  Whatever the
 * bytes, the plan's patches lie inside the file, in order, none growing a
 * range it rewrites in place, and the counts add up.  Limits are small:
 * at most 1 MiB inflated, 64 times the compressed bytes.
 * libFuzzer: -max_len=65536
 */
#include <string.h>

#include "fuzz.h"
#include "../../formats/prune.h"

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
	if (io_out_open(&out, "/dev/null", &e) == 0) {
		if (prune_write(&in, &plan, &out, &e) == 0)
			io_out_commit(&out, &e);
		else
			io_out_discard(&out);
	}
	prune_plan_free(&plan);
	return 0;
}
