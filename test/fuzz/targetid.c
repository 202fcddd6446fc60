/* Fuzz target: target IDs (core/targetid.c): known processors, the kept
 * part of an ID, compatibility of every pair, and the conflict check over
 * the sorted, deduplicated set, as the bundler runs it.  Input: IDs, one a
 * line (at most 16); the first byte picks the requests' triple.
 * libFuzzer: -max_len=512
 */
#include <string.h>

#include "fuzz.h"
#include "../../core/targetid.h"

enum { MAX_IDS = 16 };

static int by_bytes(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const triples[] = {
		"amdgcn-amd-amdhsa", "nvptx64-nvidia-cuda", "x86_64-unknown-linux-gnu",
		"spirv64-amd-amdhsa",
	};
	char *ids[MAX_IDS], *copy;
	size_t n = 0, len, first, second;
	struct triple t;
	const char *tr;
	int rc;

	if (size < 1)
		return 0;
	tr = triples[data[0] % 4];
	triple_parse(tr, strlen(tr), LLVM_NEWEST, &t);
	/* Lines become C strings, as the bundler holds them (no NULs). */
	copy = malloc(size);
	FUZZ_CHECK(copy);
	memcpy(copy, data + 1, size - 1);
	copy[size - 1] = 0;
	for (char *p = copy; n < MAX_IDS; ) {
		char *nl = strchr(p, '\n');

		ids[n++] = p;
		if (!nl)
			break;
		*nl = 0;
		p = nl + 1;
	}
	for (size_t i = 0; i < n; i++) {
		len = strlen(ids[i]);
		(void)targetid_known_processor(ids[i], len);
		FUZZ_CHECK(targetid_effective_len(ids[i], len) <= len);
		for (size_t j = 0; j < n; j++)
			(void)targetid_compatible(ids[i], len, ids[j],
						  strlen(ids[j]), &t);
	}
	qsort(ids, n, sizeof(ids[0]), by_bytes);
	{
		size_t m = 0;

		for (size_t i = 0; i < n; i++)
			if (!m || strcmp(ids[m - 1], ids[i]))
				ids[m++] = ids[i];
		n = m;
	}
	rc = targetid_conflict_ex((const char *const *)ids, n, &first, &second);
	FUZZ_CHECK(rc >= -1 && rc <= 1);
	if (rc)
		FUZZ_CHECK(first < n && second < n);
	if (rc < 0)
		FUZZ_CHECK(first == second);
	FUZZ_CHECK(targetid_conflict((const char *const *)ids, n, &first,
				     &second) == (rc == 1));
	free(copy);
	return 0;
}
