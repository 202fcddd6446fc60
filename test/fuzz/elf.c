/* Fuzz target: ELF reading and rewriting (core/elfscan.c, core/elfcopy*.c,
 * formats/bundle_object.c): the section table, the offload sections, the
 * archive symbols, the bundle entries, and llvm-objcopy's rewrite with a
 * section added and with the bundle sections removed (to /dev/null).
 * What the rewrite writes is read again: its symbol table has the local
 * symbols first and sh_info counting them, it and the relocation tables
 * sit at the address size's alignment, and every relocation names a
 * symbol that exists, as llvm-objcopy 22 normalises them (issue 19 item
 * 15).  Outputs are capped at 64 MiB (RLIMIT_FSIZE), as in coffcopy.
 * libFuzzer: -max_len=8192
 */
#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>

#include "fuzz.h"
#include "../../core/elfcopy.h"
#include "../../core/elfscan.h"
#include "../../formats/bundle.h"
#include "../../formats/bundle_object.h"
#include "../../formats/bundle_reader.h"
#include "../../core/io_in.h"
#include "../../core/io_out.h"
#include "../../core/io_scratch.h"

static int count_symbol(void *ctx, const char *name, size_t len)
{
	fuzz_touch(name, len);
	++*(size_t *)ctx;
	return 0;
}

/* The rewrite's symbol table and relocations, as llvm-objcopy leaves them. */
static void check_normalised(const uint8_t *buf, size_t len)
{
	struct elfscan s;
	struct err e;
	size_t nsyms = 0;

	FUZZ_CHECK(elfscan_open(&s, buf, len, &e) == 0);
	for (size_t i = 1; i < s.n; i++) {
		const struct elfscan_section *sec = &s.sec[i];
		uint64_t word = s.is64 ? 8 : 4, es = s.is64 ? 24 : 16;
		const uint8_t *p;

		/* (Only now: a NOBITS section's offset may be anywhere.) */
		if (sec->type != SHT_SYMTAB)
			continue;
		p = buf + sec->offset;
		FUZZ_CHECK(sec->align == word && sec->entsize == es);
		nsyms = sec->size / es;
		/* The null symbol counts as local whatever its binding:
		 * llvm-objcopy 22 writes an input's symbol 0 as it was
		 * (STB_WEAK, say) and sh_info 1 past it. */
		for (size_t k = 0; k < nsyms; k++) {
			bool local = !k || p[k * es + (s.is64 ? 4 : 12)] >> 4 ==
					   STB_LOCAL;

			FUZZ_CHECK(local == (k < sec->info));
		}
	}
	for (size_t i = 1; i < s.n; i++) {
		const struct elfscan_section *sec = &s.sec[i];
		uint64_t word = s.is64 ? 8 : 4;

		if ((sec->type == SHT_REL || sec->type == SHT_RELA) &&
		    !(sec->flags & SHF_ALLOC) && sec->link &&
		    sec->link < s.n && s.sec[sec->link].type == SHT_SYMTAB) {
			const uint8_t *p = buf + sec->offset;
			bool be = s.big_endian;
			size_t at = s.is64 ? (be || s.machine == EM_MIPS ? 8 : 12)
					   : 4;

			FUZZ_CHECK(sec->align == word);
			for (uint64_t k = 0; sec->entsize &&
			     k < sec->size / sec->entsize; k++) {
				const uint8_t *q = p + k * sec->entsize + at;
				uint64_t v = be ? (uint64_t)q[0] << 24 |
						  (uint64_t)q[1] << 16 |
						  (uint64_t)q[2] << 8 | q[3]
						: (uint64_t)q[3] << 24 |
						  (uint64_t)q[2] << 16 |
						  (uint64_t)q[1] << 8 | q[0];

				FUZZ_CHECK((s.is64 ? v : v >> 8) < nsyms);
			}
		}
	}
	elfscan_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t zero[1];
	struct elfcopy_add add = {
		.name = BUNDLE_MAGIC "host-x86_64-unknown-linux-gnu-",
		.data = zero, .size = 1, .type = SHT_PROGBITS,
		.flags = SHF_EXCLUDE, .align = 1, .set_existing = true,
	};
	struct bundle_reader r;
	struct bundle_entry ent;
	struct elfscan s;
	struct io_out out = { .fd = -1 };
	struct err e;
	size_t nsyms = 0;

	if (elfscan_open(&s, data, size, &e) < 0)
		return 0;
	for (size_t i = 1; i < s.n; i++) {
		uint64_t len;
		const uint8_t *p = elfscan_bytes(&s, data, i, &len);

		fuzz_touch(s.sec[i].name, s.sec[i].name_len + 1);
		FUZZ_CHECK(s.sec[i].name[s.sec[i].name_len] == 0);
		if (len)
			FUZZ_CHECK(p >= data && len <= size - (size_t)(p - data));
		fuzz_touch(p, (size_t)len);
	}
	elfscan_free(&s);
	elfscan_symbols(data, size, count_symbol, &nsyms, &e);
	if (bundle_open_object(&r, data, size, &e) == 0) {
		while (bundle_next(&r, &ent) == 1) {
			uint64_t off, len;

			fuzz_touch(ent.id, ent.id_len);
			if (bundle_content(&r, &off, &len, &e) == 0 && len) {
				FUZZ_CHECK(off <= size && len <= size - off);
				fuzz_touch(data + off, (size_t)len);
			}
		}
		bundle_close(&r);
	}
	fuzz_cap_outputs();
	if (io_scratch_open(&out, &e) == 0) {
		struct io_in view = { .fd = -1 };

		if (elfcopy_write(data, size, NULL, NULL, &add, 1, &out,
				  &e) == 0 &&
		    io_scratch_map(&out, &view, &e) == 0)
			check_normalised(view.data, view.len);
		io_out_discard(&out);
	}
	if (io_out_open(&out, "/dev/null", &e) == 0) {
		bundle_strip_object(data, size, &out, &e);
		io_out_discard(&out);
	}
	return 0;
}
