/*
 * launch/sbatch.h: batch jobs. A sweep that outlives a terminal runs as an
 * sbatch script that calls `sweetspot run` inside the allocation (where it
 * launches with srun). This module writes that script — one node class, or
 * a heterogeneous job (`#SBATCH hetjob`) when the DPUs are a separate class
 * of nodes — and submits it with `sbatch --parsable` as an argv vector,
 * chained after an earlier job if asked, waiting for it if asked.
 * The script is read by a shell: every value in its body is shell-quoted,
 * and every value on an #SBATCH line is checked against a safe alphabet.
 */
#ifndef SWEETSPOT_LAUNCH_SBATCH_H
#define SWEETSPOT_LAUNCH_SBATCH_H

#include "strvec.h"

/* One component of the job: a node class. */
struct sbatch_part {
	unsigned nodes;
	unsigned tasks_per_node;
	const char *constraint; /* Slurm feature expression (e.g. "dpu"), or NULL */
	const char *nodelist;	/* exact nodes (e.g. "n[1-2],n1-bf"), or NULL */
};

/* A job. Pointers are borrowed. */
struct sbatch_job {
	const char *name;      /* --job-name */
	unsigned time_limit_s; /* --time, rounded up to minutes; 0: the partition's */
	const char *partition; /* NULL: the default */
	const char *output;    /* --output (Slurm's %j etc. allowed); NULL: Slurm's */
	const char *error;     /* --error; NULL: with the output */
	const char *chdir;     /* folder the command runs in; NULL: sbatch's */
	struct sbatch_part part[2];
	unsigned nparts;	      /* 1, or 2 for a heterogeneous job (hosts, DPUs) */
	const struct strvec *env;     /* "NAME=value" exported before the command */
	const struct strvec *command; /* what the job runs, e.g. sweetspot run SPEC --db DB */
};

/* The script's text, or NULL after error() (a value that cannot be put on
 * an #SBATCH line, a missing command, a bad count). The caller frees it. */
char *sbatch_script(const struct sbatch_job *j);

/* Writes the script to PATH (whole or not at all: a temporary file renamed
 * into place), executable. Returns 0, or -1 after error(). */
int sbatch_write(const struct sbatch_job *j, const char *path);

/* How to submit. */
struct sbatch_submit {
	const char *script; /* the script's path */
	const char *after;  /* job id to start after (afterany), or NULL */
	int wait;	    /* sbatch --wait: return when the job ends */
	double timeout_s;   /* give up on sbatch after this; 0: none */
	const char *log;    /* sbatch's own output; NULL: a file next to the script */
	int cancel;	    /* with wait: SIGINT, SIGTERM or SIGHUP to us while waiting
			     * cancel the job (scancel): nothing outlives the caller */
};

/* Submits with `sbatch --parsable [--dependency=afterany:ID] [--wait] SCRIPT`.
 * On success returns 0 and sets *job_id (the caller frees it) and, with
 * wait, *job_status to the job's exit status (sbatch's own exit status:
 * 0 when the job succeeded). Returns -1 after error() when the job could
 * not be submitted (or the wait timed out), with sbatch's words; with wait
 * and cancel, 1 after error() (and *job_id set) when the wait was
 * interrupted and the job cancelled. */
int sbatch_submit(const struct sbatch_submit *s, char **job_id, int *job_status);

/* The output file of job id: Slurm's %j in pattern replaced by it. The
 * caller frees it. */
char *sbatch_job_output(const char *pattern, const char *id);

/* True when id looks like a Slurm job id ("123", "123_4", "123+1"). */
int sbatch_valid_job_id(const char *id);

#endif
