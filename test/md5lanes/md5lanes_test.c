/* Checks core/md5lanes.c against libmd, one message after another
 * (test/md5lanes.test).
 *   md5lanes_test N MAXLEN SEED
 * N messages of pseudo-random lengths up to MAXLEN (among them the
 * lengths around a block: 0, 1, 55, 56, 63, 64, 65, 119, 120, 127, 128),
 * pseudo-random bytes; prints how many digests agree, and the first
 * that does not, and whether the bytes the hasher read through its
 * reader (md5lanes_each) were every byte once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/md5lanes.h"

static unsigned long long seed;
static size_t read_bytes;

/* The copy the hasher reads, each byte turned over: a hasher that read
 * the message where it lies, not the copy, gets other digests. */
static void read_flipped(void *ctx, uint8_t *dst, const uint8_t *p, size_t n)
{
	(void)ctx;
	for (size_t i = 0; i < n; i++)
		dst[i] = (uint8_t)~p[i];
	read_bytes += n;
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
	uint8_t (*got)[16], (*want)[16], (*got_read)[16], (*want_read)[16];

	if (argc != 4)
		return 2;
	n = strtoul(argv[1], NULL, 10);
	max = strtoul(argv[2], NULL, 10);
	seed = strtoull(argv[3], NULL, 10);
	msg = calloc(n + 1, sizeof(*msg));
	len = calloc(n + 1, sizeof(*len));
	got = calloc(n + 1, sizeof(*got));
	want = calloc(n + 1, sizeof(*want));
	got_read = calloc(n + 1, sizeof(*got_read));
	want_read = calloc(n + 1, sizeof(*want_read));
	if (!msg || !len || !got || !want || !got_read || !want_read)
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
	/* In place, and through a reader that turns every byte over
	 * (whose digests are those of the messages turned over). */
	md5lanes_each(msg, len, n, got, NULL, NULL);
	md5lanes_serial(msg, len, n, want);
	md5lanes_each(msg, len, n, got_read, read_flipped, NULL);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < len[i]; j++)
			((uint8_t *)msg[i])[j] = (uint8_t)~msg[i][j];
	md5lanes_serial(msg, len, n, want_read);
	for (size_t i = 0; i < n; i++)
		same += !memcmp(got[i], want[i], 16) &&
			!memcmp(got_read[i], want_read[i], 16);
	printf("%zu of %zu digests as libmd's\n", same, n);
	for (size_t i = 0; i < n; i++)
		if (memcmp(got[i], want[i], 16) ||
		    memcmp(got_read[i], want_read[i], 16)) {
			printf("first differing: message %zu, %zu bytes%s\n",
			       i, len[i], memcmp(got[i], want[i], 16) ? ""
			       : ", through the reader");
			break;
		}
	if (read_bytes != total)
		printf("read %zu bytes of %zu\n", read_bytes, total);
	for (size_t i = 0; i < n; i++)
		free((void *)msg[i]);
	free(msg);
	free(len);
	free(got);
	free(want);
	free(got_read);
	free(want_read);
	return same != n || read_bytes != total;
}
