/*
 * tuner/decide/decide.h: one decision among K configurations, made the same way by
 * search, recommend and baseline. Each configuration brings its launch-level
 * samples (one value per launch, in the order launched: the launch, not the
 * iteration, is what repeats) and its cost.
 *
 * Two rules, chosen per decision (docs/statistics.md):
 *  - The pooled model (pooled.h), when every value is positive and its
 *    checks hold (enough degrees of freedom, equal noise by Brown-Forsythe,
 *    no more than 10% outlier launches, no drift by Mann-Kendall): the
 *    noise is the machine's, one sd of log values shared by every
 *    configuration, estimated from all of them. The leader is the best
 *    mean of log values; the indifference set is Gupta's subset (holds the
 *    best configuration with probability >= 1 - alpha, Dunnett's many-to-
 *    one critical values); a configuration outside it and worse than the
 *    leader by delta or more is WORSE; one whose two-sided many-to-one
 *    interval of the difference with the leader lies within +-delta is
 *    TIE; the rest UNDECIDED. Two or three launches each can decide.
 *  - The rank rule, where the pooled model's check fails (noise differing
 *    between configurations, heavy tails, a drifting machine) or its
 *    degrees of freedom are too few: there Mann-Whitney is the more honest
 *    test, as it assumes no common spread: the leader is the best median;
 *    every other configuration is compared with it by the two-sided
 *    Mann-Whitney test under Holm, worse by at least delta to be WORSE,
 *    its Hodges-Lehmann shift's CI within +-delta to be TIE
 *    (stats_indifference()), after the screen below.
 * Either way the choice is the cheapest member of the set that is shown
 * equivalent to the leader (TIE), or the leader itself: a member only not
 * yet shown worse (too few launches) is reported in the set but never
 * chosen over the best, since "not significantly worse" from lack of data
 * is not evidence that it is as good. The verdict says how sure the
 * choice is:
 *   best       every other configuration is WORSE;
 *   tie        the others of the set are TIE: take the cheapest;
 *   undecided  some are neither: more launches would tell (more_launches).
 * A configuration without samples takes no part (it can never win).
 */
#ifndef SWEETSPOT_DECIDE_H
#define SWEETSPOT_DECIDE_H

#include <stddef.h>
#include <stdint.h>

#include "pooled.h"
#include "stats.h"

struct decide_params {
	double alpha;	     /* significance level (0.05) */
	double delta;	     /* practical threshold, in the samples' units */
	double conf;	     /* CI level of the leader's median (0.95) */
	int lower_is_better; /* times: 1; offload efficiency: 0 */
	uint64_t seed;	     /* of the bootstrap CI */
	/* The screen (0: off). A configuration measured too few times can never
	 * be shown worse by a rank test (1 against n: p >= 2/(n+1)); one far
	 * below the leader relative to the noise is out of contention anyway:
	 * screened out when its median is worse than the leader's by more than
	 * delta + screen_z * sigma * sqrt(1/n + 1/n_leader), with sigma the
	 * pooled within-configuration standard deviation (the caller's when
	 * sigma >= 0, else pooled from the configurations given that have two
	 * samples or more, and then only with DECIDE_SCREEN_DF degrees of
	 * freedom or more: z 4 on fewer is no safe bound), and only against a
	 * leader with two launches or more (one may be luck). A screened
	 * configuration is WORSE and outside the set. */
	double screen_z;
	double sigma;
	/* The practical threshold relative to the best median (0: delta
	 * alone): the threshold used is the larger of delta and delta_rel
	 * times the best configuration's median, so that "as good" means
	 * within that fraction of the best, whatever its level. */
	double delta_rel;
};

/* Offload efficiency: higher is better, 0.5 point matters, screen at z 4. */
#define DECIDE_SCREEN_Z	 4.0
#define DECIDE_SCREEN_DF 10
#define DECIDE_PARAMS_OE                                      \
	{                                                     \
		0.05, 0.5, 0.95, 0, 1, DECIDE_SCREEN_Z, -1, 0 \
	}

/* The cost of a configuration, compared field by field: fewer workers, then
 * fewer workers per node, then the lower placement rank (the spec's
 * `cost_order`: by default a DPU core costs the application nothing and an
 * onload core costs it a core), then the lower tiebreak (e.g. Open MPI's own
 * decision before a forced algorithm). */
struct decide_cost {
	unsigned workers, wpn;
	int placement_rank;
	int tiebreak;
};

enum decide_verdict { DECIDE_BEST, DECIDE_TIE, DECIDE_UNDECIDED };

/* The noise model a decision was made with (pooled.h), carried as it is by
 * every part that reports one (verdicts, recommendations, searches).
 * pooled 1: decided on it (Gupta's subset, Dunnett's many-to-one bounds);
 * 0: by the rank rule, check saying why (a failed check, or too few
 * degrees of freedom). more_launches: what more launches would take,
 * if the means stayed where they are, when undecided and the noise is
 * known (0: nothing to say); more_floor 1: decided by the rank rule, and
 * more_launches is a floor: what the leader and every undecided
 * configuration lack of the n at which n against n launches can first
 * reach Holm's alpha / (k - 1) at all (the exact Mann-Whitney p of fully
 * separated samples, 2 / C(2n, n)). */
struct decide_noise {
	int pooled;
	enum pooled_check check;
	double noise; /* pooled sd of log values (about the CV); NAN: none */
	unsigned df;  /* its degrees of freedom */
	unsigned more_launches;
	int more_floor;
};

struct decision {
	size_t k;	/* configurations given (with or without samples) */
	long leader;	/* best median; -1 when none has a sample */
	long choice;	/* cheapest of the leader and the members shown equivalent */
	long runner_up; /* best median after the leader; -1 if none */
	enum decide_verdict verdict;
	double p_value;	     /* leader vs runner-up, two-sided: the t test at the
			      * pooled noise, or Mann-Whitney under the rank rule;
			      * not adjusted; NAN if none */
	double ci_lo, ci_hi; /* CI of the leader's median (order statistics) */
	int ci_exact;	     /* 0: too few launches for conf; (min, max) */
	size_t launches;     /* samples over every configuration */
	/* Per configuration, k entries, owned (decision_release()). */
	int *member;		    /* 1: in the indifference set */
	double *median;		    /* NAN without samples */
	double *p_adj;		    /* Holm-adjusted p against the leader; NAN: leader or none */
	enum stats_verdict *status; /* vs the leader: WORSE, TIE, UNDECIDED (leader: BETTER) */
	unsigned char *screened;    /* 1: screened out (and WORSE) */
	double sigma;		    /* the pooled sd the screen used; NAN: no screen */
	size_t nmembers;
	/* The noise model and what more launches would buy (see above). */
	struct decide_noise model;
	size_t flagged; /* outlier launches */
	/* Undecided: more_a (the leader) and more_b (the hardest contender)
	 * are among the model's more_launches, which would separate them
	 * (more_equal 0) or show them equal within delta (1). */
	long more_a, more_b;
	int more_equal;
};

/* Decides among k configurations: x[i][0..n[i]-1] the samples and cost[i]
 * the cost of configuration i (cost may be NULL: the index is the cost).
 * Returns 0 and fills *out (release it), or -1 on bad input (NaN samples)
 * or out of memory. */
int decide(const double *const *x, const size_t *n, size_t k, const struct decide_cost *cost,
	   const struct decide_params *p, struct decision *out);
void decision_release(struct decision *d);

/* "best", "tie", "undecided". */
const char *decide_verdict_name(enum decide_verdict v);

/* Nonzero when cost a is cheaper than cost b. */
int decide_cheaper(const struct decide_cost *a, const struct decide_cost *b);

#endif
