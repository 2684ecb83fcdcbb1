/*
 * kernels/batch.h: a collective timed as OSU and IMB time it: calls back
 * to back in batches, a barrier only between batches, the calls per batch
 * grown until the slowest rank's batch lasts batch_ms (so a time per call
 * does not move in steps of the scheduler's tick when ranks outnumber
 * cores). The kernel's --mode mpi and the collective loop
 * (kernels/loop/) both time this way. Needs MPI, nothing else of ours.
 */
#ifndef SWEETSPOT_BATCH_H
#define SWEETSPOT_BATCH_H

#include <mpi.h>

/* Calls of one timed batch at most: keeps a call the library makes free
 * (an empty message) from growing the batch for ever. */
#define BATCH_MAX_CALLS (1L << 24)
/* Timed batches at least: the figure is their median. */
#define BATCH_MIN	5

/* One call of the collective being timed: MPI_SUCCESS or an MPI error. */
typedef int (*batch_call_fn)(const void *ctx);
/* The barrier between batches (the kernel's does not spin). */
typedef int (*batch_barrier_fn)(MPI_Comm comm);

struct batch_opts {
	MPI_Comm comm;
	batch_call_fn call;
	const void *ctx;
	batch_barrier_fn barrier;
	int warmup;    /* untimed calls first */
	int min_calls; /* timed calls in all, at least */
	int batch_ms;
};

/* Per call, in us: avg and median over batches of the ranks' mean time
 * per call; rank_min and rank_max, the fastest and slowest rank's mean
 * over every batch. */
struct batch_time {
	double avg, median, rank_min, rank_max;
	long calls, batches; /* calls per batch, batches */
};

/* Every rank of o->comm calls it together. MPI_SUCCESS, or the first
 * failing call's error code. */
int batch_measure(const struct batch_opts *o, struct batch_time *out);

#endif
