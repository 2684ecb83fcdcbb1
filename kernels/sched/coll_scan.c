/*
 * kernels/sched/coll_scan.c: the prefix reductions. Host h's result, at
 * its receive area S, is the reduction of the vectors of hosts 0 .. h
 * (scan) or 0 .. h-1 (exscan; host 0 gets none), in the geometry's dtype
 * and op. Reference: a chain of hosts: host h waits for h-1's signal,
 * reads h-1's running prefix, folds its own vector in and signals h+1.
 * Offloaded, chain: the workers run the same chain over the hosts they
 * serve: each reads its hosts' vectors at once (into its receive area, at
 * the host's place), then in host order folds in the prefix of the host
 * before (its own, or read from that host's worker once it signals),
 * writes the result to the host and signals the worker of the next host
 * when that is another.
 * Offloaded, recdbl: a recursive-doubling prefix among the workers, in
 * log2 rounds (below).
 */
#include "schedule.h"
#include "xalloc.h"

#include <stdlib.h>

#define TAG_SCAN 0

/* Appends a local operation of rank self after operation after. */
static int then(struct sched *s, enum op_kind kind, int self, size_t loff, size_t roff, size_t len,
		int after)
{
	int op = sched_add(s, kind, self, loff, roff, len);

	sched_dep(s, op, after);
	return op;
}

/* The reference on host h. Its running prefix (hosts 0 .. h), what host
 * h+1 reads: host 0's own vector, else built in scratch at R; the result
 * at S is written once (the simulation checks every result byte is). */
static void build_scan_ref(const struct coll_geom *g, int h, struct sched *s)
{
	int ex = g->coll == COLL_EXSCAN, last = -1;
	size_t m = g->m, S = g->S, R = g->R;

	if (h == 0 && !ex)
		last = sched_add(s, OP_COPY, h, 0, S, m);
	if (h > 0) {
		int wt = sched_wait_flag(s, h - 1, TAG_SCAN);
		int rd = sched_add(s, OP_READ, h - 1, ex ? S : R, h - 1 ? R : 0, m);

		sched_dep(s, rd, wt);
		last = rd;
		if (ex && h + 1 < g->H)
			last = then(s, OP_COPY, h, S, R, m, last);
		if (!ex || h + 1 < g->H)
			last = then(s, OP_REDUCE, h, 0, R, m, last);
		if (!ex)
			last = then(s, OP_COPY, h, R, S, m, last);
	}
	if (h + 1 < g->H)
		sched_dep(s, sched_signal(s, h + 1, TAG_SCAN), last);
}

static int build_scan_chain(const struct coll_geom *g, int w, struct sched *s)
{
	int H = g->H, ex = g->coll == COLL_EXSCAN, prev = -1;
	size_t m = g->m, S = g->S;

	for (int pos = 0, h; (h = sched_next_host(g, w, &pos)) >= 0;) {
		size_t at = S + (size_t)h * m, before = S + (size_t)(h - 1) * m;
		int cur = sched_add(s, OP_READ, h, at, 0, m);

		if (h > 0 && g->owner[h - 1] != w) {
			int wt = sched_wait_flag(s, H + g->owner[h - 1], TAG_SCAN);

			sched_dep(s,
				  prev = sched_add(s, OP_READ, H + g->owner[h - 1], before, before,
						   m),
				  wt);
		}
		if (h > 0) {
			int red;

			if (ex)
				sched_dep(s, sched_add(s, OP_WRITE, h, before, S, m), prev);
			red = sched_add(s, OP_REDUCE, H + w, before, at, m);
			sched_dep(s, red, cur);
			sched_dep(s, red, prev);
			cur = red;
		}
		if (!ex)
			sched_dep(s, sched_add(s, OP_WRITE, h, at, S, m), cur);
		if (h + 1 < H && g->owner[h + 1] != w)
			sched_dep(s, sched_signal(s, H + g->owner[h + 1], TAG_SCAN), cur);
		prev = cur;
	}
	return 0;
}

/* recdbl: the hosts fall into runs, the longest ranges of consecutive
 * hosts one worker serves (one per worker under a block assignment whose
 * H is a multiple of W). Each run's worker reads its hosts and folds their
 * vectors in host order (L_0); then rounds at distance d = 1, 2, 4 .. < R
 * (R runs): run q >= d reads L(q - d), once signalled, into its other
 * buffer and folds its own into it, earlier hosts first, so that after
 * the rounds run q holds the fold of runs 0 .. q. A run alternates between
 * two buffers (its last host's slot, freed by the fold, and one more), so
 * the reader of a buffer that is overwritten later in the iteration
 * acknowledges its read. Last, run q > 0 reads E, the fold of runs
 * 0 .. q-1, and each host's result is E then its run's hosts before it
 * (and itself, for scan) in order; the last host's scan is the run's. */
#define TAG_ACK 1

struct run {
	int a, b, w;   /* hosts [a, b), served by worker w */
	int k;	       /* the rounds in which it folds: those with d <= q */
	size_t buf[2]; /* L_j is in buf[min(j, k) % 2]: the first holds L_0 */
};

struct rd {
	const struct coll_geom *g;
	struct sched *s;
	struct run *run;
	int R, K, w, ex;
	/* Per run (ours only): the op that made its current value, that value
	 * at the start of the round, the ops that must end before each buffer
	 * is overwritten (our fold, a reader of ours), the ack waited for
	 * before E is read and then E's read, and the fold of its hosts. */
	int *ready, *ready0, (*user)[2][2], *e, *fold;
};

static int needs_e(const struct rd *x, int q)
{
	return q > 0 && (x->ex || x->run[q].b - x->run[q].a > 1);
}

/* Whether run q's L_{k-1}, read in round k, is overwritten later (the
 * next round's fold, or E), so that its reader acknowledges the read. */
static int acked(const struct rd *x, int q, int k)
{
	return k < x->run[q].k || (k == x->run[q].k && needs_e(x, q));
}

/* The runs of g's assignment and their buffers: a run's second buffer is
 * the slot of a host its worker does not serve (in the receive area),
 * else in the scratch area. Returns R, or -1 when they do not fit. */
static int scan_runs(const struct coll_geom *g, struct run *run)
{
	int R = 0, *used = xcalloc((size_t)g->W, sizeof(int));
	int *cur = xcalloc((size_t)g->W, sizeof(int));
	size_t am = (g->m + 63) & ~(size_t)63;

	for (int h = 0; h < g->H; h++)
		if (h == 0 || g->owner[h] != g->owner[h - 1])
			run[R++] = (struct run){ .a = h, .b = h + 1, .w = g->owner[h] };
		else
			run[R - 1].b = h + 1;
	for (int q = 0; q < R; q++) {
		struct run *p = &run[q];
		size_t last = g->S + (size_t)(p->b - 1) * g->m, x = last;

		for (int d = 1; d <= q; d *= 2)
			p->k++;
		if (q > 0 || p->b - p->a > 1) {
			while (cur[p->w] < g->H && g->owner[cur[p->w]] == p->w)
				cur[p->w]++;
			if (cur[p->w] < g->H)
				x = g->S + (size_t)cur[p->w]++ * g->m;
			else
				x = g->R + (size_t)used[p->w]++ * am;
			if (x + g->m > g->F) {
				R = -1;
				break;
			}
		}
		p->buf[0] = p->b - p->a > 1 ? x : last;
		p->buf[1] = p->b - p->a > 1 ? last : x;
	}
	free(used);
	free(cur);
	return R;
}

/* Our runs' hosts read into their slots and folded in host order. */
static void recdbl_fold(struct rd *x)
{
	struct sched *s = x->s;
	int self = x->g->H + x->w;
	size_t m = x->g->m, S = x->g->S;

	for (int q = 0; q < x->R; q++) {
		struct run *p = &x->run[q];
		int last;

		if (p->w != x->w)
			continue;
		last = sched_add(s, OP_READ, p->a, S + (size_t)p->a * m, 0, m);
		if (p->b - p->a > 1) {
			int cp = sched_add(s, OP_COPY, self, S + (size_t)p->a * m, p->buf[0], m);

			sched_dep(s, cp, last);
			last = cp;
		}
		for (int h = p->a + 1; h < p->b; h++) {
			int rd = sched_add(s, OP_READ, h, S + (size_t)h * m, 0, m);
			int red = sched_add(s, OP_REDUCE, self, S + (size_t)h * m, p->buf[0], m);

			sched_dep(s, red, rd);
			sched_dep(s, red, last);
			last = red;
		}
		x->ready[q] = x->fold[q] = last;
		x->user[q][1][0] = p->b - p->a > 1 ? last : -1;
	}
}

/* Before an overwrite of run q's buffer i (the last added op). */
static void after_users(struct rd *x, int q, int i)
{
	sched_dep(x->s, (int)x->s->n - 1, x->user[q][i][0]);
	sched_dep(x->s, (int)x->s->n - 1, x->user[q][i][1]);
}

/* Run p's value L_j into our run q's buffer i: a read once p's worker
 * signals, or a copy when p is ours; after that buffer's own readers
 * (wt: the ack waited for, or -1). Returns the op. */
static int recdbl_fetch(struct rd *x, int p, int j, int q, int i, int wt)
{
	struct sched *s = x->s;
	struct run *src = &x->run[p];
	size_t from = src->buf[(j < src->k ? j : src->k) % 2], to = x->run[q].buf[i];
	int op;

	if (src->w == x->w) {
		op = sched_add(s, OP_COPY, x->g->H + x->w, from, to, x->g->m);
		sched_dep(s, op, x->ready0[p]);
		after_users(x, q, i);
		sched_dep(s, op, wt);
		x->user[p][(j < src->k ? j : src->k) % 2][1] = op;
		return op;
	}
	int flag = sched_wait_flag(s, x->g->H + src->w, TAG_SCAN);

	op = sched_add(s, OP_READ, x->g->H + src->w, to, from, x->g->m);
	sched_dep(s, op, flag);
	after_users(x, q, i);
	sched_dep(s, op, wt);
	return op;
}

/* Round k (k == K + 1: E) of our run q. */
static void recdbl_round(struct rd *x, int q, int k)
{
	struct sched *s = x->s;
	struct run *p = &x->run[q];
	int d = k <= x->K ? 1 << (k - 1) : 1, wt = -1, r = q + d, pk = k >= 2 ? 1 << (k - 2) : 0;

	/* Ours to the reader of this round (E: of run q + 1). */
	if (r < x->R && x->run[r].w != x->w && (k <= x->K || needs_e(x, r)))
		sched_dep(s, sched_signal(s, x->g->H + x->run[r].w, TAG_SCAN), x->ready[q]);
	/* The ack of the previous round's reader of the buffer we fill next
	 * (this round's fold, or E the round after our last fold). */
	if (k >= 2 && (k <= p->k || (k == p->k + 1 && needs_e(x, q))) && q + pk < x->R &&
	    x->run[q + pk].w != x->w)
		wt = sched_wait_flag(s, x->g->H + x->run[q + pk].w, TAG_ACK);
	if (k == p->k + 1)
		x->e[q] = wt;
	if (k <= x->K && q >= d) {
		int in = recdbl_fetch(x, q - d, k - 1, q, k % 2, wt), red;

		if (x->run[q - d].w != x->w && acked(x, q - d, k))
			sched_dep(s, sched_signal(s, x->g->H + x->run[q - d].w, TAG_ACK), in);
		red = sched_add(s, OP_REDUCE, x->g->H + x->w, p->buf[(k - 1) % 2], p->buf[k % 2],
				x->g->m);
		sched_dep(s, red, in);
		sched_dep(s, red, x->ready[q]);
		x->user[q][(k - 1) % 2][0] = red;
		x->ready[q] = red;
	}
	if (k == x->K + 1 && needs_e(x, q)) {
		/* E, which the results start from. */
		x->e[q] = recdbl_fetch(x, q - 1, x->run[q - 1].k, q, (p->k + 1) % 2, x->e[q]);
	}
}

/* Our run q's results: E (none for run 0) then its hosts in order, folded
 * into E's buffer, each written to its host once folded; the last host's
 * scan is the run's own value. */
static void recdbl_results(struct rd *x, int q)
{
	struct sched *s = x->s;
	struct run *p = &x->run[q];
	int self = x->g->H + x->w, have = q > 0, last = have ? x->e[q] : -1;
	size_t m = x->g->m, S = x->g->S, e = p->buf[(p->k + 1) % 2];

	for (int h = p->a; h < p->b; h++) {
		int add = x->ex ? h - 1 : h;

		if (!x->ex && h == p->b - 1) {
			sched_dep(s, sched_add(s, OP_WRITE, h, p->buf[p->k % 2], S, m),
				  x->ready[q]);
			break;
		}
		if (add >= p->a) {
			int op = have ? sched_add(s, OP_REDUCE, self, S + (size_t)add * m, e, m) :
					sched_add(s, OP_COPY, self, S + (size_t)add * m, e, m);

			sched_dep(s, op, last);
			sched_dep(s, op, x->fold[q]);
			last = op;
			have = 1;
		}
		if (have) {
			int wr = sched_add(s, OP_WRITE, h, e, S, m);

			sched_dep(s, wr, last);
			last = wr;
		}
	}
}

static int build_scan_recdbl(const struct coll_geom *g, int w, struct sched *s)
{
	struct rd x = { .g = g, .s = s, .w = w, .ex = g->coll == COLL_EXSCAN };
	size_t n = (size_t)g->H;

	x.run = xmalloc(n * sizeof(*x.run));
	x.R = scan_runs(g, x.run);
	if (x.R < 0) {
		free(x.run);
		return -1;
	}
	while ((1 << x.K) < x.R)
		x.K++;
	x.ready = xmalloc(4 * n * sizeof(int));
	x.ready0 = x.ready + n;
	x.e = x.ready0 + n;
	x.fold = x.e + n;
	x.user = xmalloc(n * sizeof(*x.user));
	for (size_t i = 0; i < 4 * n; i++)
		x.ready[i] = -1;
	for (size_t i = 0; i < n; i++)
		x.user[i][0][0] = x.user[i][0][1] = x.user[i][1][0] = x.user[i][1][1] = -1;
	recdbl_fold(&x);
	for (int k = 1; k <= x.K + 1; k++) {
		for (int q = 0; q < x.R; q++)
			x.ready0[q] = x.ready[q];
		for (int q = 0; q < x.R; q++)
			if (x.run[q].w == w)
				recdbl_round(&x, q, k);
	}
	for (int q = 0; q < x.R; q++)
		if (x.run[q].w == w)
			recdbl_results(&x, q);
	free(x.run);
	free(x.ready);
	free(x.user);
	return 0;
}

int coll_build_scan(const struct coll_geom *g, int rank, struct coll_rank *cr)
{
	int H = g->H, ex = g->coll == COLL_EXSCAN;

	if (rank < H) {
		cr->is_source = 1;
		if (rank > 0 || !ex)
			expect_add_prefix(&cr->exp, g->S, g->m, g->S, ex ? rank : rank + 1);
		build_scan_ref(g, rank, &cr->ref);
		return 0;
	}
	if (g->alg == ALG_RECDBL)
		return build_scan_recdbl(g, rank - H, &cr->off);
	return build_scan_chain(g, rank - H, &cr->off);
}
