/*
 * launch/argv.h: the command lines that start one layout's MPMD job, built
 * from the files generated for that layout (hostfile, appfile,
 * slurm.hostfile, multi-prog.conf, hostfile.mvapich, config) as argv
 * vectors plus the environment entries they need:
 *   srun --mpi=pmix -n N -N NODES --distribution=arbitrary
 *        --multi-prog DIR/multi-prog.conf --kill-on-bad-exit=1 [--time=MIN]
 *        (with SLURM_HOSTFILE=DIR/slurm.hostfile)
 *   mpirun [--allow-run-as-root] [--oversubscribe] [--mca K V]... [-x NAME]...
 *        --hostfile DIR/hostfile --app DIR/appfile  (with NAME=value)
 *   mpirun_rsh -np N -hostfile DIR/hostfile.mvapich [NAME=VALUE]... -config DIR/config
 * Nothing here runs anything; launch/child.h does.
 */
#ifndef SWEETSPOT_LAUNCH_ARGV_H
#define SWEETSPOT_LAUNCH_ARGV_H

#include "strvec.h"

enum launcher {
	LAUNCHER_SRUN,
	LAUNCHER_MPIRUN,
	LAUNCHER_MPIRUN_RSH,
};

/* One layout's launch. Pointers are borrowed. */
struct launch_opts {
	const char *dir;		/* the layout's folder of generated files */
	unsigned ranks;			/* every rank: hosts + workers */
	unsigned nodes;			/* srun -N; 0: counted from slurm.hostfile */
	unsigned time_limit_s;		/* 0: none; srun gets a step limit from it */
	const struct strvec *mca;	/* Open MPI "name=value": --mca for mpirun, OMPI_MCA_ for srun */
	const struct strvec *env;	/* "NAME=value" for every rank (mpirun_rsh: on its line) */
	int oversubscribe;		/* mpirun --oversubscribe */
	const char *rsh_agent;		/* mpirun --mca plm_rsh_agent (tests: fake-ssh) */
	int root;			/* add --allow-run-as-root: 1 yes, 0 no, -1 when euid is 0 */
	const char *program;		/* the launcher binary; NULL: its usual name */
	const struct strvec *extra;	/* the site's own launcher options, right after the program */
};

#define LAUNCH_OPTS_INIT { NULL, 0, 0, 0, NULL, NULL, 0, NULL, -1, NULL, NULL }

/* A command ready for launch_spawn(): argv plus extra environment. */
struct launch_cmd {
	struct strvec argv;
	struct strvec env;
};

#define LAUNCH_CMD_INIT { STRVEC_INIT, STRVEC_INIT }

void launch_cmd_clear(struct launch_cmd *cmd);

/* "srun", "mpirun", "mpirun_rsh". */
const char *launcher_name(enum launcher l);
/* Returns 0 and sets *l, or -1 with an error naming the choices. */
int launcher_parse(const char *name, enum launcher *l);

/* Fill cmd (which must be empty) for the launcher. They check that the
 * files they name exist and that the counts agree with them, and return
 * 0, or -1 after error(). */
int launch_argv_srun(const struct launch_opts *o, struct launch_cmd *cmd);
int launch_argv_mpirun(const struct launch_opts *o, struct launch_cmd *cmd);
int launch_argv_mpirun_rsh(const struct launch_opts *o, struct launch_cmd *cmd);
int launch_argv(enum launcher l, const struct launch_opts *o, struct launch_cmd *cmd);

/* One component of a heterogeneous job's step: a program and its
 * arguments, its ranks, and the nodes they spread over. */
struct launch_het_part {
	const struct strvec *argv;
	unsigned ranks;
	unsigned nodes;
};

/* srun for a heterogeneous job where the DPUs are a separate node class:
 *   srun --het-group=0 --mpi=pmix -n H -N HN ... host argv
 *      : --het-group=1 --mpi=pmix -n W -N WN ... worker argv
 * One MPI_COMM_WORLD: the hosts take ranks 0..H-1 and the workers the
 * highest ones, block-wise over each component's nodes. Uses o->time_limit_s,
 * o->mca, o->env and o->program; o->dir and o->ranks are not needed. */
int launch_argv_srun_het(const struct launch_opts *o, const struct launch_het_part *hosts,
			 const struct launch_het_part *workers, struct launch_cmd *cmd);

/* 0 when cmd's program is found in PATH (or is an executable path), else
 * -1 after an error naming it: "srun is not installed (not found in PATH)". */
int launch_check_installed(const struct launch_cmd *cmd);

/* Every entry of sv (may be NULL) is NAME=value with a valid variable
 * name; else -1 after an error that calls the entry `what`. */
int launch_check_assignments(const struct strvec *sv, const char *what);

/* Reads a Slurm hostfile (one host per rank, in rank order; blank lines and
 * '#' comments skipped): the ranks it holds and how many distinct hosts.
 * Returns 0, or -1 after error() with file:line for a bad line. */
int slurm_hostfile_count(const char *path, unsigned *ranks, unsigned *hosts);

/* Step limit for srun, in whole minutes: Slurm counts time in minutes and
 * checks it only now and then, so it is a backstop for when sweetspot
 * itself is gone; the exact limit is launch_spawn()'s. */
unsigned launch_srun_minutes(unsigned time_limit_s);

#endif
