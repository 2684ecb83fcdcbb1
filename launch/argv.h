/*
 * launch/argv.h: the command lines that start one layout's MPMD job, built
 * from the files generated for that layout (hostfile, appfile, rankfile,
 * slurm.hostfile, multi-prog.conf, hostfile.mvapich, config, hostfile.hydra,
 * configfile.hydra) as argv
 * vectors plus the environment entries they need:
 *   srun [EXTRA] --mpi=pmix --ntasks=N --nodes=NODES --distribution=arbitrary
 *        --kill-on-bad-exit=1 [--time=MIN] --multi-prog DIR/multi-prog.conf
 *        (with SLURM_HOSTFILE=DIR/slurm.hostfile, and SLURM_JOB_NODELIST and
 *        SLURM_NODELIST set to the step's nodes in Slurm's ranged form:
 *        see slurm_step_nodelist())
 *   mpirun [EXTRA] [--allow-run-as-root] [--oversubscribe] [--timeout S]
 *        [--mca K V]... [-x NAME]... --hostfile DIR/hostfile
 *        [--rankfile DIR/rankfile] --app DIR/appfile  (with NAME=value)
 *   mpirun_rsh [EXTRA] -np N -hostfile DIR/hostfile.mvapich [NAME=VALUE]...
 *        -config DIR/config
 *   mpiexec.hydra [EXTRA] [-genv NAME VALUE]... -f DIR/hostfile.hydra
 *        -configfile DIR/configfile.hydra  (MPICH; with MPIEXEC_TIMEOUT=S
 *        when the line keeps its own limit)
 * These are the only builders of those lines: what `sweetspot run`
 * executes, the `commands` file generate writes for people, and export's
 * MPMD recipe all come from here. Nothing here runs anything;
 * launch/child.h does.
 */
#ifndef SWEETSPOT_LAUNCH_ARGV_H
#define SWEETSPOT_LAUNCH_ARGV_H

#include "strvec.h"

/* Linux's MAX_ARG_STRLEN: the longest argument or "NAME=value" that
 * execve() takes (32 pages); one byte more and it fails with E2BIG. */
#define LAUNCH_ARG_MAX	 131072
/* Ranks of one launch that a file read here may hold (2^24; Fugaku with
 * a DPU worker per 12 cores is 8.3M). */
#define LAUNCH_RANKS_MAX (1u << 24)

enum launcher {
	LAUNCHER_SRUN,
	LAUNCHER_MPIRUN,
	LAUNCHER_MPIRUN_RSH,
	LAUNCHER_HYDRA,
};

/* One layout's launch. Pointers are borrowed. */
struct launch_opts {
	const char *dir;	  /* the layout's folder of generated files */
	unsigned ranks;		  /* every rank: hosts + workers */
	unsigned nodes;		  /* srun -N; 0: counted from slurm.hostfile */
	unsigned time_limit_s;	  /* 0: none; srun gets a step limit from it */
	const struct strvec *mca; /* Open MPI "name=value": --mca for mpirun, OMPI_MCA_ for srun */
	const struct strvec *env; /* "NAME=value" for every rank (mpirun_rsh: on its line,
					 * hydra: -genv) */
	int oversubscribe;	  /* mpirun --oversubscribe */
	const char *rsh_agent;	  /* mpirun --mca plm_rsh_agent (tests: fake-ssh) */
	int root;		  /* add --allow-run-as-root: 1 yes, 0 no, -1 when euid is 0 */
	const char *program;	  /* the launcher binary; NULL: its usual name */
	const struct strvec *extra; /* the site's own launcher options, right after the program */
	int rankfile;		    /* mpirun: --rankfile DIR/rankfile too, each rank pinned */
	int own_limit;		    /* a line run by hand, without launch_spawn()'s limit
					 * around it: mpirun gets --timeout time_limit_s, and
					 * srun's --time is the limit, not a backstop past it */
	int check_files;	    /* 1: the files must exist and agree (srun counts its
					 * nodes from slurm.hostfile); 0: build the line for a
					 * folder not written yet: no file is looked at, and
					 * srun takes hosts, which must then be set */
	const struct strvec *hosts; /* srun with check_files 0: each rank's host, in
					 * rank order (slurm.hostfile's lines to be); a run
					 * of ranks on one host may be given once */
};

#define LAUNCH_OPTS_INIT                                                          \
	{                                                                         \
		NULL, 0, 0, 0, NULL, NULL, 0, NULL, -1, NULL, NULL, 0, 0, 1, NULL \
	}

/* A command ready for launch_spawn(): argv plus extra environment. */
struct launch_cmd {
	struct strvec argv;
	struct strvec env;
};

#define LAUNCH_CMD_INIT                  \
	{                                \
		STRVEC_INIT, STRVEC_INIT \
	}

void launch_cmd_clear(struct launch_cmd *cmd);
/* The command as one line a shell runs as it is: the environment entries as
 * NAME=value assignments (values quoted), then the argv, each word quoted
 * where needed. The one formatter of every command line a user sees (the
 * generated `commands`, run --dry-run, recommend, export's MPMD recipe).
 * The caller frees it. */
char *launch_cmd_line(const struct launch_cmd *cmd);

/* "srun", "mpirun", "mpirun_rsh", "hydra". */
const char *launcher_name(enum launcher l);
/* The program a launcher's line starts when o->program is not given:
 * "srun", "mpirun", "mpirun_rsh", "mpiexec.hydra" (MPICH's launcher by its
 * own name: mpiexec and mpirun are Open MPI's while both are installed). */
const char *launcher_program(enum launcher l);
/* Returns 0 and sets *l, or -1 with an error naming the choices. */
int launcher_parse(const char *name, enum launcher *l);

/* Fill cmd (which must be empty) for the launcher. With o->check_files
 * they check that the files they name exist and that the counts agree
 * with them. They return 0, or -1 after error() (cmd may then hold part of
 * a line: launch_cmd_clear() it). */
int launch_argv_srun(const struct launch_opts *o, struct launch_cmd *cmd);
int launch_argv_mpirun(const struct launch_opts *o, struct launch_cmd *cmd);
int launch_argv_mpirun_rsh(const struct launch_opts *o, struct launch_cmd *cmd);
int launch_argv_hydra(const struct launch_opts *o, struct launch_cmd *cmd);
/* Every host rank of a machine running one program, without layout files
 * (the host-only launches of `sweetspot baseline`): ppn ranks on each of
 * hosts, in rank order; program is the argv of every rank. srun: --nodes,
 * --ntasks, --ntasks-per-node, --nodelist (and the step's node list, the
 * PMIx fix; both in Slurm's ranged form); mpirun: --host h:ppn,... -np N;
 * hydra: -hosts h:ppn,... -n N. Neither of those reads ranges: a list
 * longer than LAUNCH_ARG_MAX goes in o->dir/hosts instead ("h slots=N" /
 * "h:N" lines, written there when o->check_files), named by --hostfile /
 * -f. Uses o->env, o->extra, o->root, o->oversubscribe, o->dir. */
int launch_argv_hosts(enum launcher l, const struct launch_opts *o, const struct strvec *hosts,
		      unsigned ppn, const struct strvec *program, struct launch_cmd *cmd);
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

/* Reads an MPICH hydra configfile (lines "-n N -host H PROG ARGS", blank
 * lines and '#' comments skipped) and returns the ranks it starts in
 * *ranks. Returns 0, or -1 after error() with file:line for a line that
 * does not start with -n N. */
int hydra_configfile_ranks(const char *path, unsigned *ranks);

/* Reads a Slurm hostfile (one host per rank, in rank order; blank lines and
 * '#' comments skipped): the ranks it holds and how many distinct hosts.
 * Returns 0, or -1 after error() with file:line for a bad line. */
int slurm_hostfile_count(const char *path, unsigned *ranks, unsigned *hosts);
/* The same file's hosts in rank order, appended to hosts, a run of lines
 * naming one host once (8.3M ranks make 320,000 strings); its ranks in
 * *ranks (at most LAUNCH_RANKS_MAX). */
int slurm_hostfile_hosts(const char *path, struct strvec *hosts, unsigned *ranks);

/* Slurm's order of two host names, the order of `scontrol show
 * hostlistsorted` (prefix in natural order, then the number it ends with):
 * < 0, 0 (same name) or > 0. */
int slurm_host_cmp(const char *a, const char *b);
/* The distinct names of hosts, once each, in that order, as a Slurm
 * hostlist that expands to them in that order (hostlist_compress(): Slurm
 * does not sort a list it reads): what srun --mpi=pmix needs as
 * SLURM_JOB_NODELIST and SLURM_NODELIST for a step on those nodes (Slurm
 * 22.05's mpi/pmix plugin numbers nodes by the job's list but routes by
 * the step's; tests/testbed/slurm-pmix-bug.md). Names with text after
 * their number ("n1-bf") are listed one by one, as every Slurm reads
 * them, unless that is longer than LAUNCH_ARG_MAX; then they are ranged
 * too ("n[1-100000]-bf", which Slurm reads from 23.11 on). "" for no
 * hosts. The caller frees it. */
char *slurm_step_nodelist(const struct strvec *hosts);

/* Step limit for srun, in whole minutes: Slurm counts time in minutes and
 * checks it only now and then, so it is a backstop for when sweetspot
 * itself is gone; the exact limit is launch_spawn()'s. */
unsigned launch_srun_minutes(unsigned time_limit_s);

/* SimGrid SMPI: the program's ranks on a simulated platform (a SimGrid
 * platform file and a hostfile of one simulated host per line, in rank
 * order), every `cfg` entry as --cfg=NAME:VALUE:
 *   smpirun [EXTRA] -platform P -hostfile H -np N [--cfg=C]... PROGRAM ARGS
 * Uses o->ranks, o->env (smpirun's own environment: every rank is a thread
 * of its one process), o->extra and o->program. 0, or -1 after error(). */
int launch_argv_smpirun(const struct launch_opts *o, const char *platform, const char *hostfile,
			const struct strvec *cfg, const struct strvec *program,
			struct launch_cmd *cmd);

#endif
