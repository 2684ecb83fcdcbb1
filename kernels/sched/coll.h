/*
 * kernels/sched/coll.h: the collectives as a table. One row per collective: its
 * name, the algorithms that apply to it, and its builder (coll_<name>.c,
 * which knows only schedule.h). Adding a collective is a row here, an enum
 * value in schedule.h and its builder file.
 */
#ifndef SWEETSPOT_COLL_H
#define SWEETSPOT_COLL_H

#include "schedule.h"

struct coll_desc {
	const char *name;
	unsigned algs;		/* bit per enum alg that applies */
	int (*build)(const struct coll_geom *g, int rank, struct coll_rank *cr);
};

extern const struct coll_desc coll_table[COLL_N];
extern const char *const coll_names[COLL_N];
extern const char *const alg_names[ALG_N];

/* Nonzero when algorithm a is one of collective c's. */
int alg_applies(enum coll c, enum alg a);

/* Builds what rank does for g. Returns 0, or -1 for a bad geometry. The
 * result owns its arrays: coll_rank_release() frees them. */
int coll_build(const struct coll_geom *g, int rank, struct coll_rank *cr);

/* Nonzero for reduce and allreduce (dtype and op apply). */
int coll_is_reduction(enum coll c);
/* Nonzero when chunk and window apply: the reductions, gather and
 * allgather (every algorithm: a chunk of the whole block is the paper's
 * whole-block form), and the worker schedules (bcast knomial). bcast
 * direct moves the whole block: one read, then a write per host. */
int alg_is_pipelined(enum coll c, enum alg a);
/* Nonzero for the algorithms run when -a is not given: those of before
 * the worker schedules, so that a command line measures what it did. */
int alg_is_default(enum alg a);

/* The lowest worker rank whose offloaded schedule writes to a host: the
 * one that corrupts a byte under SWEETSPOT_FAULT=flip-byte. -1 if none. */
int coll_fault_rank(const struct coll_geom *g);
/* The index of the first write to a host in s (the one corrupted), or -1. */
int coll_fault_write(const struct coll_geom *g, const struct sched *s);

#endif
