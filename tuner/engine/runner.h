/*
 * tuner/engine/runner.h: the one sweep engine. `run`, `baseline` and `search` (and
 * `recommend` when it searches first) measure through it, in this process.
 * A launch is one job (a layout, or a host-only job of baseline) at one
 * repetition: its files are generated into its folder runs/<run>/<id>-r<rep>/,
 * its command is built by launch/argv.h and written, as `# command: <line>`,
 * at the top of its log, the launcher is spawned (no shell) under the
 * spec's time limit, the kernel's records are read (record.h) and checked,
 * and the launch and its points are stored in one transaction. A failed
 * launch gets the spec's retries; a launch the run already holds is skipped
 * (resume); SIGINT and SIGTERM stop the launch under way, which is then not
 * recorded. The caller gets every launch's points back, never rescanning
 * the store for them.
 */
#ifndef SWEETSPOT_RUNNER_H
#define SWEETSPOT_RUNNER_H

#include "argv.h"
#include "plan.h"
#include "progress.h"
#include "runlock.h"
#include "search.h"
#include "spec.h"
#include "store.h"
#include "strvec.h"

#include <signal.h>
#include <stdio.h>

/* The kernel writes its records to this file of the launch's folder (every
 * launcher starts the ranks there), so nothing a rank prints passes for one. */
#define RUNNER_POINTS_FILE "points.jsonl"

/* What one launch measures. Pointers are borrowed. */
struct runner_job {
	const struct layout *layout; /* generated with generate_layout(), placement
					 * checked; NULL: a host-only job (build set) */
	struct store_layout row;     /* what the store records; row.id names the folder */
	size_t points;		     /* records a good launch writes; 0: a program
					 * that writes none (verify's), judged by its
					 * exit status alone */
	const struct strvec *env;    /* extra "NAME=value" for this launch only, or NULL */
	const void *data;	     /* the build hook's own, or NULL */
};

struct runner;

/* Builds the command of a job that is not a plan layout (baseline's Open
 * MPI alone) into cmd, for the launch folder dir; it honours job->env.
 * check_files is 0 in a dry run, before the folder exists. 0 or -1. */
typedef int (*runner_build_fn)(const struct runner *r, const struct runner_job *job,
			       const char *dir, int check_files, struct launch_cmd *cmd);

/* How one launch went. pts is the caller's: store_points_free(). */
struct runner_outcome {
	int ok;
	int timed_out; /* killed at the time limit (never retried) */
	int skipped;   /* the run held it already (points read back) */
	struct store_point *pts;
	size_t npoints;
	double wall_s;
	char reason[1024]; /* "" when ok; a launcher's failure ends with the
				 * last lines of its log (its own words) */
};

struct runner {
	/* set by runner_init() */
	const struct spec *spec; /* &own */
	struct spec own;	 /* the caller's spec, its kernel_args extended by
					 * -o RUNNER_POINTS_FILE; the rest borrowed */
	enum launcher launcher;
	/* set by the caller */
	const char *label; /* NULL for sweeps; "baseline": run "SPEC:baseline" */
	int retry_failed;
	unsigned long long max_launches; /* 0: no limit */
	runner_build_fn build;		 /* host-only jobs' command */
	FILE *progress_out;		 /* stderr, or NULL for silence */
	int read_back;			 /* a skipped launch's points are read from the store
					 * (a search resumed); else it comes back empty */
	int wait_lock;			 /* another writer of the run: wait (--wait-lock),
					 * else runner_open() refuses */
	/* set by runner_open() */
	struct store *store; /* borrowed */
	struct store_run run;
	struct runlock lock; /* the run's, held until runner_release() */
	char *root;	     /* "…/runs/" or "…/runs/<name>-", absolute */
	struct progress prog;
	unsigned long long ran;		    /* launches run by this invocation */
	int paused;			    /* --max-launches reached */
	int interrupted;		    /* SIGINT or SIGTERM */
	struct sigaction old_int, old_term; /* restored by runner_signals_restore() */
	int signals;			    /* installed */
};

#define RUNNER_INIT                                               \
	{                                                         \
		.launcher = LAUNCHER_MPIRUN, .lock = RUNLOCK_INIT \
	}

/* Ready to launch the spec's jobs with launcher l. s must outlive r. */
void runner_init(struct runner *r, const struct spec *s, enum launcher l);

/* Which launcher: name (--launcher), else srun inside a Slurm allocation,
 * else the spec's. srun outside an allocation is refused unless dry_run. */
int runner_pick_launcher(const char *name, const struct spec *s, const char *spec_path, int dry_run,
			 enum launcher *out);

/* Where launch folders go for database db: "DIR/runs/" beside it, or
 * "DIR/runs/<name>-" for a database not named sweetspot.db; absolute. The
 * caller frees it. */
char *runner_runs_root(const char *db);

/* Takes the run's lock (runlock.h; r->wait_lock: wait for it, else refuse
 * naming the holder), then continues the latest run of spec_path (with
 * r->label) when it has the spec's hash and fresh is 0, else begins a new
 * one planned for launches and points; says which on stderr. Sets r->store, r->run, r->root and the
 * progress for nlaunches launches of reps each. 0 or -1. */
int runner_open(struct runner *r, struct store *st, const char *spec_path, const char *db,
		int fresh, long long launches, long long points, long nlayouts, long reps);

/* Measures job at repetition rep (1-based) unless the run holds it, with
 * the spec's retries, and fills *oc (with the stored points of a launch the
 * run held only when r->read_back). Returns 0 (recorded or skipped), 1
 * when interrupted (nothing recorded), 2 when --max-launches was reached
 * (nothing run), -1 when the store failed. */
int runner_launch(struct runner *r, const struct runner_job *job, unsigned rep,
		  struct runner_outcome *oc);

/* Every job at every repetition 1..reps, in order (only_rep: that one).
 * Returns 0, 1 interrupted, 2 paused, -1 store failure. */
int runner_sweep(struct runner *r, const struct runner_job *jobs, size_t njobs, unsigned reps,
		 unsigned only_rep);

/* Ends the progress line, sets the run's status when every planned launch
 * is recorded, and fills the counts. 0 or -1. */
int runner_finish(struct runner *r, long long *launches, long long *failed, long long *points,
		  long long *invalid);
void runner_release(struct runner *r);

/* --dry-run: prints to out, for each job's first repetition, the command a
 * run into db would start, in the folder it would use (its run's number
 * when it would continue one, else "<run>"); writes nothing. 0 or -1. */
int runner_dry_run(struct runner *r, const char *spec_path, const char *db,
		   const struct runner_job *jobs, size_t njobs, FILE *out);

/* SIGINT and SIGTERM stop the engine between launches (launch_spawn()
 * passes them on to a launch under way). */
void runner_signals_install(struct runner *r);
void runner_signals_restore(struct runner *r);

/* The plan's layouts as jobs (an array of p->nlayouts; free() it). */
struct runner_job *runner_plan_jobs(const struct plan *p);

/* The search's measuring through the engine: ctx for runner_search_measure. */
struct runner_search {
	struct runner *runner;
	const struct search_space *sp;
	const struct runner_job *jobs; /* one per search layout, same order */
	unsigned failed;	       /* launches that failed (recorded as such) */
	int paused;		       /* max_launches reached: the next invocation resumes */
};

/* A search_measure_fn (search.h): 1 for a launch read back from the store. */
int runner_search_measure(void *ctx, size_t layout, unsigned rep, double *oe);

/* How a search through the engine runs beyond the search's own options. */
struct runner_search_how {
	unsigned long long max_launches; /* new launches of this invocation; 0: no
					  * limit. Reached: paused, and the next
					  * invocation resumes the same search */
	int wait_lock;			 /* another writer of the run: wait for it */
	int tell;			 /* each decision as it is reached, a line
					  * "search: reached ..." on the progress's stream */
};

/* The search over the plan of s with real launches into the run of
 * spec_path in db (created when missing), with launcher l; how may be
 * NULL. The search is deterministic given its values, so an invocation
 * after another resumes it: the launches the run holds are read back in
 * the order the search asks for them, and the first it lacks is launched.
 * The progress counts the search's budget when it has one. Returns 0 with
 * *res filled (release it) and *failed the launches that failed, 1 when
 * interrupted, 2 when paused at how->max_launches (nothing to release),
 * -1 after error(). */
int runner_search_run(const struct spec *s, const struct plan *p, const char *spec_path,
		      const char *db, enum launcher l, const struct search_opts *o,
		      const struct runner_search_how *how, struct search_result *res,
		      unsigned *failed);

#endif
