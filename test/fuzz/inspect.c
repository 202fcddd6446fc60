/* Fuzz target: a whole artefact walked to its code objects
 * (ops/inspect.c over core/elfscan, formats/ar, fatbin, ccob, package,
 * nvfatbin), from headers only and inflating (whole, or CCOBs as streams),
 * under small limits.  Every
 * node must be well formed: depths step by one, entries inside the input
 * when they say so, their data readable.
 * libFuzzer: -max_len=16384
 */
#include <string.h>

#include "fuzz.h"
#include "../../ops/inspect.h"

struct state {
	const uint8_t *buf;
	size_t len;
	unsigned depth;
	size_t nodes;
};

static int visit(void *ctx, const struct inspect_node *n)
{
	struct state *s = ctx;
	struct inspect_target t;

	FUZZ_CHECK(s->nodes == 0 ? n->depth == 0 : n->depth <= s->depth + 1);
	s->depth = n->depth;
	s->nodes++;
	fuzz_touch(n->name, n->name_len);
	if (n->kind != INSPECT_ENTRY)
		return 0;
	if (n->in_file)
		FUZZ_CHECK(n->offset <= s->len && n->size <= s->len - n->offset);
	/* An NVIDIA entry's data are its decoded code, code_size bytes. */
	if (n->data)
		fuzz_touch(n->data, (size_t)(n->container == FATBIN_NV ?
					     n->code_size : n->size));
	if (n->in_file && n->data)
		FUZZ_CHECK(n->data == s->buf + n->offset);
	inspect_entry_target(n, &t);
	fuzz_touch(t.kind, t.kind_len);
	fuzz_touch(t.triple, t.triple_len);
	fuzz_touch(t.arch, t.arch_len);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct inspect_opts o = {
		.ccob = { .max_ratio = 64, .max_size = 1u << 20 },
		.package = { .max_ratio = 64, .max_size = 1u << 20 },
	};

	/* Headers only; inflating whole; inflating CCOBs as streams of
	 * entries; checking CCOBs without holding them; streams of entries
	 * inflated in place, without a hash (ls --kernels). */
	for (int pass = 0; pass < 5; pass++) {
		struct state s = { data, size, 0, 0 };
		struct err e;

		o.inflate = pass > 0;
		o.stream = pass == 2 || pass == 4;
		o.stream_ccob = pass == 3;
		o.no_hash = pass == 4;
		e.msg[0] = 0;
		if (inspect_walk(data, size, &o, visit, &s, &e) != 0)
			FUZZ_CHECK(e.msg[0] != 0);
	}
	(void)inspect_machine_name((uint16_t)size);
	return 0;
}
