/*
 * tuner/decide/recommend.h: from measurements to decisions. Offloaded points give,
 * for every collective, algorithm, assignment and message size, the best
 * layout (highest mean oe_measured over the repetitions; exact ties to
 * fewer workers, then fewer WPN) with its spread and runner-up; the
 * host-only Open MPI points (kernel --mode mpi, one algorithm forced per
 * launch through coll_tuned_<coll>_algorithm) give, for every collective,
 * communicator size and message size, the fastest algorithm. Per collective,
 * consecutive sizes with the same best configuration form a size band.
 * `recommend`, `export` and the profile all work from struct decisions.
 */
#ifndef SWEETSPOT_RECOMMEND_H
#define SWEETSPOT_RECOMMEND_H

#include <stddef.h>
#include <stdint.h>

#include "verdict.h"

struct store_point;

/* The choice of one collective and size: the cheapest configuration not
 * significantly worse than the best (verdict.h). Strings owned
 * (decisions_release()) except the static verdict and pays names. */
struct offload_choice {
	struct point key; /* the question and the chosen point (point.h), owned */
	char *layout, *placement;
	unsigned nodes, ppn, workers, wpn;
	double oe;	     /* median oe_measured over its launches */
	double spread;	     /* half the width of the leader's CI; NAN: unknown */
	unsigned reps;	     /* launches of the chosen configuration */
	char *runner_up;     /* "LAYOUT ALG ASSIGNMENT" after the leader, NULL if none */
	double runner_up_oe; /* its median; NAN if none */
	double total_us, ref_us, compute_us; /* medians at the choice */
	/* The evidence (NULL / NAN / 0 when read from an old profile). */
	const char *verdict; /* "best", "tie", "undecided" */
	char *leader;	     /* the best median's configuration */
	double leader_oe;
	double p_value;	     /* leader vs runner-up, two-sided (decide.h) */
	double ci_lo, ci_hi; /* 95% CI of the leader's median OE */
	int ci_exact;	     /* 0: too few launches for 95% (min..max) */
	unsigned launches;   /* every launch behind the decision */
	char *indifferent;   /* the set, cheapest first, "; "-separated */
	unsigned nindifferent;
	const char *pays;	       /* "yes", "no", "unclear": (ref + compute) / total > 1 */
	unsigned outliers;	       /* of the choice's launches (never dropped) */
	struct decide_noise model;     /* the decision's noise model (decide.h); 0 from a profile */
	int unstable;		       /* more than 20% outliers */
	double gain, gain_lo, gain_hi; /* that ratio's median and CI at the choice */
	struct placement_cmp
		placement_cmp;	      /* DPU against onload (its configs' layout names cleared) */
	char *dpu_best, *onload_best; /* when placement_cmp.have */
	unsigned excluded;	      /* configurations whose every launch was left out */
	unsigned twins, twins_separated; /* pairs decided as one schedule; A/A told apart */
	char *twin_of_choice;		 /* the choice's twin's assignment; NULL when none */
	char *excluded_first;		 /* the first of them, described; NULL when none */
};

/* The fastest Open MPI algorithm for one collective, size of communicator
 * and message size. */
struct mpi_choice {
	char *collective;
	unsigned ranks;
	uint64_t bytes;	     /* per rank, as the kernel counts it */
	int alg;	     /* coll_tuned algorithm id; 0: Open MPI's own decision */
	double avg_us;	     /* its mean time per call */
	double default_us;   /* Open MPI's own decision's time; NAN if not measured */
	unsigned algorithms; /* how many were measured */
	const char *verdict; /* "best", "tie", "undecided"; NULL from a profile */
	double p_value;	     /* against the runner-up */
	double ci_lo, ci_hi; /* 95% CI of the median time per call */
	int runner_up;	     /* its id; -1 none */
	double runner_up_us;
	unsigned launches, nindifferent;
};

struct decisions {
	char *source;		     /* the database or profile read */
	long long run;		     /* the run read; 0 from a profile */
	long long mpi_run;	     /* the run the MPI library's choices (mpi[]) come
				 * from: the baseline's beside a sweep; else run */
	char *spec_path, *spec_hash; /* of that run; may be NULL */
	struct offload_choice *off;  /* sorted: collective, size, algorithm, assignment */
	size_t noff;
	struct mpi_choice *mpi; /* sorted: collective, ranks, size */
	size_t nmpi;
	struct verdict_params params; /* how to decide: set before reading */
};

#define DECISIONS_INIT                                                        \
	{                                                                     \
		NULL, 0, 0, NULL, NULL, NULL, 0, NULL, 0, VERDICT_PARAMS_INIT \
	}

/* A size band: sizes [lo, hi] of one collective sharing the best
 * configuration (algorithm, assignment, layout); best points at the
 * offload_choice of the largest size in the band (for its figures). */
struct band {
	const char *collective;
	uint64_t lo, hi;
	const struct offload_choice *best;
	size_t nsizes;
};

/* The key runs of a spec are stored under: its absolute path (as `sweetspot
 * run` records it), or the path as given when it cannot be resolved. The
 * caller frees it. */
char *spec_run_key(const char *spec_path);

/* Builds decisions from points (valid ones only; invalid never win) with
 * d->params. 0, or -1 after error(). */
int decisions_from_points(const struct store_point *pts, size_t n, struct decisions *d);

/* Opens the database read-only and reads one run: run_id when > 0, else the
 * latest run of spec_path when given and recorded, else the latest run.
 * Returns 0, or -1 after error() (missing file, no run, empty run). */
int decisions_from_db(const char *db, long long run_id, const char *spec_path, struct decisions *d);
/* Reads kernel JSON lines (e.g. the --mode mpi launches of an algorithm
 * sweep, as ompi-collectives-tuning keeps its output files) instead of a
 * database. Offloaded records carry no layout there and are not used.
 * Returns 0, or -1 after error() with file:line. */
int decisions_from_records(const char *path, struct decisions *d);
void decisions_release(struct decisions *d);

/* The best configuration of each (collective, size) over algorithms and
 * assignments, merged into bands. Returns the count; *out is owned by the
 * caller (free()), pointing into d. */
size_t decisions_bands(const struct decisions *d, const char *collective, struct band **out);

/* Whether the decisions hold any offloaded / Open MPI point of collective
 * (NULL: of any). */
int decisions_has_offload(const struct decisions *d, const char *collective);
int decisions_has_mpi(const struct decisions *d, const char *collective);

/* The Open MPI coll/tuned algorithm id of a kernel "algorithm" field:
 * "tuned:N" is N, "default" is 0; -1 for anything else. */
int mpi_algorithm_id(const char *s);
/* Its name in Open MPI 4.1 (e.g. bcast 6 "binomial"), "default" for 0,
 * "?" when unknown. */
const char *mpi_algorithm_name(const char *collective, int alg);

struct spec;
/* How spec asks decisions to be made (its alpha, deltas, cost order and
 * cores), for struct decisions' params. */
struct verdict_params recommend_spec_params(const struct spec *s);

struct store;
struct store_run;
/* The latest run of spec_path (any spec when NULL) that is (baseline set)
 * or is not an Open MPI baseline run of `sweetspot baseline`. Returns 1 and
 * fills *r (release it), 0 when there is none, -1 on error. */
int recommend_find_run(struct store *st, const char *spec_path, int baseline, struct store_run *r);

#endif
