/*
 * kernels/coll.c: the plan containers and the dispatch to each collective's
 * builder (coll_bcast.c, coll_gather.c, coll_allgather.c).
 */
#include "coll.h"

#include <stdlib.h>
#include <string.h>

static void *grow(void *p, size_t *alloc, size_t n, size_t size)
{
	if (n < *alloc)
		return p;
	*alloc = *alloc ? 2 * *alloc : 8;
	p = realloc(p, *alloc * size);
	if (!p)
		abort();
	return p;
}

void plan_add(struct plan *p, int stage, enum op_kind kind, int peer,
	      size_t loff, size_t roff, size_t len)
{
	struct stage *s = &p->st[stage];

	s->ops = grow(s->ops, &s->alloc, s->n, sizeof(*s->ops));
	s->ops[s->n++] = (struct op){ kind, peer, loff, roff, len };
	if (p->nstages <= stage)
		p->nstages = stage + 1;
}

void expect_add(struct expect *e, size_t off, size_t len, int src)
{
	e->b = grow(e->b, &e->alloc, e->n, sizeof(*e->b));
	e->b[e->n++] = (struct block){ off, len, src };
}

int coll_build(const struct coll_geom *g, int rank, struct coll_rank *cr)
{
	memset(cr, 0, sizeof(*cr));
	if (g->H < 1 || g->W < 1 || rank < 0 || rank >= g->H + g->W || !alg_applies(g->coll, g->alg))
		return -1;
	switch (g->coll) {
	case COLL_BCAST:
		return coll_build_bcast(g, rank, cr);
	case COLL_GATHER:
		return coll_build_gather(g, rank, cr);
	case COLL_ALLGATHER:
		return coll_build_allgather(g, rank, cr);
	default:
		return -1;
	}
}

static void plan_release(struct plan *p)
{
	for (int i = 0; i < PLAN_STAGES; i++)
		free(p->st[i].ops);
	memset(p, 0, sizeof(*p));
}

void coll_rank_release(struct coll_rank *cr)
{
	plan_release(&cr->ref);
	plan_release(&cr->off);
	free(cr->exp.b);
	memset(cr, 0, sizeof(*cr));
}

int coll_fault_rank(const struct coll_geom *g)
{
	for (int r = g->H; r < g->H + g->W; r++) {
		struct coll_rank cr;
		int writes = 0;

		if (coll_build(g, r, &cr))
			return -1;
		for (int s = 0; s < cr.off.nstages; s++)
			for (size_t i = 0; i < cr.off.st[s].n; i++)
				writes |= cr.off.st[s].ops[i].kind == OP_WRITE;
		coll_rank_release(&cr);
		if (writes)
			return r;
	}
	return -1;
}
