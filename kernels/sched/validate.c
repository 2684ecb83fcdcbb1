/*
 * kernels/sched/validate.c: the data pattern. Eight bytes at a time from a
 * splitmix64 of (source, sequence, word index): cheap enough to refill the
 * send buffers every iteration outside the timed window, and different for
 * every source, iteration and offset.
 */
#include "validate.h"

#include <string.h>

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

uint64_t pattern_word(int src, uint64_t seq, uint64_t i)
{
	return mix(mix(((uint64_t)(unsigned)src << 32) ^ seq) ^ i);
}

void pattern_fill(void *buf, size_t len, int src, uint64_t seq)
{
	unsigned char *p = buf;
	size_t i, nw = len / 8;

	for (i = 0; i < nw; i++) {
		uint64_t w = pattern_word(src, seq, i);

		memcpy(p + 8 * i, &w, 8);
	}
	if (len % 8) {
		uint64_t w = pattern_word(src, seq, nw);

		memcpy(p + 8 * nw, &w, len % 8);
	}
}

/* pattern_check of words w0, w0 + 1, ... of the pattern. */
static long long check_words(const unsigned char *p, size_t len, int src, uint64_t seq, size_t w0)
{
	size_t nw = (len + 7) / 8;

	for (size_t i = 0; i < nw; i++) {
		uint64_t w = pattern_word(src, seq, w0 + i);
		size_t n = len - 8 * i < 8 ? len - 8 * i : 8;
		unsigned char want[8];

		memcpy(want, &w, 8);
		if (memcmp(p + 8 * i, want, n))
			for (size_t b = 0; b < n; b++)
				if (p[8 * i + b] != want[b])
					return (long long)(8 * i + b);
	}
	return -1;
}

long long pattern_check(const void *buf, size_t len, int src, uint64_t seq)
{
	return check_words(buf, len, src, seq, 0);
}

/* Off a word boundary (an alltoall block of a size not a multiple of 8),
 * byte by byte. */
long long pattern_check_from(const void *buf, size_t len, int src, uint64_t seq, size_t from)
{
	const unsigned char *p = buf;
	unsigned char want[8];

	if (from % 8 == 0)
		return check_words(p, len, src, seq, from / 8);
	for (size_t b = 0; b < len; b++) {
		size_t x = from + b;

		if (b == 0 || x % 8 == 0) {
			uint64_t w = pattern_word(src, seq, x / 8);

			memcpy(want, &w, 8);
		}
		if (p[b] != want[x % 8])
			return (long long)b;
	}
	return -1;
}
