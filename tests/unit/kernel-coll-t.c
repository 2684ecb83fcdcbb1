/* tests/unit/kernel-coll-t.c: the collectives' plans (who reads and writes
 * what, where), the data pattern and its check, the statistics and the
 * efficiency formulas. */
#include "tap.h"
#include "../../kernels/sched/schedule.c"
#include "../../kernels/sched/coll.c"
#include "../../kernels/sched/coll_bcast.c"
#include "../../kernels/sched/coll_gather.c"
#include "../../kernels/sched/coll_allgather.c"
#include "../../kernels/sched/coll_reduce.c"
#include "../../kernels/sched/reduce.c"
#include "../../kernels/options.c"
#include "../../kernels/sched/assign.c"
#include "../../kernels/sched/validate.c"
#include "../../kernels/stats.c"

static size_t count(const struct sched *p, enum op_kind k)
{
	size_t n = 0;

	for (size_t i = 0; i < p->n; i++)
		n += p->ops[i].kind == k;
	return n;
}

/* The nth (from 0) op of kind k in p, or NULL. */
static const struct op *nth(const struct sched *p, enum op_kind k, int n)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->ops[i].kind == k && n-- == 0)
			return &p->ops[i];
	return NULL;
}

/* Nonzero when op a (an index) depends on op b directly. */
static int depends(const struct sched *p, const struct op *a, size_t b)
{
	for (size_t d = 0; d < a->ndeps; d++)
		if (p->deps[a->dep0 + d] == b)
			return 1;
	return 0;
}

/* Two schedules with the same operations, dependencies included. */
static int same_sched(const struct sched *a, const struct sched *b)
{
	if (a->n != b->n || a->ndeps != b->ndeps)
		return 0;
	for (size_t i = 0; i < a->n; i++) {
		const struct op *x = &a->ops[i], *y = &b->ops[i];

		if (x->kind != y->kind || x->peer != y->peer || x->loff != y->loff ||
		    x->roff != y->roff || x->len != y->len || x->tag != y->tag ||
		    x->count != y->count || x->dep0 != y->dep0 || x->ndeps != y->ndeps)
			return 0;
	}
	for (size_t d = 0; d < a->ndeps; d++)
		if (a->deps[d] != b->deps[d])
			return 0;
	return 1;
}

/* sched_index_hosts: the workers' hosts found once give every builder the
 * schedules it builds by scanning owner[], for both assignments (and
 * the DPU-aware one over 3 nodes), several H and W. */
static void indexed_hosts(void)
{
	unsigned bad = 0, built = 0;

	for (int asg = 0; asg < ASG_N; asg++)
		for (int H = 2; H <= 9; H += 7)
			for (int W = 1; W <= H; W += 2)
				for (int c = 0; c < COLL_N; c++)
					for (int a = 0; a < ALG_N; a++) {
						int owner[9], hn[9], wn[9], s0[10], sv[9],
							pos = 0, h, prev = -1;
						struct coll_geom g, x;

						if (!alg_applies(c, a))
							continue;
						for (int i = 0; i < H; i++)
							hn[i] = i % 3;
						for (int i = 0; i < W; i++)
							wn[i] = i % 3;
						assign_hosts((enum asg)asg, H, W, hn, wn, owner);
						g = (struct coll_geom){ .coll = c,
									.alg = a,
									.H = H,
									.W = W,
									.m = 4096,
									.S = 4096,
									.owner = owner,
									.chunk = 1024,
									.window = 2,
									.radix = 2,
									.R = 8192 * 16,
									.F = 8192 * 64 };
						x = g;
						sched_index_hosts(&x, s0, sv);
						for (int w = 0; w < W; w++, pos = 0, prev = -1)
							while ((h = sched_next_host(&x, w, &pos)) >=
							       0) {
								bad += owner[h] != w || h <= prev;
								prev = h;
							}
						bad += s0[W] != H;
						for (int r = 0; r < H + W; r++) {
							struct coll_rank p, q;

							memset(&p, 0, sizeof(p));
							memset(&q, 0, sizeof(q));
							if (coll_build(&g, r, &p) == 0 &&
							    coll_build(&x, r, &q) == 0) {
								bad += !same_sched(&p.ref,
										   &q.ref) ||
								       !same_sched(&p.off, &q.off);
								built++;
							}
							coll_rank_release(&p);
							coll_rank_release(&q);
						}
					}
	ok(built > 0 && !bad,
	   "indexed hosts: every builder's schedules as by scanning (%u ranks, %u differ)", built,
	   bad);
}

/* The workers a worker reads from in s (ranks >= H), in order, into out. */
static int worker_reads(const struct sched *s, int H, int *out)
{
	int n = 0;

	for (size_t i = 0; i < s->n; i++)
		if (s->ops[i].kind == OP_READ && s->ops[i].peer >= H)
			out[n++] = s->ops[i].peer - H;
	return n;
}

/* scan recdbl: log2 rounds of reads at distance 1, 2, 4 .. among the
 * runs of hosts (any W), the partner's value the left operand of each
 * fold, and the second buffer of a run where it fits. */
static void scan_recdbl(void)
{
	int owner[8], from[16], n, H = 6;
	struct coll_rank cr;
	struct coll_geom g = { .coll = COLL_SCAN,
			       .alg = ALG_RECDBL,
			       .H = H,
			       .W = 6,
			       .m = 64,
			       .S = 64,
			       .owner = owner,
			       .R = 64 + 8 * 64,
			       .F = 64 + 8 * 64 + 4 * 64 };
	const struct op *rd, *red;

	assign_hosts(ASG_BLOCK, H, 6, NULL, NULL, owner);
	coll_build(&g, H + 5, &cr);
	n = worker_reads(&cr.off, H, from);
	ok(n == 3 && from[0] == 4 && from[1] == 3 && from[2] == 1,
	   "scan recdbl, W = 6: worker 5 reads workers 4, 3, 1 (3 rounds; a run of one "
	   "host needs no E)");
	rd = nth(&cr.off, OP_READ, 1);
	red = nth(&cr.off, OP_REDUCE, 0);
	ok(rd->peer == H + 4 && red->roff == rd->loff &&
		   red->loff == nth(&cr.off, OP_READ, 0)->loff,
	   "  ... round 1 folds its own vector into worker 4's (earlier hosts first)");
	coll_rank_release(&cr);
	coll_build(&g, H + 0, &cr);
	ok(worker_reads(&cr.off, H, from) == 0 && count(&cr.off, OP_SIGNAL) == 3,
	   "  ... worker 0 reads no worker and signals workers 1, 2, 4");
	coll_rank_release(&cr);
	g.coll = COLL_EXSCAN;
	coll_build(&g, H + 2, &cr);
	n = worker_reads(&cr.off, H, from);
	ok(count(&cr.off, OP_WAIT_FLAG) == 5 && n == 3 && from[0] == 1 && from[1] == 0 &&
		   from[2] == 1 && nth(&cr.off, OP_WRITE, 0)->peer == 2,
	   "exscan recdbl: worker 2 reads workers 1, 0, then E from 1, after the acks of "
	   "workers 3 and 4");
	coll_rank_release(&cr);
	/* One worker, two hosts: its run's second buffer is in scratch. */
	g.H = 2;
	g.W = 1;
	owner[0] = owner[1] = 0;
	ok(coll_build(&g, 2, &cr) == 0 && nth(&cr.off, OP_COPY, 0)->roff == g.R,
	   "recdbl: a run's second buffer in scratch when no host slot is free");
	coll_rank_release(&cr);
	g.F = g.R;
	ok(coll_build(&g, 2, &cr) == -1, "  ... refused when the scratch area lacks it");
}

/* alltoall pairwise, 5 hosts, 2 workers (block: 0 1 4 | 2 3), 64-byte
 * blocks, 16-byte chunks, 2 slots of 160 bytes: worker 1 touches only its
 * own hosts and worker 0, one message per step of at most a slot. */
static void alltoall_pairwise(void)
{
	int owner[5], own = 1, msgs = 0, sigs = 0;
	size_t most = 0;
	struct coll_rank cr;
	struct coll_geom g = { .coll = COLL_ALLTOALL,
			       .alg = ALG_PAIRWISE,
			       .H = 5,
			       .W = 2,
			       .m = 64,
			       .S = 320,
			       .owner = owner,
			       .chunk = 16,
			       .window = 2 };

	assign_hosts(ASG_BLOCK, 5, 2, NULL, NULL, owner);
	coll_build(&g, 6, &cr);
	for (size_t i = 0; i < cr.off.n; i++) {
		const struct op *o = &cr.off.ops[i];

		if ((o->kind == OP_READ || o->kind == OP_WRITE) && o->peer < 5)
			own &= o->peer == 2 || o->peer == 3;
		if (o->kind == OP_READ && o->peer == 5) {
			msgs++;
			most = o->len > most ? o->len : most;
		}
		sigs += o->kind == OP_SIGNAL && o->tag == 0 && o->peer == 5;
	}
	ok(own && msgs == 3 && sigs == 3 && most == 160,
	   "alltoall pairwise: worker 1 touches only hosts 2, 3; 3 steps each way with worker 0 "
	   "(%d in, %d out, at most %zu bytes)",
	   msgs, sigs, most);
	is_int(count(&cr.off, OP_WRITE), 2 * 5 * 4,
	       "  ... writes 4 chunks of 5 blocks to each host");
	coll_rank_release(&cr);
}

int main(void)
{
	int owner[5];
	struct coll_rank cr;
	/* One chunk of the whole block, one in flight: the paper's forms. */
	struct coll_geom g = { .coll = COLL_BCAST,
			       .alg = ALG_DIRECT,
			       .H = 5,
			       .W = 2,
			       .m = 100,
			       .S = 1000,
			       .owner = owner,
			       .chunk = 100,
			       .window = 1 };
	unsigned char buf[37];
	struct tstats st;
	double t[] = { 4, 1, 3, 2 };

	plan(43);
	assign_hosts(ASG_BLOCK, 5, 2, NULL, NULL, owner); /* 0 0 1 1 0 */

	coll_build(&g, 0, &cr);
	is_int(count(&cr.ref, OP_WRITE), 4, "bcast ref: root writes to the 4 other hosts");
	ok(cr.is_source && cr.exp.n == 0, "bcast: root is the source, checks nothing");
	coll_rank_release(&cr);
	coll_build(&g, 5, &cr);
	is_int(count(&cr.off, OP_READ), 1, "bcast worker 0: one read of the root");
	is_int(count(&cr.off, OP_WRITE), 2,
	       "bcast worker 0: writes to hosts 1 and 4, not the root");
	ok(nth(&cr.off, OP_WRITE, 1)->peer == 4 && depends(&cr.off, nth(&cr.off, OP_WRITE, 1), 0),
	   "bcast worker 0: second write to host 4, after the read");
	coll_rank_release(&cr);
	coll_build(&g, 3, &cr);
	ok(cr.exp.n == 1 && cr.exp.b[0].off == 1000 && cr.exp.b[0].src == 0,
	   "bcast host 3 checks root's block at S");
	coll_rank_release(&cr);

	g.coll = COLL_GATHER;
	coll_build(&g, 0, &cr);
	ok(count(&cr.ref, OP_READ) == 4 && count(&cr.ref, OP_COPY) == 1,
	   "gather ref: root reads 4, copies its own");
	is_int(cr.exp.n, 5, "gather: root checks 5 blocks");
	is_int(cr.exp.b[3].off, 1300, "gather: host 3's block at S + 3m");
	coll_rank_release(&cr);
	coll_build(&g, 6, &cr);
	ok(count(&cr.off, OP_READ) == 2 && count(&cr.off, OP_WRITE) == 2,
	   "gather worker 1: reads 2, writes 2");
	ok(nth(&cr.off, OP_WRITE, 0)->peer == 0 && nth(&cr.off, OP_WRITE, 0)->roff == 1200,
	   "gather worker 1 writes host 2's block at S + 2m of the root");
	coll_rank_release(&cr);

	g.coll = COLL_ALLGATHER;
	g.alg = ALG_LEADER;
	coll_build(&g, 5, &cr);
	ok(count(&cr.off, OP_WAIT_FLAG) == 1 && nth(&cr.off, OP_WAIT_FLAG, 0)->peer == 6,
	   "leader: waits for worker 1's signal");
	ok(depends(&cr.off, nth(&cr.off, OP_WRITE, 4),
		   (size_t)(nth(&cr.off, OP_WAIT_FLAG, 0) - cr.off.ops)),
	   "leader: its writes wait for that signal");
	ok(count(&cr.off, OP_WRITE) == 5 && nth(&cr.off, OP_WRITE, 0)->len == 500,
	   "leader writes the whole result to each of 5 hosts");
	coll_rank_release(&cr);
	coll_build(&g, 6, &cr);
	ok(count(&cr.off, OP_WRITE) == 2 && nth(&cr.off, OP_WRITE, 0)->peer == 5,
	   "other worker writes its 2 blocks to the leader");
	ok(count(&cr.off, OP_SIGNAL) == 1 && nth(&cr.off, OP_SIGNAL, 0)->ndeps == 2 &&
		   nth(&cr.off, OP_SIGNAL, 0)->peer == 5,
	   "other worker signals the leader after both writes");
	coll_rank_release(&cr);
	g.alg = ALG_ALLIN;
	coll_build(&g, 5, &cr);
	is_int(count(&cr.off, OP_WRITE), 15, "allin worker 0: 3 blocks x 5 hosts");
	coll_rank_release(&cr);
	coll_build(&g, 2, &cr);
	ok(count(&cr.ref, OP_WRITE) == 4 && cr.exp.n == 5,
	   "allgather ref: host writes to 4, checks 5");
	coll_rank_release(&cr);
	is_int(coll_fault_rank(&g), 5, "fault: first writing worker");
	g.alg = ALG_DIRECT;
	ok(coll_build(&g, 5, &cr) == -1, "allgather direct does not exist");

	{
		int ch[64], n;

		n = sched_knomial_children(0, 9, 2, ch);
		ok(n == 4 && ch[0] == 8 && ch[1] == 4 && ch[2] == 2 && ch[3] == 1,
		   "binomial tree of 9: root's children 8, 4, 2, 1 (largest subtree first)");
		n = sched_knomial_children(4, 9, 2, ch);
		ok(n == 2 && ch[0] == 6 && ch[1] == 5 && sched_knomial_parent(6, 2) == 4 &&
			   sched_knomial_parent(5, 2) == 4 && sched_knomial_parent(8, 2) == 0,
		   "binomial: 4's children 6, 5");
		n = sched_knomial_children(0, 9, 3, ch);
		ok(n == 4 && ch[0] == 3 && ch[1] == 6 && ch[2] == 1 && ch[3] == 2 &&
			   sched_knomial_parent(7, 3) == 6 && sched_knomial_parent(5, 3) == 3 &&
			   sched_knomial_children(2, 9, 3, ch) == 0,
		   "3-nomial tree of 9: 0 -> 3, 6, 1, 2; 6 -> 7; 3 -> 5");
		ok(sched_levels(1) == 1 && sched_levels(2) == 2 && sched_levels(7) == 3 &&
			   sched_levels(8) == 4,
		   "recdbl stage buffers: 1 + log2 of the largest power of two <= W");
	}
	scan_recdbl();
	alltoall_pairwise();
	pattern_fill(buf, sizeof(buf), 3, 7);
	is_int(pattern_check(buf, sizeof(buf), 3, 7), -1, "pattern checks");
	is_int(pattern_check(buf, sizeof(buf), 4, 7), 0, "other source differs");
	is_int(pattern_check(buf, sizeof(buf), 3, 8), 0, "other iteration differs");
	buf[35] ^= 1;
	is_int(pattern_check(buf, sizeof(buf), 3, 7), 35, "first bad offset in the tail");

	tstats_of(t, 4, &st);
	ok(st.avg == 2.5 && st.min == 1 && st.max == 4 && st.median == 2.5,
	   "avg, min, median, max");
	ok(oe_paper(90, 100, 50) == 90, "oe_paper = ref / max(comm, compute)");
	ok(oe_measured(90, 60) == 100 && oe_measured(30, 60) == 50, "oe_measured capped at 100");
	ok(overlap_pct(100, 50, 120) == 60, "overlap = (comm + compute - total) / min");
	ok(overlap_pct(100, 50, 200) == 0 && overlap_pct(100, 50, 90) == 100,
	   "overlap clamped to 0..100");
	ok(overlap_pct(0, 50, 50) == 0, "overlap with no comm is 0");
	indexed_hosts();
	return done_testing();
}
