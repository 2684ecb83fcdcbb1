/*
 * launch/slurm.h: what sweetspot asks Slurm, and how it follows the jobs
 * it queued. The allocation this process runs in (its nodes and CPUs) and
 * the DPUs among its or the cluster's nodes (sinfo); the jobs of a name
 * (squeue); a job's state (squeue, then scontrol once it left the queue);
 * a chain of batch jobs, each after the one before (afterany), and
 * following each to its end, polled with a back-off, its output tailed.
 * Every query is an argv child whose output goes through a file; nothing
 * here runs a shell.
 */
#ifndef SWEETSPOT_LAUNCH_SLURM_H
#define SWEETSPOT_LAUNCH_SLURM_H

#include "strvec.h"

#include <signal.h>
#include <stdio.h>

/* BlueField-2 and -3 have 8 and 16 Arm cores; when sinfo cannot say, the
 * smaller is the safe guess (a WPN above the real count would oversubscribe). */
#define SLURM_DPU_CORES 8

/* The allocation this process runs in (SLURM_JOB_ID set). */
struct slurm_alloc {
	char *job_id;
	struct strvec nodes; /* host nodes, in rank order (DPUs left out) */
	unsigned cpus;	     /* per host node */
	char *dpu_suffix;    /* each node's DPU is its name plus this; NULL: none */
	unsigned dpu_cores;  /* as sinfo reports, else SLURM_DPU_CORES */
};

/* Reads the allocation from the environment (SLURM_JOB_NODELIST, the CPU
 * counts; fallback_cpus when they say nothing) and looks for its DPUs:
 * among its own names, else among the cluster's (sinfo). 0, or -1 after
 * error() when it cannot be read. a is released by slurm_alloc_release()
 * either way. */
int slurm_alloc_read(struct slurm_alloc *a, unsigned fallback_cpus);
void slurm_alloc_release(struct slurm_alloc *a);

/* CPUs per node of the allocation: SLURM_CPUS_ON_NODE ("36"), else the
 * smallest count of SLURM_JOB_CPUS_PER_NODE ("36(x2),32"), else fallback. */
unsigned slurm_cpus(unsigned fallback);
/* Whether name is node plus a suffix that does not go on with a digit
 * ("n1-bf" for "n1", not "n10" for "n1"); the suffix in *suffix. */
int slurm_dpu_of(const char *name, const char *node, const char **suffix);
/* The one suffix that turns every name of nodes into a name of cand, or
 * NULL (it points into cand). */
const char *slurm_dpu_suffix(const struct strvec *nodes, const struct strvec *cand);
/* The names of all without those that are another's DPU, appended to hosts. */
void slurm_split_hosts(const struct strvec *all, struct strvec *hosts);

/* The ids of the jobs named name that Slurm has queued or running
 * (`squeue -h -o %i --name=NAME`, its output through a file in dir),
 * appended to ids. 0, or -1 after error() when squeue cannot tell. */
int slurm_jobs_named(const char *name, const char *dir, struct strvec *ids);
/* The job ids of squeue's output, one a line (other lines skipped),
 * appended to ids. */
void slurm_parse_ids(FILE *f, struct strvec *ids);

/* What Slurm says of a job now. */
struct slurm_state {
	char state[32]; /* PENDING, RUNNING, COMPLETED, FAILED, ...; "UNKNOWN" */
	int done;	/* it has ended */
	int exit_code;	/* when done: ExitCode N:S as N, or 128+S; -1 unknown */
};

/* Asks `squeue -h -j ID -o %T` and, when the job has left the queue or
 * ended, `scontrol show job ID` (argv children, their output through the
 * file log, which is removed). 0, or -1 after error() when neither knows
 * the job. */
int slurm_job_state(const char *id, const char *log, struct slurm_state *st);
/* Whether a job in state s has ended (any state but the live ones). */
int slurm_state_ended(const char *s);
/* squeue's first line ("RUNNING") into st: 0, or -1 when it is empty. */
int slurm_parse_squeue(const char *line, struct slurm_state *st);
/* JobState= and ExitCode= of `scontrol show job`'s text into st: 0, or
 * -1 when it has no JobState. */
int slurm_parse_scontrol(const char *text, struct slurm_state *st);
/* The exit status of an ended job: 0 when it completed with no exit code,
 * else its exit code, else 1. */
int slurm_exit_status(const struct slurm_state *st);

/* A chain of batch jobs, each submitted to start after the one before
 * (afterany), so that each resumes where the last stopped. */
struct slurm_chain {
	struct strvec ids;     /* every job's id, in order */
	struct strvec outputs; /* every job's output file */
	/* Set (by the caller's signal handler) to stop following; NULL:
	 * nothing stops it but the job's end. */
	volatile sig_atomic_t *stop;
};

#define SLURM_CHAIN_INIT                       \
	{                                      \
		STRVEC_INIT, STRVEC_INIT, NULL \
	}

/* The last job's id, or NULL for an empty chain. */
const char *slurm_chain_last(const struct slurm_chain *c);
/* Submits script after the chain's last job (sbatch --parsable
 * --dependency=afterany:ID) and adds the job, with its output file
 * (output, a pattern with Slurm's %j, as the script names it). 0 and *id
 * (a copy: the caller frees it), or -1 after error(). */
int slurm_chain_submit(struct slurm_chain *c, const char *script, const char *output, char **id);
void slurm_chain_release(struct slurm_chain *c);

/* The first polling interval: SWEETSPOT_POLL_S (seconds, above 0 and at
 * most 60), else 1. */
double slurm_poll_interval(void);
/* The wait before the next poll: first while something changes, else
 * doubling, up to 4 times first and never past 3 s: slurmctld forgets a
 * finished job MinJobAge seconds after it ends (300 by default, 4 on the
 * test cluster), and a longer wait would lose how it ended. */
double slurm_next_wait(double wait, double first, int changed);
/* Follows job k of the chain to its end, printing to out its state
 * changes and the lines its output gains that say how it goes ("[k/N]
 * ...", "run ...", the search's "search: ..."); the queries' files go in
 * dir. The job's exit status, -1 when Slurm lost it, or
 * SLURM_FOLLOW_STOPPED when *c->stop was set (a signal passed on to a
 * query's child is raised again here, so the caller's handler sees it). */
#define SLURM_FOLLOW_STOPPED -2
int slurm_chain_follow(const struct slurm_chain *c, size_t k, const char *dir, FILE *out);
/* Cancels (scancel) the chain's jobs from k on, their names appended to
 * cancelled; the queries' files go in dir. 0, or -1 when some scancel
 * failed (reported). */
int slurm_chain_cancel(const struct slurm_chain *c, size_t k, const char *dir,
		       struct strvec *cancelled);

#endif
