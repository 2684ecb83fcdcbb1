/*
 * tuner/spec.h: the sweep spec, a libconfig file with a `system` group (the
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
 *     collectives = [ "bcast", "gather", "allgather" ];
 *     algorithms = [ "direct", "allin" ];      # optional: all that apply
 *     assignments = [ "block", "cyclic" ];
 *     sizes = "256K:4M";               # or [ "256K", "1M" ]
 *     wpn = [ 1, 2, 4, 8 ];
 *     workers = [ 1, 2, 4, 8, 16 ];    # optional (see plan.h)
 *     nodes = [ 2, 4, 8 ];             # optional node counts (first N nodes)
 *     placement = [ "dpu", "onload" ];
 *     iterations = 1000; warmup = 100; repetitions = 3;
 *     time_limit = 600;                # seconds per launch
 *     retries = 1;                     # optional: attempts more for a failed launch
 *     transport = "auto";              # optional: rma | verbs | auto
 *   };
 */
#ifndef SWEETSPOT_SPEC_H
#define SWEETSPOT_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "argv.h"		/* enum launcher and its names belong to launch/ */
#include "strvec.h"

enum placement { PLACEMENT_DPU, PLACEMENT_ONLOAD };

#define SPEC_MAX_SIZES 64

/* Line numbers of settings, for plan errors that point into the file. */
struct spec_lines {
	int nodes, ppn, dpu, dpu_cores, onload_cores, host_bin, dpu_bin, wpn,
	    workers, sweep_nodes, placement, sizes;
};

/* Everything in it is owned by the struct and freed by spec_release(). */
struct spec {
	char *path;		/* as given to spec_load() */
	char hash[17];		/* FNV-1a 64 of the file's bytes, lower-case hex */

	/* system */
	char *name;
	struct strvec nodes;	/* node names, expanded, in rank order */
	unsigned ppn;
	struct strvec dpus;	/* one per node, same order; empty when no dpu group */
	unsigned dpu_cores;	/* 0 when there is no dpu group */
	unsigned onload_cores;	/* 0 when there is no onload group */
	char *host_bin;		/* relative paths with a '/' are made relative to the spec's folder */
	char *dpu_bin;		/* NULL when there is no DPU placement */
	enum launcher launcher;
	struct strvec launcher_args;	/* extra arguments for the launcher, in order */
	struct strvec env;		/* NAME=value for the launched ranks */
	struct strvec kernel_args;	/* not from the file: words `sweetspot run` adds to
					 * every rank's kernel arguments (-o FILE) */

	/* sweep: every list is checked, duplicates removed, in the file's order
	 * except wpn, workers and nodes, which are sorted ascending */
	struct strvec collectives;	/* bcast, gather, allgather */
	struct strvec algorithms;	/* direct, leader, allin: the ones that apply */
	struct strvec assignments;	/* block, cyclic, locality */
	uint64_t sizes[SPEC_MAX_SIZES];	/* bytes, ascending */
	size_t nsizes;
	unsigned *wpn;
	size_t nwpn;
	unsigned *workers;	/* NULL when the spec gives none (plan.h) */
	size_t nworkers;
	unsigned *node_counts;	/* sweep.nodes, or just the number of nodes */
	size_t nnode_counts;
	enum placement *placements;
	size_t nplacements;
	unsigned iterations, warmup, repetitions, time_limit;
	unsigned retries;	/* more attempts of a failed launch (default 0) */
	char *transport;	/* NULL: the kernel's default */

	struct spec_lines line;
};

#define SPEC_INIT { 0 }

/* Reads and checks the spec at path into *out (which spec_release() frees
 * on success and on failure alike). Prints "path:line: message" for each
 * problem and returns -1 on bad input (the caller exits 2), 0 if good. */
int spec_load(const char *path, struct spec *out);
void spec_release(struct spec *s);

const char *placement_name(enum placement p);

/* Whether algorithm applies to collective: direct to bcast and gather,
 * leader and allin to allgather (as the kernel's -a option documents). */
int spec_algorithm_applies(const char *collective, const char *algorithm);

/* Number of (collective, algorithm) pairs of the spec that apply. */
size_t spec_pairs(const struct spec *s);

/* The worker binary of a placement: dpu_bin on DPUs, host_bin for onload
 * (the workers run on the hosts' own architecture). */
const char *spec_worker_bin(const struct spec *s, enum placement p);

#endif
