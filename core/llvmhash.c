/* llvmhash: LLVM 22's hash_combine_range over bytes; see llvmhash.h.
 * LLVM builds with ABI-breaking checks seed it per process; the Debian and
 * upstream release builds use the fixed seed below. */
#include <string.h>
#include <xxhash.h>

#include "llvmhash.h"

static const uint64_t k0 = 0xc3a5c85c97cb3127ULL;
static const uint64_t k1 = 0xb492b66fbe98f273ULL;
static const uint64_t k2 = 0x9ae16a3b2f90404fULL;
static const uint64_t k3 = 0xc949d7c7509e6557ULL;
static const uint64_t seed = 0xff51afd7ed558ccdULL;

static uint64_t load64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static uint64_t load32(const uint8_t *p)
{
	return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
	       (uint64_t)p[3] << 24;
}

static uint64_t ror(uint64_t v, unsigned n)
{
	n &= 63;
	return n ? (v >> n) | (v << (64 - n)) : v;
}

static uint64_t shift_mix(uint64_t v)
{
	return v ^ (v >> 47);
}

static uint64_t hash_16(uint64_t low, uint64_t high)
{
	const uint64_t mul = 0x9ddfea08eb382d69ULL;
	uint64_t a = (low ^ high) * mul, b;

	a ^= a >> 47;
	b = (high ^ a) * mul;
	b ^= b >> 47;
	return b * mul;
}

static uint64_t short_1to3(const uint8_t *s, size_t n)
{
	uint32_t y = (uint32_t)s[0] + ((uint32_t)s[n >> 1] << 8);
	uint32_t z = (uint32_t)n + ((uint32_t)s[n - 1] << 2);

	return shift_mix((uint64_t)y * k2 ^ (uint64_t)z * k3 ^ seed) * k2;
}

static uint64_t short_4to8(const uint8_t *s, size_t n)
{
	return hash_16(n + (load32(s) << 3), seed ^ load32(s + n - 4));
}

static uint64_t short_9to16(const uint8_t *s, size_t n)
{
	uint64_t a = load64(s), b = load64(s + n - 8);

	return hash_16(seed ^ a, ror(b + n, (unsigned)n)) ^ b;
}

static uint64_t short_17to32(const uint8_t *s, size_t n)
{
	uint64_t a = load64(s) * k1, b = load64(s + 8);
	uint64_t c = load64(s + n - 8) * k2, d = load64(s + n - 16) * k0;

	return hash_16(ror(a - b, 43) + ror(c ^ seed, 30) + d,
		       a + ror(b ^ k3, 20) - c + n + seed);
}

static uint64_t short_33to64(const uint8_t *s, size_t n)
{
	uint64_t z = load64(s + 24);
	uint64_t a = load64(s) + (n + load64(s + n - 16)) * k0;
	uint64_t b = ror(a + z, 52), c = ror(a, 37);
	uint64_t vf, vs, wf, ws, r;

	a += load64(s + 8);
	c += ror(a, 7);
	a += load64(s + 16);
	vf = a + z;
	vs = b + ror(a, 31) + c;
	a = load64(s + 16) + load64(s + n - 32);
	z = load64(s + n - 8);
	b = ror(a + z, 52);
	c = ror(a, 37);
	a += load64(s + n - 24);
	c += ror(a, 7);
	a += load64(s + n - 16);
	wf = a + z;
	ws = b + ror(a, 31) + c;
	r = shift_mix((vf + ws) * k2 + (wf + vs) * k0);
	return shift_mix((seed ^ (r * k0)) + vs) * k2;
}

/* The 64-byte block state of hash_combine_range for longer inputs. */
struct state {
	uint64_t h0, h1, h2, h3, h4, h5, h6;
};

static void mix_32(const uint8_t *p, uint64_t *a, uint64_t *b)
{
	uint64_t c, d;

	*a += load64(p);
	c = load64(p + 24);
	*b = ror(*b + *a + c, 21);
	d = *a;
	*a += load64(p + 8) + load64(p + 16);
	*b += ror(*a, 44) + d;
	*a += c;
}

static void mix_block(struct state *st, const uint8_t *p)
{
	uint64_t t;

	st->h0 = ror(st->h0 + st->h1 + st->h3 + load64(p + 8), 37) * k1;
	st->h1 = ror(st->h1 + st->h4 + load64(p + 48), 42) * k1;
	st->h0 ^= st->h6;
	st->h1 += st->h3 + load64(p + 40);
	st->h2 = ror(st->h2 + st->h5, 33) * k1;
	st->h3 = st->h4 * k1;
	st->h4 = st->h0 + st->h5;
	mix_32(p, &st->h3, &st->h4);
	st->h5 = st->h2 + st->h6;
	st->h6 = st->h1 + load64(p + 16);
	mix_32(p + 32, &st->h5, &st->h6);
	t = st->h0;
	st->h0 = st->h2;
	st->h2 = t;
}

static uint64_t long_hash(const uint8_t *s, size_t n)
{
	struct state st;
	size_t whole = n & ~(size_t)63;

	st.h0 = 0;
	st.h1 = seed;
	st.h2 = hash_16(seed, k1);
	st.h3 = ror(seed ^ k1, 49);
	st.h4 = seed * k1;
	st.h5 = shift_mix(seed);
	st.h6 = hash_16(st.h4, st.h5);
	mix_block(&st, s);
	for (size_t off = 64; off < whole; off += 64)
		mix_block(&st, s + off);
	if (n & 63)
		mix_block(&st, s + n - 64);
	return hash_16(hash_16(st.h3, st.h5) + shift_mix(st.h1) * k1 + st.h2,
		       hash_16(st.h4, st.h6) + shift_mix((uint64_t)n) * k1 + st.h0);
}

uint64_t llvmhash_bytes(const void *p, size_t n)
{
	const uint8_t *s = p;

	if (n == 0)
		return k2 ^ seed;
	if (n <= 3)
		return short_1to3(s, n);
	if (n <= 8)
		return short_4to8(s, n);
	if (n <= 16)
		return short_9to16(s, n);
	if (n <= 32)
		return short_17to32(s, n);
	if (n <= 64)
		return short_33to64(s, n);
	return long_hash(s, n);
}

uint64_t llvmhash23_bytes(const void *p, size_t n)
{
	return XXH3_64bits(p, n) ^ 0xff51afd7ed558ccdULL;
}
