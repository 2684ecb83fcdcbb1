/*
 * kernels/sched/coll_allgather.c: staged allgather, two ways (DPU-Bench 3.5).
 * Reference: every host writes its block to every other host, from the
 * next host on (its own slot is a local copy). Both offloaded forms start with each worker reading its
 * hosts' blocks into its staging area at their final offsets.
 *   leader: the other workers write their blocks into the leader's (the
 *     first worker's) staging area and then signal it; once it has every
 *     worker's signal and its own blocks, the leader writes the whole
 *     result to every host.
 *   allin: every worker writes the blocks it holds to every host, from its
 *     first host on; blocks are disjoint, so no worker overwrites another's.
 * Both go chunk by chunk (a chunk of the whole block is the paper's form):
 * a leader's signal and write cover one chunk of every block, and a
 * worker reads chunk c + window once chunk c is out, so it writes one
 * chunk while reading the next.
 * The worker schedules go chunk by chunk (chunk c + window is read once
 * chunk c is out), each chunk a write into the next worker's staging area
 * (same offsets) and a signal; every worker writes each block's chunk to
 * its hosts as soon as it has it:
 *   ring: W - 1 steps; at step s worker w passes the blocks of worker
 *     w - s to worker w + 1.
 *   recdbl: with P the largest power of two <= W, worker e >= P first
 *     hands its blocks to worker e - P; the first P exchange everything
 *     they hold with w ^ 2^k, k = 0 .. log2 P - 1; then worker e - P
 *     hands e every block.
 */
#include "schedule.h"
#include "xalloc.h"

#include <stdlib.h>

/* Tag of the leader's "my blocks are in" signals, and the schedules'. */
#define TAG_LEADER 0
#define TAG_AG	   0

/* What the pipelined schedules share on worker w for one chunk. */
struct ag_ctx {
	const struct coll_geom *g;
	struct sched *s;
	int w;
	size_t off, len; /* the chunk, within a block */
	int *have;	 /* have[h]: the op after which host h's chunk is here */
};

/* Writes the chunk of every block h with pick(h) to worker v, then
 * signals it (also when there is none: the receiver counts on it). */
static void ag_send(struct ag_ctx *x, int v, const int *pick)
{
	const struct coll_geom *g = x->g;
	int first = (int)x->s->n, sg;

	for (int h = 0; h < g->H; h++)
		if (pick[h])
			sched_dep(x->s,
				  sched_add(x->s, OP_WRITE, g->H + v, g->S + h * g->m + x->off,
					    g->S + h * g->m + x->off, x->len),
				  x->have[h]);
	sg = sched_signal(x->s, g->H + v, TAG_AG);
	for (int i = first; i < sg; i++)
		sched_dep(x->s, sg, i);
}

/* Waits for worker v's signal: blocks h with pick(h) are then here. */
static void ag_recv(struct ag_ctx *x, int v, const int *pick)
{
	int wt = sched_wait_flag(x->s, x->g->H + v, TAG_AG);

	for (int h = 0; h < x->g->H; h++)
		if (pick[h])
			x->have[h] = wt;
}

static void ag_ring_chunk(struct ag_ctx *x, int *pick)
{
	const struct coll_geom *g = x->g;
	int W = g->W, w = x->w;

	for (int st = 0; st < W - 1; st++) {
		for (int h = 0; h < g->H; h++)
			pick[h] = g->owner[h] == (w - st + W) % W;
		ag_send(x, (w + 1) % W, pick);
		for (int h = 0; h < g->H; h++)
			pick[h] = g->owner[h] == (w - 1 - st + W) % W;
		ag_recv(x, (w - 1 + W) % W, pick);
	}
}

static void ag_recdbl_chunk(struct ag_ctx *x, int *pick)
{
	const struct coll_geom *g = x->g;
	int W = g->W, w = x->w, P = 1;

	while (2 * P <= W)
		P *= 2;
	if (w >= P) {
		for (int h = 0; h < g->H; h++)
			pick[h] = g->owner[h] == w;
		ag_send(x, w - P, pick);
		for (int h = 0; h < g->H; h++)
			pick[h] = g->owner[h] != w;
		ag_recv(x, w - P, pick);
		return;
	}
	if (w + P < W) {
		for (int h = 0; h < g->H; h++)
			pick[h] = g->owner[h] == w + P;
		ag_recv(x, w + P, pick);
	}
	for (int k = 1; k < P; k *= 2) {
		/* Everything of the group of 2k aligned workers (with their
		 * extras) that we hold: ours to send, the partner's to receive. */
		for (int h = 0; h < g->H; h++) {
			int o = g->owner[h] >= P ? g->owner[h] - P : g->owner[h];

			pick[h] = o / k == w / k;
		}
		ag_send(x, w ^ k, pick);
		for (int h = 0; h < g->H; h++) {
			int o = g->owner[h] >= P ? g->owner[h] - P : g->owner[h];

			pick[h] = o / k == (w ^ k) / k;
		}
		ag_recv(x, w ^ k, pick);
	}
	if (w + P < W) {
		for (int h = 0; h < g->H; h++)
			pick[h] = g->owner[h] != w + P;
		ag_send(x, w + P, pick);
	}
}

/* ring or recdbl on worker w, chunk by chunk. */
static int build_ag_sched(const struct coll_geom *g, int w, struct sched *s)
{
	int H = g->H, *have = xmalloc((size_t)H * sizeof(int)),
	    *pick = xmalloc((size_t)H * sizeof(int));
	int *join = xmalloc((size_t)g->window * sizeof(int));
	size_t nc = (g->m + g->chunk - 1) / g->chunk;

	for (size_t c = 0; c < nc; c++) {
		struct ag_ctx x = { .g = g, .s = s, .w = w, .off = c * g->chunk, .have = have };
		int first = (int)s->n,
		    prev = c >= (size_t)g->window ? join[c % (size_t)g->window] : -1;

		x.len = x.off + g->chunk < g->m ? g->chunk : g->m - x.off;
		for (int h = 0; h < H; h++)
			if (g->owner[h] == w) {
				have[h] = sched_add(s, OP_READ, h, g->S + h * g->m + x.off, x.off,
						    x.len);
				sched_dep(s, have[h], prev);
			}
		if (g->alg == ALG_RING)
			ag_ring_chunk(&x, pick);
		else
			ag_recdbl_chunk(&x, pick);
		for (int d = 0; d < H; d++)
			for (int h = 0; d < H && g->owner[d] == w && h < H; h++)
				sched_dep(s,
					  sched_add(s, OP_WRITE, d, g->S + h * g->m + x.off,
						    g->S + h * g->m + x.off, x.len),
					  have[h]);
		join[c % (size_t)g->window] = sched_join(s, H + w, first);
	}
	free(have);
	free(pick);
	free(join);
	return 0;
}

/* The leader's part of one chunk [off, +len) of every block: the other
 * workers' signals (their chunks are in), then the chunk of every block
 * to every host, as one write when the chunk is the whole block (the
 * result is then contiguous). have[h]: our read of h (-1: not ours). */
static void leader_chunk(const struct coll_geom *g, const int *have, int *wt, size_t off,
			 size_t len, struct sched *s)
{
	int H = g->H, W = g->W;
	size_t m = g->m, S = g->S;

	for (int v = 1; v < W; v++)
		wt[v] = sched_wait_flag(s, H + v, TAG_LEADER);
	for (int d = 0; d < H; d++)
		for (int h = 0; h < (len == m ? 1 : H); h++) {
			int op = len == m ? sched_add(s, OP_WRITE, d, S, S, (size_t)H * m) :
					    sched_add(s, OP_WRITE, d, S + h * m + off,
						      S + h * m + off, len);

			for (int k = 0; k < H; k++)
				if (len == m || k == h)
					sched_dep(s, op, have[k]);
			for (int v = 1; v < W; v++)
				sched_dep(s, op, wt[v]);
		}
}

/* allin's part of one chunk: the chunk of each of our blocks to every
 * host, host by host from our first host on (wrapping at H), so that at
 * any moment the workers write to different hosts rather than all to host
 * 0 first (and every node's workers do what the previous node's do, one
 * node on: the model simulates one node of a regular layout). */
static void allin_chunk(const struct coll_geom *g, int w, const int *have, size_t off, size_t len,
			struct sched *s)
{
	int H = g->H, n = 0, pos = 0, h, *mine = xmalloc((size_t)H * sizeof(int));
	size_t m = g->m, S = g->S;

	while ((h = sched_next_host(g, w, &pos)) >= 0)
		mine[n++] = h;
	for (int i = 0; n && i < H; i++) {
		int d = (mine[0] + i) % H;

		for (int j = 0; j < n; j++)
			sched_dep(s,
				  sched_add(s, OP_WRITE, d, S + mine[j] * m + off,
					    S + mine[j] * m + off, len),
				  have[mine[j]]);
	}
	free(mine);
}

/* leader or allin on worker w, chunk by chunk (one chunk of the whole
 * block: the paper's form). A non-leader writes its chunks into the
 * leader's staging area and signals it (also with no host of its own:
 * the leader counts on every worker). Chunk c + window is read once
 * chunk c is out. */
static int build_ag_direct(const struct coll_geom *g, int w, struct sched *s)
{
	int H = g->H, W = g->W, *have = xmalloc(((size_t)H + (size_t)W) * sizeof(int));
	int *join = xmalloc((size_t)g->window * sizeof(int));
	size_t nc = (g->m + g->chunk - 1) / g->chunk, m = g->m, S = g->S;

	for (size_t c = 0; c < nc; c++) {
		size_t off = c * g->chunk, len = off + g->chunk < m ? g->chunk : m - off;
		int first = (int)s->n,
		    prev = c >= (size_t)g->window ? join[c % (size_t)g->window] : -1;

		for (int h = 0; h < H; h++) {
			have[h] = g->owner[h] == w ?
					  sched_add(s, OP_READ, h, S + h * m + off, off, len) :
					  -1;
			if (have[h] >= 0)
				sched_dep(s, have[h], prev);
		}
		if (g->alg == ALG_LEADER && w == 0) {
			leader_chunk(g, have, have + H, off, len, s);
		} else if (g->alg == ALG_LEADER) {
			int wfirst = (int)s->n, sg;

			for (int h = 0; h < H; h++)
				if (have[h] >= 0)
					sched_dep(s,
						  sched_add(s, OP_WRITE, H, S + h * m + off,
							    S + h * m + off, len),
						  have[h]);
			sg = sched_signal(s, H, TAG_LEADER);
			for (int i = wfirst; i < sg; i++)
				if (s->ops[i].kind == OP_WRITE)
					sched_dep(s, sg, i);
		} else {
			allin_chunk(g, w, have, off, len, s);
		}
		if ((int)s->n == first)
			continue; /* allin with no host: nothing to do */
		join[c % (size_t)g->window] = sched_join(s, H + w, first);
	}
	free(have);
	free(join);
	return 0;
}

int coll_build_allgather(const struct coll_geom *g, int rank, struct coll_rank *cr)
{
	int H = g->H;
	size_t m = g->m, S = g->S;

	if (rank < H) {
		cr->is_source = 1;
		sched_add(&cr->ref, OP_COPY, rank, 0, S + rank * m, m);
		/* From the next host on, wrapping: not every host to host 0 first. */
		for (int i = 1; i < H; i++)
			sched_add(&cr->ref, OP_WRITE, (rank + i) % H, 0, S + rank * m, m);
		for (int h = 0; h < H; h++)
			expect_add(&cr->exp, S + h * m, m, h);
		return 0;
	}
	int w = rank - H;

	if (g->alg == ALG_RING || g->alg == ALG_RECDBL)
		return build_ag_sched(g, w, &cr->off);
	return build_ag_direct(g, w, &cr->off);
}
