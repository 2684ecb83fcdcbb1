/*
 * kernels/sched/coll_reduce.c: reduce (root 0) and allreduce of a vector of m
 * bytes, g->m / dtype_size elements, every host's input in its send area,
 * the result at S. Every reduction folds the hosts' (or the workers')
 * contributions in ascending rank order, so a result has the same bits run
 * to run. Everything is pipelined in chunks of g->chunk bytes with g->window
 * chunks in flight: chunk c's first reads wait for chunk c - window's
 * writes, as they reuse its buffers.
 *   reference: host h owns part h of H of the vector; it reads that part
 *     from every host, reduces, and writes it to every host (reduce: to
 *     the root). Hosts alone, one-sided reads and writes.
 *   slice: the same with worker w owning part w of W.
 *   assigned: worker w reduces its hosts' vectors into its partial (its
 *     receive area), unit by unit (a unit: a chunk of one worker's part),
 *     and signals the part's owner; the owner waits for each contributor
 *     in turn, reads and folds the partials (the combine, `direct`), and
 *     writes the unit to every other worker (result area at g->R), then
 *     signals it; every worker writes the result to its own hosts. For
 *     reduce the owners write their units to the root directly.
 *   knomial, ring, recdbl: the same partials, combined by that schedule
 *     instead (combine_knomial, combine_ring, combine_recdbl below).
 * A worker serving no host has no partial: the first contribution it gets
 * is read into place rather than folded, and it announces nothing until
 * it holds something (every rank computes who holds what, alike).
 */
#include "schedule.h"
#include "xalloc.h"

#include <stdlib.h>

#define TAG_PARTIAL 1 /* contributor -> owner: a unit of my partial is ready */
#define TAG_RESULT  2 /* owner -> worker: a unit of the result is in your area */

struct red {
	const struct coll_geom *g;
	size_t es, count, ce, cs; /* element size, elements, per chunk, slot bytes */
	int all;		  /* allreduce */
};

/* Elements [*a, *b) of chunk c of the range [lo, hi). */
static int chunk_of(const struct red *r, size_t lo, size_t hi, size_t c, size_t *a, size_t *b)
{
	*a = lo + c * r->ce;
	*b = *a + r->ce < hi ? *a + r->ce : hi;
	return *a < hi;
}

/* One owner of elements [lo, hi) folding the hosts' inputs (self: our host
 * rank in the reference, -1 on a worker) and writing to dest[0..ndest). */
static void slice_owner(const struct red *r, struct sched *s, int me, int self, size_t lo,
			size_t hi, const int *dest, int ndest, int *join)
{
	const struct coll_geom *g = r->g;
	size_t a, b;

	for (size_t c = 0; chunk_of(r, lo, hi, c, &a, &b); c++) {
		size_t off = a * r->es, len = (b - a) * r->es;
		size_t acc = g->R + (c % (size_t)g->window) * (size_t)g->H * r->cs;
		int prev = c >= (size_t)g->window ? join[(c - g->window) % (size_t)g->window] : -1;
		int last, jn;

		if (self == 0)
			last = sched_add(s, OP_COPY, me, off, acc, len);
		else
			last = sched_add(s, OP_READ, 0, acc, off, len);
		sched_dep(s, last, prev);
		for (int j = 1; j < g->H; j++) {
			size_t src = acc + (size_t)j * r->cs;
			int rd = -1;

			if (j == self) {
				src = off;
			} else {
				rd = sched_add(s, OP_READ, j, src, off, len);
				sched_dep(s, rd, prev);
			}
			int op = sched_add(s, OP_REDUCE, me, src, acc, len);

			sched_dep(s, op, last);
			sched_dep(s, op, rd);
			last = op;
		}
		int *wr = xmalloc((size_t)ndest * sizeof(*wr));

		for (int d = 0; d < ndest; d++) {
			wr[d] = dest[d] == self ?
					sched_add(s, OP_COPY, me, acc, g->S + off, len) :
					sched_add(s, OP_WRITE, dest[d], acc, g->S + off, len);
			sched_dep(s, wr[d], last);
		}
		jn = sched_add(s, OP_JOIN, me, 0, 0, 0);
		for (int d = 0; d < ndest; d++)
			sched_dep(s, jn, wr[d]);
		join[c % (size_t)g->window] = jn;
		free(wr);
	}
}

/* Hosts whose result we write: every host (allreduce) or the root. */
static int *dests_all(const struct red *r, int *n)
{
	int *d = xmalloc((size_t)r->g->H * sizeof(*d));

	*n = r->all ? r->g->H : 1;
	for (int h = 0; h < *n; h++)
		d[h] = h;
	return d;
}

static void build_slice(const struct red *r, int rank, int parts, int part, struct sched *s)
{
	size_t lo, hi;
	int nd, *dest = dests_all(r, &nd);
	int *join = xmalloc((size_t)r->g->window * sizeof(*join));

	sched_part(r->count, parts, part, &lo, &hi);
	slice_owner(r, s, rank, rank < r->g->H ? rank : -1, lo, hi, dest, nd, join);
	free(join);
	free(dest);
}

/* What assigned's phases share on worker w. */
struct asg_ctx {
	const struct red *r;
	struct sched *s;
	int w, me, nL;
	int *L;			/* our hosts, ascending */
	int *contrib;		/* contrib[v]: worker v has hosts */
	size_t *lo, *hi;	/* each worker's part, in elements */
	int *own_last;		/* per chunk of our part: our partial's last op */
	int *pjoin, *cjoin;	/* window rings: partial and combine slots */
	size_t res, pbuf, cbuf; /* result area, partial slots, combine slots */
	size_t am;		/* the vector's bytes, 64-aligned: recdbl's stage
				 * buffers follow the result area, am apart */
};

/* Our partial of elements [a, b), the k-th unit we build, into our
 * receive area: our hosts' inputs folded in host order. Returns its last
 * op, or -1 when we serve no host (there is no partial). */
static int partial_of(struct asg_ctx *x, size_t a, size_t b, size_t k)
{
	const struct coll_geom *g = x->r->g;
	struct sched *s = x->s;
	size_t off = a * x->r->es, len = (b - a) * x->r->es, slot = k % (size_t)g->window;
	int prev = k >= (size_t)g->window ? x->pjoin[slot] : -1, last;

	if (!x->nL)
		return -1;
	last = sched_add(s, OP_READ, x->L[0], g->S + off, off, len);
	for (int j = 1; j < x->nL; j++) {
		size_t buf = x->pbuf + (slot * (size_t)g->H + (size_t)j) * x->r->cs;
		int rd = sched_add(s, OP_READ, x->L[j], buf, off, len), op;

		sched_dep(s, rd, prev);
		op = sched_add(s, OP_REDUCE, x->me, buf, g->S + off, len);
		sched_dep(s, op, last);
		sched_dep(s, op, rd);
		last = op;
	}
	x->pjoin[slot] = last;
	return last;
}

/* Our partial of chunk c of part p, the k-th unit we build. */
static void partial_unit(struct asg_ctx *x, int p, size_t c, size_t k)
{
	const struct coll_geom *g = x->r->g;
	size_t a, b;
	int last;

	chunk_of(x->r, x->lo[p], x->hi[p], c, &a, &b);
	last = partial_of(x, a, b, k);
	if (p == x->w)
		x->own_last[c] = last;
	else
		sched_dep(x->s, sched_signal(x->s, g->H + p, TAG_PARTIAL), last);
}

/* The direct combine of chunk c of our part: the contributors' partials
 * folded in worker order into our result area; returns the last fold. */
static int combine_direct(struct asg_ctx *x, size_t c, size_t off, size_t len)
{
	const struct coll_geom *g = x->r->g;
	struct sched *s = x->s;
	size_t slot = c % (size_t)g->window;
	int prev = c >= (size_t)g->window ? x->cjoin[slot] : -1, last = -1;

	for (int v = 0; v < g->W; v++) {
		size_t buf = x->cbuf + (slot * (size_t)g->W + (size_t)v) * x->r->cs;
		int rd = -1, op;

		if (!x->contrib[v])
			continue;
		if (v == x->w) {
			buf = g->S + off;
		} else {
			int wt = sched_wait_flag(s, g->H + v, TAG_PARTIAL);

			rd = sched_add(s, OP_READ, g->H + v, last < 0 ? x->res + off : buf,
				       g->S + off, len);
			sched_dep(s, rd, wt);
			sched_dep(s, rd, last < 0 ? -1 : prev);
		}
		if (last < 0 && v != x->w) {
			last = rd;
			continue;
		}
		op = last < 0 ? sched_add(s, OP_COPY, x->me, buf, x->res + off, len) :
				sched_add(s, OP_REDUCE, x->me, buf, x->res + off, len);
		sched_dep(s, op, last);
		sched_dep(s, op, rd);
		sched_dep(s, op, v == x->w ? x->own_last[c] : -1);
		last = op;
	}
	x->cjoin[slot] = last;
	return last;
}

/* Chunk c of our part, combined, goes to the other workers (signalled)
 * and our hosts (allreduce), or to the root (reduce). */
static void own_units(struct asg_ctx *x)
{
	const struct coll_geom *g = x->r->g;
	struct sched *s = x->s;
	size_t a, b;

	for (size_t c = 0; chunk_of(x->r, x->lo[x->w], x->hi[x->w], c, &a, &b); c++) {
		size_t off = a * x->r->es, len = (b - a) * x->r->es;
		int last = combine_direct(x, c, off, len);

		if (!x->r->all) {
			sched_dep(s, sched_add(s, OP_WRITE, 0, x->res + off, g->S + off, len),
				  last);
			continue;
		}
		for (int v = 0; v < g->W; v++)
			if (v != x->w) {
				int wr = sched_add(s, OP_WRITE, g->H + v, x->res + off,
						   x->res + off, len);

				sched_dep(s, wr, last);
				sched_dep(s, sched_signal(s, g->H + v, TAG_RESULT), wr);
			}
		for (int j = 0; j < x->nL; j++)
			sched_dep(s, sched_add(s, OP_WRITE, x->L[j], x->res + off, g->S + off, len),
				  last);
	}
}

/* allreduce: the other owners' units, once signalled, to our hosts. */
static void forward_units(struct asg_ctx *x)
{
	const struct coll_geom *g = x->r->g;
	size_t a, b;

	for (int p = 0; p < g->W; p++)
		for (size_t c = 0; p != x->w && chunk_of(x->r, x->lo[p], x->hi[p], c, &a, &b);
		     c++) {
			int wt = sched_wait_flag(x->s, g->H + p, TAG_RESULT);

			for (int j = 0; j < x->nL; j++)
				sched_dep(x->s,
					  sched_add(x->s, OP_WRITE, x->L[j], x->res + a * x->r->es,
						    g->S + a * x->r->es, (b - a) * x->r->es),
					  wt);
		}
}

/* knomial: a tree of workers rooted at the root's worker folds each chunk
 * of the whole vector upwards (a parent reads a child's partial once
 * signalled, and folds it into its own); allreduce passes the result back
 * down (write and signal) and every worker writes it to its hosts. */
static void combine_knomial(struct asg_ctx *x)
{
	const struct coll_geom *g = x->r->g;
	struct sched *s = x->s;
	int W = g->W, r0 = g->owner[0], v = (x->w - r0 + W) % W, nch, up;
	int *ch = xmalloc((size_t)(g->radix * 32 + W) * sizeof(int)),
	    *sub = xcalloc((size_t)W, sizeof(int));
	size_t a, b, win = (size_t)g->window;

	for (int h = 0; h < g->H; h++) /* sub[u]: hosts in u's subtree */
		for (int u = (g->owner[h] - r0 + W) % W;; u = sched_knomial_parent(u, g->radix)) {
			sub[u]++;
			if (!u)
				break;
		}
	nch = sched_knomial_children(v, W, g->radix, ch);
	up = v ? g->H + (sched_knomial_parent(v, g->radix) + r0) % W : -1;
	for (size_t c = 0; sub[v] && chunk_of(x->r, 0, x->r->count, c, &a, &b); c++) {
		size_t off = a * x->r->es, len = (b - a) * x->r->es, slot = c % win;
		int prev = c >= win ? x->cjoin[slot] : -1, last = partial_of(x, a, b, c), have;

		for (int i = 0; i < nch; i++) {
			int peer = g->H + (ch[i] + r0) % W, wt, rd;
			size_t buf = x->cbuf + (slot * (size_t)W + (size_t)i) * x->r->cs;

			if (!sub[ch[i]])
				continue;
			wt = sched_wait_flag(s, peer, TAG_PARTIAL);
			rd = sched_add(s, OP_READ, peer, last < 0 ? g->S + off : buf, g->S + off,
				       len);
			sched_dep(s, rd, wt);
			if (last < 0) { /* no partial of ours: the child's is the start */
				last = rd;
				continue;
			}
			sched_dep(s, rd, prev);
			sched_dep(s, sched_add(s, OP_REDUCE, x->me, buf, g->S + off, len), last);
			sched_dep(s, (int)s->n - 1, rd);
			last = (int)s->n - 1;
		}
		x->cjoin[slot] = last;
		if (v)
			sched_dep(s, sched_signal(s, up, TAG_PARTIAL), last);
		else if (!x->r->all)
			sched_dep(s, sched_add(s, OP_WRITE, 0, g->S + off, g->S + off, len), last);
		if (!x->r->all)
			continue;
		have = v ? sched_wait_flag(s, up, TAG_RESULT) : last;
		for (int i = 0; i < nch; i++) {
			int peer = g->H + (ch[i] + r0) % W, wr;

			if (!sub[ch[i]])
				continue;
			wr = sched_add(s, OP_WRITE, peer, v ? x->res + off : g->S + off,
				       x->res + off, len);
			sched_dep(s, wr, have);
			sched_dep(s, sched_signal(s, peer, TAG_RESULT), wr);
		}
		for (int j = 0; j < x->nL; j++)
			sched_dep(s,
				  sched_add(s, OP_WRITE, x->L[j], v ? x->res + off : g->S + off,
					    g->S + off, len),
				  have);
	}
	free(ch);
	free(sub);
}

/* ring, reduce-scatter half, chunk c: W - 1 steps; at step st we announce
 * our part w - st and fold the previous worker's part w - 1 - st into ours
 * (read once signalled). has[v * W + q]: worker v's part q holds some
 * host's input yet (a worker without hosts has none to send). */
static void ring_rs(struct asg_ctx *x, size_t c, int *cur, int *has)
{
	const struct coll_geom *g = x->r->g;
	struct sched *s = x->s;
	int W = g->W, w = x->w, pv = (w - 1 + W) % W, first = (int)s->n;
	size_t a, b, slot = c % (size_t)g->window;
	int prev = c >= (size_t)g->window ? x->cjoin[slot] : -1;

	for (int st = 0; st < W - 1; st++) {
		int qs = (w - st + W) % W, qr = (w - 1 - st + W) % W;

		if (chunk_of(x->r, x->lo[qs], x->hi[qs], c, &a, &b) && has[w * W + qs])
			sched_dep(s, sched_signal(s, g->H + (w + 1) % W, TAG_PARTIAL), cur[qs]);
		if (chunk_of(x->r, x->lo[qr], x->hi[qr], c, &a, &b) && has[pv * W + qr]) {
			size_t off = a * x->r->es, len = (b - a) * x->r->es;
			size_t buf = x->cbuf + (slot * (size_t)W + (size_t)st) * x->r->cs;
			int wt = sched_wait_flag(s, g->H + pv, TAG_PARTIAL), mine = has[w * W + qr];
			int rd = sched_add(s, OP_READ, g->H + pv, mine ? buf : g->S + off,
					   g->S + off, len),
			    op;

			sched_dep(s, rd, wt);
			sched_dep(s, rd, mine ? prev : -1);
			if (mine) {
				op = sched_add(s, OP_REDUCE, x->me, buf, g->S + off, len);
				sched_dep(s, op, rd);
				sched_dep(s, op, cur[qr]);
				rd = op;
			}
			cur[qr] = rd; /* without a partial of ours, theirs is the start */
		}
		/* Everyone's step at once: v's part v - st joins worker v + 1's. */
		for (int v = 0; v < W; v++)
			has[((v + 1) % W) * W + (v - st + W) % W] |= has[v * W + (v - st + W) % W];
	}
	x->cjoin[slot] = sched_join(s, x->me, first);
}
/* ring, allreduce: per chunk index, every part's partial, the
 * reduce-scatter, then the allgather: at step st we write part w + 1 - st
 * (ours, reduced, first) into the next worker's result area and signal;
 * every part goes to our hosts once here. */
static void combine_ring(struct asg_ctx *x, size_t nmax)
{
	const struct coll_geom *g = x->r->g;
	struct sched *s = x->s;
	int W = g->W, w = x->w, f = (w + 1) % W, nx = g->H + (w + 1) % W,
	    pv = g->H + (w - 1 + W) % W;
	int *cur = xmalloc((size_t)W * sizeof(int)),
	    *has = xmalloc((size_t)W * (size_t)W * sizeof(int));
	size_t a, b, k = 0;

	for (size_t c = 0; c < nmax; c++) {
		for (int q = 0; q < W; q++) {
			cur[q] = chunk_of(x->r, x->lo[q], x->hi[q], c, &a, &b) ?
					 partial_of(x, a, b, k++) :
					 -1;
			for (int v = 0; v < W; v++)
				has[v * W + q] = x->contrib[v];
		}
		ring_rs(x, c, cur, has);
		for (int st = 0; st < W - 1; st++) {
			int qs = (w + 1 - st + W) % W, qr = (w - st + W) % W;

			if (chunk_of(x->r, x->lo[qs], x->hi[qs], c, &a, &b)) {
				int wr = sched_add(s, OP_WRITE, nx,
						   (qs == f ? g->S : x->res) + a * x->r->es,
						   x->res + a * x->r->es, (b - a) * x->r->es);

				sched_dep(s, wr, cur[qs]);
				sched_dep(s, sched_signal(s, nx, TAG_RESULT), wr);
			}
			if (chunk_of(x->r, x->lo[qr], x->hi[qr], c, &a, &b))
				cur[qr] = sched_wait_flag(s, pv, TAG_RESULT);
		}
		for (int q = 0; q < W; q++)
			for (int j = 0; j < x->nL && chunk_of(x->r, x->lo[q], x->hi[q], c, &a, &b);
			     j++)
				sched_dep(s,
					  sched_add(s, OP_WRITE, x->L[j],
						    (q == f ? g->S : x->res) + a * x->r->es,
						    g->S + a * x->r->es, (b - a) * x->r->es),
					  cur[q]);
	}
	free(cur);
	free(has);
}

/* recdbl, allreduce: chunk by chunk of the whole vector. With P the
 * largest power of two <= W, worker e >= P hands its partial to e - P;
 * then the first P exchange with w ^ k, k = 1, 2, 4 .. < P: each reads its
 * partner's current vector (once signalled) into the next stage buffer and
 * folds its own into it, so that nothing a partner may still read is ever
 * overwritten; then e - P writes the result to e. gh, go: every worker's
 * "holds some input" and where its current vector is, stage by stage, the
 * same on every rank. */
static void recdbl_stages(struct asg_ctx *x, size_t off, size_t len, int *gh, size_t *go, int *cur)
{
	const struct coll_geom *g = x->r->g;
	struct sched *s = x->s;
	int W = g->W, w = x->w, P = 1, stage = 1;

	while (2 * P <= W)
		P *= 2;
	for (int k = 0; k <= P; k = k ? 2 * k : 1, stage++) {
		/* k == 0: the extras' step; else the exchange at distance k. */
		int p = k ? w ^ k : w + P;
		size_t X = x->res + (size_t)stage * x->am;

		if (k == P)
			break;
		if (k && gh[w])
			sched_dep(s, sched_signal(s, g->H + p, TAG_PARTIAL), *cur);
		if (p < W && gh[p]) {
			int wt = sched_wait_flag(s, g->H + p, TAG_PARTIAL);
			int rd = sched_add(s, OP_READ, g->H + p, X + off, go[p] + off, len);

			sched_dep(s, rd, wt);
			if (gh[w]) {
				sched_dep(s,
					  sched_add(s, OP_REDUCE, x->me, go[w] + off, X + off, len),
					  rd);
				sched_dep(s, rd = (int)s->n - 1, *cur);
			}
			*cur = rd;
		}
		for (int v = 0, *nh = gh + W; v < P; v++)
			nh[v] = gh[v] | (k ? gh[v ^ k] : v + P < W && gh[v + P]);
		for (int v = 0; v < P; v++) {
			int q = k ? v ^ k : v + P;

			if (q < W && gh[q])
				go[v] = X;
			gh[v] = gh[W + v];
		}
	}
}

static void combine_recdbl(struct asg_ctx *x)
{
	const struct coll_geom *g = x->r->g;
	struct sched *s = x->s;
	int W = g->W, w = x->w, P = 1, *gh = xmalloc(2 * (size_t)W * sizeof(int)), ne = 0;
	size_t *go = xmalloc((size_t)W * sizeof(size_t)), a, b;

	while (2 * P <= W)
		P *= 2;
	for (int h = 0; h < g->H; h++)
		ne += w + P < W && g->owner[h] == w + P;
	for (size_t c = 0; chunk_of(x->r, 0, x->r->count, c, &a, &b); c++) {
		size_t off = a * x->r->es, len = (b - a) * x->r->es;
		int cur = partial_of(x, a, b, c);

		for (int v = 0; v < W; v++) {
			gh[v] = x->contrib[v];
			go[v] = g->S;
		}
		if (w >= P) {
			if (gh[w])
				sched_dep(s, sched_signal(s, g->H + w - P, TAG_PARTIAL), cur);
			cur = x->nL ? sched_wait_flag(s, g->H + w - P, TAG_RESULT) : -1;
			go[w] = x->res;
		} else {
			recdbl_stages(x, off, len, gh, go, &cur);
			if (ne) {
				int wr = sched_add(s, OP_WRITE, g->H + w + P, go[w] + off,
						   x->res + off, len);

				sched_dep(s, wr, cur);
				sched_dep(s, sched_signal(s, g->H + w + P, TAG_RESULT), wr);
			}
		}
		for (int j = 0; j < x->nL; j++)
			sched_dep(s, sched_add(s, OP_WRITE, x->L[j], go[w] + off, g->S + off, len),
				  cur);
	}
	free(gh);
	free(go);
}

static int build_assigned(const struct red *r, int w, struct sched *s)
{
	const struct coll_geom *g = r->g;
	struct asg_ctx x = { .r = r, .s = s, .w = w, .me = g->H + w };
	size_t nmax = 0, k = 0;

	x.L = xmalloc((size_t)g->H * sizeof(int));
	x.contrib = xcalloc((size_t)g->W, sizeof(int));
	x.lo = xmalloc((size_t)g->W * sizeof(size_t));
	x.hi = xmalloc((size_t)g->W * sizeof(size_t));
	x.pjoin = xmalloc((size_t)g->window * sizeof(int));
	x.cjoin = xmalloc((size_t)g->window * sizeof(int));
	x.own_last = xmalloc((r->count / (size_t)g->W / r->ce + 2) * sizeof(int));
	for (int h = 0; h < g->H; h++) {
		x.contrib[g->owner[h]] = 1;
		if (g->owner[h] == w)
			x.L[x.nL++] = h;
	}
	for (int p = 0; p < g->W; p++) {
		sched_part(r->count, g->W, p, &x.lo[p], &x.hi[p]);
		if ((x.hi[p] - x.lo[p] + r->ce - 1) / r->ce > nmax)
			nmax = (x.hi[p] - x.lo[p] + r->ce - 1) / r->ce;
	}
	x.am = (g->m + 63) & ~(size_t)63;
	x.res = g->R;
	x.pbuf = g->R + x.am * (1 + (size_t)sched_levels(g->W));
	x.cbuf = x.pbuf + (size_t)g->window * (size_t)g->H * r->cs;
	if (g->alg != ALG_ASSIGNED) {
		if (g->alg == ALG_KNOMIAL)
			combine_knomial(&x);
		else if (g->alg == ALG_RING)
			combine_ring(&x, nmax);
		else
			combine_recdbl(&x);
		goto out;
	}
	/* Our partial, unit by unit: chunk c of every part, the others' parts
	 * first (from the next worker on), so that every owner starts early. */
	for (size_t c = 0; x.nL && c < nmax; c++)
		for (int i = 1; i <= g->W; i++) {
			int p = (w + i) % g->W;
			size_t a, b;

			if (chunk_of(r, x.lo[p], x.hi[p], c, &a, &b))
				partial_unit(&x, p, c, k++);
		}
	own_units(&x);
	if (r->all)
		forward_units(&x);
out:
	free(x.L);
	free(x.contrib);
	free(x.lo);
	free(x.hi);
	free(x.pjoin);
	free(x.cjoin);
	free(x.own_last);
	return 0;
}

int coll_build_reduce(const struct coll_geom *g, int rank, struct coll_rank *cr)
{
	struct red r = { .g = g, .es = dtype_size(g->dt), .all = g->coll == COLL_ALLREDUCE };
	size_t part_max;

	if (g->m % r.es || g->window < 1 || g->chunk < 1)
		return -1;
	r.count = g->m / r.es;
	r.ce = g->chunk / r.es ? g->chunk / r.es : 1;
	/* A slot holds a chunk of a part, or of the whole vector (the tree
	 * and recursive doubling go chunk by chunk of the whole vector). */
	part_max = g->alg == ALG_KNOMIAL || g->alg == ALG_RECDBL ?
			   r.count :
			   (r.count + (size_t)g->W - 1) / (size_t)g->W;
	r.cs = (r.ce < part_max ? r.ce : part_max) * r.es;
	if (g->R + sched_scratch_bytes(g->H, g->W, g->m, g->chunk, g->window) > g->F)
		return -1;
	if (rank < g->H) {
		cr->is_source = 1;
		build_slice(&r, rank, g->H, rank, &cr->ref);
		if (r.all || rank == 0)
			expect_add_reduced(&cr->exp, g->S, g->m, g->S);
		return 0;
	}
	if (g->alg == ALG_SLICE) {
		build_slice(&r, rank, g->W, rank - g->H, &cr->off);
		return 0;
	}
	return build_assigned(&r, rank - g->H, &cr->off);
}
