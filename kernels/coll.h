/*
 * kernels/coll.h: the collectives as plans. A plan is what one rank does in
 * one iteration: stages of one-sided operations (posted together, then one
 * wait), where a stage may first wait for the other workers (a barrier among
 * workers, then a sync of our region: the allgather leader needs the others'
 * blocks). Written once, run by the harness over any transport. Pure C: the
 * builders are unit-tested without MPI.
 *
 * Every rank's region: a send area [0, S) holding its own block, then the
 * receive area at S: the result on hosts, the staging buffer on workers.
 */
#ifndef SWEETSPOT_COLL_H
#define SWEETSPOT_COLL_H

#include <stddef.h>

#include "options.h"

enum op_kind { OP_READ, OP_WRITE, OP_COPY };

struct op {
	enum op_kind kind;
	int peer;		/* OP_COPY: ourselves */
	size_t loff, roff, len;	/* COPY: from loff to roff of our own region */
};

struct stage {
	struct op *ops;
	size_t n, alloc;
	int fence;		/* workers' barrier + sync before posting */
};

#define PLAN_STAGES 3

struct plan {
	struct stage st[PLAN_STAGES];
	int nstages;
};

/* A block this rank must hold after the collective: the pattern of src. */
struct block {
	size_t off, len;
	int src;
};

struct expect {
	struct block *b;
	size_t n, alloc;
};

struct coll_geom {
	enum coll coll;
	enum alg alg;
	int H, W;
	size_t m;		/* message size: the block of one host */
	size_t S;		/* send area size (offset of the receive area) */
	const int *owner;	/* owner[h]: worker index serving host h */
};

struct coll_rank {
	struct plan ref;	/* the pure-host reference (workers: empty) */
	struct plan off;	/* the offloaded pattern (hosts: empty) */
	struct expect exp;	/* what to check afterwards */
	int is_source;		/* our send area feeds the collective */
};

/* Builds what rank does for g. Returns 0, or -1 for a bad geometry. The
 * result owns its arrays: coll_rank_release() frees them. */
int coll_build(const struct coll_geom *g, int rank, struct coll_rank *cr);
void coll_rank_release(struct coll_rank *cr);

/* The lowest worker rank whose offloaded plan writes anything: the one that
 * corrupts a byte under SWEETSPOT_FAULT=flip-byte. -1 if none. */
int coll_fault_rank(const struct coll_geom *g);

/* For the builders (coll_*.c). */
void plan_add(struct plan *p, int stage, enum op_kind kind, int peer,
	      size_t loff, size_t roff, size_t len);
void expect_add(struct expect *e, size_t off, size_t len, int src);
int coll_build_bcast(const struct coll_geom *g, int rank, struct coll_rank *cr);
int coll_build_gather(const struct coll_geom *g, int rank, struct coll_rank *cr);
int coll_build_allgather(const struct coll_geom *g, int rank, struct coll_rank *cr);

#endif
