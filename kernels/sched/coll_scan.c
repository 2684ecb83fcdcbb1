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
 */
#include "schedule.h"

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
	return build_scan_chain(g, rank - H, &cr->off);
}
