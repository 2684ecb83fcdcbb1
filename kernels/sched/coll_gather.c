/*
 * kernels/sched/coll_gather.c: staged gather to root 0. Reference: the root
 * reads every other host's block into its result (its own is a local copy).
 * Offloaded:
 *   direct: chunk by chunk, each worker reads its hosts' chunks into its
 *     staging area and writes each at that host's offset of the root's
 *     result; each write waits for its own chunk's read only, and chunk
 *     c + window is read once chunk c is written, so a worker writes one
 *     chunk while reading the next (a chunk of the whole block is the
 *     paper's form: one read, then one write, per host).
 *   knomial: a k-nomial tree of workers rooted at the root's worker; chunk
 *     by chunk, a worker reads its hosts' chunks, waits for its children's
 *     signals, writes the chunk of every block of its subtree into its
 *     parent's staging area (same offsets) and signals it; the root's
 *     worker writes them into the root. Chunk c + window is read once
 *     chunk c is forwarded, so a worker forwards one chunk while reading
 *     the next.
 */
#include "schedule.h"
#include "xalloc.h"

#include <stdlib.h>

#define TAG_GATHER 0

/* via[h]: the child of v (relative) whose subtree holds host h's worker;
 * v itself for its own hosts, -1 outside v's subtree. */
static void gather_via(const struct coll_geom *g, int v, int r0, int *via)
{
	for (int h = 0; h < g->H; h++) {
		int u = (g->owner[h] - r0 + g->W) % g->W, below = -1;

		if (u == v) {
			via[h] = v;
			continue;
		}
		while (u != v && u != 0) {
			below = u;
			u = sched_knomial_parent(u, g->radix);
		}
		via[h] = u == v ? below : -1;
	}
}

static int build_gather_knomial(const struct coll_geom *g, int w, struct sched *s)
{
	int H = g->H, W = g->W, r0 = g->owner[0], v = (w - r0 + W) % W, nch;
	size_t nc = (g->m + g->chunk - 1) / g->chunk, m = g->m, S = g->S;
	int *via = xmalloc((size_t)H * sizeof(int)),
	    *ch = xmalloc((size_t)(g->radix * 32 + W) * sizeof(int));
	int *wt = xmalloc((size_t)W * sizeof(int)), *have = xmalloc((size_t)H * sizeof(int));
	int *cvia = xmalloc((size_t)H * sizeof(int)),
	    *join = xmalloc((size_t)g->window * sizeof(int));

	gather_via(g, v, r0, via);
	nch = sched_knomial_children(v, W, g->radix, ch);
	for (size_t c = 0; c < nc; c++) {
		size_t off = c * g->chunk, len = off + g->chunk < m ? g->chunk : m - off;
		int first = (int)s->n,
		    prev = c >= (size_t)g->window ? join[c % (size_t)g->window] : -1;

		for (int h = 0; h < H; h++)
			if (via[h] == v) {
				have[h] = sched_add(s, OP_READ, h, S + h * m + off, off, len);
				sched_dep(s, have[h], prev);
			}
		/* A child with no host below it sends nothing, and is not waited for. */
		for (int i = 0; i < nch; i++) {
			int any = 0;

			for (int h = 0; h < H; h++)
				any |= via[h] == ch[i];
			wt[i] = any ? sched_wait_flag(s, H + (ch[i] + r0) % W, TAG_GATHER) : -1;
			for (int h = 0; h < H; h++)
				if (via[h] == ch[i])
					have[h] = wt[i];
		}
		int to = v == 0 ? 0 : H + (sched_knomial_parent(v, g->radix) + r0) % W, nw = 0;

		for (int h = 0; h < H; h++)
			if (via[h] >= 0) {
				sched_dep(s,
					  sched_add(s, OP_WRITE, to, S + h * m + off,
						    S + h * m + off, len),
					  have[h]);
				cvia[nw++] = (int)s->n - 1;
			}
		if (v != 0 && nw) {
			int sg = sched_signal(s, to, TAG_GATHER);

			for (int i = 0; i < nw; i++)
				sched_dep(s, sg, cvia[i]);
		}
		join[c % (size_t)g->window] = sched_join(s, H + w, first);
	}
	free(via);
	free(ch);
	free(wt);
	free(have);
	free(cvia);
	free(join);
	return 0;
}

static int build_gather_direct(const struct coll_geom *g, int w, struct sched *s)
{
	size_t nc = (g->m + g->chunk - 1) / g->chunk, m = g->m, S = g->S;
	int *join = xmalloc((size_t)g->window * sizeof(int)), pos = 0;
	int mine = sched_next_host(g, w, &pos) >= 0;

	for (size_t c = 0; mine && c < nc; c++) {
		size_t off = c * g->chunk, len = off + g->chunk < m ? g->chunk : m - off;
		int first = (int)s->n,
		    prev = c >= (size_t)g->window ? join[c % (size_t)g->window] : -1;

		for (int p = 0, h; (h = sched_next_host(g, w, &p)) >= 0;) {
			int rd = sched_add(s, OP_READ, h, S + h * m + off, off, len);

			sched_dep(s, rd, prev);
			sched_dep(s,
				  sched_add(s, OP_WRITE, 0, S + h * m + off, S + h * m + off, len),
				  rd);
		}
		join[c % (size_t)g->window] = sched_join(s, g->H + w, first);
	}
	free(join);
	return 0;
}

int coll_build_gather(const struct coll_geom *g, int rank, struct coll_rank *cr)
{
	int H = g->H;
	size_t m = g->m, S = g->S;

	if (rank < H)
		cr->is_source = 1;
	if (rank == 0) {
		sched_add(&cr->ref, OP_COPY, 0, 0, S, m);
		for (int h = 1; h < H; h++)
			sched_add(&cr->ref, OP_READ, h, S + h * m, 0, m);
		for (int h = 0; h < H; h++)
			expect_add(&cr->exp, S + h * m, m, h);
	}
	if (rank >= H && g->alg == ALG_KNOMIAL)
		return build_gather_knomial(g, rank - H, &cr->off);
	if (rank >= H)
		return build_gather_direct(g, rank - H, &cr->off);
	return 0;
}
