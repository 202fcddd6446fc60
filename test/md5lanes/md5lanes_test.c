/* Checks core/md5lanes.c against libmd, one message after another
 * (test/md5lanes.test).
 *   md5lanes_test N MAXLEN SEED
 * N messages of pseudo-random lengths up to MAXLEN (among them the
 * lengths around a block: 0, 1, 55, 56, 63, 64, 65, 119, 120, 127, 128),
 * pseudo-random bytes; prints how many digests agree, and the first
 * that does not, and whether the bytes the hasher said it had passed
 * (md5lanes_each) were every byte once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/md5lanes.h"

static unsigned long long seed;
static size_t passed_bytes;

static void passed(void *ctx, const uint8_t *p, size_t n)
{
	(void)ctx;
	(void)p;
	passed_bytes += n;
}

static unsigned rnd(void)
{
	seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)(seed >> 33);
}

int main(int argc, char **argv)
{
	static const size_t edge[] = { 0, 1, 55, 56, 63, 64, 65, 119, 120,
				       127, 128 };
	size_t n, max, same = 0, total = 0;
	const uint8_t **msg;
	size_t *len;
	uint8_t (*got)[16], (*want)[16];

	if (argc != 4)
		return 2;
	n = strtoul(argv[1], NULL, 10);
	max = strtoul(argv[2], NULL, 10);
	seed = strtoull(argv[3], NULL, 10);
	msg = calloc(n + 1, sizeof(*msg));
	len = calloc(n + 1, sizeof(*len));
	got = calloc(n + 1, sizeof(*got));
	want = calloc(n + 1, sizeof(*want));
	if (!msg || !len || !got || !want)
		return 2;
	for (size_t i = 0; i < n; i++) {
		uint8_t *m;

		len[i] = i < sizeof(edge) / sizeof(edge[0]) ? edge[i]
			 : max ? rnd() % (max + 1) : 0;
		m = malloc(len[i] + 1);
		if (!m)
			return 2;
		for (size_t j = 0; j < len[i]; j++)
			m[j] = (uint8_t)rnd();
		msg[i] = m;
		total += len[i];
	}
	md5lanes_each(msg, len, n, got, passed, NULL);
	md5lanes_serial(msg, len, n, want);
	for (size_t i = 0; i < n; i++)
		same += !memcmp(got[i], want[i], 16);
	printf("%zu of %zu digests as libmd's\n", same, n);
	for (size_t i = 0; i < n; i++)
		if (memcmp(got[i], want[i], 16)) {
			printf("first differing: message %zu, %zu bytes\n", i,
			       len[i]);
			break;
		}
	if (passed_bytes != total)
		printf("passed told of %zu bytes of %zu\n", passed_bytes, total);
	for (size_t i = 0; i < n; i++)
		free((void *)msg[i]);
	free(msg);
	free(len);
	free(got);
	free(want);
	return same != n || passed_bytes != total;
}
