/*
 * kernels/sched/coll_bcast.c: staged broadcast from root 0. Reference: the
 * root writes its block to every other host. Offloaded:
 *   direct: each worker with a host to serve reads the root's block once,
 *     then writes it to its hosts (the root itself already has the data and
 *     is skipped); each write waits for the read only.
 *   knomial: the root's worker reads the block chunk by chunk; a k-nomial
 *     tree of workers (radix g->radix, rooted there) passes each chunk down
 *     with a write and a signal; every worker writes a chunk to its hosts
 *     as soon as it has it. Chunk c + window is read once chunk c is out.
 */
#include "schedule.h"
#include "xalloc.h"

#include <stdlib.h>

#define TAG_BCAST 0

static int build_bcast_knomial(const struct coll_geom *g, int w, struct sched *s)
{
	int H = g->H, W = g->W, r0 = g->owner[0], v = (w - r0 + W) % W, nch;
	size_t nc = (g->m + g->chunk - 1) / g->chunk;
	int *ch = xmalloc((size_t)(g->radix * 32 + W) * sizeof(int));
	int *join = xmalloc((size_t)g->window * sizeof(int));

	nch = sched_knomial_children(v, W, g->radix, ch);
	for (size_t c = 0; c < nc; c++) {
		size_t off = c * g->chunk, len = off + g->chunk < g->m ? g->chunk : g->m - off;
		int have;

		if (v == 0) {
			have = sched_add(s, OP_READ, 0, g->S + off, off, len);
			sched_dep(s, have,
				  c >= (size_t)g->window ? join[c % (size_t)g->window] : -1);
		} else {
			have = sched_wait_flag(s, H + (sched_knomial_parent(v, g->radix) + r0) % W,
					       TAG_BCAST);
		}
		for (int i = 0; i < nch; i++) {
			int peer = H + (ch[i] + r0) % W,
			    wr = sched_add(s, OP_WRITE, peer, g->S + off, g->S + off, len);

			sched_dep(s, wr, have);
			sched_dep(s, sched_signal(s, peer, TAG_BCAST), wr);
		}
		for (int pos = 0, h; (h = sched_next_host(g, w, &pos)) >= 0;)
			if (h > 0)
				sched_dep(s, sched_add(s, OP_WRITE, h, g->S + off, g->S + off, len),
					  have);
		join[c % (size_t)g->window] = sched_join(s, H + w, have);
	}
	free(ch);
	free(join);
	return 0;
}

int coll_build_bcast(const struct coll_geom *g, int rank, struct coll_rank *cr)
{
	int H = g->H;

	if (rank == 0) {
		cr->is_source = 1;
		for (int h = 1; h < H; h++)
			sched_add(&cr->ref, OP_WRITE, h, 0, g->S, g->m);
	}
	if (rank > 0 && rank < H)
		expect_add(&cr->exp, g->S, g->m, 0);
	if (rank >= H && g->alg == ALG_KNOMIAL)
		return build_bcast_knomial(g, rank - H, &cr->off);
	if (rank >= H) {
		int w = rank - H, rd = -1;

		for (int pos = 0, h; (h = sched_next_host(g, w, &pos)) >= 0;)
			if (h > 0) {
				if (rd < 0)
					rd = sched_add(&cr->off, OP_READ, 0, g->S, 0, g->m);
				sched_dep(&cr->off,
					  sched_add(&cr->off, OP_WRITE, h, g->S, g->S, g->m), rd);
			}
	}
	return 0;
}
