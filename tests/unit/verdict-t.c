/* tests/unit/verdict-t.c: recommend's decisions from stored points: one
 * sample per launch, the choice with its outliers flagged and never
 * dropped, "unstable" above 20%, whether offloading pays, DPU against
 * onload with the cores each leaves, and an invalid point never counted. */
#include "tap.h"
#include "store.h"
#include "verdict.h"

#include <math.h>
#include <string.h>

static struct store_point pt(const char *layout, const char *placement, int workers, int wpn,
			     double oe, double total)
{
	struct store_point p;

	memset(&p, 0, sizeof(p));
	p.layout = layout;
	p.placement = placement;
	p.mode = "offload";
	p.key.collective = "bcast";
	p.key.algorithm = "direct";
	p.key.assignment = "block";
	p.key.dtype = "";
	p.key.op = "";
	p.key.bytes = 4096;
	p.workers = workers;
	p.wpn = wpn;
	p.ppn = 4;
	p.nodes = 1;
	p.valid = 1;
	p.oe_measured = oe;
	p.ref_us = 10;
	p.compute_us = 10;
	p.total_us = total;
	p.calibrated = 1;
	return p;
}

int main(void)
{
	/* dpu w1: 10 steady launches with 3 wild ones; onload w2: steady, lower. */
	static const double dpu[] = { 80, 81, 80, 82, 81, 80, 81, 20, 15, 99 };
	static const double onl[] = { 60, 61, 60, 62, 61, 60, 61, 60, 62, 61 };
	struct store_point p[21];
	struct verdict_params vp = VERDICT_PARAMS_INIT;
	struct verdicts v;
	size_t n = 0;

	plan(12);
	for (int i = 0; i < 10; i++)
		p[n++] = pt("n1-w1-dpu", "dpu", 1, 1, dpu[i], 10);
	for (int i = 0; i < 10; i++)
		p[n++] = pt("n1-w2-onload", "onload", 2, 2, onl[i], 25);
	p[n] = pt("n1-w1-dpu", "dpu", 1, 1, 100, 1);
	p[n++].valid = 0;
	vp.cores = 6;
	ok(!verdicts_from_points(p, n, &vp, &v), "decided");
	is_int(v.noff, 1, "one decision group (bcast, 4K)");
	is_str(v.off[0].choice.layout, "n1-w1-dpu", "the better, cheaper DPU layout is chosen");
	is_int(v.off[0].choice.launches, 10, "the invalid point is not a launch of it");
	is_int(v.off[0].outliers, 3, "its 3 wild launches are flagged (15, 20, 99)");
	ok(v.off[0].unstable, "3 of 10 is more than 20%: unstable");
	ok(v.off[0].pays == PAYS_YES && v.off[0].gain > 1.9,
	   "20 us host-only against 10: it pays (%.2f)", v.off[0].gain);
	ok(v.off[0].placement.have, "both placements measured");
	is_int(v.off[0].placement.dpu_vs_onload, STATS_BETTER, "DPU better than onload");
	is_int(v.off[0].placement.dpu_cores_left, 6, "DPU leaves every core of the node");
	is_int(v.off[0].placement.onload_cores_left, 4, "onload at 2 WPN leaves 4 of 6");
	ok(v.off[0].verdict == DECIDE_BEST, "10 launches against 10, 20 points apart: best");
	verdicts_release(&v);
	return done_testing();
}
