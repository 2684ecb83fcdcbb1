/*
 * kernels/harness.c: barriers, the dummy compute, and the four timed phases
 * of a point (see harness.h). Workers post their operations concurrently;
 * nothing orders them but the data they need. The data of every source is
 * refilled with the pattern of the iteration before the iteration's start
 * barrier, and every destination checks every byte after the phase.
 */
#include "harness.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "reduce.h"
#include "validate.h"
#include "xalloc.h"

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

#ifdef SMPI_H
	/* Under SimGrid SMPI (make smpi) the dummy compute is simulated work,
	 * not host time: 16 rounds of 3 shifts and xors per unit, 48 flops,
	 * so that simulated runs are deterministic. */
	smpi_execute_flops((double)n * 48.0);
	(void)x;
	return;
#endif
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

void check_blocks(const void *base, const struct coll_geom *g, const struct expect *e, uint64_t seq,
		  long long *off, int *src)
{
	*off = -1;
	*src = -1;
	for (size_t i = 0; i < e->n; i++) {
		const struct block *b = &e->b[i];
		const char *p = (const char *)base + b->off;
		long long bad = block_check(p, b, g, seq);

		if (bad >= 0) {
			*off = (long long)b->off + bad;
			*src = b->src < 0 ? BLOCK_REDUCED : b->src;
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
	all = xmalloc(2 * (size_t)size * sizeof(*all));
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

void sched_run_init(struct sched_run *x, size_t n)
{
	x->left = xmalloc((n ? n : 1) * sizeof(*x->left));
	x->queue = xmalloc(3 * (n ? n : 1) * sizeof(*x->queue));
	x->posted = xmalloc((n ? n : 1) * sizeof(*x->posted));
	x->cap = n;
}

void sched_run_release(struct sched_run *x)
{
	free(x->left);
	free(x->queue);
	free(x->posted);
	memset(x, 0, sizeof(*x));
}

/* The executor's queues: ready remote ops, ready local ops, flag waits. */
enum { Q_REMOTE, Q_LOCAL, Q_FLAG };

static void enqueue(struct sched_run *x, const struct sched *p, size_t i)
{
	enum op_kind kd = p->ops[i].kind;
	int q = kd == OP_READ || kd == OP_WRITE || kd == OP_SIGNAL ? Q_REMOTE :
		kd == OP_WAIT_FLAG				   ? Q_FLAG :
								     Q_LOCAL;

	x->queue[q * x->cap + x->tail[q]++] = i;
}

/* Op i is complete: its successors lose a dependency. */
static void complete(struct sched_run *x, const struct sched *p, size_t i)
{
	x->done++;
	for (size_t s = p->succ0[i]; s < p->succ0[i + 1]; s++)
		if (--x->left[p->succ[s]] == 0)
			enqueue(x, p, p->succ[s]);
}

/* Posts remote op i; corrupt: flip a byte of it in flight (restored once
 * complete), for the fault test. */
static int post_remote(struct kctx *k, const struct coll_geom *g, const struct sched *p,
		       struct sched_run *x, size_t i, int corrupt)
{
	struct transport *t = k->t;
	const struct op *op = &p->ops[i];
	char *base = t->base;

	if (op->kind == OP_SIGNAL) {
		uint64_t stamp = SCHED_STAMP(k->seq, op->count);
		size_t out = SCHED_FLAG_OUT(g->F, k->size, op->tag, op->peer);

		memcpy(base + out, &stamp, 8);
		x->posted[x->nposted++] = i;
		return t->ops->write(t, op->peer, out,
				     SCHED_FLAG_IN(g->F, k->size, op->tag, k->rank), 8);
	}
	if (op->kind == OP_READ) {
		x->posted[x->nposted++] = i;
		return t->ops->read(t, op->peer, op->roff, op->loff, op->len);
	}
	if (corrupt) {
		char *b = base + op->loff + op->len / 2;

		*b ^= 0x5a;
		x->posted[x->nposted++] = i;
		if (t->ops->write(t, op->peer, op->loff, op->roff, op->len) || t->ops->wait(t))
			return -1;
		*b ^= 0x5a;
		while (x->nposted)
			complete(x, p, x->posted[--x->nposted]);
		return 0;
	}
	x->posted[x->nposted++] = i;
	return t->ops->write(t, op->peer, op->loff, op->roff, op->len);
}

static void run_local(const struct coll_geom *g, char *base, const struct op *op)
{
	if (op->kind == OP_COPY)
		memcpy(base + op->roff, base + op->loff, op->len);
	else if (op->kind == OP_REDUCE)
		reduce_apply(g->dt, g->op, base + op->roff, base + op->loff,
			     op->len / dtype_size(g->dt));
}

/* Takes the flag waits that are satisfied; the number taken. */
static int check_flags(struct kctx *k, const struct coll_geom *g, const struct sched *p,
		       struct sched_run *x)
{
	const char *base = k->t->base;
	int taken = 0;

	if (x->head[Q_FLAG] == x->tail[Q_FLAG] || k->t->ops->sync(k->t))
		return 0;
	for (size_t q = x->head[Q_FLAG]; q < x->tail[Q_FLAG]; q++) {
		size_t i = x->queue[Q_FLAG * x->cap + q];
		const struct op *op = &p->ops[i];
		const volatile uint64_t *f =
			(const volatile uint64_t *)(const void *)(base +
								  SCHED_FLAG_IN(g->F, k->size,
										op->tag, op->peer));
		uint64_t v1 = *f, v2 = *f;

		/* Two equal loads: never a value torn by a write landing. */
		if (v1 != v2 || v1 < SCHED_STAMP(k->seq, op->count))
			continue;
		x->queue[Q_FLAG * x->cap + q] = x->queue[Q_FLAG * x->cap + x->head[Q_FLAG]++];
		complete(x, p, i);
		taken++;
	}
	return taken;
}

/* Nothing to do but wait for a flag: let MPI progress (an osc component
 * without hardware one-sided support needs the target's calls), then
 * yield, then sleep growing to 64 us, as nb_barrier does. */
static void flag_backoff(struct kctx *k, int round, struct timespec *nap)
{
	int flag;

	MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, k->world, &flag, MPI_STATUS_IGNORE);
	if (round < 8) {
		sched_yield();
		return;
	}
	nanosleep(nap, NULL);
	if (nap->tv_nsec < 64000)
		nap->tv_nsec *= 2;
}

/* Readies x for running p: the ops without dependencies are queued. */
static void sched_start(struct sched_run *x, const struct sched *p)
{
	memset(x->head, 0, sizeof(x->head));
	memset(x->tail, 0, sizeof(x->tail));
	x->done = x->nposted = 0;
	for (size_t i = 0; i < p->n; i++)
		if ((x->left[i] = p->ops[i].ndeps) == 0)
			enqueue(x, p, i);
}

/* Runs schedule p (started in x) until stop of its ops are complete: every
 * op whose dependencies are complete is started; remote ones are posted
 * first, then local work runs while they fly, then one wait completes
 * everything posted. corrupt: flip a byte of the first write to a host
 * (see post_remote). */
static int sched_run_until(struct kctx *k, const struct coll_geom *g, const struct sched *p,
			   struct sched_run *x, int corrupt, size_t stop)
{
	int bad = corrupt ? coll_fault_write(g, p) : -1, round = 0;
	struct timespec nap = { 0, 1000 };

	while (x->done < stop) {
		if (x->head[Q_REMOTE] < x->tail[Q_REMOTE]) {
			size_t i = x->queue[Q_REMOTE * x->cap + x->head[Q_REMOTE]++];

			if (post_remote(k, g, p, x, i, (int)i == bad))
				return -1;
		} else if (x->head[Q_LOCAL] < x->tail[Q_LOCAL]) {
			size_t i = x->queue[Q_LOCAL * x->cap + x->head[Q_LOCAL]++];

			run_local(g, k->t->base, &p->ops[i]);
			complete(x, p, i);
		} else if (check_flags(k, g, p, x)) {
			round = 0;
			nap.tv_nsec = 1000;
		} else if (x->nposted) {
			if (k->t->ops->wait(k->t))
				return -1;
			while (x->nposted)
				complete(x, p, x->posted[--x->nposted]);
		} else if (x->head[Q_FLAG] < x->tail[Q_FLAG]) {
			flag_backoff(k, round++, &nap);
		} else {
			fprintf(stderr,
				"sweetspot-kernel: rank %d: schedule stuck after %zu of %zu "
				"operations\n",
				k->rank, x->done, p->n);
			return -1;
		}
	}
	return 0;
}

static int sched_exec(struct kctx *k, const struct coll_geom *g, const struct sched *p,
		      struct sched_run *x, int corrupt)
{
	sched_start(x, p);
	return sched_run_until(k, g, p, x, corrupt, p->n);
}

/* A host's part of the offloaded phase around its compute of units: the
 * ops before it (cr->entry), the compute, the rest (barrier: the wait for
 * the release). */
static int host_offloaded(struct kctx *k, const struct coll_geom *g, const struct coll_rank *cr,
			  struct sched_run *x, uint64_t units)
{
	sched_start(x, &cr->off);
	if (sched_run_until(k, g, &cr->off, x, 0, cr->entry))
		return -1;
	compute_run(units);
	return sched_run_until(k, g, &cr->off, x, 0, cr->off.n);
}

enum phase { PH_REF, PH_COMPUTE, PH_COMM, PH_TOTAL };
static const char *const phase_names[] = { "ref", "compute", "comm", "total" };

/* One iteration of phase ph (the i-th of n, warm-up counted): its
 * barrier, its data refilled where it moves data, then the timed part;
 * *us gets this rank's time in microseconds. */
static int one_iteration(struct kctx *k, const struct coll_geom *g, const struct coll_rank *cr,
			 struct sched_run *x, enum phase ph, uint64_t units, int corrupt,
			 double *us)
{
	int host = k->rank < k->H, data = ph != PH_COMPUTE && k->o->validate, rc = 0;
	double t0, t1;

	k->seq++;
	if (nb_barrier(k->world))
		return -1;
	if (data) {
		if (cr->is_source) {
			if (coll_is_reduction(g->coll))
				reduce_fill(k->t->base, g->m, g->dt, g->op, g->H, k->rank, k->seq);
			else
				pattern_fill(k->t->base, coll_send_bytes(g), k->rank, k->seq);
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
			rc = sched_exec(k, g, &cr->ref, x, 0);
		break;
	case PH_COMPUTE:
		if (host)
			compute_run(units);
		break;
	case PH_COMM:
		rc = host ? host_offloaded(k, g, cr, x, 0) : sched_exec(k, g, &cr->off, x, 0);
		break;
	case PH_TOTAL:
		rc = host ? host_offloaded(k, g, cr, x, units) :
			    sched_exec(k, g, &cr->off, x, corrupt);
		break;
	}
	t1 = MPI_Wtime();
	*us = (t1 - t0) * 1e6;
	return rc ? -1 : 0;
}

/* After the iterations of a phase that moved data: every destination
 * checks the last one's bytes; the verdict is combined over ranks. */
static int check_phase(struct kctx *k, const struct coll_geom *g, const struct coll_rank *cr,
		       enum phase ph, struct point_result *res)
{
	long long bad = -1;
	int src = -1;

	if (ph == PH_COMPUTE || !k->o->validate)
		return 0;
	if (k->t->ops->sync(k->t))
		return -1;
	check_blocks(k->t->base, g, &cr->exp, k->seq, &bad, &src);
	if (bad >= 0)
		fprintf(stderr,
			"sweetspot-kernel: rank %d: %s %s %zu B, %s phase: wrong byte at "
			"offset %lld of the result (block of rank %d)\n",
			k->rank, coll_names[g->coll], alg_names[g->alg], g->m, phase_names[ph], bad,
			src);
	combine_validation(k->world, bad, src, phase_names[ph], res);
	return 0;
}

/* One phase: warm-up + iterations; times[] gets the MPI_MAX-reduced
 * per-iteration times in microseconds. */
static int run_phase(struct kctx *k, const struct coll_geom *g, const struct coll_rank *cr,
		     struct sched_run *x, enum phase ph, uint64_t units, int corrupt_rank,
		     double *times, struct point_result *res)
{
	int n = k->o->warmup + k->iters;

	for (int i = 0; i < n; i++) {
		double us;

		if (one_iteration(k, g, cr, x, ph, units, k->rank == corrupt_rank && i == n - 1,
				  &us))
			return -1;
		if (i >= k->o->warmup)
			times[i - k->o->warmup] = us;
	}
	if (nb_barrier(k->world))
		return -1;
	MPI_Allreduce(MPI_IN_PLACE, times, k->iters, MPI_DOUBLE, MPI_MAX, k->world);
	return check_phase(k, g, cr, ph, res);
}

/* The reference, the compute and the offloaded total, interleaved: an
 * iteration of each in turn, warm-up first, so that all three see the same
 * machine. The OE divides the first by the last and the calibration holds
 * the second against the first: a machine whose speed changes during a
 * point (other jobs, another core's load, the clock) then moves them alike
 * instead of the one timed while it was slower. ref[], cmp[] and tot[] get
 * the MPI_MAX-reduced times. */
static int run_triples(struct kctx *k, const struct coll_geom *g, const struct coll_rank *cr,
		       struct sched_run *x, uint64_t units, int corrupt_rank, double *ref,
		       double *cmp, double *tot, struct point_result *res)
{
	int n = k->o->warmup + k->iters;

	for (int i = 0; i < n; i++) {
		double r, c, t;

		if (one_iteration(k, g, cr, x, PH_REF, 0, 0, &r) ||
		    one_iteration(k, g, cr, x, PH_COMPUTE, units, 0, &c) ||
		    one_iteration(k, g, cr, x, PH_TOTAL, units,
				  k->rank == corrupt_rank && i == n - 1, &t))
			return -1;
		if (i >= k->o->warmup) {
			ref[i - k->o->warmup] = r;
			cmp[i - k->o->warmup] = c;
			tot[i - k->o->warmup] = t;
		}
	}
	if (nb_barrier(k->world))
		return -1;
	MPI_Allreduce(MPI_IN_PLACE, ref, k->iters, MPI_DOUBLE, MPI_MAX, k->world);
	MPI_Allreduce(MPI_IN_PLACE, cmp, k->iters, MPI_DOUBLE, MPI_MAX, k->world);
	MPI_Allreduce(MPI_IN_PLACE, tot, k->iters, MPI_DOUBLE, MPI_MAX, k->world);
	return check_phase(k, g, cr, PH_TOTAL, res);
}

/* The compute phase with units per host, rescaled until its median lasts
 * the reference's within 5% (medians: the launch-level sample; a few
 * disturbed iterations do not move them), at most three runs; *units gets the last count. The decision
 * rests on the reduced times only, the same on every rank (workers, with
 * no units, must run as many phases as the hosts). */
static int fit_compute(struct kctx *k, const struct coll_geom *g, const struct coll_rank *cr,
		       struct sched_run *x, double *times, struct point_result *res,
		       uint64_t *units)
{
	struct tstats st;

	for (int tries = 0;; tries++) {
		if (run_phase(k, g, cr, x, PH_COMPUTE, *units, -1, times, res))
			return -1;
		tstats_of(times, k->iters, &st);
		res->compute_us = st.avg;
		res->compute_med = st.median;
		if (tries == 2 || st.median <= 0 ||
		    (st.median > 0.95 * res->ref_med && st.median < 1.05 * res->ref_med))
			return 0;
		*units = (uint64_t)(*units * (res->ref_med / st.median) + 0.5);
	}
}

/* How far the compute's median misses the reference's, and whether that
 * is within --calib-tolerance. Decided on the figure the record carries
 * (4 decimals), so a record always agrees with itself: 0.00003 is written
 * 0.0000 and must then count as calibrated at tolerance 0. */
static void judge_calibration(const struct kctx *k, struct point_result *res)
{
	res->calib_error = res->ref_med > 0 ? fabs(res->compute_med - res->ref_med) / res->ref_med :
					      0;
	res->calib_error = round(res->calib_error * 1e4) / 1e4;
	res->calibrated = res->calib_error <= k->o->calib_tolerance;
}

/* The calibrated compute, and the point's figures: the compute is fitted
 * to the reference's median, then the reference, the compute and the total
 * run interleaved (run_triples()); their medians are the record's, and the
 * compute is judged against the reference of that same run. The rate
 * measured at start-up can be off (other ranks on the same cores,
 * frequency changes), so when the compute misses the reference's median by
 * more than --calib-tolerance, the rate is measured again (all ranks: the
 * decision is on reduced times), the fit redone to the latest reference
 * and the three run again, up to CALIB_RETRIES times. t[] holds 3 x
 * k->iters. */
#define CALIB_RETRIES 3
static int calibrate_point(struct kctx *k, const struct coll_geom *g, const struct coll_rank *cr,
			   struct sched_run *x, int corrupt_rank, double *t,
			   struct point_result *res)
{
	double *ref = t, *cmp = t + k->iters, *tot = t + 2 * (size_t)k->iters;
	struct tstats st;

	for (int retry = 0;; retry++) {
		uint64_t units = (uint64_t)(res->ref_med * k->units_per_us + 0.5);

		if (fit_compute(k, g, cr, x, cmp, res, &units) ||
		    run_triples(k, g, cr, x, units, corrupt_rank, ref, cmp, tot, res))
			return -1;
		tstats_of(ref, k->iters, &st);
		res->ref_us = st.avg;
		res->ref_med = st.median;
		tstats_of(cmp, k->iters, &st);
		res->compute_us = st.avg;
		res->compute_med = st.median;
		tstats_of(tot, k->iters, &res->total);
		judge_calibration(k, res);
		if (res->calibrated || retry == CALIB_RETRIES)
			return 0;
		res->recalibrations++;
		compute_calibrate(k);
	}
}

/* The reference phase, and with it the iterations of the point: -i, or,
 * with --min-time, as many as fill that time, the whole iteration counted
 * (its barriers too), up to KERNEL_MAX_ITERS. A few iterations of a
 * microsecond phase give a median that one descheduled rank moves; a
 * count sized by time gives each point the same footing whatever its
 * size, as IMB's -time and google/benchmark's minimum time do. The first
 * run, of -i iterations, is then warm-up; the count is decided on the
 * slowest rank's elapsed time, so every rank takes the same. */
static int timed_ref(struct kctx *k, const struct coll_geom *g, const struct coll_rank *cr,
		     struct sched_run *x, double **times, struct point_result *res)
{
	double t0 = MPI_Wtime(), el;
	long want;

	if (run_phase(k, g, cr, x, PH_REF, 0, -1, *times, res))
		return -1;
	if (k->o->min_time_ms <= 0)
		return 0;
	el = MPI_Wtime() - t0;
	MPI_Allreduce(MPI_IN_PLACE, &el, 1, MPI_DOUBLE, MPI_MAX, k->world);
	want = (long)ceil(k->o->min_time_ms * 1e-3 / (el / (k->o->warmup + k->iters)));
	if (want <= k->iters)
		return 0;
	k->iters = want > KERNEL_MAX_ITERS ? KERNEL_MAX_ITERS : (int)want;
	*times = xrealloc(*times, (size_t)k->iters * sizeof(**times));
	return run_phase(k, g, cr, x, PH_REF, 0, -1, *times, res);
}

int run_point(struct kctx *k, const struct coll_geom *g, struct point_result *res)
{
	const struct kopts *o = k->o;
	struct coll_rank cr;
	struct sched_run x;
	struct tstats st;
	double *times, *three = NULL;
	int corrupt_rank = -1, ret = -1;

	memset(res, 0, sizeof(*res));
	res->valid = 1;
	res->bad_rank = res->bad_src = -1;
	res->bad_offset = -1;
	if (coll_build(g, k->rank, &cr)) {
		fprintf(stderr, "sweetspot-kernel: rank %d: cannot build %s %s\n", k->rank,
			coll_names[g->coll], alg_names[g->alg]);
		return -1;
	}
	if (k->fault_pending) {
		corrupt_rank = coll_fault_rank(g);
		k->fault_pending = 0;
	}
	k->iters = o->iterations;
	times = xmalloc((size_t)o->iterations * sizeof(*times));
	sched_run_init(&x, cr.ref.n > cr.off.n ? cr.ref.n : cr.off.n);
	if (timed_ref(k, g, &cr, &x, &times, res))
		goto out;
	res->iterations = k->iters;
	tstats_of(times, k->iters, &st);
	res->ref_us = st.avg;
	res->ref_med = st.median;
	if (run_phase(k, g, &cr, &x, PH_COMM, 0, -1, times, res))
		goto out;
	tstats_of(times, k->iters, &st);
	res->comm_us = st.avg;
	res->comm_med = st.median;
	three = xmalloc(3 * (size_t)k->iters * sizeof(*three));
	if (calibrate_point(k, g, &cr, &x, corrupt_rank, three, res))
		goto out;
	ret = 0;
out:
	free(times);
	free(three);
	sched_run_release(&x);
	coll_rank_release(&cr);
	return ret;
}
