/*
 * kernels/coll_allgather.c: staged allgather, two ways (DPU-Bench 3.5).
 * Reference: every host writes its block to every other host (its own slot
 * is a local copy). Both offloaded forms start with each worker reading its
 * hosts' blocks into its staging area at their final offsets.
 *   leader: the other workers write their blocks into the leader's (the
 *     first worker's) staging area; after a barrier among workers the leader
 *     writes the whole result to every host.
 *   allin: every worker writes the blocks it holds to every host; blocks
 *     are disjoint, so no worker overwrites another's.
 */
#include "coll.h"

int coll_build_allgather(const struct coll_geom *g, int rank, struct coll_rank *cr)
{
	int H = g->H, W = g->W;
	size_t m = g->m, S = g->S;

	if (rank < H) {
		cr->is_source = 1;
		plan_add(&cr->ref, 0, OP_COPY, rank, 0, S + rank * m, m);
		for (int d = 0; d < H; d++)
			if (d != rank)
				plan_add(&cr->ref, 0, OP_WRITE, d, 0, S + rank * m, m);
		for (int h = 0; h < H; h++)
			expect_add(&cr->exp, S + h * m, m, h);
		return 0;
	}
	int w = rank - H;

	for (int h = 0; h < H; h++)
		if (g->owner[h] == w)
			plan_add(&cr->off, 0, OP_READ, h, S + h * m, 0, m);
	if (g->alg == ALG_LEADER) {
		/* Every worker has the three stages, so that all of them take
		 * part in the fence before the last one. */
		cr->off.nstages = 3;
		cr->off.st[2].fence = W > 1;
		if (w != 0)
			for (int h = 0; h < H; h++)
				if (g->owner[h] == w)
					plan_add(&cr->off, 1, OP_WRITE, H, S + h * m, S + h * m, m);
		if (w == 0)
			for (int d = 0; d < H; d++)
				plan_add(&cr->off, 2, OP_WRITE, d, S, S, (size_t)H * m);
	} else {
		for (int d = 0; d < H; d++)
			for (int h = 0; h < H; h++)
				if (g->owner[h] == w)
					plan_add(&cr->off, 1, OP_WRITE, d, S + h * m, S + h * m, m);
	}
	return 0;
}
