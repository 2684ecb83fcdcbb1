/*
 * tuner/decide/replay.h: measurements read from a table instead of launched, so that
 * a search can be tested deterministically and benchmarked. The table is CSV
 * with a header naming at least the columns collective, algorithm,
 * assignment, bytes, workers, wpn, placement, repetition, oe_measured and
 * total_us (any order; others, such as the output of `sweetspot results
 * --csv`, are ignored except an optional `valid`, and `nodes` / `ppn` which
 * must then match the layout). A missing column or a bad value is reported
 * as file:line: message.
 */
#ifndef SWEETSPOT_REPLAY_H
#define SWEETSPOT_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "search.h"

struct replay_row {
	char *collective, *algorithm, *assignment, *placement;
	uint64_t bytes;
	unsigned workers, wpn;
	long nodes, ppn; /* -1 when the table has no such column */
	long repetition;
	double oe_measured, total_us;
	int valid;
	unsigned line;
};

struct replay {
	char *path;
	struct replay_row *rows;
	size_t nrows;
	/* After replay_bind(): values[(layout * reps + rep) * groups + group]. */
	double *values;
	size_t nlayouts, ngroups;
	unsigned reps;
	unsigned missing_launches; /* launches asked for with no row at all */
	unsigned char *present;	   /* layout * reps: the table has that launch */
	int seeded;		   /* launches drawn with seed, not in table order */
	uint64_t seed;
};

#define REPLAY_INIT \
	{           \
		0   \
	}

/* Reads path. Returns 0, or -1 after error() with file:line. */
int replay_load(const char *path, struct replay *rp);

/* Lays the rows out for the problem's layouts and groups (rows that match
 * none are ignored). A layout's k-th launch is its k-th distinct repetition,
 * or with rp->seeded the k-th of a permutation of them drawn from rp->seed
 * (each stored launch once; past the last, launches fail as without).
 * Returns the number of rows used. */
size_t replay_bind(struct replay *rp, const struct search_problem *p);

/* A search_measure_fn over a bound replay (ctx is the struct replay). A
 * launch the table lacks counts as a failed launch. */
int replay_measure(void *ctx, size_t layout, unsigned rep, double *oe);

void replay_release(struct replay *rp);

#endif
