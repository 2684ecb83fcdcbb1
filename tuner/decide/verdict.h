/*
 * tuner/decide/verdict.h: the decisions recommend prints, made from stored points
 * with the statistics of decide.h. The unit of replication is the launch:
 * a configuration's sample is one value per launch (its repetitions).
 *
 * Offloaded points: per collective and message size, the configurations
 * are the (layout, algorithm, assignment) triples measured; their samples
 * are oe_measured per launch (higher is better, practical threshold
 * delta_oe points); the choice is the cheapest member of the indifference
 * set (fewer workers, then fewer WPN, then the placement the spec's
 * cost_order lists first, then the algorithm and assignment first seen).
 * Beside it: whether offloading pays at all (per launch, the host-only time
 * reference + compute against the offloaded total: the CI of that ratio's
 * median above 1, below 1, or across it), and when both placements were
 * measured, the best DPU configuration against the best onload one by the
 * same test, with the cores each leaves to the application.
 *
 * Open MPI points (the baseline): per collective, communicator size and
 * message size, the configurations are the coll/tuned algorithms, their
 * samples the median time per call of each launch (lower is better, delta
 * = delta_time times the leader's median); the choice is the fastest
 * (leader), with the verdict that says how sure it is.
 */
#ifndef SWEETSPOT_VERDICT_H
#define SWEETSPOT_VERDICT_H

#include <stddef.h>
#include <stdint.h>

#include "decide.h"
#include "point.h"

struct store_point;

struct verdict_params {
	double alpha;	   /* 0.05 */
	double delta_oe;   /* OE points (0.5) */
	double delta_rel;  /* fraction of the best configuration's OE (0.05) */
	double delta_time; /* fraction of the leader's time (0.01) */
	int dpu_first;	   /* cost_order: 1 when a DPU core is the cheaper */
	unsigned cores;	   /* cores per host node (0: not known) */
};

#define VERDICT_PARAMS_INIT                 \
	{                                   \
		0.05, 0.5, 0.05, 0.01, 1, 0 \
	}

/* One configuration as people read it. Strings borrowed from the points. */
struct verdict_config {
	const char *layout, *placement;
	struct point key; /* the point (point.h), its strings borrowed too */
	unsigned nodes, ppn, workers, wpn;
	size_t launches;
	double median; /* median of its samples */
};

/* Whether offloading pays: the median over launches of (ref + compute) /
 * total at the choice, with its CI; pays when the CI lies above 1. */
enum verdict_pays { PAYS_YES, PAYS_NO, PAYS_UNCLEAR };

struct placement_cmp {
	int have;			   /* both placements measured */
	struct verdict_config dpu, onload; /* the best (leader) of each */
	enum stats_verdict dpu_vs_onload;  /* BETTER: dpu wins */
	double p, shift, ci_lo, ci_hi;	   /* Mann-Whitney p; HL shift dpu - onload, OE points */
	int dpu_cores_left, onload_cores_left; /* per node, for the application; -1 unknown */
};

struct offload_verdict {
	const char *collective;
	uint64_t bytes;
	/* A reduction's arithmetic belongs to the question ("" elsewhere):
	 * the group is (collective, bytes, dtype, op). */
	const char *dtype, *op;
	struct verdict_config choice, leader, runner_up; /* runner_up.layout NULL: none */
	enum decide_verdict verdict;
	double p_value;	     /* leader vs runner-up; NAN when none */
	double ci_lo, ci_hi; /* 95% CI of the leader's median OE */
	int ci_exact;
	size_t launches;		    /* samples behind the whole decision */
	struct verdict_config *indifferent; /* the set, cheapest first; owned */
	size_t nindifferent;
	enum verdict_pays pays;
	double gain, gain_lo, gain_hi;	     /* (ref + compute) / total at the choice */
	double total_us, ref_us, compute_us; /* medians at the choice */
	size_t outliers;	   /* the choice's launches flagged (Tukey 3 IQR or MAD z) */
	struct decide_noise model; /* the decision's noise model (decide.h) */
	int unstable;		   /* more than 20% of them: "unstable" */
	struct placement_cmp placement;
	/* Configurations of the question whose every launch was left out
	 * (compute not calibrated to the reference): never compared, so the
	 * verdict is undecided, whatever the others show; the first of them. */
	size_t excluded;
	struct verdict_config excluded_first;
	/* Twins: two assignments that give every host the same worker here
	 * (block and cyclic at one worker, or one host per worker) are one
	 * schedule, decided as one configuration (a sample per launch, the
	 * geometric mean of the two); twins_separated counts the pairs the
	 * statistics told apart when decided alone (an A/A: should be none).
	 * twin_of_choice: the choice's twin's assignment, NULL when none. */
	size_t twins, twins_separated;
	const char *twin_of_choice;
};

struct mpi_verdict {
	const char *collective;
	unsigned ranks;
	uint64_t bytes;
	int alg; /* the leader's coll/tuned id */
	double median_us, ci_lo, ci_hi;
	enum decide_verdict verdict;
	double p_value; /* vs the runner-up */
	int runner_up;	/* its id; -1 none */
	double runner_up_us;
	size_t algorithms, launches;
	int *indifferent; /* algorithm ids not significantly slower; owned */
	size_t nindifferent;
};

struct verdicts {
	struct offload_verdict *off; /* sorted by collective, then bytes */
	size_t noff;
	struct mpi_verdict *mpi; /* sorted by collective, ranks, bytes */
	size_t nmpi;
	size_t uncalibrated; /* valid points left out: calibrated false */
};

/* Decides from valid points (invalid ones are left out before). Strings
 * point into pts: release *v before the points. 0, or -1 on bad input. */
int verdicts_from_points(const struct store_point *pts, size_t n, const struct verdict_params *vp,
			 struct verdicts *v);
void verdicts_release(struct verdicts *v);

/* "yes", "no", "unclear". */
const char *verdict_pays_name(enum verdict_pays p);

#endif
