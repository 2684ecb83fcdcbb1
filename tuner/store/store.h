/*
 * tuner/store/store.h: the results database, SQLite, the ONLY module that writes it.
 * A database holds runs (one per sweep of one spec file: its path, hash, host,
 * tool versions), launches (one per layout and repetition attempted: argv,
 * exit status, time limit hit, reason, log, wall time) and points (one per
 * kernel record of a launch, every field of the record as a column plus the
 * raw JSON line). A launch's points are written in the same transaction that
 * marks the launch finished, so a kill -9 at any moment leaves all of them or
 * none; a UNIQUE key keeps any point from being stored twice. The schema
 * version is PRAGMA user_version: a database from a newer sweetspot is
 * refused, untouched; an older one is upgraded when opened for writing.
 *
 * Readers (results, recommend, export, plot) use store_open(STORE_RDONLY),
 * store_latest_run() and store_foreach_point() / store_load_points(); that
 * read API is kept stable. The functions that write are in store_write.h,
 * which only the parts that record (the sweep engine, submit, verify)
 * include.
 */
#ifndef SWEETSPOT_STORE_H
#define SWEETSPOT_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "point.h"

#define STORE_SCHEMA_VERSION 3
#define STORE_DEFAULT_PATH   "results/sweetspot.db"

struct store;

/* store_open() flags. */
#define STORE_RDONLY 0 /* the database must exist; nothing is written */
#define STORE_CREATE 1 /* read-write; created (with its folder) if missing */

/* Opens path. Returns 0, or -1 after error() when the file is missing (with
 * STORE_RDONLY), unreadable, not a SQLite database, not a sweetspot database,
 * or from a newer schema; in every such case the file is left as it was.
 * The caller owns *out and frees it with store_close(). */
int store_open(const char *path, int flags, struct store **out);
void store_close(struct store *st);

/* ---- runs ---------------------------------------------------------------- */

struct store_run {
	long long id;
	char *spec_path; /* as given on the command line */
	char *spec_hash; /* hex digest of the spec file's bytes */
	char *started;	 /* ISO 8601, UTC */
	char *finished;	 /* NULL while running or interrupted */
	char *host;
	char *launcher;
	char *sweetspot_version, *ompi_version, *slurm_version; /* NULL: not found */
	char *status;						/* "running", "done", "failed" */
	long long planned_launches, planned_points;
};

/* Frees the strings of r (not r itself). */
void store_run_release(struct store_run *r);

/* The latest run (highest id); when spec_path is not NULL, the latest run of
 * that spec path. Returns 1 and fills *r (release it), 0 if there is none,
 * -1 on error. */
int store_latest_run(struct store *st, const char *spec_path, struct store_run *r);
/* Run id: 1 and *r, 0 if there is no such run, -1 on error. */
int store_get_run(struct store *st, long long id, struct store_run *r);

/* ---- launches and points ------------------------------------------------- */

/* The layout fields a point carries besides the kernel's record. */
struct store_layout {
	const char *id; /* e.g. "n2-ppn4-w2-wpn1-onload" */
	int nodes, ppn, workers, wpn;
	const char *placement; /* "dpu" | "onload" */
};

struct store_launch {
	long long id; /* set by store_launch_record() */
	long long run;
	struct store_layout layout;
	int repetition;	  /* 1-based */
	const char *argv; /* shell-quoted for people */
	int exit_status;  /* -1 could not start, else code or 128+signal */
	int timed_out;
	const char *reason; /* NULL when ok */
	const char *log_path;
	double wall_s;
	const char *started, *finished; /* ISO 8601 UTC */
	int ok;				/* exit status 0 and every record stored */
};

/* One kernel record (a point) with its launch's context. Every string is
 * owned by whoever filled the struct: by record_parse()'s caller via
 * store_point_release(), or by the store during store_foreach_point()
 * (valid only inside the callback). Numbers absent from a record are NaN
 * (doubles) or -1 (integers); absent strings are "". */
struct store_point {
	long long id, run, launch;
	const char *layout;
	int repetition;
	int wpn;
	const char *placement;
	int schema;
	const char *mode;
	/* What the point is (point.h): collective, algorithm, assignment,
	 * bytes, and the axes beside the layout's (schema 3), "" and 0 where
	 * they do not apply. */
	struct point key;
	int hosts, workers, nodes, ppn, iterations, warmup;
	const char *transport, *device, *host_source;
	double ref_us, comm_us, compute_us, total_us;
	double oe_paper, oe_measured, overlap;
	double total_us_min, total_us_median, total_us_max;
	int valid;
	const char *rank_hosts;	  /* the JSON array, as text */
	const char *raw;	  /* the whole JSON line */
	int ranks;		  /* hosts + workers */
	int bad_rank, bad_source; /* invalid records: where validation failed */
	long long bad_offset;
	/* Bandwidths (bytes per second): bytes / comm_us, normalised as
	 * nccl-tests does, and the transport's point to point one. */
	double algbw, busbw, p2p_bw;
	/* Launch-level medians of the kernel's calibration, and whether the
	 * compute phase met its reference: 1 yes, -1 no (decisions leave the
	 * point out), 0 the kernel did not say (so a zeroed point is not
	 * flagged). The column holds 1, 0 and NULL. */
	double ref_us_median, compute_us_median, oe_measured_median, calib_error;
	int calibrated;
};

/* The offload efficiency a decision compares, in percent: the reference's
 * median over iterations over the offloaded total's, not capped at 100
 * (at the cap configurations that differ would look equal) and, being of
 * medians, not moved by an iteration the OS descheduled. A point without
 * those medians (an older record) gives its oe_measured. */
double store_point_oe(const struct store_point *p);

/* Frees the strings of a point filled by record_parse() (record.h). */
/* A deep copy of src into dst: every string duplicated (NULL stays NULL);
 * release it with store_point_release(). The one copy of a point's
 * strings, beside the one release: a field added to one is added to both. */
void store_point_copy(struct store_point *dst, const struct store_point *src);
void store_point_release(struct store_point *p);

/* Whether (run, layout, repetition) already has a launch that ended ok
 * (retry_failed) or any recorded launch (!retry_failed): 1 yes, 0 no, -1 error. */
int store_launch_done(struct store *st, long long run, const char *layout, int repetition,
		      int retry_failed);

/* The command line that ran the latest launch of layout in run that ended
 * ok: the launches table's argv column, as the sweep stored it (the
 * environment assignments, then the launcher's argv, shell-quoted; older
 * databases hold the argv alone). Returns 1 and *out (the caller frees
 * it), 0 when no launch of that layout ended ok (*out NULL), -1 after
 * error(). */
int store_launch_command(struct store *st, long long run, const char *layout, char **out);

/* Calls fn for every launch recorded in run, oldest first (every attempt,
 * failed ones too; the strings are valid only inside the callback; argv,
 * started and finished are not read); stops early when fn returns nonzero
 * and returns that value. 0 when every launch was visited, -1 on error. */
int store_foreach_launch(struct store *st, long long run,
			 int (*fn)(const struct store_launch *l, void *data), void *data);

/* The latest attempt of (run, layout, repetition): whether it ended ok, its
 * wall time and its log's path (*log: the caller frees it). Returns 1, 0
 * when there is none (nothing set), -1 after error(). */
int store_launch_get(struct store *st, long long run, const char *layout, int repetition, int *ok,
		     double *wall_s, char **log);

/* Counts for a run: launches recorded (distinct layout+repetition), failed
 * ones among them (latest attempt not ok), and points stored (valid and not).
 * Any pointer may be NULL. */
int store_run_counts(struct store *st, long long run, long long *launches, long long *failed,
		     long long *points, long long *invalid);

/* ---- batch jobs ---------------------------------------------------------- */

/* One sbatch job of a submitted sweep. Strings are borrowed. */
struct store_job {
	const char *spec_path, *spec_hash;
	const char *job_id; /* as sbatch --parsable printed it */
	int chunk, chunks;  /* 1-based chunk of how many */
	const char *after;  /* the job it starts after, or NULL */
	const char *script;
	int exit_status; /* -1: not known (not waited for) */
};

/* A job of a spec not known to have ended (not waited for). */
struct store_job_row {
	long long id;
	char *job_id; /* "" while submitting (the id never came back) */
	char *script;
};
/* Those jobs of spec_path, oldest first, into *out (n of them; free with
 * store_job_rows_free()). 0 or -1. */
int store_jobs_open(struct store *st, const char *spec_path, struct store_job_row **out, size_t *n);
void store_job_rows_free(struct store_job_row *rows, size_t n);

/* ---- reading points ------------------------------------------------------ */

/* store_foreach_point() / store_load_points() flags. */
#define STORE_VALID_ONLY 0
#define STORE_ALL_POINTS 1 /* include points recorded as invalid */

/* Calls fn for every point of run (ordered by layout, collective,
 * algorithm, assignment, bytes, repetition); stops early when fn returns
 * nonzero and returns that value. Returns 0 when every point was visited,
 * -1 on a database error. */
int store_foreach_point(struct store *st, long long run, int flags,
			int (*fn)(const struct store_point *p, void *data), void *data);

/* The same points as an array the caller owns: free with store_points_free(). */
int store_load_points(struct store *st, long long run, int flags, struct store_point **out,
		      size_t *n);
void store_points_free(struct store_point *pts, size_t n);

#endif
