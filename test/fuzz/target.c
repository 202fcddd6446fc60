/* Fuzz target: bundle entry IDs (core/target.c): split, standardised and
 * matched as the bundler does with the IDs a bundle holds and the targets
 * asked for.  Input: IDs, one a line (at most 8), any bytes (an ID read
 * from a bundle may hold a NUL).
 * libFuzzer: -max_len=512
 */
#include <string.h>

#include "fuzz.h"
#include "../../core/target.h"

enum { MAX_IDS = 8 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct target tg[MAX_IDS];
	bool ok[MAX_IDS];
	size_t n = 0, pos = 0;

	while (n < MAX_IDS && pos <= size) {
		const uint8_t *nl = memchr(data + pos, '\n', size - pos);
		size_t len = nl ? (size_t)(nl - data) - pos : size - pos;

		ok[n] = target_parse(&tg[n], (const char *)data + pos, len,
				     n % 2 ? LLVM_22 : LLVM_NEWEST) == 0;
		if (ok[n]) {
			struct err e;
			char *std = target_standard(&tg[n], &e);

			/* The kind and the target ID are kept as they came. */
			if (std) {
				FUZZ_CHECK(!strncmp(std, tg[n].kind,
						    strlen(tg[n].kind)));
				FUZZ_CHECK(strlen(std) >= strlen(tg[n].tid));
				FUZZ_CHECK(!strcmp(std + strlen(std) -
						   strlen(tg[n].tid), tg[n].tid));
			} else {
				FUZZ_CHECK(e.code == ERR_FATAL ||
					   e.code == ERR_NOMEM);
			}
			free(std);
			(void)target_kind_valid(&tg[n]);
			(void)target_triple_valid(&tg[n]);
			(void)target_is_host(&tg[n]);
			(void)target_is_hip(&tg[n]);
		}
		n++;
		if (!nl)
			break;
		pos += len + 1;
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			if (ok[i] && ok[j]) {
				(void)target_compatible(&tg[i], &tg[j], false);
				(void)target_compatible(&tg[i], &tg[j], true);
			}
	for (size_t i = 0; i < n; i++)
		if (ok[i])
			target_free(&tg[i]);
	return 0;
}
