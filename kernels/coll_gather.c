/*
 * kernels/coll_gather.c: staged direct gather to root 0. Reference: the root
 * reads every other host's block into its result (its own is a local copy).
 * Offloaded: each worker reads its hosts' blocks into its staging area, then
 * writes each at that host's offset of the root's result.
 */
#include "coll.h"

int coll_build_gather(const struct coll_geom *g, int rank, struct coll_rank *cr)
{
	int H = g->H;
	size_t m = g->m, S = g->S;

	if (rank < H)
		cr->is_source = 1;
	if (rank == 0) {
		plan_add(&cr->ref, 0, OP_COPY, 0, 0, S, m);
		for (int h = 1; h < H; h++)
			plan_add(&cr->ref, 0, OP_READ, h, S + h * m, 0, m);
		for (int h = 0; h < H; h++)
			expect_add(&cr->exp, S + h * m, m, h);
	}
	if (rank >= H) {
		int w = rank - H;

		for (int h = 0; h < H; h++)
			if (g->owner[h] == w) {
				plan_add(&cr->off, 0, OP_READ, h, S + h * m, 0, m);
				plan_add(&cr->off, 1, OP_WRITE, 0, S + h * m, S + h * m, m);
			}
	}
	return 0;
}
