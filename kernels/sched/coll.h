/*
 * kernels/sched/coll.h: the collectives as a table, the one place that says
 * what a collective is: its name, the algorithms that apply to it, which
 * point axes apply (dtype and op, chunk and window, radix), the defaults of
 * those axes, and its builder (coll_<name>.c, which knows only
 * schedule.h). The kernel, the model and the tuner all read this table;
 * the tuner's own table (tuner/plan/colls.c) adds only what is the runtimes'
 * (Open MPI, MPICH, UCC names and ids, size rules), keyed by enum coll.
 * Adding a collective: an enum value in schedule.h, a name and a row here,
 * its builder file, one row in tuner/plan/colls.c (docs/HACKING.md).
 */
#ifndef SWEETSPOT_COLL_H
#define SWEETSPOT_COLL_H

#include "schedule.h"

/* The axes' values when none is given: the kernel's options, the spec's
 * sweep and the model all start from these. */
#define COLL_DEFAULT_CHUNK  ((size_t)64 << 10)
#define COLL_DEFAULT_WINDOW 2
#define COLL_DEFAULT_RADIX  2
#define COLL_RADIX_MIN	    2
#define COLL_RADIX_MAX	    8

struct coll_desc {
	unsigned algs;	    /* bit per enum alg that applies */
	unsigned pipelined; /* of those, where chunk and window apply */
	int reduction;	    /* dtype and op apply */
	unsigned all;	    /* SCHED_RECV_ALL: the receive area holds H
				 * blocks of m (gather, allgather, alltoall);
				 * SCHED_SEND_ALL: the send area does (alltoall) */
	int (*build)(const struct coll_geom *g, int rank, struct coll_rank *cr);
};

extern const struct coll_desc coll_table[COLL_N];
/* The names, as the command line, the spec and the records spell them. */
extern const char *const coll_names[COLL_N];
extern const char *const alg_names[ALG_N];

/* Nonzero when algorithm a is one of collective c's. */
int alg_applies(enum coll c, enum alg a);

/* Builds what rank does for g. Returns 0, or -1 for a bad geometry. The
 * result owns its arrays: coll_rank_release() frees them. */
int coll_build(const struct coll_geom *g, int rank, struct coll_rank *cr);

/* Nonzero when dtype and op apply to c (a reduction). */
int coll_is_reduction(enum coll c);
/* c's SCHED_RECV_ALL and SCHED_SEND_ALL (sched_region's all). */
unsigned coll_region_all(enum coll c);
/* The bytes of a source's send area that c reads: m, or H x m. */
size_t coll_send_bytes(const struct coll_geom *g);
/* Nonzero when chunk and window apply to c with a. */
int alg_is_pipelined(enum coll c, enum alg a);
/* Nonzero when the radix axis applies to a (the k-nomial tree). */
int alg_has_radix(enum alg a);
/* Nonzero for the algorithms run when -a is not given (and a spec lists
 * none): the offloaded algorithms proper. The others are schedules among
 * workers (knomial, ring, recdbl), measured when listed. */
int alg_is_default(enum alg a);

/* The lowest worker rank whose offloaded schedule writes to a host: the
 * one that corrupts a byte under SWEETSPOT_FAULT=flip-byte. -1 if none. */
int coll_fault_rank(const struct coll_geom *g);
/* The index of the first write to a host in s (the one corrupted), or -1. */
int coll_fault_write(const struct coll_geom *g, const struct sched *s);

#endif
