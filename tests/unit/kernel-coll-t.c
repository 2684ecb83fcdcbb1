/* tests/unit/kernel-coll-t.c: the collectives' plans (who reads and writes
 * what, where), the data pattern and its check, the statistics and the
 * efficiency formulas. */
#include "tap.h"
#include "../../kernels/coll.c"
#include "../../kernels/coll_bcast.c"
#include "../../kernels/coll_gather.c"
#include "../../kernels/coll_allgather.c"
#include "../../kernels/options.c"
#include "../../kernels/assign.c"
#include "../../kernels/validate.c"
#include "../../kernels/stats.c"

static size_t count(const struct plan *p, enum op_kind k)
{
	size_t n = 0;

	for (int s = 0; s < p->nstages; s++)
		for (size_t i = 0; i < p->st[s].n; i++)
			n += p->st[s].ops[i].kind == k;
	return n;
}

int main(void)
{
	int owner[5];
	struct coll_rank cr;
	struct coll_geom g = { COLL_BCAST, ALG_DIRECT, 5, 2, 100, 1000, owner };
	unsigned char buf[37];
	struct tstats st;
	double t[] = { 4, 1, 3, 2 };

	plan(30);
	assign_hosts(ASG_BLOCK, 5, 2, NULL, NULL, owner);	/* 0 0 1 1 0 */

	coll_build(&g, 0, &cr);
	is_int(count(&cr.ref, OP_WRITE), 4, "bcast ref: root writes to the 4 other hosts");
	ok(cr.is_source && cr.exp.n == 0, "bcast: root is the source, checks nothing");
	coll_rank_release(&cr);
	coll_build(&g, 5, &cr);
	is_int(cr.off.st[0].n, 1, "bcast worker 0: one read of the root");
	is_int(cr.off.st[1].n, 2, "bcast worker 0: writes to hosts 1 and 4, not the root");
	is_int(cr.off.st[1].ops[1].peer, 4, "bcast worker 0: second write to host 4");
	coll_rank_release(&cr);
	coll_build(&g, 3, &cr);
	ok(cr.exp.n == 1 && cr.exp.b[0].off == 1000 && cr.exp.b[0].src == 0, "bcast host 3 checks root's block at S");
	coll_rank_release(&cr);

	g.coll = COLL_GATHER;
	coll_build(&g, 0, &cr);
	ok(count(&cr.ref, OP_READ) == 4 && count(&cr.ref, OP_COPY) == 1, "gather ref: root reads 4, copies its own");
	is_int(cr.exp.n, 5, "gather: root checks 5 blocks");
	is_int(cr.exp.b[3].off, 1300, "gather: host 3's block at S + 3m");
	coll_rank_release(&cr);
	coll_build(&g, 6, &cr);
	ok(count(&cr.off, OP_READ) == 2 && count(&cr.off, OP_WRITE) == 2, "gather worker 1: reads 2, writes 2");
	ok(cr.off.st[1].ops[0].peer == 0 && cr.off.st[1].ops[0].roff == 1200, "gather worker 1 writes host 2's block at S + 2m of the root");
	coll_rank_release(&cr);

	g.coll = COLL_ALLGATHER;
	g.alg = ALG_LEADER;
	coll_build(&g, 5, &cr);
	ok(cr.off.nstages == 3 && cr.off.st[2].fence, "leader: three stages, fence before the last");
	is_int(cr.off.st[1].n, 0, "leader writes nothing to itself");
	ok(cr.off.st[2].n == 5 && cr.off.st[2].ops[0].len == 500, "leader writes the whole result to each of 5 hosts");
	coll_rank_release(&cr);
	coll_build(&g, 6, &cr);
	ok(cr.off.st[1].n == 2 && cr.off.st[1].ops[0].peer == 5, "other worker writes its 2 blocks to the leader");
	ok(cr.off.nstages == 3 && cr.off.st[2].fence && cr.off.st[2].n == 0, "other worker joins the fence");
	coll_rank_release(&cr);
	g.alg = ALG_ALLIN;
	coll_build(&g, 5, &cr);
	is_int(count(&cr.off, OP_WRITE), 15, "allin worker 0: 3 blocks x 5 hosts");
	coll_rank_release(&cr);
	coll_build(&g, 2, &cr);
	ok(count(&cr.ref, OP_WRITE) == 4 && cr.exp.n == 5, "allgather ref: host writes to 4, checks 5");
	coll_rank_release(&cr);
	is_int(coll_fault_rank(&g), 5, "fault: first writing worker");
	g.alg = ALG_DIRECT;
	ok(coll_build(&g, 5, &cr) == -1, "allgather direct does not exist");

	pattern_fill(buf, sizeof(buf), 3, 7);
	is_int(pattern_check(buf, sizeof(buf), 3, 7), -1, "pattern checks");
	is_int(pattern_check(buf, sizeof(buf), 4, 7), 0, "other source differs");
	is_int(pattern_check(buf, sizeof(buf), 3, 8), 0, "other iteration differs");
	buf[35] ^= 1;
	is_int(pattern_check(buf, sizeof(buf), 3, 7), 35, "first bad offset in the tail");

	tstats_of(t, 4, &st);
	ok(st.avg == 2.5 && st.min == 1 && st.max == 4 && st.median == 2.5, "avg, min, median, max");
	ok(oe_paper(90, 100, 50) == 90, "oe_paper = ref / max(comm, compute)");
	ok(oe_measured(90, 60) == 100 && oe_measured(30, 60) == 50, "oe_measured capped at 100");
	ok(overlap_pct(100, 50, 120) == 60, "overlap = (comm + compute - total) / min");
	ok(overlap_pct(100, 50, 200) == 0 && overlap_pct(100, 50, 90) == 100, "overlap clamped to 0..100");
	ok(overlap_pct(0, 50, 50) == 0, "overlap with no comm is 0");
	return done_testing();
}
