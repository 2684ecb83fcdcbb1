/*
 * kernels/sched/coll.c: the table of collectives (see coll.h) and the dispatch
 * to each one's builder. Nothing below it calls back up here.
 */
#include "coll.h"

#include <string.h>

#define ALG(a)	  (1u << (a))
#define COMBINES  (ALG(ALG_KNOMIAL) | ALG(ALG_RING) | ALG(ALG_RECDBL))
/* The schedules among workers: measured only when listed. */
#define SCHEDULES (COMBINES | ALG(ALG_PAIRWISE))

const char *const coll_names[COLL_N] = {
	[COLL_BCAST] = "bcast",	  [COLL_GATHER] = "gather",	  [COLL_ALLGATHER] = "allgather",
	[COLL_REDUCE] = "reduce", [COLL_ALLREDUCE] = "allreduce", [COLL_ALLTOALL] = "alltoall",
	[COLL_SCAN] = "scan",	  [COLL_EXSCAN] = "exscan",	  [COLL_BARRIER] = "barrier",
};

const char *const alg_names[ALG_N] = {
	[ALG_DIRECT] = "direct", [ALG_LEADER] = "leader",     [ALG_ALLIN] = "allin",
	[ALG_SLICE] = "slice",	 [ALG_ASSIGNED] = "assigned", [ALG_KNOMIAL] = "knomial",
	[ALG_RING] = "ring",	 [ALG_RECDBL] = "recdbl",     [ALG_CHAIN] = "chain",
	[ALG_DISSEM] = "dissem", [ALG_PAIRWISE] = "pairwise",
};

/* Pipelining: the reductions, gather and allgather chunk every algorithm
 * (a chunk of the whole block is the paper's whole-block form); bcast
 * direct moves the whole block (one read, then a write per host), its
 * worker schedule is pipelined. */
const struct coll_desc coll_table[COLL_N] = {
	[COLL_BCAST] = { .algs = ALG(ALG_DIRECT) | ALG(ALG_KNOMIAL),
			 .pipelined = COMBINES,
			 .build = coll_build_bcast },
	[COLL_GATHER] = { .algs = ALG(ALG_DIRECT) | ALG(ALG_KNOMIAL),
			  .pipelined = ~0u,
			  .all = SCHED_RECV_ALL,
			  .build = coll_build_gather },
	[COLL_ALLGATHER] = { .algs = ALG(ALG_LEADER) | ALG(ALG_ALLIN) | ALG(ALG_RING) |
				     ALG(ALG_RECDBL),
			     .pipelined = ~0u,
			     .all = SCHED_RECV_ALL,
			     .build = coll_build_allgather },
	[COLL_REDUCE] = { .algs = ALG(ALG_SLICE) | ALG(ALG_ASSIGNED) | ALG(ALG_KNOMIAL),
			  .pipelined = ~0u,
			  .reduction = 1,
			  .build = coll_build_reduce },
	[COLL_ALLREDUCE] = { .algs = ALG(ALG_SLICE) | ALG(ALG_ASSIGNED) | COMBINES,
			     .pipelined = ~0u,
			     .reduction = 1,
			     .build = coll_build_reduce },
	[COLL_ALLTOALL] = { .algs = ALG(ALG_DIRECT) | ALG(ALG_PAIRWISE),
			    .pipelined = ~0u,
			    .all = SCHED_RECV_ALL | SCHED_SEND_ALL,
			    .build = coll_build_alltoall },
	/* The workers' staging: a vector per host, in the receive area. */
	[COLL_SCAN] = { .algs = ALG(ALG_CHAIN) | ALG(ALG_RECDBL),
			.reduction = 1,
			.all = SCHED_RECV_ALL,
			.build = coll_build_scan },
	[COLL_EXSCAN] = { .algs = ALG(ALG_CHAIN) | ALG(ALG_RECDBL),
			  .reduction = 1,
			  .all = SCHED_RECV_ALL,
			  .build = coll_build_scan },
	/* No data: hosts signal and wait; the workers synchronise. */
	[COLL_BARRIER] = { .algs = ALG(ALG_DISSEM) | ALG(ALG_KNOMIAL),
			   .build = coll_build_barrier },
};

int alg_is_default(enum alg a)
{
	return !(SCHEDULES & ALG(a));
}

int alg_has_radix(enum alg a)
{
	return a == ALG_KNOMIAL;
}

int alg_is_pipelined(enum coll c, enum alg a)
{
	return alg_applies(c, a) && (coll_table[c].pipelined & ALG(a));
}

int coll_is_reduction(enum coll c)
{
	return c >= 0 && c < COLL_N && coll_table[c].reduction;
}

unsigned coll_region_all(enum coll c)
{
	return c >= 0 && c < COLL_N ? coll_table[c].all : 0;
}

size_t coll_send_bytes(const struct coll_geom *g)
{
	return coll_region_all(g->coll) & SCHED_SEND_ALL ? (size_t)g->H * g->m : g->m;
}

int alg_applies(enum coll c, enum alg a)
{
	return c >= 0 && c < COLL_N && a >= 0 && a < ALG_N && (coll_table[c].algs & ALG(a));
}

int coll_build(const struct coll_geom *g, int rank, struct coll_rank *cr)
{
	memset(cr, 0, sizeof(*cr));
	if (g->H < 1 || g->W < 1 || rank < 0 || rank >= g->H + g->W ||
	    !alg_applies(g->coll, g->alg) ||
	    (alg_has_radix(g->alg) && (g->radix < COLL_RADIX_MIN || g->radix > COLL_RADIX_MAX)) ||
	    (alg_is_pipelined(g->coll, g->alg) && (g->chunk < 1 || g->window < 1)))
		return -1;
	if (coll_table[g->coll].build(g, rank, cr)) {
		coll_rank_release(cr);
		return -1;
	}
	sched_finalize(&cr->ref);
	sched_finalize(&cr->off);
	return 0;
}

int coll_fault_write(const struct coll_geom *g, const struct sched *s)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->ops[i].kind == OP_WRITE && s->ops[i].peer < g->H)
			return (int)i;
	return -1;
}

int coll_fault_rank(const struct coll_geom *g)
{
	for (int r = g->H; r < g->H + g->W; r++) {
		struct coll_rank cr;
		int writes;

		if (coll_build(g, r, &cr))
			return -1;
		writes = coll_fault_write(g, &cr.off) >= 0;
		coll_rank_release(&cr);
		if (writes)
			return r;
	}
	return -1;
}
