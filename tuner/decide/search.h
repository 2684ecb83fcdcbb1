/*
 * tuner/decide/search.h: finding the sweet spot with as few launches as possible.
 * A search sees a plan as layouts (what one launch measures) and groups
 * (collective x algorithm x assignment x message size: what varies inside a
 * launch); a launch is one layout at one repetition and yields one offload
 * efficiency per group. The measuring itself is a callback, so the same
 * search drives real launches and replayed tables alike.
 *
 * Every launch's value is kept (launch-level samples, never averages), and
 * decisions are made per decision group, (collective, message size, and
 * for reductions dtype and op), whose configurations are its (layout,
 * algorithm, assignment, chunk, window, radix) points, exactly
 * as `recommend` decides them: decide() (decide.h) with higher OE better
 * and delta = the tolerance: the pooled noise model (Gupta's subset,
 * Dunnett's bounds, Welch's contrast with the leader) where its checks
 * hold, the rank rule (Mann-Whitney, Holm) where not; choice = the
 * cheapest of the leader and those shown
 * equal to it; verdict best / tie / undecided.
 *
 * Racing: a configuration in contention (the leader, and those undecided
 * against it) gets launches until its group has a verdict or it reached
 * max_repetitions (search_opts); a configuration significantly worse than the leader
 * gets none on its behalf. `repetitions` is the least number of launches a
 * configuration still in contention gets.
 *
 * Screening: a configuration measured once can never be shown worse by a
 * rank test, so a configuration c is screened out (out of contention, and
 * left out of decide(), which then corrects for fewer comparisons) when
 *     median(c) < median(leader) - delta - SEARCH_SCREEN_Z * s * sqrt(1/n_c + 1/n_leader)
 * with s the pooled within-configuration standard deviation of its decision
 * group (configurations measured at least twice; all groups when it has
 * none). It is re-evaluated every round, so a configuration screened
 * against a lucky leader comes back when that leader falls back. The
 * screen steers the racing only: the decisions reported are made as
 * `recommend` makes them from the same launches (decide() estimating the
 * noise itself, screening only with 10 degrees of freedom and a leader
 * of two launches or more), so both give the same verdict and choice; a
 * configuration measured only once stays "not shown worse" there.
 * Points whose compute missed its reference (calibrated false) carry no
 * value, as recommend leaves them out too.
 *
 * Strategies: `grid` measures every layout `repetitions` times, then races
 * (no budget unless given). `adaptive` (default budget SEARCH_BUDGET_FRAC
 * of the grid's launches) measures the powers of two of each line of
 * layouts (same nodes, PPN, placement and WPN; varying workers) and both
 * ends, repeats each decision group's leader and runner-up once (the pooled
 * noise needs data), then explores one launch at a time where a Gaussian-
 * process surrogate (surrogate.h) of every group expects the largest
 * improvement over its decision's effective best, discounted where one
 * launch would teach less than the noise (the augmented expected
 * improvement, search.c), summed over decisions in pooled noise units; a
 * decision whose surrogate fits poorly (leave-one-out
 * residuals) asks instead where a concave bound through the measured
 * neighbours, widened by SEARCH_REFINE_Z standard errors, says a layout
 * could beat the leader by more than delta (the measured-only rule). A
 * third of the budget (at least SEARCH_CONFIRM_N launches per decision) is
 * kept for the confirmation round: each decision's leader is brought to
 * SEARCH_CONFIRM_N launches and the contenders hardest to tell from it are
 * raced, interleaved, until the verdict, the budget or max_repetitions (a
 * leader with fewer launches than those contenders is launched first in
 * its round).
 * The surrogate chooses launches only: every decision rests on the
 * configurations' own launches.
 *
 * Invalid points and failed launches never win: they carry no value. A
 * layout whose launch yielded no value at all is not launched again (a
 * replayed table that lacks a repetition, a layout that cannot run).
 */
#ifndef SWEETSPOT_SEARCH_H
#define SWEETSPOT_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "point.h"

#include "decide.h"

struct search_layout {
	const char *id; /* the plan's layout id; borrowed */
	unsigned nodes, ppn, workers, wpn;
	const char *placement; /* "dpu" | "onload"; borrowed */
};

/* Measures layout `layout` at repetition `rep` (0-based: the rep-th time this
 * layout is measured). Fills oe[g] for every group g, with NAN where the
 * point is invalid or missing, -INFINITY where it was measured but left out
 * (its compute not calibrated to the reference: SEARCH_LEFT_OUT; a
 * configuration of nothing but those keeps its decision undecided, as
 * recommend keeps it); a launch that failed leaves every oe[g] NAN
 * and still returns 0, or 1 when the values are an earlier invocation's
 * (a search resumed from the store: nothing was launched now). Returns -1
 * (after error(), or silently when the caller paused the search) only
 * when the search must stop, e.g. the database cannot be written. */
typedef int (*search_measure_fn)(void *ctx, size_t layout, unsigned rep, double *oe);
#define SEARCH_LEFT_OUT (-INFINITY)

struct search_problem {
	const struct search_layout *layouts;
	size_t nlayouts;
	const struct point *groups;
	size_t ngroups;
	unsigned repetitions; /* least launches of a configuration in contention */
	search_measure_fn measure;
	void *ctx;
};

/* The screening threshold, in pooled standard errors (see above). */
#define SEARCH_SCREEN_Z 4.0
/* The widening of the refinement bound, in pooled standard errors of the
 * gap's neighbouring medians (s / sqrt(n)). */
#define SEARCH_REFINE_Z 1.0

/* SEARCH_MODEL searches as SEARCH_GRID does; the caller restricts the
 * layouts to the model's candidates with search_opts.only (model_run.h). */
enum search_strategy { SEARCH_ADAPTIVE, SEARCH_GRID, SEARCH_MODEL };

struct search_decision;

struct search_opts {
	enum search_strategy strategy;
	unsigned budget;    /* most launches to use; 0: no limit */
	double tolerance;   /* delta: points of OE that matter (default 0.5) */
	double noise_prior; /* ignored: the spread comes from the data; kept
				   so that callers setting it still compile */
	/* Most launches per layout: 0 is max(repetitions, 10). Here, not in
	 * search_problem, because callers build that one positionally. */
	unsigned max_repetitions;
	/* The rest of recommend's rule (verdict.h), so that both decide
	 * alike; zero is the spec's default, for positional initializers. */
	double alpha;	  /* significance level; 0: 0.05 */
	int onload_first; /* cost_order: an onload core is the cheaper (0: a DPU core) */
	/* The layouts that may be launched, one flag per layout (borrowed);
	 * NULL: all. The others are never measured nor decided about;
	 * grid_launches still counts every layout. */
	const unsigned char *only;
	/* The budget as a fraction of the grid's launches (spec `budget =
	 * "15%"`, --budget 15%), used when budget is 0; 0 here too: adaptive
	 * takes SEARCH_BUDGET_FRAC (never fewer than its coarse pass and a
	 * confirmation need, at most the grid), grid takes no limit. */
	double budget_frac;
	/* The model's predicted value of every (layout, group), layouts x
	 * groups in the problem's order and on the scale measure gives (NAN:
	 * not predicted), borrowed; NULL: none. The surrogate's prior mean
	 * where a group has every layout predicted (surrogate.h); never an
	 * input of a decision. */
	const double *prior;
	/* delta_rel: the fraction of the best that matters besides tolerance
	 * (decide.h); 0: tolerance alone. */
	double tolerance_rel;
	/* Called once per decision group when its verdict is first reached
	 * (best or tie), after the launch that reached it, decided as the
	 * result's decisions are; d and its indifference set live for the
	 * call only. A verdict reached on launches measure() read back (an
	 * earlier invocation's, which told it then) is not told again.
	 * NULL: nobody listens (no cost). */
	void (*reached)(void *ctx, const struct search_decision *d);
	void *reached_ctx;
	/* Twins (point_same_schedule() at a layout: block and cyclic giving
	 * every host the same worker) decided as one configuration, as
	 * recommend decides them: each launch's value of the first, the
	 * geometric mean of the two; the second takes no part. Set from a
	 * spec; 0 (replays): every group apart. */
	int merge_twins;
};

/* The adaptive search's default budget, of the grid's launches; launches
 * of each finalist in the confirmation round; finalists per decision; the
 * expected improvement (summed over decisions, in pooled noise units)
 * below which exploring stops. */
#define SEARCH_BUDGET_FRAC 0.15
#define SEARCH_CONFIRM_N   3
#define SEARCH_FINALISTS   3
#define SEARCH_EI_STOP	   0.05

#define SEARCH_OPTS_INIT                                                                  \
	{                                                                                 \
		SEARCH_ADAPTIVE, 0, 0.5, 1.0, 0, 0.05, 0, NULL, 0, NULL, 0, NULL, NULL, 0 \
	}

struct search_best {
	long layout;	     /* index into the problem's layouts; -1: no valid point */
	double oe;	     /* median oe_measured over its valid launches */
	double spread;	     /* half the range of those launches, or the
				   pooled standard deviation when measured once */
	unsigned reps;	     /* valid repetitions behind oe */
	long runner_up;	     /* second best layout, -1 if none */
	double runner_up_oe; /* its median */
};

/* One configuration of a decision group: a layout and a group. */
struct search_config {
	long layout, group; /* indices into the problem's; -1: none */
	unsigned n;	    /* its launches with a value (in a decision) */
	double median;	    /* of those values; NAN without */
};

/* The decision of one (collective, message size), as decide() made it over
 * the configurations in contention at the end. */
struct search_decision {
	const char *collective; /* borrowed from the problem's groups */
	uint64_t bytes;
	const char *dtype, *op; /* reductions (as recommend splits them); NULL else */
	enum decide_verdict verdict;
	struct search_config choice;		   /* cheapest member of the indifference set */
	struct search_config leader;		   /* best median */
	struct search_config runner_up;		   /* best median after the leader */
	double choice_oe, leader_oe, runner_up_oe; /* medians; NAN if none */
	double p_value;				   /* leader vs runner-up (decide.h); NAN if none */
	double ci_lo, ci_hi;			   /* CI (95%) of the leader's median OE */
	int ci_exact;				   /* 0: too few launches for 95%: (min, max) */
	struct search_config *indifferent;	   /* the indifference set, owned */
	size_t nindifferent;
	unsigned launches;	   /* launches asked for on its behalf (a launch
				   several groups asked for counts for each;
				   the coarse pass counts for all) */
	unsigned measured;	   /* configurations with a value */
	unsigned screened;	   /* out of contention by the screen */
	unsigned worse;		   /* significantly worse than the leader */
	unsigned contenders;	   /* the leader and those undecided against it */
	struct decide_noise model; /* the noise model decide() used (decide.h) */
	/* Undecided: more_a (the leader) and more_b, among the model's
	 * more_launches, would separate them (more_equal 0) or show them
	 * equal (1). */
	struct search_config more_a, more_b;
	int more_equal;
	/* The surrogate over the decision's groups at the end (surrogate.h):
	 * points fitted (the fewest of its groups), the worst RMS of the
	 * standardized leave-one-out residuals, and whether every fit was
	 * good (else the search fell back to its measured-only rule). */
	unsigned surrogate_points;
	double surrogate_rms;
	int surrogate_ok;
	int surrogate_prior; /* every fit's prior mean was the model's */
};

struct search_result {
	unsigned launches;	/* launches used */
	unsigned grid_launches; /* layouts x repetitions */
	unsigned budget;	/* the budget in effect; 0: none */
	int budget_exhausted;
	struct search_best *best;	   /* one per group, owned; search_result_release() */
	unsigned *reps;			   /* launches made per layout, owned */
	struct search_decision *decisions; /* per (collective, bytes), owned */
	size_t ndecisions;
	unsigned failed_launches; /* launches that yielded no value */
	unsigned max_repetitions; /* in effect */
};

struct spec;
struct plan;

/* The layouts and groups of a plan, as a search sees them. Borrows the
 * spec's and plan's strings: release this before them. */
struct search_space {
	struct search_layout *layouts;
	size_t nlayouts;
	struct point *groups;
	size_t ngroups;
	unsigned repetitions;
};

void search_space_from_plan(const struct spec *s, const struct plan *p, struct search_space *out);
void search_space_release(struct search_space *sp);

/* The spec's statistics into *o: alpha, delta_oe (tolerance),
 * max_repetitions and cost_order; strategy and budget are left alone. */
void search_opts_from_spec(const struct spec *s, struct search_opts *o);

int search_parse_strategy(const char *s, enum search_strategy *out);
const char *search_strategy_name(enum search_strategy s);

/* The budget in effect for a search of p with o (0: none), as search_run()
 * will take it: the caller's launches, its fraction of the grid, else
 * adaptive's default. Measures nothing. */
unsigned search_budget(const struct search_problem *p, const struct search_opts *o);

/* Decision d in one line of words, into buf: "bcast 4K: 1 worker (1 WPN,
 * dpu) direct/block, best (p=0.012)". Returns buf. */
const char *search_decision_words(const struct search_layout *layouts, const struct point *groups,
				  const struct search_decision *d, char *buf, size_t len);

/* Runs the search. Returns 0 and fills *res (release it), or -1 when a
 * measure call failed (res then holds nothing to release). */
int search_run(const struct search_problem *p, const struct search_opts *o,
	       struct search_result *res);
void search_result_release(struct search_result *res);

#endif
