/*
 * kernels/harness.h: the measurement loop of the offloaded kernels. One
 * point runs four timed phases, each warm-up + iterations, every iteration
 * between barriers that are outside the timed window:
 *   ref      the hosts do the collective alone (workers idle)  -> ref_us
 *   compute  the hosts run the dummy compute calibrated to ref -> compute_us
 *   comm     the workers do the staged collective alone        -> comm_us
 *   total    both at once                                      -> total_us
 * The reference runs first on its own (it sizes the iterations, and the
 * compute is fitted to it), then the comm phase; the reference, the compute
 * and the total then run interleaved, an iteration of each in turn, and the
 * record's figures are that run's medians: what the OE divides and what
 * the calibration compares are timed on the same machine, whatever changed
 * while the point ran.
 * Each rank times its own part of an iteration; the per-iteration times are
 * reduced with MPI_MAX over all ranks before any statistic is taken.
 */
#ifndef SWEETSPOT_HARNESS_H
#define SWEETSPOT_HARNESS_H

#include <mpi.h>
#include <stdint.h>

#include "coll.h"
#include "options.h"
#include "stats.h"
#include "transport.h"

struct kctx {
	const struct kopts *o;
	MPI_Comm world;
	MPI_Comm wcomm; /* the workers among themselves; NULL on hosts */
	int rank, size, H, W;
	struct transport *t;
	double units_per_us; /* dummy compute rate of this rank */
	uint64_t seq;	     /* iteration number for the data pattern */
	int fault_pending;   /* SWEETSPOT_FAULT=flip-byte not done yet */
	int iters;	     /* timed iterations of the point being run */
};

/* Timed iterations of a phase at most, whatever --min-time asks. */
#define KERNEL_MAX_ITERS 100000

struct point_result {
	double ref_us, comm_us, compute_us; /* means over iterations */
	/* The launch-level sample: medians over iterations of the max-over-ranks
	 * times (the total's is total.median). */
	double ref_med, comm_med, compute_med;
	double calib_error; /* |compute_med - ref_med| / ref_med */
	int calibrated;	    /* calib_error within --calib-tolerance */
	int recalibrations; /* how often the rate was measured again */
	struct tstats total;
	int valid;
	int bad_rank, bad_src; /* where validation first failed */
	long long bad_offset;  /* byte offset in bad_rank's result */
	const char *bad_phase;
	int iterations; /* timed iterations per phase: -i, or more for --min-time */
};

/* The executor's state for one schedule, allocated once per point. */
struct sched_run {
	uint32_t *left; /* per op: dependencies not yet complete */
	size_t *queue;	/* three queues of cap entries (ready ops) */
	size_t head[3], tail[3];
	size_t *posted; /* remote ops posted since the last wait */
	size_t nposted, done, cap;
};

void sched_run_init(struct sched_run *x, size_t n);
void sched_run_release(struct sched_run *x);

/* A barrier that tests with short sleeps in between instead of spinning. */
int nb_barrier(MPI_Comm comm);

/* SWEETSPOT_FAULT=hang: rank 0 sleeps for ever once set up, so that
 * launchers' time limits can be tested. Returns at once otherwise. */
void fault_hang(const struct kopts *o, int rank);

/* Measures this rank's dummy compute rate (units per microsecond). */
void compute_calibrate(struct kctx *k);
/* Runs n units of the dummy compute. */
void compute_run(uint64_t n);

/* Runs one point; every rank gets the same *res. Returns 0, or -1 after a
 * transport failure (printed). */
int run_point(struct kctx *k, const struct coll_geom *g, struct point_result *res);

/* Checks our blocks against (src, seq), reduced blocks against g's
 * reduction (g may be NULL when there are none); the first bad byte in
 * *off, its source in *src (-1: a reduced block). */
void check_blocks(const void *base, const struct coll_geom *g, const struct expect *e, uint64_t seq,
		  long long *off, int *src);

/* Combines every rank's first bad offset: res->valid and where it failed,
 * the same on every rank. */
void combine_validation(MPI_Comm comm, long long off, int src, const char *phase,
			struct point_result *res);

#endif
