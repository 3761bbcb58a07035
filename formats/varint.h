/* LEB128 variable-length integers and zigzag signed mapping: the native format's numbers. */
#ifndef PPERF_VARINT_H
#define PPERF_VARINT_H

#include <stddef.h>
#include <stdint.h>

#define VARINT_MAX 10 /* bytes of a 64-bit LEB128 number at most */

static inline uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Encode v at p (room for VARINT_MAX bytes); returns the bytes used. */
static inline size_t varint_put(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/*
 * Decode a number from p[0..len): returns the bytes used, 0 if it runs past len (truncated),
 * or -1 if it is malformed (longer than VARINT_MAX bytes or above 2^64).
 */
static inline int varint_get(const uint8_t *p, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	for (size_t i = 0; i < len && i < VARINT_MAX; i++) {
		uint64_t b = p[i] & 0x7f;

		if (i == 9 && p[i] > 1)
			return -1;
		v |= b << (7 * i);
		if (!(p[i] & 0x80)) {
			*out = v;
			return (int)i + 1;
		}
	}
	return len >= VARINT_MAX ? -1 : 0;
}

#endif
