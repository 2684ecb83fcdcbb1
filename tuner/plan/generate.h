/*
 * tuner/plan/generate.h: the files that start one layout's MPMD job, for each
 * launcher, written from a plan. Per layout folder:
 *   hostfile          Open MPI: "host slots=N", nodes then DPUs
 *   appfile           Open MPI MPMD (--app): one context per node, host
 *                     binary contexts first, then worker ones, so that
 *                     mpirun places every rank where the plan says
 *   rankfile          Open MPI: "rank R=host slot=S" (onload pinning)
 *   hostfile.mvapich  mpirun_rsh: "host:N", in rank order
 *   config            mpirun_rsh MPMD: "-n H : host_bin args" and
 *                     "-n W : worker_bin args", as DPU-Bench writes them
 *   hostfile.hydra    MPICH hydra (-f): "host:N", each host once, in rank
 *                     order
 *   configfile.hydra  hydra MPMD (-configfile): "-n N -host H bin args",
 *                     one line per node and role, host ranks first
 *   slurm.hostfile    one host per rank (SLURM_HOSTFILE with
 *                     --distribution=arbitrary)
 *   multi-prog.conf   srun --multi-prog: "0-(H-1) host_bin args",
 *                     "H-(H+W-1) worker_bin args"
 *   commands          the launch command of each launcher, shell-quoted,
 *                     for people to read: launch/argv.c's lines, built
 *                     for the folder's final path
 * and DIR/layouts.tsv listing the layouts. Writing goes to a temporary
 * folder renamed into place at the end: on any error nothing is left.
 * Owned by the plan module (issue 4); launch/ reads the files.
 */
#ifndef SWEETSPOT_GENERATE_H
#define SWEETSPOT_GENERATE_H

#include "plan.h"
#include "spec.h"

/* Which launchers' files to write (bits of enum launcher). */
#define GEN_LAUNCHER(l) (1u << (l))
#define GEN_ALL                                                        \
	(GEN_LAUNCHER(LAUNCHER_SRUN) | GEN_LAUNCHER(LAUNCHER_MPIRUN) | \
	 GEN_LAUNCHER(LAUNCHER_MPIRUN_RSH) | GEN_LAUNCHER(LAUNCHER_HYDRA))

/* The options of the `commands` line for launcher `which` and the layout's
 * files in dir (which need not exist yet): the spec's environment, time
 * limit and (for its own launcher) launcher_args, no file checks, no
 * --allow-run-as-root, mpirun with its own --timeout. o borrows from s. */
void generate_launch_opts(const struct spec *s, const struct layout *l, const char *dir,
			  enum launcher which, struct launch_opts *o);

/* Writes every file of one layout into the folder dir (created; an earlier
 * generate_layout() output there is replaced, anything else there is an
 * error). Returns 0, or -1 after error() with nothing written. */
int generate_layout(const struct spec *s, const struct layout *l, const char *dir);

/* The same for the chosen launchers' files only. */
int generate_layout_for(const struct spec *s, const struct layout *l, const char *dir,
			unsigned launchers);

/* Writes DIR/<layout-id>/ for every layout of the plan and DIR/layouts.tsv.
 * DIR must not exist, or be empty, or (with force) be an earlier output of
 * generate (it has a layouts.tsv), which is then replaced. Returns 0, or
 * -1 after error() with nothing written. */
int generate_plan(const struct spec *s, const struct plan *p, const char *dir, unsigned launchers,
		  int force);

#endif
