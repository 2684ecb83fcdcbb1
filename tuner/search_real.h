/*
 * tuner/search_real.h: the search's measuring callback for real launches.
 * Each launch the search asks for is one `sweetspot run SPEC --db DB
 * --only LAYOUT:REP` (this same binary, spawned without a shell): the very
 * code path of a sweep, so the launch is generated, timed out, recorded
 * and resumable exactly like one of `sweetspot run`, and a launch the
 * database already holds is read back instead of measured again. The
 * points of that launch are then read from the database.
 */
#ifndef SWEETSPOT_SEARCH_REAL_H
#define SWEETSPOT_SEARCH_REAL_H

#include "search.h"

struct search_real {
	const char *spec_path;	/* as given: runs are found by it */
	const char *db;
	const char *launcher;	/* --launcher for run, or NULL */
	const struct search_space *sp;
	char *self;		/* this program */
	char *log;		/* the runs' output, beside the database */
	unsigned failed;	/* launches that failed (recorded as such) */
	unsigned launches;	/* launches asked for so far */
};

#define SEARCH_REAL_INIT { NULL, NULL, NULL, NULL, NULL, NULL, 0, 0 }

/* Returns 0, or -1 after error(). */
int search_real_init(struct search_real *r, const char *spec_path, const char *db,
		     const char *launcher, const struct search_space *sp);
/* A search_measure_fn; ctx is the struct search_real. */
int search_real_measure(void *ctx, size_t layout, unsigned rep, double *oe);
void search_real_release(struct search_real *r);

#endif
