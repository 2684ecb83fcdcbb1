/*
 * tuner/search.h: finding the sweet spot with as few launches as possible.
 * A search sees a plan as layouts (what one launch measures) and groups
 * (collective x algorithm x assignment x message size: what varies inside a
 * launch); a launch is one layout at one repetition and yields one offload
 * efficiency per group. The measuring itself is a callback, so the same
 * search drives real launches and replayed tables alike.
 *
 * Strategies: `grid` measures every layout at every repetition (the paper's
 * way, the baseline). `adaptive` measures the powers of two of each line of
 * layouts (same nodes, PPN, placement and WPN; varying workers), then
 * refines where a concave bound through the measured neighbours says a
 * layout could still beat the best by more than a tolerance, then repeats
 * the best and the runner-up where they are within each other's spread,
 * and stops when nothing is left to learn (or at the budget).
 *
 * The objective is oe_measured (highest mean over repetitions); exact ties
 * go to fewer workers, then fewer WPN. Invalid points and failed launches
 * never win: they carry no value.
 */
#ifndef SWEETSPOT_SEARCH_H
#define SWEETSPOT_SEARCH_H

#include <stddef.h>
#include <stdint.h>

struct search_layout {
	const char *id;		/* the plan's layout id; borrowed */
	unsigned nodes, ppn, workers, wpn;
	const char *placement;	/* "dpu" | "onload"; borrowed */
};

struct search_group {
	const char *collective, *algorithm, *assignment;	/* borrowed */
	uint64_t bytes;
};

/* Measures layout `layout` at repetition `rep` (0-based: the rep-th time this
 * layout is measured). Fills oe[g] for every group g, with NAN where the
 * point is invalid or missing; a launch that failed leaves every oe[g] NAN
 * and still returns 0. Returns -1 (after error()) only when the search
 * must stop, e.g. the database cannot be written. */
typedef int (*search_measure_fn)(void *ctx, size_t layout, unsigned rep, double *oe);

struct search_problem {
	const struct search_layout *layouts;
	size_t nlayouts;
	const struct search_group *groups;
	size_t ngroups;
	unsigned repetitions;	/* at most this many launches per layout */
	search_measure_fn measure;
	void *ctx;
};

enum search_strategy { SEARCH_ADAPTIVE, SEARCH_GRID };

struct search_opts {
	enum search_strategy strategy;
	unsigned budget;	/* most launches to use; 0: no limit */
	double tolerance;	/* points of OE not worth a launch (default 0.5) */
	double noise_prior;	/* spread assumed before any repetition (default 1.0) */
};

#define SEARCH_OPTS_INIT { SEARCH_ADAPTIVE, 0, 0.5, 1.0 }

struct search_best {
	long layout;		/* index into the problem's layouts; -1: no valid point */
	double oe;		/* mean oe_measured over its valid repetitions */
	double spread;		/* half the range of those repetitions, or the
				   group's pooled estimate when measured once */
	unsigned reps;		/* valid repetitions behind oe */
	long runner_up;		/* second best layout, -1 if none */
	double runner_up_oe;
};

struct search_result {
	unsigned launches;	/* launches used */
	unsigned grid_launches;	/* layouts x repetitions */
	int budget_exhausted;
	struct search_best *best;	/* one per group, owned; search_result_release() */
	unsigned *reps;		/* launches made per layout, owned */
};

struct spec;
struct plan;

/* The layouts and groups of a plan, as a search sees them. Borrows the
 * spec's and plan's strings: release this before them. */
struct search_space {
	struct search_layout *layouts;
	size_t nlayouts;
	struct search_group *groups;
	size_t ngroups;
	unsigned repetitions;
};

void search_space_from_plan(const struct spec *s, const struct plan *p,
			    struct search_space *out);
void search_space_release(struct search_space *sp);

int search_parse_strategy(const char *s, enum search_strategy *out);
const char *search_strategy_name(enum search_strategy s);

/* Runs the search. Returns 0 and fills *res (release it), or -1 when a
 * measure call failed (res then holds nothing to release). */
int search_run(const struct search_problem *p, const struct search_opts *o,
	       struct search_result *res);
void search_result_release(struct search_result *res);

#endif
