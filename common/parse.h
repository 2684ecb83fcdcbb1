/*
 * common/parse.h: number and name parsing shared by the tuner and the kernel
 * (pure C, no MPI). The number parsers return 0 on success and -1 on a bad
 * value, with a sentence for people in the caller's buffer err[errlen].
 */
#ifndef SWEETSPOT_PARSE_H
#define SWEETSPOT_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* The index of name s in names[0..n) (the enums' name tables), or -1
 * (s NULL included). */
int parse_name(const char *s, const char *const *names, int n);

/* Two optional strings are the same: both NULL, or equal. */
int parse_same_str(const char *a, const char *b);

/* A launch budget: "N" launches (1 <= N <= 100000000: *n = N, *frac = 0)
 * or "P%" of the grid's launches (0 < P <= 100, decimals allowed: *n = 0,
 * *frac = P / 100). */
int parse_budget(const char *s, unsigned *n, double *frac, char *err, size_t errlen);

/* An unsigned integer in [min, max], decimal only, no sign, no suffix. */
int parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out, char *err, size_t errlen);

/* A byte count with an optional binary suffix K, M or G (also KiB, MiB, GiB;
 * case-insensitive): "4096", "256K", "1M". Must be >= 1. */
int parse_size(const char *s, uint64_t *out, char *err, size_t errlen);

/* A list "256K,1M" or a range "256K:4M" (every power of two from the first to
 * the last, both powers of two, first <= last) of sizes. When pow2 is set,
 * every size of a list must be a power of two too. Stores up to max values
 * in out[] and their count in *n. */
int parse_sizes(const char *s, int pow2, uint64_t *out, size_t max, size_t *n, char *err,
		size_t errlen);

/* Writes a size for people: 1048576 -> "1M", 3000 -> "3000". */
const char *format_size(uint64_t bytes, char *buf, size_t len);

static inline int is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

#endif
