/*
 * tuner/store/store_write.h: what writes the results database, apart from
 * what reads it (store.h): runs begun and ended, launches and their points
 * recorded, batch jobs queued. Only the parts that record include it: the
 * sweep engine (runner), submit and verify; readers see store.h alone.
 */
#ifndef SWEETSPOT_STORE_WRITE_H
#define SWEETSPOT_STORE_WRITE_H

#include "store.h"

/* ---- runs ---------------------------------------------------------------- */

/* Records a new run (status "running"); r->id is set. Strings may be NULL
 * except spec_path, spec_hash and host. started is set here when NULL. */
int store_run_begin(struct store *st, struct store_run *r);
/* Sets a run's status ("done" or "failed") and its finish time. */
int store_run_end(struct store *st, long long run, const char *status);

/* ---- launches and points ------------------------------------------------- */

/* Records one finished launch and its n points in one transaction: the
 * launch row, then (after deleting points of earlier attempts of the same
 * run, layout and repetition) every point with l->layout's fields. On any
 * failure nothing is written and -1 is returned. l->id is set. */
int store_launch_record(struct store *st, struct store_launch *l, const struct store_point *pts,
			size_t n);

/* ---- batch jobs ---------------------------------------------------------- */

/* Records a job; a NULL job_id records the intent before sbatch is asked
 * (job_id '' in the table: "submitting"), so that a submit killed after
 * Slurm accepted the job still leaves its script behind. *id (may be
 * NULL) is set to the row's id for store_job_set_id(). */
int store_job_record(struct store *st, const struct store_job *j, long long *id);
/* The job id sbatch gave the intent row id; NULL deletes the row (sbatch
 * refused: nothing was submitted). */
int store_job_set_id(struct store *st, long long id, const char *job_id);
/* The exit status of a job that was waited for. */
int store_job_finished(struct store *st, const char *job_id, int exit_status);

#endif
