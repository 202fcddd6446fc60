/* bytes: fixed-width integers read from and written to byte buffers in a
 * given byte order, whatever the host's and however the buffer is aligned.
 * The on-disk formats (bundles, CCOB, offload packages, ar, ELF, fatbins)
 * all go through these. */
#ifndef CORE_BYTES_H
#define CORE_BYTES_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* The n-byte (1..8) little-endian integer at p. */
static inline uint64_t get_le(const uint8_t *p, int n)
{
	uint64_t v = 0;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* One load where n is known, as at nearly every call: the compilers
	 * do not make one of the loop below (it was a sixth of the
	 * instructions of a listing of NVIDIA's fatbins). */
	switch (n) {
	case 2: {
		uint16_t v16;

		memcpy(&v16, p, 2);
		return v16;
	}
	case 4: {
		uint32_t v32;

		memcpy(&v32, p, 4);
		return v32;
	}
	case 8:
		memcpy(&v, p, 8);
		return v;
	}
#endif

	for (int i = n - 1; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static inline void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* The n-byte integer at p, big-endian when be is set. */
static inline uint64_t get_endian(const uint8_t *p, int n, bool be)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v |= (uint64_t)p[be ? n - 1 - i : i] << (8 * i);
	return v;
}

static inline void put_endian(uint8_t *p, int n, uint64_t v, bool be)
{
	for (int i = 0; i < n; i++)
		p[be ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

#endif
