/*
 * tuner/plan/spec.h: the sweep spec, a libconfig file with a `system` group (the
 * machine: nodes, PPN, DPUs, binaries, launcher) and a `sweep` group (what
 * to measure). spec_load() reads and checks it completely, so that every
 * later stage works on values known to be good; every mistake is reported
 * as "file:line: message". Owned by the plan module (issue 4); the launch,
 * store and search modules read struct spec but never change it.
 *
 *   system = {
 *     name = "thor";
 *     nodes = "thor[001-008]";         # Slurm hostlist, in rank order
 *     ppn = 8;                         # host ranks per node
 *     dpu = { hosts = "thorbf[001-008]"; cores = 8; };  # or suffix = "-bf"
 *     onload = { cores = 2; };         # optional: cores per node kept for workers
 *     host_bin = "/opt/x86/sweetspot-kernel";
 *     dpu_bin = "/opt/arm/sweetspot-kernel";
 *     launcher = "mpirun";             # srun | mpirun | mpirun_rsh
 *     launcher_args = [ "--mca", "btl", "self,tcp" ];   # optional
 *     env = [ "OMPI_MCA_osc=ucx" ];    # optional NAME=value
 *   };
 *   sweep = {
 *     collectives = [ "bcast", "gather", "allgather", "reduce", "allreduce" ];
 *     algorithms = [ "direct", "allin" ];      # optional: all that apply
 *     assignments = [ "block", "cyclic" ];
 *     sizes = "256K:4M";               # or [ "256K", "24K" ] (any byte count)
 *     dtypes = [ "int32", "double" ];  # optional, reductions (int32)
 *     ops = [ "sum", "max" ];          # optional, reductions (sum)
 *     chunks = [ "64K", "256K" ];      # optional, pipelining (64K)
 *     windows = [ 2, 4 ];              # optional, pipelining (2)
 *     radix = [ 2, 4 ];                # optional, knomial (2)
 *     wpn = [ 1, 2, 4, 8 ];
 *     workers = [ 1, 2, 4, 8, 16 ];    # optional (see plan.h)
 *     nodes = [ 2, 4, 8 ];             # optional node counts (first N nodes)
 *     placement = [ "dpu", "onload" ];
 *     iterations = 1000; warmup = 100; repetitions = 3;
 *     time_limit = 600;                # seconds per launch
 *     retries = 1;                     # optional: attempts more for a failed launch
 *     transport = "auto";              # optional: rma | verbs | auto
 *   };
 *   verify = {                         # optional: what `sweetspot verify` runs
 *     command = [ "./app", "-n", "10" ];   # relative with a '/': the spec's folder
 *     export = "tuned.rules";          # the settings B runs with (or an mpmd folder)
 *     metric = "^size ([0-9]+): ([0-9.]+) us";   # optional; higher = true;
 *     figures = [ "4096" ];            # optional: the figures to decide
 *     launcher = "mpirun"; repetitions = 5; max_repetitions = 20;   # optional
 *   };
 */
#ifndef SWEETSPOT_SPEC_H
#define SWEETSPOT_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "argv.h" /* enum launcher and its names belong to launch/ */
#include "strvec.h"

enum placement { PLACEMENT_DPU, PLACEMENT_ONLOAD };

#define SPEC_MAX_SIZES	 64
/* The kernel's largest message and chunk (kernels/options.h KOPTS_MAX_BYTES,
 * 1 GiB): the planner refuses a size above it, naming the limit. */
#define SPEC_MAX_MESSAGE (1ull << 30)

/* Line numbers of settings, for plan errors that point into the file. */
struct spec_lines {
	int nodes, ppn, dpu, dpu_cores, onload_cores, host_bin, dpu_bin, wpn, workers, sweep_nodes,
		placement, sizes, dtypes, ops, chunks, windows, radix, machine;
};

/* The kernel's defaults for the axes a spec may leave out (chunk, window
 * and radix: COLL_DEFAULT_* of kernels/sched/coll.h). */
#define SPEC_DEFAULT_DTYPE "int32"
#define SPEC_DEFAULT_OP	   "sum"

/* The verify group: what `sweetspot verify` runs when its command line
 * does not say (the command line wins). Paths with a '/' are made relative
 * to the spec's folder; whether the command and the export exist is
 * checked by verify, which reports it at the line kept here. */
struct spec_verify {
	int present;
	struct strvec command; /* empty: the collective loop */
	char *export, *metric; /* NULL when not given */
	struct strvec figures; /* the figures to decide; empty: all */
	int higher;
	int launcher_set;
	enum launcher launcher;
	unsigned repetitions, max_repetitions; /* 0: the sweep's */
	int line_command, line_export;
};

/* Everything in it is owned by the struct and freed by spec_release(). */
struct spec {
	char *path;    /* as given to spec_load() */
	char hash[17]; /* FNV-1a 64 of the file's bytes, lower-case hex */

	/* system */
	char *name;
	struct strvec nodes; /* node names, expanded, in rank order */
	unsigned ppn;
	struct strvec dpus; /* one per node, same order; empty when no dpu group */
	/* The blocks the names of nodes and dpus live in (one allocation for
	 * 10^5 names): spec_release() frees them, never strvec_clear(). */
	char *node_names, *dpu_names;
	unsigned dpu_cores;    /* 0 when there is no dpu group */
	unsigned onload_cores; /* 0 when there is no onload group */
	char *host_bin; /* relative paths with a '/' are made relative to the spec's folder */
	char *dpu_bin;	/* NULL when there is no DPU placement */
	char *machine;	/* the model's machine description (NULL: none), as host_bin */
	enum launcher launcher;
	struct strvec launcher_args; /* extra arguments for the launcher, in order */
	struct strvec env;	     /* NAME=value for the launched ranks */
	struct strvec kernel_args;   /* not from the file: words `sweetspot run` adds to
					 * every rank's kernel arguments (-o FILE) */

	/* sweep: every list is checked, duplicates removed, in the file's order
	 * except wpn, workers and nodes, which are sorted ascending */
	struct strvec collectives;	/* names of tuner/plan/colls.c's table */
	struct strvec algorithms;	/* algorithms and schedules: the ones that apply */
	struct strvec assignments;	/* block, cyclic, locality */
	uint64_t sizes[SPEC_MAX_SIZES]; /* bytes, ascending; every dtype divides each */
	size_t nsizes;
	/* The axes of reductions (dtypes, ops) and of pipelining (chunks,
	 * windows) and of the k-nomial tree (radix): always at least one
	 * value, the kernel's default when the spec gives none. Sorted
	 * ascending, except dtypes and ops, in the file's order. */
	struct strvec dtypes; /* kernels/sched/reduce.h's names */
	struct strvec ops;
	uint64_t chunks[SPEC_MAX_SIZES]; /* bytes */
	size_t nchunks;
	unsigned *windows;
	size_t nwindows;
	unsigned *radix;
	size_t nradix;
	unsigned *wpn;
	size_t nwpn;
	unsigned *workers; /* NULL when the spec gives none (plan.h) */
	size_t nworkers;
	unsigned *node_counts; /* sweep.nodes, or just the number of nodes */
	size_t nnode_counts;
	enum placement *placements;
	size_t nplacements;
	unsigned iterations, warmup, repetitions, time_limit;
	unsigned min_time_ms;	      /* a phase of a point lasts this long at least (0: none) */
	unsigned retries;	      /* more attempts of a failed launch (default 0) */
	unsigned max_repetitions;     /* launches per configuration at most (default
					 * max(repetitions, 10)); repetitions is the least */
	int max_repetitions_set;      /* the spec names max_repetitions: `run` races
					 * up to it (search always does) */
	unsigned budget;	      /* `budget`: search launches; 0: budget_frac */
	double budget_frac;	      /* of the grid's launches; 0: the search's default */
	double alpha;		      /* significance level (0.05) */
	double delta_oe;	      /* practical threshold, OE points (0.5) */
	double delta_rel;	      /* practical threshold, fraction of the best (0.05) */
	double delta_time;	      /* practical threshold, fraction of time (0.01) */
	int dpu_first;		      /* cost_order: a DPU core is cheaper than an onload one (1) */
	double calibration_tolerance; /* compute vs reference, relative (0.10) */
	char *transport;	      /* NULL: the kernel's default */

	struct spec_verify verify;

	struct spec_lines line;
};

#define SPEC_INIT \
	{         \
		0 \
	}

/* Reads and checks the spec at path into *out (which spec_release() frees
 * on success and on failure alike). Prints "path:line: message" for each
 * problem and returns -1 on bad input (the caller exits 2), 0 if good. */
int spec_load(const char *path, struct spec *out);
void spec_release(struct spec *s);

const char *placement_name(enum placement p);

/* Whether algorithm applies to collective (tuner/plan/colls.c's table). */
int spec_algorithm_applies(const char *collective, const char *algorithm);
/* Whether op applies to dtype (bitwise and logical ops: integers only). */
int spec_op_applies(const char *dtype, const char *op);
/* Bytes of one element of dtype; 0 for an unknown name. */
size_t spec_dtype_size(const char *dtype);

/* Which axes beside the layout's the spec's (collective, algorithm) pairs
 * use: dtype and op (a reduction), chunk and window (pipelining), radix
 * (knomial). */
void spec_axes_apply(const struct spec *s, int *reduction, int *pipelined, int *knomial);

/* Number of (collective, algorithm) pairs of the spec that apply. */
size_t spec_pairs(const struct spec *s);

/* The worker binary of a placement: dpu_bin on DPUs, host_bin for onload
 * (the workers run on the hosts' own architecture). */
const char *spec_worker_bin(const struct spec *s, enum placement p);

#endif
