/*
 * kernels/sched/validate.h: the data every transfer carries and the check at its
 * destination. A byte is a function of (source rank, sequence number of the
 * iteration, offset in the source's block), so a byte that arrives from the
 * wrong rank, a stale iteration or the wrong offset is caught. Pure C.
 */
#ifndef SWEETSPOT_VALIDATE_H
#define SWEETSPOT_VALIDATE_H

#include <stddef.h>
#include <stdint.h>

/* The pattern's 8-byte word i of (src, seq); reductions draw on it too. */
uint64_t pattern_word(int src, uint64_t seq, uint64_t i);

/* Writes the pattern of (src, seq) for offsets 0..len-1 into buf. */
void pattern_fill(void *buf, size_t len, int src, uint64_t seq);

/* The offset of the first byte of buf that differs from the pattern of
 * (src, seq), or -1 when all len bytes are right. */
long long pattern_check(const void *buf, size_t len, int src, uint64_t seq);
/* The same for bytes from..from+len-1 of the pattern. */
long long pattern_check_from(const void *buf, size_t len, int src, uint64_t seq, size_t from);

#endif
