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
 *   pairwise: the blocks staged through the workers, source's worker to
 *     destination's, in W rounds (below).
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

/* pairwise: rounds r = 0 .. W-1 among the workers; in round r worker w
 * moves the blocks from its hosts to those of worker v = w + r mod W and
 * receives from u = w - r the blocks for its own: a host's blocks go out
 * through its own worker and come in through the destination's, so that
 * under `locality` every host access is on the host's node and only
 * workers talk across nodes, one message per step. A pair's blocks are
 * cut into pieces of at most a chunk and packed into steps of at most a
 * slot (the send area, H x m on a worker, in window slots); the sender
 * reads a step's pieces from its hosts into a slot of its send area and
 * signals; the receiver reads the step (one message) into a slot of its
 * receive area, acknowledges it (the sender refills that slot only after
 * the ack) and writes each piece to its host. Round 0 is the worker's own
 * hosts: read, then write. */
#define TAG_DATA 0
#define TAG_ACK	 1

struct a2a {
	const struct coll_geom *g;
	int *s0, *sv;		 /* hosts by worker (sched_index_hosts) */
	size_t slot, pl, nslots; /* slot bytes, piece bytes at most, slots */
};

struct piece {
	int i, j;	  /* from host i's block for host j */
	size_t off, len;  /* of that block */
	size_t step, pos; /* the pair's step, and the piece's place in its slot */
};

/* The pieces of the blocks from u's hosts to v's (into out, when not NULL,
 * room for n_u x n_v x chunks); returns the pair's steps. */
static size_t pair_pieces(const struct a2a *a, int u, int v, struct piece *out)
{
	size_t m = a->g->m, steps = 0, pos = a->slot, n = 0;

	for (int x = a->s0[u]; x < a->s0[u + 1]; x++)
		for (int y = a->s0[v]; y < a->s0[v + 1]; y++)
			for (size_t off = 0; off < m; off += a->pl) {
				size_t len = off + a->pl < m ? a->pl : m - off;

				if (pos + len > a->slot) {
					steps++;
					pos = 0;
				}
				if (out)
					out[n++] = (struct piece){ .i = a->sv[x],
								   .j = a->sv[y],
								   .off = off,
								   .len = len,
								   .step = steps - 1,
								   .pos = pos };
				pos += len;
			}
	return steps;
}

/* The pieces of pair (u, v), in *n, and its steps in *steps. */
static struct piece *pieces_of(const struct a2a *a, int u, int v, size_t *n, size_t *steps)
{
	size_t nc = (a->g->m + a->pl - 1) / a->pl;
	struct piece *p;

	*n = (size_t)(a->s0[u + 1] - a->s0[u]) * (size_t)(a->s0[v + 1] - a->s0[v]) * nc;
	p = xmalloc((*n ? *n : 1) * sizeof(*p));
	*steps = pair_pieces(a, u, v, p);
	return p;
}

/* Worker state: each slot's last step, for reuse: the receiver whose ack
 * is owed for a send slot (-1: none) or the join of its writes. */
struct a2a_state {
	int *owed, *sjoin, *rjoin;
	size_t ts, tr; /* steps sent and received so far */
};

/* Before refilling send slot k: the ack owed for it, or the join of its
 * own writes. Returns the op to wait for (-1: none). */
static int send_gate(const struct a2a *a, struct sched *s, struct a2a_state *st, size_t k)
{
	int op = st->sjoin[k];

	if (st->owed[k] >= 0)
		op = sched_wait_flag(s, a->g->H + st->owed[k], TAG_ACK);
	st->owed[k] = -1;
	st->sjoin[k] = -1;
	return op;
}

/* Worker w's steps to worker v (w itself in round 0: read, then write). */
static void pairwise_send(const struct a2a *a, struct sched *s, int w, int v, struct a2a_state *st)
{
	const struct coll_geom *g = a->g;
	size_t steps, np, n = 0, m = g->m;
	struct piece *p = pieces_of(a, w, v, &np, &steps);

	for (size_t t = 0; t < steps; t++, st->ts++) {
		size_t k = st->ts % a->nslots, base = k * a->slot;
		int gate = send_gate(a, s, st, k), first = (int)s->n, sig;

		for (; n < np && p[n].step == t; n++) {
			int rd = sched_add(s, OP_READ, p[n].i, base + p[n].pos,
					   (size_t)p[n].j * m + p[n].off, p[n].len);

			sched_dep(s, rd, gate);
			if (v == w)
				sched_dep(s,
					  sched_add(s, OP_WRITE, p[n].j, base + p[n].pos,
						    g->S + (size_t)p[n].i * m + p[n].off, p[n].len),
					  rd);
		}
		if (v == w) {
			st->sjoin[k] = sched_join(s, g->H + w, first);
			continue;
		}
		sig = sched_signal(s, g->H + v, TAG_DATA);
		for (int o = first; o < sig; o++)
			if (s->ops[o].kind == OP_READ)
				sched_dep(s, sig, o);
		st->owed[k] = v;
	}
	free(p);
}

/* Worker w's steps from worker u (round r): each read in one message from
 * the sender's slot (its step index: its steps of the rounds before), the
 * ack, and the pieces written to their hosts. */
static void pairwise_recv(const struct a2a *a, struct sched *s, int w, int u, int r,
			  struct a2a_state *st)
{
	const struct coll_geom *g = a->g;
	size_t steps, np, n = 0, m = g->m, from = 0;
	struct piece *p;

	for (int q = 0; q < r; q++)
		from += pair_pieces(a, u, (u + q) % g->W, NULL);
	p = pieces_of(a, u, w, &np, &steps);
	for (size_t t = 0; t < steps; t++, st->tr++, from++) {
		size_t k = st->tr % a->nslots, base = g->S + k * a->slot, len = 0;
		int wt = sched_wait_flag(s, g->H + u, TAG_DATA), rd, first;

		for (size_t q = n; q < np && p[q].step == t; q++)
			len = p[q].pos + p[q].len;
		rd = sched_add(s, OP_READ, g->H + u, base, (from % a->nslots) * a->slot, len);
		sched_dep(s, rd, wt);
		sched_dep(s, rd, st->rjoin[k]);
		sched_dep(s, sched_signal(s, g->H + u, TAG_ACK), rd);
		first = (int)s->n;
		for (; n < np && p[n].step == t; n++)
			sched_dep(s,
				  sched_add(s, OP_WRITE, p[n].j, base + p[n].pos,
					    g->S + (size_t)p[n].i * m + p[n].off, p[n].len),
				  rd);
		st->rjoin[k] = sched_join(s, g->H + w, first);
	}
	free(p);
}

static int build_alltoall_pairwise(const struct coll_geom *g, int w, struct sched *s)
{
	struct coll_geom x = *g;
	size_t cap = (size_t)g->H * g->m;
	struct a2a a = { .g = &x };
	struct a2a_state st = { 0 };

	if (!cap)
		return 0;
	a.s0 = xmalloc((size_t)(g->W + 1) * sizeof(int));
	a.sv = xmalloc((size_t)g->H * sizeof(int));
	sched_index_hosts(&x, a.s0, a.sv);
	a.nslots = (size_t)g->window < cap ? (size_t)g->window : cap;
	a.slot = cap / a.nslots;
	a.pl = g->chunk < a.slot ? g->chunk : a.slot;
	st.owed = xmalloc(3 * a.nslots * sizeof(int));
	st.sjoin = st.owed + a.nslots;
	st.rjoin = st.sjoin + a.nslots;
	for (size_t k = 0; k < 3 * a.nslots; k++)
		st.owed[k] = -1;
	for (int r = 0; r < g->W; r++) {
		pairwise_send(&a, s, w, (w + r) % g->W, &st);
		if (r)
			pairwise_recv(&a, s, w, (w - r + g->W) % g->W, r, &st);
	}
	/* The acks still owed, in the order they come. */
	for (size_t t = st.ts > a.nslots ? st.ts - a.nslots : 0; t < st.ts; t++)
		send_gate(&a, s, &st, t % a.nslots);
	free(a.s0);
	free(a.sv);
	free(st.owed);
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
	if (g->alg == ALG_PAIRWISE)
		return build_alltoall_pairwise(g, rank - H, &cr->off);
	return build_alltoall_direct(g, rank - H, &cr->off);
}
