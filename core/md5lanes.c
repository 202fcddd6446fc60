/* md5lanes: see md5lanes.h.  RFC 1321's MD5, its 64 steps on sixteen
 * messages at once, two 256-bit vectors of eight side by side (AVX2, or
 * AVX-512VL's shorter instructions): each lane holds one message's
 * state word, each block's sixteen words are gathered across the lanes
 * (an 8x8 transpose of 32-bit words); a message whose whole blocks are
 * done is finished by libmd (its tail, the padding), its lane given the
 * next message, the longest first. */
#include <md5.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "md5lanes.h"

/* Bytes a lane reads at a time through a reader (a whole number of
 * blocks): sixteen of them stay in the L2 cache. */
enum { CHUNK = 64 << 10 };

/* MD5Update of p[0, n): through read, CHUNK bytes at a time into buf,
 * when read. */
static void update(MD5_CTX *c, const uint8_t *p, size_t n,
		   md5lanes_read *read, void *ctx, uint8_t *buf)
{
	if (!read) {
		MD5Update(c, p, n);
		return;
	}
	while (n) {
		size_t run = n < CHUNK ? n : CHUNK;

		read(ctx, buf, p, run);
		MD5Update(c, buf, run);
		p += run;
		n -= run;
	}
}

static void serial(const uint8_t *const *msg, const size_t *len, size_t n,
		   uint8_t (*digest)[16], md5lanes_read *read, void *ctx,
		   uint8_t *buf)
{
	for (size_t i = 0; i < n; i++) {
		MD5_CTX c;

		MD5Init(&c);
		update(&c, msg[i], len[i], read, ctx, buf);
		MD5Final(digest[i], &c);
	}
}

void md5lanes_serial(const uint8_t *const *msg, const size_t *len, size_t n,
		     uint8_t (*digest)[16])
{
	serial(msg, len, n, digest, NULL, NULL, NULL);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2")))
/* The same 256-bit lanes with AVX-512VL's three-input logic and rotate:
 * each step's function one instruction, its rotation one (of 3-4 and 3). */
#define AVX512VL __attribute__((target("avx2,avx512f,avx512vl")))

enum { LANES = 16 };	/* two vectors of eight */

static const uint32_t K[64] = {
	0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf,
	0x4787c62a, 0xa8304613, 0xfd469501, 0x698098d8, 0x8b44f7af,
	0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e,
	0x49b40821, 0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa,
	0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8, 0x21e1cde6,
	0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8,
	0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122,
	0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
	0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039,
	0xe6db99e5, 0x1fa27cf8, 0xc4ac5665, 0xf4292244, 0x432aff97,
	0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d,
	0x85845dd1, 0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1,
	0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};
static const uint8_t S[64] = {
	7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
	5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
	4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
	6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
};
static const uint8_t G[64] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
	1, 6, 11, 0, 5, 10, 15, 4, 9, 14, 3, 8, 13, 2, 7, 12,
	5, 8, 11, 14, 1, 4, 7, 10, 13, 0, 3, 6, 9, 12, 15, 2,
	0, 7, 14, 5, 12, 3, 10, 1, 8, 15, 6, 13, 4, 11, 2, 9,
};

/* Words 0-7 of eight rows, made eight columns: out[j] holds word j of
 * every row, row k in element k.  Inlined, and the groups' loops below
 * unrolled: else GCC keeps the words and the states in memory, a load,
 * a store and a branch a step (half the speed). */
#define INLINE inline __attribute__((always_inline))
AVX2 static INLINE void transpose(const __m256i r[8], __m256i out[8])
{
	__m256i t[8], u[8];

	for (int i = 0; i < 4; i++) {
		t[2 * i] = _mm256_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
		t[2 * i + 1] = _mm256_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
	}
	u[0] = _mm256_unpacklo_epi64(t[0], t[2]);
	u[1] = _mm256_unpackhi_epi64(t[0], t[2]);
	u[2] = _mm256_unpacklo_epi64(t[1], t[3]);
	u[3] = _mm256_unpackhi_epi64(t[1], t[3]);
	u[4] = _mm256_unpacklo_epi64(t[4], t[6]);
	u[5] = _mm256_unpackhi_epi64(t[4], t[6]);
	u[6] = _mm256_unpacklo_epi64(t[5], t[7]);
	u[7] = _mm256_unpackhi_epi64(t[5], t[7]);
	for (int j = 0; j < 4; j++) {
		out[j] = _mm256_permute2x128_si256(u[j], u[j + 4], 0x20);
		out[j + 4] = _mm256_permute2x128_si256(u[j], u[j + 4], 0x31);
	}
}

/* Each step's function of (b, c, d) and its rotation, with AVX2 and with
 * AVX-512VL (its truth tables of F, G, H and I, and its rotate). */
AVX2 static inline __m256i fn_avx2(int i, __m256i b, __m256i c, __m256i d)
{
	if (i < 16)
		return _mm256_or_si256(_mm256_and_si256(b, c),
				       _mm256_andnot_si256(b, d));
	if (i < 32)
		return _mm256_or_si256(_mm256_and_si256(b, d),
				       _mm256_andnot_si256(d, c));
	if (i < 48)
		return _mm256_xor_si256(_mm256_xor_si256(b, c), d);
	return _mm256_xor_si256(c, _mm256_or_si256(b, _mm256_xor_si256(d,
						   _mm256_set1_epi32(-1))));
}

AVX2 static inline __m256i rot_avx2(__m256i f, int s)
{
	return _mm256_or_si256(_mm256_slli_epi32(f, s),
			       _mm256_srli_epi32(f, 32 - s));
}

AVX512VL static inline __m256i fn_vl(int i, __m256i b, __m256i c, __m256i d)
{
	if (i < 16)
		return _mm256_ternarylogic_epi32(b, c, d, 0xca);
	if (i < 32)
		return _mm256_ternarylogic_epi32(b, c, d, 0xe4);
	if (i < 48)
		return _mm256_ternarylogic_epi32(b, c, d, 0x96);
	return _mm256_ternarylogic_epi32(b, c, d, 0x39);
}

AVX512VL static inline __m256i rot_vl(__m256i f, int s)
{
	return _mm256_rolv_epi32(f, _mm256_set1_epi32(s));
}

#if defined(__clang__)
#define UNROLL _Pragma("clang loop unroll(full)")
#else
#define UNROLL _Pragma("GCC unroll 64")
#endif

/* nblocks blocks of each lane's message from p[k] (p[k] moves on by
 * step[k]: 64, or 0 for a lane with nothing to do), in GROUPS groups of
 * eight lanes (state st[0..3] and st[4..7]) whose steps interleave: one
 * step waits on the last (MD5 is a chain), so two chains side by side
 * take about the time of one.  a + K + m is added first, off the chain.
 * Unrolled, each step's constants are immediates. */
#define BLOCKS(NAME, ATTR, FN, ROT, GROUPS)				\
ATTR static void NAME(__m256i st[8], const uint8_t *p[LANES],		\
		      const size_t step[LANES], size_t nblocks)		\
{									\
	for (size_t blk = 0; blk < nblocks; blk++) {			\
		__m256i r[8], m[2][16];					\
		__m256i a[2], b[2], c[2], d[2];				\
									\
		UNROLL							\
		for (int g = 0; g < GROUPS; g++) {				\
			for (int k = 0; k < 8; k++)			\
				r[k] = _mm256_loadu_si256(		\
					(const __m256i *)p[8 * g + k]);	\
			transpose(r, m[g]);				\
			for (int k = 0; k < 8; k++)			\
				r[k] = _mm256_loadu_si256(		\
					(const __m256i *)(p[8 * g + k] + 32)); \
			transpose(r, m[g] + 8);				\
			a[g] = st[4 * g];				\
			b[g] = st[4 * g + 1];				\
			c[g] = st[4 * g + 2];				\
			d[g] = st[4 * g + 3];				\
		}							\
		UNROLL							\
		for (int i = 0; i < 64; i++) {				\
			__m256i k = _mm256_set1_epi32((int)K[i]);	\
									\
			UNROLL						\
			for (int g = 0; g < GROUPS; g++) {			\
				__m256i x = _mm256_add_epi32(a[g],	\
					_mm256_add_epi32(k, m[g][G[i]])); \
				__m256i f = _mm256_add_epi32(		\
					FN(i, b[g], c[g], d[g]), x);	\
									\
				a[g] = d[g];				\
				d[g] = c[g];				\
				c[g] = b[g];				\
				b[g] = _mm256_add_epi32(b[g], ROT(f, S[i])); \
			}						\
		}							\
		for (int g = 0; g < GROUPS; g++) {				\
			st[4 * g] = _mm256_add_epi32(st[4 * g], a[g]);	\
			st[4 * g + 1] = _mm256_add_epi32(st[4 * g + 1], b[g]); \
			st[4 * g + 2] = _mm256_add_epi32(st[4 * g + 2], c[g]); \
			st[4 * g + 3] = _mm256_add_epi32(st[4 * g + 3], d[g]); \
		}							\
		for (int k = 0; k < 8 * GROUPS; k++)			\
			p[k] += step[k];				\
	}								\
}

BLOCKS(blocks1, AVX2, fn_avx2, rot_avx2, 1)
BLOCKS(blocks2, AVX2, fn_avx2, rot_avx2, 2)
BLOCKS(blocks_vl1, AVX512VL, fn_vl, rot_vl, 1)
BLOCKS(blocks_vl2, AVX512VL, fn_vl, rot_vl, 2)

/* Longest first: the lanes then end close together. */
struct job {
	size_t len, i;
};

static int longer(const void *x, const void *y)
{
	const struct job *a = x, *b = y;

	return a->len != b->len ? (a->len < b->len ? 1 : -1)
				: (a->i > b->i) - (a->i < b->i);
}

/* Message i, whose lane k has hashed its first done bytes and holds the
 * next have bytes at p[k]: the rest, the padding and the digest by libmd,
 * from the state the lane reached. */
static void finish(const uint8_t *const *msg, const size_t *len,
		   uint32_t w[4][LANES], int k, size_t i, size_t done,
		   const uint8_t *const *p, size_t have,
		   uint8_t (*digest)[16], md5lanes_read *read, void *ctx,
		   uint8_t *buf)
{
	MD5_CTX c;

	MD5Init(&c);
	for (int j = 0; j < 4; j++)
		c.state[j] = w[j][k];
	c.count = (uint64_t)done * 8;
	MD5Update(&c, p[k], have);
	done += have;
	update(&c, msg[i] + done, len[i] - done, read, ctx, buf);
	MD5Final(digest[i], &c);
}

/* Lane k's next blocks: read (CHUNK bytes at most) into its buffer,
 * or where they lie. */
static void fill(int k, const uint8_t *at, size_t left, md5lanes_read *read,
		 void *ctx, uint8_t *buf, const uint8_t **p, size_t *avail)
{
	size_t n;

	if (!read) {
		p[k] = at;
		avail[k] = left;
		return;
	}
	n = left < CHUNK / 64 ? left : CHUNK / 64;
	read(ctx, buf + (size_t)k * CHUNK, at, n * 64);
	p[k] = buf + (size_t)k * CHUNK;
	avail[k] = n;
}

AVX2 static void lanes(const uint8_t *const *msg, const size_t *len,
		       struct job *q, size_t n, uint8_t (*digest)[16],
		       md5lanes_read *read, void *ctx, uint8_t *buf)
{
	bool vl = __builtin_cpu_supports("avx512f") &&
		  __builtin_cpu_supports("avx512vl");
	static const uint8_t idle[64];
	const uint8_t *p[LANES];
	size_t step[LANES], left[LANES], avail[LANES], who[LANES], next = 0;
	bool busy[LANES] = { false }, second;
	__m256i st[8];
	uint32_t w[4][LANES];
	size_t active = 0;
	/* The reader's buffers, then one for libmd's tails. */
	uint8_t *tail = buf ? buf + (size_t)LANES * CHUNK : NULL;

	for (int k = 0; k < LANES; k++) {
		p[k] = idle;
		step[k] = 0;
		avail[k] = 0;
		for (int j = 0; j < 4; j++)
			w[j][k] = 0;
	}
	for (;;) {
		size_t run = SIZE_MAX;

		/* Lanes given messages of whole blocks; a message shorter
		 * than a block is libmd's alone. */
		for (int k = 0; k < LANES && next < n; k++) {
			if (busy[k])
				continue;
			while (next < n && q[next].len < 64) {
				size_t i = q[next++].i;

				serial(&msg[i], &len[i], 1, &digest[i], read,
				       ctx, tail);
			}
			if (next == n)
				break;
			who[k] = q[next++].i;
			step[k] = 64;
			left[k] = len[who[k]] / 64;
			avail[k] = 0;
			w[0][k] = 0x67452301;
			w[1][k] = 0xefcdab89;
			w[2][k] = 0x98badcfe;
			w[3][k] = 0x10325476;
			busy[k] = true;
			active++;
		}
		if (!active)
			break;
		/* The last message alone: libmd is faster than one lane of
		 * sixteen. */
		if (active == 1 && next == n) {
			for (int k = 0; k < LANES; k++)
				if (busy[k])
					finish(msg, len, w, k, who[k],
					       (len[who[k]] / 64 - left[k]) * 64,
					       p, avail[k] * 64, digest, read,
					       ctx, tail);
			break;
		}
		for (int k = 0; k < LANES; k++) {
			if (!busy[k])
				continue;
			if (!avail[k])
				fill(k, msg[who[k]] + (len[who[k]] / 64 -
						       left[k]) * 64,
				     left[k], read, ctx, buf, p, avail);
			if (avail[k] < run)
				run = avail[k];
		}
		for (int j = 0; j < 8; j++)
			st[j] = _mm256_loadu_si256(
				(const __m256i *)&w[j % 4][8 * (j / 4)]);
		/* The second eight only when one of them has work (the
		 * first are filled first). */
		second = false;
		for (int k = 8; k < LANES; k++)
			second = second || busy[k];
		if (vl)
			(second ? blocks_vl2 : blocks_vl1)(st, p, step, run);
		else
			(second ? blocks2 : blocks1)(st, p, step, run);
		for (int j = 0; j < 8; j++)
			_mm256_storeu_si256((__m256i *)&w[j % 4][8 * (j / 4)],
					    st[j]);
		/* Lanes whose whole blocks are done: their tails and the
		 * padding by libmd, from the state the lane reached. */
		for (int k = 0; k < LANES; k++) {
			if (!busy[k])
				continue;
			left[k] -= run;
			avail[k] -= run;
			if (left[k])
				continue;
			finish(msg, len, w, k, who[k], len[who[k]] / 64 * 64,
			       p, 0, digest, read, ctx, tail);
			busy[k] = false;
			p[k] = idle;
			step[k] = 0;
			avail[k] = 0;
			active--;
		}
	}
}

void md5lanes_each(const uint8_t *const *msg, const size_t *len, size_t n,
		   uint8_t (*digest)[16], md5lanes_read *read, void *ctx)
{
	struct job *q;
	/* Without room for the reader's buffers, the messages are read
	 * where they lie. */
	uint8_t *buf = read ? malloc((size_t)(LANES + 1) * CHUNK) : NULL;

	if (!buf)
		read = NULL;
	if (n < 2 || !__builtin_cpu_supports("avx2") ||
	    !(q = malloc(n * sizeof(*q)))) {
		serial(msg, len, n, digest, read, ctx,
		       buf ? buf + (size_t)LANES * CHUNK : NULL);
		free(buf);
		return;
	}
	for (size_t i = 0; i < n; i++)
		q[i] = (struct job){ len[i], i };
	qsort(q, n, sizeof(*q), longer);
	lanes(msg, len, q, n, digest, read, ctx, buf);
	free(q);
	free(buf);
}

#else

void md5lanes_each(const uint8_t *const *msg, const size_t *len, size_t n,
		   uint8_t (*digest)[16], md5lanes_read *read, void *ctx)
{
	uint8_t *buf = read ? malloc(CHUNK) : NULL;

	serial(msg, len, n, digest, buf ? read : NULL, ctx, buf);
	free(buf);
}

#endif

void md5lanes(const uint8_t *const *msg, const size_t *len, size_t n,
	      uint8_t (*digest)[16])
{
	md5lanes_each(msg, len, n, digest, NULL, NULL);
}
