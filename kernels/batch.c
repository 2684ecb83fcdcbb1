/*
 * kernels/batch.c: timing collectives in batches (batch.h).
 */
#include "batch.h"
#include "sort.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

/* n calls back to back after the barrier; this rank's seconds. */
static int one_batch(const struct batch_opts *o, long n, double *secs)
{
	int rc = MPI_SUCCESS;
	double t0;

	o->barrier(o->comm);
	t0 = MPI_Wtime();
	for (long i = 0; i < n && rc == MPI_SUCCESS; i++)
		rc = o->call(o->ctx);
	*secs = MPI_Wtime() - t0;
	return rc;
}

/* The calls per batch: grown from 1 until the slowest rank's batch lasts
 * batch_ms; every rank takes the same count (the max over ranks decides).
 * These batches are warm-up too. */
static int calls_per_batch(const struct batch_opts *o, long *n)
{
	double want = o->batch_ms * 1e-3, t;
	int rc;

	for (*n = 1;;) {
		if ((rc = one_batch(o, *n, &t)) != MPI_SUCCESS)
			return rc;
		MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, o->comm);
		if (t >= want || *n >= BATCH_MAX_CALLS)
			return MPI_SUCCESS;
		/* Aim 20% past the target, growing 2x to 10x a step (a first
		 * batch can last a tick, or nothing). */
		if (t <= 0 || t * 10 < want * 1.2) {
			*n *= 10;
		} else {
			long next = (long)(*n * (want * 1.2 / t)) + 1;

			*n = next > 2 * *n ? next : 2 * *n;
		}
		if (*n > BATCH_MAX_CALLS)
			*n = BATCH_MAX_CALLS;
	}
}

int batch_measure(const struct batch_opts *o, struct batch_time *out)
{
	double *avg = NULL, mine = 0, t, sum = 0;
	long n = 1, nb;
	int size, rc;

	memset(out, 0, sizeof(*out));
	MPI_Comm_size(o->comm, &size);
	if ((rc = one_batch(o, o->warmup, &t)) != MPI_SUCCESS ||
	    (rc = calls_per_batch(o, &n)) != MPI_SUCCESS)
		return rc;
	nb = (o->min_calls + n - 1) / n;
	if (nb < BATCH_MIN)
		nb = BATCH_MIN;
	avg = xmalloc((size_t)nb * sizeof(*avg));
	for (long b = 0; b < nb && rc == MPI_SUCCESS; b++) {
		rc = one_batch(o, n, &t);
		avg[b] = t / (double)n * 1e6;
		mine += avg[b] / (double)nb;
	}
	if (rc == MPI_SUCCESS) {
		MPI_Allreduce(MPI_IN_PLACE, avg, (int)nb, MPI_DOUBLE, MPI_SUM, o->comm);
		MPI_Allreduce(&mine, &out->rank_max, 1, MPI_DOUBLE, MPI_MAX, o->comm);
		MPI_Allreduce(&mine, &out->rank_min, 1, MPI_DOUBLE, MPI_MIN, o->comm);
		for (long b = 0; b < nb; b++) {
			avg[b] /= size;
			sum += avg[b];
		}
		sort_doubles(avg, (size_t)nb);
		out->avg = sum / (double)nb;
		out->median = nb % 2 ? avg[nb / 2] : (avg[nb / 2 - 1] + avg[nb / 2]) / 2;
		out->calls = n;
		out->batches = nb;
	}
	free(avg);
	return rc;
}
