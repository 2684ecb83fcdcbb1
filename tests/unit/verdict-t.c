/* tests/unit/verdict-t.c: recommend's decisions from stored points: one
 * sample per launch, the choice with its outliers flagged and never
 * dropped, "unstable" above 20%, whether offloading pays, DPU against
 * onload with the cores each leaves, and an invalid point never counted;
 * the uncapped OE of medians decided on where oe_measured sits at 100; a
 * tie reached inside the relative zone; a rival whose every launch was
 * left out never beaten by its absence. */
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

/* A point whose medians say ref / total (oe_measured capped as the
 * kernel caps it). */
static struct store_point med(const char *layout, int workers, const char *assignment, double ref,
			      double total, int calibrated)
{
	struct store_point p = pt(layout, "onload", workers, workers, 0, total);

	p.key.assignment = assignment;
	p.ref_us_median = ref;
	p.total_us_median = total;
	p.oe_measured = fmin(100, 100 * ref / total);
	p.calibrated = calibrated;
	return p;
}

/* Decides n points, one group expected: its verdict. */
static struct offload_verdict *one(struct store_point *p, size_t n, const struct verdict_params *vp,
				   struct verdicts *v)
{
	if (verdicts_from_points(p, n, vp, v) || v->noff != 1)
		return NULL;
	return &v->off[0];
}

static void ceiling_tie_excluded(void)
{
	/* Launch-to-launch spread of about 1%, as a layout that fits its
	 * cores shows. */
	static const double wob[] = { 1.000, 1.010, 0.992, 1.004, 0.997, 1.008 };
	struct verdict_params vp = VERDICT_PARAMS_INIT;
	struct store_point p[24];
	struct offload_verdict *o;
	struct verdicts v;
	size_t n = 0;

	/* Both at the cap of 100; uncapped 125% against 105%. */
	for (int i = 0; i < 6; i++) {
		p[n++] = med("w1", 1, "block", 10, 9.5 * wob[i], 1);
		p[n++] = med("w2", 2, "block", 10, 8.0 * wob[5 - i], 1);
	}
	o = one(p, n, &vp, &v);
	ok(o && o->verdict == DECIDE_BEST && !strcmp(o->choice.layout, "w2"),
	   "both at oe_measured 100: decided on the uncapped figure, 2 workers best (%s)",
	   o ? decide_verdict_name(o->verdict) : "no group");
	ok(o && o->choice.median > 120, "the uncapped median is kept (%.1f)",
	   o ? o->choice.median : NAN);
	verdicts_release(&v);

	/* Two configurations equal within the zone (hosts not given: not
	 * known to be one schedule): a tie, the first seen taken. */
	n = 0;
	for (int i = 0; i < 6; i++) {
		p[n++] = med("w1", 1, "block", 10, 12.5 * wob[i], 1);
		p[n++] = med("w1", 1, "cyclic", 10, 12.5 * wob[(i + 3) % 6], 1);
	}
	o = one(p, n, &vp, &v);
	ok(o && o->verdict == DECIDE_TIE, "1%% noise, equal medians: a tie inside 5%% (%s)",
	   o ? decide_verdict_name(o->verdict) : "no group");
	verdicts_release(&v);
	vp.delta_rel = 0;
	o = one(p, n, &vp, &v);
	ok(o && o->verdict == DECIDE_UNDECIDED,
	   "the same launches with half an OE point as the only zone: undecided (%s)",
	   o ? decide_verdict_name(o->verdict) : "no group");
	verdicts_release(&v);
	vp.delta_rel = 0.05;

	/* 2 workers' every launch missed its calibration: 1 worker is not
	 * best for beating it. */
	n = 0;
	for (int i = 0; i < 6; i++) {
		p[n++] = med("w1", 1, "block", 10, 12.5 * wob[i], 1);
		p[n++] = med("w2", 2, "block", 10, 8.0 * wob[i], -1);
	}
	o = one(p, n, &vp, &v);
	ok(o && o->verdict == DECIDE_UNDECIDED && o->excluded == 1 &&
		   !strcmp(o->excluded_first.layout, "w2"),
	   "a rival with every launch left out: undecided, and named (%s, %zu)",
	   o ? decide_verdict_name(o->verdict) : "no group", o ? o->excluded : 0);
	verdicts_release(&v);
	/* One launch of it kept: it is compared, and loses nothing by the
	 * others left out. */
	p[3].calibrated = 1;
	o = one(p, n, &vp, &v);
	ok(o && o->excluded == 0, "one launch kept: not excluded");
	verdicts_release(&v);
}

/* One worker serves every host under block and cyclic alike: one
 * schedule, decided as one configuration, a sample per launch; a machine
 * that drifts from launch to launch moves both of a launch alike. */
static void twins(void)
{
	static const double drift[8] = { 1.00, 1.06, 0.95, 1.03, 0.97, 1.08, 0.93, 1.01 };
	struct verdict_params vp = VERDICT_PARAMS_INIT;
	struct store_point p[32];
	struct offload_verdict *o;
	struct verdicts v;
	size_t n = 0;

	for (int i = 0; i < 8; i++) {
		double w1 = 12.5 * drift[i], w2 = 11.0 * drift[(i + 3) % 8];

		p[n] = med("w1", 1, "block", 10, w1, 1);
		p[n].hosts = 4;
		p[n++].launch = i;
		p[n] = med("w1", 1, "cyclic", 10, w1 * (i % 2 ? 1.004 : 0.996), 1);
		p[n].hosts = 4;
		p[n++].launch = i;
		p[n] = med("w2", 2, "block", 10, w2, 1);
		p[n].hosts = 4;
		p[n++].launch = 8 + i;
	}
	o = one(p, n, &vp, &v);
	ok(o && o->twins == 1 && o->twins_separated == 0,
	   "block and cyclic at one worker: one pair of twins, not told apart (%zu, %zu)",
	   o ? o->twins : 0, o ? o->twins_separated : 0);
	ok(o && o->choice.launches == 8,
	   "decided as one configuration of 8 launches, a sample each (%u)",
	   o ? o->choice.launches : 0);
	ok(o && o->verdict == DECIDE_BEST && !strcmp(o->choice.layout, "w2"),
	   "2 workers, 12%% faster, best against the merged pair (%s)",
	   o ? decide_verdict_name(o->verdict) : "no group");
	verdicts_release(&v);
	/* 2 workers for 4 hosts: block and cyclic differ; no twins. */
	for (size_t i = 0; i < n; i++)
		if (!strcmp(p[i].layout, "w1"))
			p[i].workers = 2;
	o = one(p, n, &vp, &v);
	ok(o && o->twins == 0, "2 workers, 4 hosts: block and cyclic are two schedules");
	verdicts_release(&v);
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

	plan(22);
	ceiling_tie_excluded();
	twins();
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
