/*
 * kernels/harness.c: barriers, the dummy compute, and the four timed phases
 * of a point (see harness.h). Workers post their operations concurrently;
 * nothing orders them but the data they need. The data of every source is
 * refilled with the pattern of the iteration before the iteration's start
 * barrier, and every destination checks every byte after the phase.
 */
#include "harness.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "validate.h"

int nb_barrier(MPI_Comm comm)
{
	struct timespec nap = { 0, 1000 };
	MPI_Request req;
	int flag = 0;

	if (MPI_Ibarrier(comm, &req) != MPI_SUCCESS)
		return -1;
	/* A few yields, then sleeps growing to 64 us: an idle rank costs a
	 * few percent of a core, and leaves a barrier at most that late. */
	for (int round = 0;; round++) {
		MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
		if (flag)
			return 0;
		if (round < 8) {
			sched_yield();
			continue;
		}
		nanosleep(&nap, NULL);
		if (nap.tv_nsec < 64000)
			nap.tv_nsec *= 2;
	}
}

void fault_hang(const struct kopts *o, int rank)
{
	if ((o->faults & FAULT_HANG) && rank == 0)
		for (;;)
			sleep(60);
}

void compute_run(uint64_t n)
{
	uint64_t x = 0x2545f4914f6cdd1dull ^ n;

	for (uint64_t i = 0; i < n; i++)
		for (int j = 0; j < 16; j++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
		}
	/* An empty asm that "uses" x keeps the compiler from dropping the loop. */
	__asm__ __volatile__("" : : "r"(x) : "memory");
}

void compute_calibrate(struct kctx *k)
{
	double best = 0;

	/* The hosts calibrate together while the workers wait, as they will
	 * compute together while the workers wait in the compute phase. */
	if (k->rank >= k->H) {
		k->units_per_us = 0;
		nb_barrier(k->world);
		return;
	}

	/* Best of three: the least disturbed run is closest to the real rate. */
	for (int rep = 0; rep < 3; rep++) {
		uint64_t n = 256;
		double dt;

		for (;;) {
			double t0 = MPI_Wtime();

			compute_run(n);
			dt = MPI_Wtime() - t0;
			if (dt >= 0.002 || n > (1ull << 40))
				break;
			n *= 2;
		}
		if (n / (dt * 1e6) > best)
			best = n / (dt * 1e6);
	}
	k->units_per_us = best;
	nb_barrier(k->world);
}

void check_blocks(const void *base, const struct expect *e, uint64_t seq,
		  long long *off, int *src)
{
	*off = -1;
	*src = -1;
	for (size_t i = 0; i < e->n; i++) {
		const struct block *b = &e->b[i];
		long long bad = pattern_check((const char *)base + b->off, b->len, b->src, seq);

		if (bad >= 0) {
			*off = (long long)b->off + bad;
			*src = b->src;
			return;
		}
	}
}

void combine_validation(MPI_Comm comm, long long off, int src, const char *phase,
			struct point_result *res)
{
	long long mine[2] = { off, src }, *all;
	int size;

	MPI_Comm_size(comm, &size);
	all = malloc(2 * (size_t)size * sizeof(*all));
	if (!all)
		abort();
	MPI_Allgather(mine, 2, MPI_LONG_LONG, all, 2, MPI_LONG_LONG, comm);
	for (int r = 0; r < size; r++)
		if (all[2 * r] >= 0 && res->valid) {
			res->valid = 0;
			res->bad_rank = r;
			res->bad_offset = all[2 * r];
			res->bad_src = (int)all[2 * r + 1];
			res->bad_phase = phase;
		}
	free(all);
}

/* Runs one stage list; corrupt: flip a byte of our first written block in
 * flight (restored once that write completed), for the fault test. */
static int plan_exec(struct kctx *k, const struct plan *p, int corrupt)
{
	struct transport *t = k->t;
	char *base = t->base;

	for (int s = 0; s < p->nstages; s++) {
		const struct stage *st = &p->st[s];
		int posted = 0;

		if (st->fence && (nb_barrier(k->wcomm) || t->ops->sync(t)))
			return -1;
		for (size_t i = 0; i < st->n; i++) {
			const struct op *op = &st->ops[i];

			switch (op->kind) {
			case OP_READ:
				if (t->ops->read(t, op->peer, op->roff, op->loff, op->len))
					return -1;
				posted = 1;
				break;
			case OP_WRITE:
				if (corrupt) {
					char *b = base + op->loff + op->len / 2;

					*b ^= 0x5a;
					if (t->ops->write(t, op->peer, op->loff, op->roff, op->len) ||
					    t->ops->wait(t))
						return -1;
					*b ^= 0x5a;
					corrupt = 0;
					break;
				}
				if (t->ops->write(t, op->peer, op->loff, op->roff, op->len))
					return -1;
				posted = 1;
				break;
			case OP_COPY:
				memcpy(base + op->roff, base + op->loff, op->len);
				break;
			}
		}
		if (posted && t->ops->wait(t))
			return -1;
	}
	return 0;
}

enum phase { PH_REF, PH_COMPUTE, PH_COMM, PH_TOTAL };
static const char *const phase_names[] = { "ref", "compute", "comm", "total" };

/* One phase: warm-up + iterations; times[] gets the MPI_MAX-reduced
 * per-iteration times in microseconds. */
static int run_phase(struct kctx *k, const struct coll_geom *g, const struct coll_rank *cr,
		     enum phase ph, uint64_t units, int corrupt_rank, double *times,
		     struct point_result *res)
{
	const struct kopts *o = k->o;
	int n = o->warmup + o->iterations, host = k->rank < k->H;
	int data = ph != PH_COMPUTE && o->validate;
	long long bad = -1;
	int src = -1;

	for (int i = 0; i < n; i++) {
		double t0, t1;
		int rc = 0;

		k->seq++;
		if (nb_barrier(k->world))
			return -1;
		if (data) {
			if (cr->is_source) {
				pattern_fill(k->t->base, g->m, k->rank, k->seq);
				if (k->t->ops->sync(k->t))
					return -1;
			}
			if (nb_barrier(k->world))
				return -1;
		}
		t0 = MPI_Wtime();
		switch (ph) {
		case PH_REF:
			if (host)
				rc = plan_exec(k, &cr->ref, 0);
			break;
		case PH_COMPUTE:
			if (host)
				compute_run(units);
			break;
		case PH_COMM:
			if (!host)
				rc = plan_exec(k, &cr->off, 0);
			break;
		case PH_TOTAL:
			if (host)
				compute_run(units);
			else
				rc = plan_exec(k, &cr->off, k->rank == corrupt_rank && i == n - 1);
			break;
		}
		t1 = MPI_Wtime();
		if (rc)
			return -1;
		if (i >= o->warmup)
			times[i - o->warmup] = (t1 - t0) * 1e6;
	}
	if (nb_barrier(k->world))
		return -1;
	MPI_Allreduce(MPI_IN_PLACE, times, o->iterations, MPI_DOUBLE, MPI_MAX, k->world);
	if (data) {
		if (k->t->ops->sync(k->t))
			return -1;
		check_blocks(k->t->base, &cr->exp, k->seq, &bad, &src);
		if (bad >= 0)
			fprintf(stderr, "sweetspot-kernel: rank %d: %s %s %zu B, %s phase: wrong byte at offset %lld of the result (block of rank %d)\n",
				k->rank, coll_names[g->coll], alg_names[g->alg], g->m,
				phase_names[ph], bad, src);
		combine_validation(k->world, bad, src, phase_names[ph], res);
	}
	return 0;
}

int run_point(struct kctx *k, const struct coll_geom *g, struct point_result *res)
{
	const struct kopts *o = k->o;
	struct coll_rank cr;
	struct tstats st;
	double *times;
	int corrupt_rank = -1, ret = -1;
	uint64_t units;

	memset(res, 0, sizeof(*res));
	res->valid = 1;
	res->bad_rank = res->bad_src = -1;
	res->bad_offset = -1;
	if (coll_build(g, k->rank, &cr)) {
		fprintf(stderr, "sweetspot-kernel: rank %d: cannot build %s %s\n",
			k->rank, coll_names[g->coll], alg_names[g->alg]);
		return -1;
	}
	if (k->fault_pending) {
		corrupt_rank = coll_fault_rank(g);
		k->fault_pending = 0;
	}
	times = malloc((size_t)o->iterations * sizeof(*times));
	if (!times)
		abort();
	if (run_phase(k, g, &cr, PH_REF, 0, -1, times, res))
		goto out;
	tstats_of(times, o->iterations, &st);
	res->ref_us = st.avg;
	units = (uint64_t)(res->ref_us * k->units_per_us + 0.5);
	/* The compute must last as long as the reference. The rate measured
	 * at start-up can be off (other ranks on the same cores, frequency
	 * changes): measure, rescale and measure again, at most twice. The
	 * decision rests on the reduced times only, the same on every rank
	 * (workers, with no units, must run as many phases as the hosts). */
	for (int tries = 0;; tries++) {
		if (run_phase(k, g, &cr, PH_COMPUTE, units, -1, times, res))
			goto out;
		tstats_of(times, o->iterations, &st);
		res->compute_us = st.avg;
		if (tries == 2 || st.avg <= 0 ||
		    (st.avg > 0.95 * res->ref_us && st.avg < 1.05 * res->ref_us))
			break;
		units = (uint64_t)(units * (res->ref_us / st.avg) + 0.5);
	}
	if (run_phase(k, g, &cr, PH_COMM, 0, -1, times, res))
		goto out;
	tstats_of(times, o->iterations, &st);
	res->comm_us = st.avg;
	if (run_phase(k, g, &cr, PH_TOTAL, units, corrupt_rank, times, res))
		goto out;
	tstats_of(times, o->iterations, &res->total);
	ret = 0;
out:
	free(times);
	coll_rank_release(&cr);
	return ret;
}
