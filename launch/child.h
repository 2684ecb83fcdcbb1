/*
 * launch/child.h: starting one child process the way every launch of a
 * sweep needs it: an argv vector run with posix_spawnp (no shell ever sees a
 * word of it), extra environment entries, a working folder, standard output
 * and standard error appended to a log file, the child in a process group
 * of its own, and a time limit that takes the whole group down (SIGTERM,
 * then SIGKILL after a grace period). SIGINT and SIGTERM sent to sweetspot
 * while a child runs are passed on to the child's group, and reported;
 * SIGHUP (the terminal gone) is passed on as SIGTERM. The group dies with
 * sweetspot whatever kills it, SIGKILL included: a watchdog process leads
 * the group and takes it down (and cancels an srun's Slurm step) when
 * sweetspot is gone.
 */
#ifndef SWEETSPOT_LAUNCH_CHILD_H
#define SWEETSPOT_LAUNCH_CHILD_H

#include "strvec.h"

#include <sys/types.h>

/* What to run. Only argv is required; every pointer is borrowed. */
struct launch_child {
	const struct strvec *argv; /* argv[0] is searched in PATH */
	const struct strvec
		*env;	  /* "NAME=value" added to (or replacing in) the environment; NULL: none */
	const char *dir;  /* working folder; NULL: sweetspot's own. Relative
					 * paths in argv are taken from there */
	const char *log;  /* stdout+stderr appended here (a relative path is
					 * sweetspot's, not dir's); NULL: inherited */
	double timeout_s; /* wall-clock limit; 0: none */
	double grace_s;	  /* SIGTERM -> SIGKILL delay; 0: LAUNCH_GRACE_S */
	/* When set, polled every LAUNCH_POLL_S while the child runs: 1 once
	 * the work it was started for is all done (its output complete). An
	 * srun (argv[0]) still running LAUNCH_LINGER_S after that, whose
	 * Slurm step is no longer listed (`scontrol -o show step`: no step
	 * with an srun of its group), is ended as at a time limit, and
	 * r->lingered says so. Slurm before 24.11 can leave srun waiting for
	 * ever after every task of a heterogeneous step has ended (its PMIx
	 * abort agents, one per component, race on one thread id: SchedMD
	 * bug 16817); the work is whole, only the launcher hangs. */
	int (*work_done)(void *arg);
	void *work_arg;
	/* When set, called every LAUNCH_POLL_S while the child runs, with
	 * work_arg (e.g. to report the output a long launch has written so
	 * far); it decides nothing. */
	void (*tick)(void *arg);
};

#define LAUNCH_GRACE_S	5.0
#define LAUNCH_POLL_S	2.0
#define LAUNCH_LINGER_S 10.0

/* What happened. status follows the contract of every child process here:
 * -1 if it could not start (err holds the errno), else its exit code, or
 * 128 + the signal that ended it. */
struct launch_result {
	int status;
	int err;	  /* errno when status == -1, else 0 */
	int timed_out;	  /* the time limit was reached and the group killed */
	int interrupted;  /* SIGINT, SIGTERM or SIGHUP sent to us and passed on, else 0 */
	int strays;	  /* the group outlived the child and was killed */
	int lingered;	  /* an srun outlived its step, its work done, and was ended */
	pid_t pid;	  /* the child's pid, 0 if none */
	pid_t pgid;	  /* its process group (led by the watchdog), 0 if none */
	double wall_s;	  /* from spawn to the leader's exit */
	char reason[256]; /* one line for people: why it ended */
};

/* Runs the child to its end (or its time limit) and fills *r. Prints
 * nothing: the caller decides what to say about r->reason. Returns
 * r->status. Not thread-safe, and for a single-threaded program only (it
 * forks the watchdog without exec): it blocks SIGCHLD, SIGINT, SIGTERM and
 * SIGHUP in the calling thread while it waits, and restores the mask
 * before returning. */
int launch_spawn(const struct launch_child *c, struct launch_result *r);

/* The child as one shell-quoted line for people (--dry-run and logs):
 * `cd DIR && NAME=value ... argv...`. The caller frees it. */
char *launch_child_line(const struct launch_child *c);

/* The full path of PROG found in PATH (or PROG itself when it holds a
 * '/' and is executable); NULL when not found. The caller frees it. */
char *launch_which(const char *prog);

#endif
