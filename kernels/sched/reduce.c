/*
 * kernels/sched/reduce.c: OP_REDUCE's loops, one per element type, and the inputs
 * and check of reductions (see reduce.h for why the values are exact).
 */
#include "reduce.h"

#include <string.h>

#include "validate.h"

const char *const dtype_names[DT_N] = { "int32", "int64", "uint32", "uint64", "float", "double" };
const char *const redop_names[RO_N] = { "sum", "prod", "min",  "max", "band",
					"bor", "bxor", "land", "lor", "lxor" };

int redop_applies(enum dtype dt, enum redop op)
{
	if (dt < 0 || dt >= DT_N || op < 0 || op >= RO_N)
		return 0;
	return (dt != DT_FLOAT && dt != DT_DOUBLE) || op <= RO_MAX;
}

/* Integer loops: sums and products in the unsigned type U, where overflow
 * wraps (defined) instead of being undefined as in the signed one. */
#define INT_LOOPS(T, U)                                           \
	do {                                                      \
		T *d = dst;                                       \
		const T *s = src;                                 \
		switch (op) {                                     \
		case RO_SUM:                                      \
			for (size_t i = 0; i < n; i++)            \
				d[i] = (T)((U)d[i] + (U)s[i]);    \
			break;                                    \
		case RO_PROD:                                     \
			for (size_t i = 0; i < n; i++)            \
				d[i] = (T)((U)d[i] * (U)s[i]);    \
			break;                                    \
		case RO_MIN:                                      \
			for (size_t i = 0; i < n; i++)            \
				d[i] = s[i] < d[i] ? s[i] : d[i]; \
			break;                                    \
		case RO_MAX:                                      \
			for (size_t i = 0; i < n; i++)            \
				d[i] = s[i] > d[i] ? s[i] : d[i]; \
			break;                                    \
		case RO_BAND:                                     \
			for (size_t i = 0; i < n; i++)            \
				d[i] &= s[i];                     \
			break;                                    \
		case RO_BOR:                                      \
			for (size_t i = 0; i < n; i++)            \
				d[i] |= s[i];                     \
			break;                                    \
		case RO_BXOR:                                     \
			for (size_t i = 0; i < n; i++)            \
				d[i] ^= s[i];                     \
			break;                                    \
		case RO_LAND:                                     \
			for (size_t i = 0; i < n; i++)            \
				d[i] = d[i] && s[i];              \
			break;                                    \
		case RO_LOR:                                      \
			for (size_t i = 0; i < n; i++)            \
				d[i] = d[i] || s[i];              \
			break;                                    \
		case RO_LXOR:                                     \
			for (size_t i = 0; i < n; i++)            \
				d[i] = !d[i] != !s[i];            \
			break;                                    \
		default:                                          \
			break;                                    \
		}                                                 \
	} while (0)

#define FLOAT_LOOPS(T)                                            \
	do {                                                      \
		T *d = dst;                                       \
		const T *s = src;                                 \
		switch (op) {                                     \
		case RO_SUM:                                      \
			for (size_t i = 0; i < n; i++)            \
				d[i] += s[i];                     \
			break;                                    \
		case RO_PROD:                                     \
			for (size_t i = 0; i < n; i++)            \
				d[i] *= s[i];                     \
			break;                                    \
		case RO_MIN:                                      \
			for (size_t i = 0; i < n; i++)            \
				d[i] = s[i] < d[i] ? s[i] : d[i]; \
			break;                                    \
		case RO_MAX:                                      \
			for (size_t i = 0; i < n; i++)            \
				d[i] = s[i] > d[i] ? s[i] : d[i]; \
			break;                                    \
		default:                                          \
			break;                                    \
		}                                                 \
	} while (0)

void reduce_apply(enum dtype dt, enum redop op, void *dst, const void *src, size_t n)
{
	switch (dt) {
	case DT_INT32:
		INT_LOOPS(int32_t, uint32_t);
		break;
	case DT_INT64:
		INT_LOOPS(int64_t, uint64_t);
		break;
	case DT_UINT32:
		INT_LOOPS(uint32_t, uint32_t);
		break;
	case DT_UINT64:
		INT_LOOPS(uint64_t, uint64_t);
		break;
	case DT_FLOAT:
		FLOAT_LOOPS(float);
		break;
	case DT_DOUBLE:
		FLOAT_LOOPS(double);
		break;
	default:
		break;
	}
}

/* Element i of rank's input, stored at out (dtype_size(dt) bytes). */
static void input(enum dtype dt, enum redop op, int H, int rank, uint64_t seq, size_t i, void *out)
{
	uint64_t x = pattern_word(rank, seq, i), v;
	unsigned bits = (unsigned)dtype_size(dt) * 8;

	if (dt == DT_FLOAT || dt == DT_DOUBLE) {
		double f;

		if (op == RO_SUM)
			f = (double)(x % 17) - 8;
		else if (op == RO_PROD)
			f = (x & 1 ? -1.0 : 1.0) *
			    ((uint64_t)rank == (i + seq) % (uint64_t)H ? 2 : 1);
		else
			f = (double)(x % 2001) - 1000;
		if (dt == DT_FLOAT) {
			float s = (float)f;

			memcpy(out, &s, 4);
		} else {
			memcpy(out, &f, 8);
		}
		return;
	}
	switch (op) {
	case RO_PROD:
		v = x | 1;
		break;
	case RO_BAND:
		v = ~(1ull << (x % bits));
		break;
	case RO_BOR:
		v = 1ull << (x % bits);
		break;
	case RO_LAND:
		v = x % (2 * (uint64_t)H) == 0 ? 0 : (x >> 8) | 1;
		break;
	case RO_LOR:
		v = x % (2 * (uint64_t)H) == 0 ? (x >> 8) | 1 : 0;
		break;
	case RO_LXOR:
		v = x & 1 ? (x >> 8) | 1 : 0;
		break;
	default:
		v = x;
		break;
	}
	if (bits == 32) {
		uint32_t s = (uint32_t)v;

		memcpy(out, &s, 4);
	} else {
		memcpy(out, &v, 8);
	}
}

void reduce_fill(void *buf, size_t len, enum dtype dt, enum redop op, int H, int rank, uint64_t seq)
{
	size_t es = dtype_size(dt);

	for (size_t i = 0; i < len / es; i++)
		input(dt, op, H, rank, seq, i, (char *)buf + i * es);
}

long long reduce_check(const void *buf, size_t len, enum dtype dt, enum redop op, int H, int n,
		       uint64_t seq, size_t elem0)
{
	size_t es = dtype_size(dt);
	uint64_t want_, in_; /* 8-byte aligned for any element type */
	unsigned char *want = (unsigned char *)&want_, *in = (unsigned char *)&in_;
	const unsigned char *p = buf;

	for (size_t i = 0; i < len / es; i++) {
		input(dt, op, H, 0, seq, elem0 + i, want);
		for (int r = 1; r < n; r++) {
			input(dt, op, H, r, seq, elem0 + i, in);
			reduce_apply(dt, op, want, in, 1);
		}
		if (memcmp(p + i * es, want, es))
			for (size_t b = 0; b < es; b++)
				if (p[i * es + b] != want[b])
					return (long long)(i * es + b);
	}
	return -1;
}

long long block_check(const void *p, const struct block *b, const struct coll_geom *g, uint64_t seq)
{
	int n = b->src == BLOCK_REDUCED ? g->H : b->src < BLOCK_REDUCED ? -1 - b->src : 0;

	if (!n)
		return pattern_check_from(p, b->len, b->src, seq, b->base);
	return reduce_check(p, b->len, g->dt, g->op, g->H, n, seq,
			    (b->off - b->base) / dtype_size(g->dt));
}
