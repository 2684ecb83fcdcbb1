/*
 * kernels/coll_bcast.c: staged direct broadcast from root 0. Reference: the
 * root writes its block to every other host. Offloaded: each worker with a
 * host to serve reads the root's block once, then writes it to its hosts
 * (the root itself already has the data and is skipped).
 */
#include "coll.h"

int coll_build_bcast(const struct coll_geom *g, int rank, struct coll_rank *cr)
{
	int H = g->H;

	if (rank == 0) {
		cr->is_source = 1;
		for (int h = 1; h < H; h++)
			plan_add(&cr->ref, 0, OP_WRITE, h, 0, g->S, g->m);
	}
	if (rank > 0 && rank < H)
		expect_add(&cr->exp, g->S, g->m, 0);
	if (rank >= H) {
		int w = rank - H, any = 0;

		for (int h = 1; h < H; h++)
			if (g->owner[h] == w) {
				plan_add(&cr->off, 1, OP_WRITE, h, g->S, g->S, g->m);
				any = 1;
			}
		if (any)
			plan_add(&cr->off, 0, OP_READ, 0, g->S, 0, g->m);
	}
	return 0;
}
