/*
 * kernels/sched/reduce.h: the arithmetic of reductions (OP_REDUCE) and the data
 * they are validated with. Pure C (no MPI): the executor, the unit tests
 * and the simulation of schedules use the same code.
 *
 * Inputs depend on (rank, iteration, element index) and are chosen per
 * operation so that the result is exact in any order of reduction: integer
 * sums and products wrap (computed unsigned), products of integers use odd
 * values (never 0), floating-point sums use integers in [-8, 8], products
 * +-1 (and one +-2 per element), min/max integers in [-1000, 1000]; band
 * clears and bor sets one bit per input; the logical operations see mostly
 * nonzero (land), mostly zero (lor) or mixed (lxor) inputs. A result is
 * checked bit for bit against the fold, in rank order, of every host's input.
 */
#ifndef SWEETSPOT_REDUCE_H
#define SWEETSPOT_REDUCE_H

#include <stddef.h>
#include <stdint.h>

#include "schedule.h"

extern const char *const dtype_names[DT_N];
extern const char *const redop_names[RO_N];

/* Nonzero when op applies to dt (bitwise and logical: integer types only). */
int redop_applies(enum dtype dt, enum redop op);

/* dst[i] = op(dst[i], src[i]) for n elements of dt. */
void reduce_apply(enum dtype dt, enum redop op, void *dst, const void *src, size_t n);

/* Fills buf (len bytes, whole elements) with rank's input vector of the
 * iteration seq, among H hosts. */
void reduce_fill(void *buf, size_t len, enum dtype dt, enum redop op, int H, int rank,
		 uint64_t seq);

/* The offset of the first wrong byte of buf, which must hold elements
 * elem0 .. of the reduction of the inputs of hosts 0 .. n-1 (of H);
 * -1 when all are right. */
long long reduce_check(const void *buf, size_t len, enum dtype dt, enum redop op, int H, int n,
		       uint64_t seq, size_t elem0);

/* The check of one expected block b at p (struct block, schedule.h): its
 * pattern, or its reduction over g's dtype and op. The offset in the block
 * of the first wrong byte, or -1. */
long long block_check(const void *p, const struct block *b, const struct coll_geom *g,
		      uint64_t seq);

#endif
