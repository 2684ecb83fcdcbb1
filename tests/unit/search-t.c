/*
 * tests/unit/search-t.c: the grid and adaptive searches on small synthetic
 * landscapes (exact answers known) and on the shipped noisy landscape
 * (tests/data/landscape.csv), where adaptive must find grid's answer
 * within a point with far fewer launches than the grid. Decisions are per
 * (collective, message size) since the search decides as `recommend`
 * does; the noisy landscape's figures are in search-quality-t.c.
 */
#include "tap.h"
#include "replay.h"
#include "search.h"
#include "spec.h"
#include "strvec.h"

#include <math.h>

/* A synthetic measurer: oe = f(workers, wpn) per group, no noise. */
struct synth {
	const struct search_layout *layouts;
	double (*f)(unsigned w, unsigned wpn, size_t g);
	unsigned calls;
	long fail_layout; /* this layout's launches fail */
	int one_group;	  /* the problem has group 0 only */
};

static int synth_measure(void *ctx, size_t l, unsigned rep, double *oe)
{
	struct synth *s = ctx;

	(void)rep;
	s->calls++;
	if ((long)l == s->fail_layout)
		return 0;
	oe[0] = s->f(s->layouts[l].workers, s->layouts[l].wpn, 0);
	if (!s->one_group)
		oe[1] = s->f(s->layouts[l].workers, s->layouts[l].wpn, 1);
	return 0;
}

/* Peak at 12 workers for group 0; flat 100 from 8 up for group 1 (ties). */
static double peak12(unsigned w, unsigned wpn, size_t g)
{
	double x = log2((double)w) - log2(12.0);

	(void)wpn;
	if (g == 1)
		return w >= 8 ? 100.0 : 50.0 + w;
	return 90.0 - 20.0 * x * x;
}

static struct search_layout lay[64];
/* Two message sizes: two decision groups, each with its own answer. */
static const struct point grp2[2] = {
	{ .collective = "bcast", .algorithm = "direct", .assignment = "block", .bytes = 1 << 20 },
	{ .collective = "bcast", .algorithm = "direct", .assignment = "cyclic", .bytes = 4 << 20 },
};
/* One message size: one decision over both assignments. */
static const struct point grp1[2] = {
	{ .collective = "bcast", .algorithm = "direct", .assignment = "block", .bytes = 1 << 20 },
	{ .collective = "bcast", .algorithm = "direct", .assignment = "cyclic", .bytes = 1 << 20 },
};

static size_t line_layouts(unsigned maxw)
{
	size_t n = 0;

	for (unsigned w = 1; w <= maxw; w++)
		lay[n++] = (struct search_layout){ "x", 8, 8, w, 8, "dpu" };
	return n;
}

/* Landscape groups and layouts, read off the table itself. */
struct land {
	struct search_layout *l;
	size_t nl;
	struct point *g;
	size_t ng;
};

static void land_from_replay(const struct replay *rp, const char *coll, struct land *ld)
{
	size_t i, j;

	ld->l = xcalloc(rp->nrows, sizeof(*ld->l));
	ld->g = xcalloc(rp->nrows, sizeof(*ld->g));
	ld->nl = ld->ng = 0;
	for (i = 0; i < rp->nrows; i++) {
		const struct replay_row *r = &rp->rows[i];

		for (j = 0; j < ld->nl; j++)
			if (ld->l[j].workers == r->workers && ld->l[j].wpn == r->wpn)
				break;
		if (j == ld->nl)
			ld->l[ld->nl++] = (struct search_layout){ "",	      8,      8,
								  r->workers, r->wpn, "dpu" };
		if (coll && strcmp(coll, r->collective))
			continue;
		for (j = 0; j < ld->ng; j++)
			if (ld->g[j].bytes == r->bytes &&
			    !strcmp(ld->g[j].collective, r->collective) &&
			    !strcmp(ld->g[j].algorithm, r->algorithm) &&
			    !strcmp(ld->g[j].assignment, r->assignment))
				break;
		if (j == ld->ng)
			ld->g[ld->ng++] = (struct point){ .collective = r->collective,
							  .algorithm = r->algorithm,
							  .assignment = r->assignment,
							  .bytes = r->bytes };
	}
}

/* Two layouts alike but for the placement, measured equal: a tie, and the
 * choice is the placement the cost order lists first. */
static double flat80(unsigned w, unsigned wpn, size_t g)
{
	(void)w;
	(void)wpn;
	(void)g;
	return 80.0;
}

/* A steady layout (50) against one that scored 82 once and 44-48 after:
 * 7 launches each give p = 0.025 (search-spread.t): best at alpha 0.05;
 * at 0.005 even 8 each (p = 0.0095) leave it undecided. */
static int lucky_measure(void *ctx, size_t l, unsigned rep, double *oe)
{
	static const double lucky[8] = { 82, 45, 48, 46, 47, 45, 44, 46 };
	static const double steady[8] = { 50, 50.2, 49.8, 50.1, 49.9, 50, 50.3, 49.7 };

	(void)ctx;
	oe[0] = rep < 8 ? (l ? lucky[rep] : steady[rep]) : NAN;
	return 0;
}

static void spec_statistics(void)
{
	static const struct search_layout two[2] = {
		{ "n1-ppn4-w2-wpn2-dpu", 1, 4, 2, 2, "dpu" },
		{ "n1-ppn4-w2-wpn2-onload", 1, 4, 2, 2, "onload" },
	};
	struct synth sy = { two, flat80, 0, -1, 1 };
	struct search_problem p = { two, 2, grp1, 1, 3, synth_measure, &sy };
	struct search_opts o = SEARCH_OPTS_INIT;
	struct spec s = SPEC_INIT;
	struct search_result r;

	s.alpha = 0.01;
	s.delta_oe = 1.5;
	s.max_repetitions = 7;
	s.dpu_first = 0;
	search_opts_from_spec(&s, &o);
	ok(o.alpha == 0.01 && o.tolerance == 1.5 && o.max_repetitions == 7 && o.onload_first == 1,
	   "the spec's alpha, delta_oe, max_repetitions and cost_order");
	o = (struct search_opts)SEARCH_OPTS_INIT;
	ok(!search_run(&p, &o, &r) && r.decisions[0].verdict == DECIDE_TIE &&
		   r.decisions[0].choice.layout == 0,
	   "cost order dpu first: a tie goes to the DPU layout");
	search_result_release(&r);
	o.onload_first = 1;
	ok(!search_run(&p, &o, &r) && r.decisions[0].verdict == DECIDE_TIE &&
		   r.decisions[0].choice.layout == 1,
	   "cost order onload first: to the onload layout");
	search_result_release(&r);

	p = (struct search_problem){ two, 2, grp1, 1, 1, lucky_measure, NULL };
	o = (struct search_opts)SEARCH_OPTS_INIT;
	o.strategy = SEARCH_GRID;
	o.max_repetitions = 8;
	ok(!search_run(&p, &o, &r) && r.decisions[0].verdict == DECIDE_BEST &&
		   r.decisions[0].choice.layout == 0 && r.decisions[0].p_value < 0.05,
	   "alpha 0.05: up to 8 launches each make the steady layout best");
	search_result_release(&r);
	o.alpha = 0.005;
	ok(!search_run(&p, &o, &r) && r.decisions[0].verdict == DECIDE_UNDECIDED,
	   "alpha 0.005: the same launches leave it undecided");
	search_result_release(&r);
}

int main(void)
{
	struct search_problem p = { 0 };
	struct search_opts o = SEARCH_OPTS_INIT;
	struct search_result grid, ad;
	struct synth sy = { lay, peak12, 0, -1, 0 };
	struct replay rp = REPLAY_INIT;
	const char *root = getenv("SWEETSPOT_ROOT");
	char path[4096];
	static const char *const colls[] = { "bcast", "gather", "allgather" };
	enum search_strategy st;

	plan(30);
	spec_statistics();
	ok(!search_parse_strategy("grid", &st) && st == SEARCH_GRID, "strategy grid");
	ok(search_parse_strategy("random", &st) == -1, "unknown strategy refused");

	p.layouts = lay;
	p.nlayouts = line_layouts(63);
	p.groups = grp2;
	p.ngroups = 2;
	p.repetitions = 3;
	p.measure = synth_measure;
	p.ctx = &sy;
	o.strategy = SEARCH_GRID;
	ok(!search_run(&p, &o, &grid), "grid runs");
	/* Grid races on top of its repetitions (it used to stop at them): the
	 * configurations within delta of the peak get launches until decided. */
	ok(grid.launches >= 63 * 3 && grid.launches == sy.calls,
	   "grid launches every layout x repetition, then races (%u)", grid.launches);
	is_int(grid.grid_launches, 63 * 3, "grid_launches counted");
	/* The peak is at 12 (90); 11 workers reach 89.69, within delta = 0.5:
	 * a tie, and the cheaper configuration is the choice (it was 12 when
	 * the highest mean won). */
	is_int(lay[grid.best[0].layout].workers, 11, "grid: the cheapest within delta of the peak");
	is_int(lay[grid.best[1].layout].workers, 8, "exact ties go to fewer workers");

	sy.calls = 0;
	o.strategy = SEARCH_ADAPTIVE;
	ok(!search_run(&p, &o, &ad), "adaptive runs");
	is_int(lay[ad.best[0].layout].workers, 11, "adaptive finds the peak too");
	is_int(lay[ad.best[1].layout].workers, 8, "adaptive breaks ties toward fewer workers");
	ok(ad.launches == sy.calls && ad.launches < grid.grid_launches / 4,
	   "adaptive used %u launches of %u", ad.launches, grid.grid_launches);
	is_int(ad.ndecisions, 2, "one decision per collective and size");
	ok(ad.decisions[1].verdict == DECIDE_TIE && ad.decisions[1].nindifferent > 1,
	   "a plateau is a tie (%s, %zu indifferent)", decide_verdict_name(ad.decisions[1].verdict),
	   ad.decisions[1].nindifferent);
	search_result_release(&ad);

	/* Both assignments at one size: one decision; the flat 100 of the
	 * cyclic group beats block's peak of 90, cheapest at 8 workers. */
	p.groups = grp1;
	ok(!search_run(&p, &o, &ad) && ad.ndecisions == 1, "one decision group");
	ok(ad.decisions[0].choice.group == 1 && lay[ad.decisions[0].choice.layout].workers == 8,
	   "the choice is cyclic at 8 workers");
	ok(ad.best[0].layout >= 0 && ad.best[1].layout == ad.decisions[0].choice.layout,
	   "best[] holds the choice where its group matches");
	search_result_release(&ad);
	p.groups = grp2;

	/* The peak's launches fail: it must never win, the next best does. */
	sy.fail_layout = grid.best[0].layout;
	ok(!search_run(&p, &o, &ad), "adaptive with a failing layout");
	ok(ad.best[0].layout != sy.fail_layout && ad.best[0].layout >= 0,
	   "a failed layout never wins (best %u workers)", lay[ad.best[0].layout].workers);
	search_result_release(&ad);
	search_result_release(&grid);

	o.budget = 5;
	ok(!search_run(&p, &o, &ad) && ad.launches == 5 && ad.budget_exhausted,
	   "the budget caps the launches");
	search_result_release(&ad);
	o.budget = 0;

	/* The shipped landscape, per collective. */
	snprintf(path, sizeof(path), "%s/tests/data/landscape.csv", root ? root : ".");
	if (replay_load(path, &rp)) {
		for (int i = 0; i < 6; i++)
			ok(0, "landscape loads");
		return done_testing();
	}
	for (size_t c = 0; c < 3; c++) {
		struct land ld;
		double regret = 0, dregret = 0;

		land_from_replay(&rp, colls[c], &ld);
		p.layouts = ld.l;
		p.nlayouts = ld.nl;
		p.groups = ld.g;
		p.ngroups = ld.ng;
		p.measure = replay_measure;
		p.ctx = &rp;
		replay_bind(&rp, &p);
		o.strategy = SEARCH_GRID;
		search_run(&p, &o, &grid);
		o.strategy = SEARCH_ADAPTIVE;
		search_run(&p, &o, &ad);
		/* Regret: grid's means of grid's pick and of adaptive's pick. */
		for (size_t g = 0; g < ld.ng; g++) {
			long a = ad.best[g].layout, b = grid.best[g].layout;
			double fa = 0, fb = 0;

			for (unsigned k = 0; k < 3; k++) {
				fa += rp.values[((size_t)a * 3 + k) * ld.ng + g] / 3;
				fb += rp.values[((size_t)b * 3 + k) * ld.ng + g] / 3;
			}
			if (fb - fa > regret)
				regret = fb - fa;
		}
		/* Regret per decision: the best 3-launch mean of any configuration
		 * of that collective and size minus that of the choice. */
		for (size_t d = 0; d < ad.ndecisions; d++) {
			const struct search_decision *sd = &ad.decisions[d];
			double top = 0, got = 0;

			for (size_t g = 0; g < ld.ng; g++)
				for (size_t l = 0; ld.g[g].bytes == sd->bytes && l < ld.nl; l++) {
					double m = 0;

					for (unsigned k = 0; k < 3; k++)
						m += rp.values[(l * 3 + k) * ld.ng + g] / 3;
					top = fmax(top, m);
					if ((long)l == sd->choice.layout &&
					    (long)g == sd->choice.group)
						got = m;
				}
			dregret = fmax(dregret, top - got);
		}
		diag("%s: worst regret of a decision (collective, size) %.2f points", colls[c],
		     dregret);
		diag("%s: adaptive %u (%u failed) / grid %u launches = %.3f, worst regret %.2f "
		     "points",
		     colls[c], ad.launches, ad.failed_launches, grid.grid_launches,
		     (double)ad.launches / grid.grid_launches, regret);
		/* 0.25 when a single launch was trusted with an invented spread;
		 * now contenders are repeated to the 3 launches the table holds
		 * (and one more asked for, which fails): measured 0.16-0.30. */
		ok((double)ad.launches / grid.grid_launches <= 0.35, "%s: launches ratio <= 0.35",
		   colls[c]);
		ok(regret <= 1.0, "%s: regret <= 1 point", colls[c]);
		search_result_release(&grid);
		search_result_release(&ad);
		free(ld.l);
		free(ld.g);
	}
	replay_release(&rp);
	return done_testing();
}
