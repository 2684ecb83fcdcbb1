/*
 * tests/unit/search-t.c: the grid and adaptive searches on small synthetic
 * landscapes (exact answers known) and on the shipped noisy landscape
 * (tests/data/landscape.csv), where adaptive must find grid's answer
 * within a point with at most a quarter of grid's launches.
 */
#include "tap.h"
#include "replay.h"
#include "search.h"
#include "strvec.h"

#include <math.h>

/* A synthetic measurer: oe = f(workers, wpn) per group, no noise. */
struct synth {
	const struct search_layout *layouts;
	double (*f)(unsigned w, unsigned wpn, size_t g);
	unsigned calls;
	long fail_layout;	/* this layout's launches fail */
};

static int synth_measure(void *ctx, size_t l, unsigned rep, double *oe)
{
	struct synth *s = ctx;

	(void)rep;
	s->calls++;
	if ((long)l == s->fail_layout)
		return 0;
	oe[0] = s->f(s->layouts[l].workers, s->layouts[l].wpn, 0);
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
static const struct search_group grp2[2] = {
	{ "bcast", "direct", "block", 1 << 20 },
	{ "bcast", "direct", "cyclic", 1 << 20 },
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
	struct search_group *g;
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
			ld->l[ld->nl++] = (struct search_layout){ "", 8, 8, r->workers, r->wpn, "dpu" };
		if (coll && strcmp(coll, r->collective))
			continue;
		for (j = 0; j < ld->ng; j++)
			if (ld->g[j].bytes == r->bytes && !strcmp(ld->g[j].collective, r->collective) &&
			    !strcmp(ld->g[j].algorithm, r->algorithm) &&
			    !strcmp(ld->g[j].assignment, r->assignment))
				break;
		if (j == ld->ng)
			ld->g[ld->ng++] = (struct search_group){ r->collective, r->algorithm,
								 r->assignment, r->bytes };
	}
}

int main(void)
{
	struct search_problem p = { 0 };
	struct search_opts o = SEARCH_OPTS_INIT;
	struct search_result grid, ad;
	struct synth sy = { lay, peak12, 0, -1 };
	struct replay rp = REPLAY_INIT;
	const char *root = getenv("SWEETSPOT_ROOT");
	char path[4096];
	static const char *const colls[] = { "bcast", "gather", "allgather" };
	enum search_strategy st;

	plan(20);
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
	is_int(grid.launches, 63 * 3, "grid launches every layout x repetition");
	is_int(grid.grid_launches, 63 * 3, "grid_launches counted");
	is_int(lay[grid.best[0].layout].workers, 12, "grid finds the peak at 12 workers");
	is_int(lay[grid.best[1].layout].workers, 8, "exact ties go to fewer workers");

	sy.calls = 0;
	o.strategy = SEARCH_ADAPTIVE;
	ok(!search_run(&p, &o, &ad), "adaptive runs");
	is_int(lay[ad.best[0].layout].workers, 12, "adaptive finds the peak too");
	is_int(lay[ad.best[1].layout].workers, 8, "adaptive breaks ties toward fewer workers");
	ok(ad.launches == sy.calls && ad.launches < grid.launches / 4,
	   "adaptive used %u launches of %u", ad.launches, grid.launches);
	search_result_release(&ad);

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
		double regret = 0;

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
		diag("%s: adaptive %u / grid %u launches = %.3f, worst regret %.2f points",
		     colls[c], ad.launches, grid.launches,
		     (double)ad.launches / grid.launches, regret);
		ok((double)ad.launches / grid.launches <= 0.25, "%s: launches ratio <= 0.25", colls[c]);
		ok(regret <= 1.0, "%s: regret <= 1 point", colls[c]);
		search_result_release(&grid);
		search_result_release(&ad);
		free(ld.l);
		free(ld.g);
	}
	replay_release(&rp);
	return done_testing();
}
