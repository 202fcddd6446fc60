/* md5lanes: see md5lanes.h.  RFC 1321's MD5, its 64 steps on eight
 * messages at once (AVX2, or AVX-512VL's shorter instructions on the same
 * 256-bit vectors): each lane of a 256-bit vector holds one message's
 * state word, each block's sixteen words are gathered across the lanes
 * (an 8x8 transpose of 32-bit words); a message whose whole blocks are
 * done is finished by libmd (its tail, the padding), its lane given the
 * next message, the longest first. */
#include <md5.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "md5lanes.h"

/* What passed is told of at once, at most. */
enum { PASSED_RUN = 4 << 20 };

/* MD5Update of p[0, n), passed told of each run hashed. */
static void update(MD5_CTX *c, const uint8_t *p, size_t n,
		   md5lanes_passed *passed, void *ctx)
{
	while (n) {
		size_t run = n < PASSED_RUN ? n : PASSED_RUN;

		MD5Update(c, p, run);
		if (passed)
			passed(ctx, p, run);
		p += run;
		n -= run;
	}
}

static void serial(const uint8_t *const *msg, const size_t *len, size_t n,
		   uint8_t (*digest)[16], md5lanes_passed *passed, void *ctx)
{
	for (size_t i = 0; i < n; i++) {
		MD5_CTX c;

		MD5Init(&c);
		update(&c, msg[i], len[i], passed, ctx);
		MD5Final(digest[i], &c);
	}
}

void md5lanes_serial(const uint8_t *const *msg, const size_t *len, size_t n,
		     uint8_t (*digest)[16])
{
	serial(msg, len, n, digest, NULL, NULL);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2")))
/* The same 256-bit lanes with AVX-512VL's three-input logic and rotate:
 * each step's function one instruction, its rotation one (of 3-4 and 3). */
#define AVX512VL __attribute__((target("avx2,avx512f,avx512vl")))

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
 * every row, row k in element k. */
AVX2 static void transpose(const __m256i r[8], __m256i out[8])
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

/* nblocks blocks of each lane's message from p[k] (p[k] moves on by
 * step[k]: 64, or 0 for a lane with nothing to do). */
AVX2 static void blocks(__m256i st[4], const uint8_t *p[8],
			const size_t step[8], size_t nblocks)
{
	for (size_t blk = 0; blk < nblocks; blk++) {
		__m256i r[8], m[16];
		__m256i a = st[0], b = st[1], c = st[2], d = st[3];

		for (int k = 0; k < 8; k++)
			r[k] = _mm256_loadu_si256((const __m256i *)p[k]);
		transpose(r, m);
		for (int k = 0; k < 8; k++)
			r[k] = _mm256_loadu_si256((const __m256i *)(p[k] + 32));
		transpose(r, m + 8);
		/* Unrolled, each step's constants are immediates. */
#if defined(__clang__)
#pragma clang loop unroll(full)
#else
#pragma GCC unroll 64
#endif
		for (int i = 0; i < 64; i++) {
			__m256i f, rot;

			if (i < 16)
				f = _mm256_or_si256(_mm256_and_si256(b, c),
						    _mm256_andnot_si256(b, d));
			else if (i < 32)
				f = _mm256_or_si256(_mm256_and_si256(b, d),
						    _mm256_andnot_si256(d, c));
			else if (i < 48)
				f = _mm256_xor_si256(_mm256_xor_si256(b, c), d);
			else
				f = _mm256_xor_si256(c, _mm256_or_si256(b,
					_mm256_xor_si256(d,
						_mm256_set1_epi32(-1))));
			f = _mm256_add_epi32(_mm256_add_epi32(f, a),
					     _mm256_add_epi32(
						_mm256_set1_epi32((int)K[i]),
						m[G[i]]));
			rot = _mm256_or_si256(_mm256_slli_epi32(f, S[i]),
					      _mm256_srli_epi32(f, 32 - S[i]));
			a = d;
			d = c;
			c = b;
			b = _mm256_add_epi32(b, rot);
		}
		st[0] = _mm256_add_epi32(st[0], a);
		st[1] = _mm256_add_epi32(st[1], b);
		st[2] = _mm256_add_epi32(st[2], c);
		st[3] = _mm256_add_epi32(st[3], d);
		for (int k = 0; k < 8; k++)
			p[k] += step[k];
	}
}

/* blocks() with AVX-512VL: the same steps, fewer instructions. */
AVX512VL static void blocks_vl(__m256i st[4], const uint8_t *p[8],
			       const size_t step[8], size_t nblocks)
{
	for (size_t blk = 0; blk < nblocks; blk++) {
		__m256i r[8], m[16];
		__m256i a = st[0], b = st[1], c = st[2], d = st[3];

		for (int k = 0; k < 8; k++)
			r[k] = _mm256_loadu_si256((const __m256i *)p[k]);
		transpose(r, m);
		for (int k = 0; k < 8; k++)
			r[k] = _mm256_loadu_si256((const __m256i *)(p[k] + 32));
		transpose(r, m + 8);
#if defined(__clang__)
#pragma clang loop unroll(full)
#else
#pragma GCC unroll 64
#endif
		for (int i = 0; i < 64; i++) {
			__m256i f;

			/* The truth tables of F, G, H and I over (b, c, d). */
			if (i < 16)
				f = _mm256_ternarylogic_epi32(b, c, d, 0xca);
			else if (i < 32)
				f = _mm256_ternarylogic_epi32(b, c, d, 0xe4);
			else if (i < 48)
				f = _mm256_ternarylogic_epi32(b, c, d, 0x96);
			else
				f = _mm256_ternarylogic_epi32(b, c, d, 0x39);
			f = _mm256_add_epi32(_mm256_add_epi32(f, a),
					     _mm256_add_epi32(
						_mm256_set1_epi32((int)K[i]),
						m[G[i]]));
			f = _mm256_rolv_epi32(f, _mm256_set1_epi32(S[i]));
			a = d;
			d = c;
			c = b;
			b = _mm256_add_epi32(b, f);
		}
		st[0] = _mm256_add_epi32(st[0], a);
		st[1] = _mm256_add_epi32(st[1], b);
		st[2] = _mm256_add_epi32(st[2], c);
		st[3] = _mm256_add_epi32(st[3], d);
		for (int k = 0; k < 8; k++)
			p[k] += step[k];
	}
}

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

/* Message i, whose lane k has hashed it up to at: the rest, the
 * padding and the digest by libmd, from the state the lane reached. */
static void finish(const uint8_t *const *msg, const size_t *len,
		   uint32_t w[4][8], int k, size_t i, const uint8_t *at,
		   uint8_t (*digest)[16], md5lanes_passed *passed, void *ctx)
{
	size_t done = (size_t)(at - msg[i]);
	MD5_CTX c;

	MD5Init(&c);
	for (int j = 0; j < 4; j++)
		c.state[j] = w[j][k];
	c.count = (uint64_t)done * 8;
	update(&c, at, len[i] - done, passed, ctx);
	MD5Final(digest[i], &c);
}

AVX2 static void lanes(const uint8_t *const *msg, const size_t *len,
		       struct job *q, size_t n, uint8_t (*digest)[16],
		       md5lanes_passed *passed, void *ctx)
{
	bool vl = __builtin_cpu_supports("avx512f") &&
		  __builtin_cpu_supports("avx512vl");
	static const uint8_t idle[64];
	const uint8_t *p[8], *from[8];
	size_t step[8], left[8], who[8], next = 0;
	bool busy[8] = { false };
	__m256i st[4];
	uint32_t w[4][8];
	size_t active = 0;

	for (int k = 0; k < 8; k++) {
		p[k] = idle;
		step[k] = 0;
		for (int j = 0; j < 4; j++)
			w[j][k] = 0;
	}
	for (;;) {
		size_t run = SIZE_MAX;

		/* Lanes given messages of whole blocks; a message shorter
		 * than a block is libmd's alone. */
		for (int k = 0; k < 8 && next < n; k++) {
			if (busy[k])
				continue;
			while (next < n && q[next].len < 64) {
				size_t i = q[next++].i;

				serial(&msg[i], &len[i], 1, &digest[i], passed,
				       ctx);
			}
			if (next == n)
				break;
			who[k] = q[next++].i;
			p[k] = msg[who[k]];
			step[k] = 64;
			left[k] = len[who[k]] / 64;
			w[0][k] = 0x67452301;
			w[1][k] = 0xefcdab89;
			w[2][k] = 0x98badcfe;
			w[3][k] = 0x10325476;
			busy[k] = true;
			active++;
		}
		if (!active)
			break;
		/* The last message alone: libmd is twice as fast as one lane
		 * of eight. */
		if (active == 1 && next == n) {
			for (int k = 0; k < 8; k++)
				if (busy[k])
					finish(msg, len, w, k, who[k], p[k],
					       digest, passed, ctx);
			break;
		}
		for (int k = 0; k < 8; k++)
			if (busy[k] && left[k] < run)
				run = left[k];
		if (passed && run > PASSED_RUN / 64)
			run = PASSED_RUN / 64;
		for (int k = 0; k < 8; k++)
			from[k] = p[k];
		for (int j = 0; j < 4; j++)
			st[j] = _mm256_loadu_si256((const __m256i *)w[j]);
		if (vl)
			blocks_vl(st, p, step, run);
		else
			blocks(st, p, step, run);
		for (int j = 0; j < 4; j++)
			_mm256_storeu_si256((__m256i *)w[j], st[j]);
		for (int k = 0; k < 8 && passed; k++)
			if (busy[k])
				passed(ctx, from[k], run * 64);
		/* Lanes whose whole blocks are done: their tails and the
		 * padding by libmd, from the state the lane reached. */
		for (int k = 0; k < 8; k++) {
			if (!busy[k])
				continue;
			left[k] -= run;
			if (left[k])
				continue;
			finish(msg, len, w, k, who[k], p[k], digest, passed,
			       ctx);
			busy[k] = false;
			p[k] = idle;
			step[k] = 0;
			active--;
		}
	}
}

void md5lanes_each(const uint8_t *const *msg, const size_t *len, size_t n,
		   uint8_t (*digest)[16], md5lanes_passed *passed, void *ctx)
{
	struct job *q;

	if (n < 2 || !__builtin_cpu_supports("avx2") ||
	    !(q = malloc(n * sizeof(*q)))) {
		serial(msg, len, n, digest, passed, ctx);
		return;
	}
	for (size_t i = 0; i < n; i++)
		q[i] = (struct job){ len[i], i };
	qsort(q, n, sizeof(*q), longer);
	lanes(msg, len, q, n, digest, passed, ctx);
	free(q);
}

#else

void md5lanes_each(const uint8_t *const *msg, const size_t *len, size_t n,
		   uint8_t (*digest)[16], md5lanes_passed *passed, void *ctx)
{
	serial(msg, len, n, digest, passed, ctx);
}

#endif

void md5lanes(const uint8_t *const *msg, const size_t *len, size_t n,
	      uint8_t (*digest)[16])
{
	md5lanes_each(msg, len, n, digest, NULL, NULL);
}
