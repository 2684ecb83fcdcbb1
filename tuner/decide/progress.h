/*
 * tuner/decide/progress.h: what a sweep tells the person watching it. On a terminal
 * one line that updates in place (layouts done / total, points, elapsed,
 * ETA); elsewhere (logs, batch jobs) one plain line per finished launch, so
 * a job's output file reads as a history.
 */
#ifndef SWEETSPOT_PROGRESS_H
#define SWEETSPOT_PROGRESS_H

#include <stdio.h>

struct progress {
	FILE *f;
	int tty;      /* update one line in place */
	long total;   /* launches in the plan */
	long reps;    /* launches per layout (they run one after the other) */
	long done;    /* launches finished, skipped ones included */
	long skipped; /* finished by an earlier invocation */
	long failed;
	long points;	 /* points stored by this invocation */
	long ran;	 /* launches run by this invocation */
	double start;	 /* monotonic seconds */
	double run_time; /* seconds spent in this invocation's launches */
	int line_open;	 /* the tty line needs a newline before other output */
	int budget;	 /* total is a search's budget, not layouts x reps */
};

/* A launch still running this long (seconds) reports the points it has
 * written so far, as they land (progress_landing()). */
#define PROGRESS_LANDING_S 60.0

/* Seconds on the monotonic clock. */
double progress_now(void);

void progress_init(struct progress *p, FILE *f, int tty, long layouts, long reps);
/* The total is a search's budget of launches (the ETA is for the launches
 * it may still make), not the plan's layouts x repetitions. */
void progress_budget(struct progress *p, long launches);
/* A launch under way has written got of its want points after seconds:
 * a line "[k/N] LAYOUT rR: running, got of want points after ...". */
void progress_landing(struct progress *p, const char *layout, int repetition, long got, long want,
		      double seconds);
/* A launch finished by an earlier invocation (resume). */
void progress_skip(struct progress *p);
/* A launch begins: on a terminal, the line names it. */
void progress_start(struct progress *p, const char *layout, int repetition);
/* A launch ended; failure is NULL when it went well, else the reason. */
void progress_done(struct progress *p, const char *layout, int repetition, long points,
		   double seconds, const char *failure);
/* A line of its own among the progress (a decision reached): on a
 * terminal above the updating line, which is drawn again. */
void progress_note(struct progress *p, const char *line);
/* Ends the updating line so later output starts on its own line. */
void progress_finish(struct progress *p);
/* The ETA in seconds from the launches this invocation ran; -1 unknown. */
double progress_eta(const struct progress *p);

#endif
