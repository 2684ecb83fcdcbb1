/*
 * kernels/sched/coll_alltoall.c: the personalized all-to-all. Host i's send
 * area holds H blocks of m bytes, block j for host j at j x m; afterwards
 * host j's receive area holds at i x m the block host i had for it.
 * Reference: each host copies its own block and writes block j to host j,
 * destinations in the pairwise order i+1, i+2, ... so that no host is
 * every source's first target. Offloaded:
 *   direct: a worker moves the pairs whose source it serves (the
 *     assignment of hosts to workers spreads the pairs: block, cyclic, or
 *     by locality, the worker of the source's node), in the same pairwise
 *     rounds: round r moves (i, i + r mod H) for each of its sources i,
 *     chunk by chunk: read from host i, write to host j. Each step (one
 *     chunk of one round, all its sources) stages in a slot of the
 *     worker's receive area; step t + window reuses step t's slot and
 *     waits for its writes. A window larger than the slots the staging
 *     area holds is held to that many.
 */
#include "schedule.h"
#include "xalloc.h"

#include <stdlib.h>

/* Steps in flight: the window, held to the slots of served x chunk bytes
 * that the staging area (H x m) holds. */
static size_t a2a_slots(const struct coll_geom *g, size_t served, size_t cl)
{
	size_t fit = (size_t)g->H * g->m / (served * cl);

	fit = fit ? fit : 1;
	return (size_t)g->window < fit ? (size_t)g->window : fit;
}

static int build_alltoall_direct(const struct coll_geom *g, int w, struct sched *s)
{
	int H = g->H, pos = 0, nsrc = 0, *src = xmalloc((size_t)H * sizeof(int)), *join;
	size_t m = g->m, S = g->S, nc = (m + g->chunk - 1) / g->chunk;
	size_t cl = g->chunk < m ? g->chunk : m, slots, t = 0;

	for (int h; (h = sched_next_host(g, w, &pos)) >= 0;)
		src[nsrc++] = h;
	slots = nsrc ? a2a_slots(g, (size_t)nsrc, cl) : 1;
	join = xmalloc(slots * sizeof(int));
	for (int r = 0; nsrc && r < H; r++)
		for (size_t c = 0; c < nc; c++, t++) {
			size_t off = c * g->chunk, len = off + g->chunk < m ? g->chunk : m - off;
			size_t slot = S + (t % slots) * (size_t)nsrc * cl;
			int first = (int)s->n, prev = t >= slots ? join[t % slots] : -1;

			for (int q = 0; q < nsrc; q++) {
				int i = src[q], j = (i + r) % H;
				int rd = sched_add(s, OP_READ, i, slot + (size_t)q * cl,
						   (size_t)j * m + off, len);

				sched_dep(s, rd, prev);
				sched_dep(s,
					  sched_add(s, OP_WRITE, j, slot + (size_t)q * cl,
						    S + (size_t)i * m + off, len),
					  rd);
			}
			join[t % slots] = sched_join(s, H + w, first);
		}
	free(src);
	free(join);
	return 0;
}

int coll_build_alltoall(const struct coll_geom *g, int rank, struct coll_rank *cr)
{
	int H = g->H;
	size_t m = g->m, S = g->S;

	if (rank < H) {
		cr->is_source = 1;
		sched_add(&cr->ref, OP_COPY, rank, (size_t)rank * m, S + (size_t)rank * m, m);
		for (int r = 1; r < H; r++) {
			int j = (rank + r) % H;

			sched_add(&cr->ref, OP_WRITE, j, (size_t)j * m, S + (size_t)rank * m, m);
		}
		for (int i = 0; i < H; i++)
			expect_add_from(&cr->exp, S + (size_t)i * m, m, i, (size_t)rank * m);
		return 0;
	}
	return build_alltoall_direct(g, rank - H, &cr->off);
}
