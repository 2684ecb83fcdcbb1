/*
 * tuner/decide/search.c: the grid and adaptive searches of search.h, on launch-
 * level samples. Every launch's value is kept per (layout, group); each
 * round, every decision group (collective, message size) is decided by
 * decide() over the configurations not screened out, and launches go only
 * to the layouts of configurations still in contention. The adaptive
 * search explores each line of layouts (same nodes, PPN, placement, WPN)
 * as a one-dimensional function of log2(workers), assumed roughly concave
 * (it rises to a knee, then flattens or degrades), which is what the
 * DPU-Bench measurements look like: between two measured layouts, the
 * extensions of the neighbouring secants bound what an unmeasured layout
 * could reach, and only where that bound, widened by the measured noise,
 * beats the leader by more than delta does a layout get a launch.
 */
#include "search.h"

#include "error.h"
#include "parse.h"
#include "plan.h"
#include "spec.h"
#include "stats.h"
#include "strvec.h"
#include "surrogate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TIE_EPS			1e-9
/* Without a spec's max_repetitions, contenders stop at this many launches. */
#define SEARCH_DEFAULT_MAX_REPS 10

/* A decision group: the groups of one (collective, bytes), in the
 * problem's order (so the position j in it is the algorithm/assignment
 * order used to break cost ties). Its configuration c is layout c / m,
 * group g[c % m]. */
struct dgroup {
	size_t *g;
	size_t m;
	unsigned launches;
};

/* One round's view of a decision group. */
struct eval {
	double sigma;		 /* pooled within-configuration sd; < 0 unknown */
	unsigned char *screened; /* per configuration, owned */
	struct decision d;	 /* over the configurations not screened */
};

struct state {
	const struct search_problem *p;
	const struct search_opts *o;
	size_t L, G, R;	     /* R: most launches per layout */
	unsigned *reps;	     /* launches per layout */
	unsigned char *dead; /* the layout's launch yielded no value */
	unsigned *n;	     /* L x G: valid values */
	unsigned char *kept; /* L x G: a value seen (before twins merge); */
	unsigned char *left; /* L x G: a point left out seen (SEARCH_LEFT_OUT) */
	double *val;	     /* L x G x R: the values, launch by launch */
	double *med;	     /* L x G: median; NAN without values */
	double *buf;	     /* G: one launch's values */
	long *twin;	     /* L x G: the group a twin merges into; -1 none (NULL: off) */
	size_t *order;	     /* layouts sorted by line, then workers */
	size_t *line_start;  /* nlines + 1 offsets into order */
	size_t nlines;
	struct dgroup *dg;
	size_t ndg;
	unsigned char *asked; /* ndg x L: decision groups asking for a launch */
	unsigned char *told;  /* ndg: its verdict was reached (search_opts.reached) */
	unsigned launches, failed;
	int budget_hit;
	unsigned budget;	       /* in effect; 0: none */
	double (*feat)[SURROGATE_DIM]; /* L: the surrogate's features */
	double sigma_all;	       /* pooled over every group; < 0 unknown */
	/* decide()'s arguments, sized for the largest decision group. */
	const double **x;
	size_t *xn;
	struct decide_cost *cost;
};

#define AT(st, l, g) ((l) * (st)->G + (g))

/* The twins of every layout (search_opts.merge_twins): twin[l, g] = the
 * first group that g is one schedule with at layout l, or -1. */
static void find_twins(struct state *st)
{
	st->twin = xcalloc(st->L * st->G + 1, sizeof(long));
	for (size_t l = 0; l < st->L; l++) {
		const struct search_layout *ly = &st->p->layouts[l];
		int hosts = (int)(ly->nodes * ly->ppn), workers = (int)ly->workers;

		for (size_t g = 0; g < st->G; g++) {
			st->twin[AT(st, l, g)] = -1;
			for (size_t h = 0; h < g && st->twin[AT(st, l, g)] < 0; h++)
				if (st->twin[AT(st, l, h)] < 0 &&
				    point_same_schedule(&st->p->groups[h], &st->p->groups[g], hosts,
							workers))
					st->twin[AT(st, l, g)] = (long)h;
		}
	}
}

void search_opts_from_spec(const struct spec *s, struct search_opts *o)
{
	o->alpha = s->alpha;
	o->tolerance = s->delta_oe;
	o->tolerance_rel = s->delta_rel;
	o->merge_twins = 1;
	o->max_repetitions = s->max_repetitions;
	o->onload_first = !s->dpu_first;
	if (!o->budget && !(o->budget_frac > 0)) {
		o->budget = s->budget;
		o->budget_frac = s->budget_frac;
	}
}

int search_parse_strategy(const char *s, enum search_strategy *out)
{
	if (!strcmp(s, "adaptive"))
		*out = SEARCH_ADAPTIVE;
	else if (!strcmp(s, "grid"))
		*out = SEARCH_GRID;
	else if (!strcmp(s, "model"))
		*out = SEARCH_MODEL;
	else
		return error("unknown strategy '%s' (grid, adaptive or model)", s);
	return 0;
}

const char *search_strategy_name(enum search_strategy s)
{
	return s == SEARCH_GRID ? "grid" : s == SEARCH_MODEL ? "model" : "adaptive";
}

static double tpos(const struct search_layout *l)
{
	return log2((double)(l->workers ? l->workers : 1));
}

static int same_line(const struct search_layout *a, const struct search_layout *b)
{
	return a->nodes == b->nodes && a->ppn == b->ppn && a->wpn == b->wpn &&
	       !strcmp(a->placement, b->placement);
}

/* qsort has no context argument: sort pairs of (layout pointer, index). */
struct sortkey {
	const struct search_layout *l;
	size_t i;
};

static int cmp_key(const void *x, const void *y)
{
	const struct sortkey *a = x, *b = y;
	int c;

	if (a->l->nodes != b->l->nodes)
		return a->l->nodes < b->l->nodes ? -1 : 1;
	if (a->l->ppn != b->l->ppn)
		return a->l->ppn < b->l->ppn ? -1 : 1;
	c = strcmp(a->l->placement, b->l->placement);
	if (c)
		return c;
	if (a->l->wpn != b->l->wpn)
		return a->l->wpn < b->l->wpn ? -1 : 1;
	if (a->l->workers != b->l->workers)
		return a->l->workers < b->l->workers ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

static void build_lines(struct state *st)
{
	struct sortkey *k = xcalloc(st->L ? st->L : 1, sizeof(*k));
	size_t i;

	for (i = 0; i < st->L; i++) {
		k[i].l = &st->p->layouts[i];
		k[i].i = i;
	}
	qsort(k, st->L, sizeof(*k), cmp_key);
	st->order = xcalloc(st->L ? st->L : 1, sizeof(size_t));
	st->line_start = xcalloc(st->L + 1, sizeof(size_t));
	st->nlines = 0;
	for (i = 0; i < st->L; i++) {
		st->order[i] = k[i].i;
		if (!i || !same_line(k[i - 1].l, k[i].l))
			st->line_start[st->nlines++] = i;
	}
	st->line_start[st->nlines] = st->L;
	free(k);
}

/* Decision groups: one per distinct (collective, bytes, dtype, op), in
 * first-seen order: recommend's groups. */
static void build_dgroups(struct state *st)
{
	size_t g, d, kmax = 1;

	st->dg = xcalloc(st->G ? st->G : 1, sizeof(*st->dg));
	st->ndg = 0;
	for (g = 0; g < st->G; g++) {
		const struct point *gr = &st->p->groups[g];

		for (d = 0; d < st->ndg; d++) {
			const struct point *h = &st->p->groups[st->dg[d].g[0]];

			if (!point_cmp_question(h, gr))
				break;
		}
		if (d == st->ndg)
			st->dg[st->ndg++].g = xcalloc(st->G, sizeof(size_t));
		st->dg[d].g[st->dg[d].m++] = g;
	}
	for (d = 0; d < st->ndg; d++)
		if (st->L * st->dg[d].m > kmax)
			kmax = st->L * st->dg[d].m;
	st->x = xcalloc(kmax, sizeof(*st->x));
	st->xn = xcalloc(kmax, sizeof(*st->xn));
	st->cost = xcalloc(kmax, sizeof(*st->cost));
	st->asked = xcalloc(st->ndg * st->L + 1, 1);
	st->told = xcalloc(st->ndg + 1, 1);
}

/* The placement's rank in the cost order (search_opts.onload_first), as
 * verdict.c ranks it: by default a DPU core costs the application nothing,
 * an onload core costs it one of its cores. */
static int placement_rank(const struct search_opts *o, const char *placement)
{
	int onload = !strcmp(placement, "onload");

	return o->onload_first ? !onload : onload;
}

static int tell_reached(struct state *st, int quiet);
static void state_init(struct state *st, const struct search_problem *p,
		       const struct search_opts *o);

/* One launch: 1 when the budget forbids it, -1 on a measuring failure. */
static int measure(struct state *st, size_t l)
{
	size_t g, d, k;
	int any = 0, rc;

	if (st->budget && st->launches >= st->budget) {
		st->budget_hit = 1;
		return 1;
	}
	for (g = 0; g < st->G; g++)
		st->buf[g] = NAN;
	rc = st->p->measure(st->p->ctx, l, st->reps[l], st->buf);
	if (rc < 0)
		return -1;
	st->reps[l]++;
	st->launches++;
	for (d = 0; d < st->ndg; d++)
		if (st->asked[d * st->L + l]) {
			st->dg[d].launches++;
			st->asked[d * st->L + l] = 0;
		}
	for (g = 0; g < st->G; g++) {
		st->kept[AT(st, l, g)] |= isfinite(st->buf[g]);
		st->left[AT(st, l, g)] |= st->buf[g] == SEARCH_LEFT_OUT;
	}
	for (g = 0; st->twin && g < st->G; g++) {
		long into = st->twin[AT(st, l, g)];

		if (into < 0 || !isfinite(st->buf[g]))
			continue;
		st->buf[into] = isfinite(st->buf[into]) ? sqrt(st->buf[into] * st->buf[g]) :
							  st->buf[g];
		st->buf[g] = NAN;
	}
	for (g = 0; g < st->G; g++) {
		k = AT(st, l, g);
		if (!isfinite(st->buf[g]))
			continue;
		st->val[k * st->R + st->n[k]++] = st->buf[g];
		any = 1;
	}
	/* A launch that yielded nothing would yield nothing again (a table
	 * without that repetition, a layout that cannot start): no more. */
	if (!any) {
		st->dead[l] = 1;
		st->failed++;
	}
	return st->o->reached ? tell_reached(st, rc == 1) : 0;
}

/* Measures every layout flagged in want[], in plan order. */
static int measure_set(struct state *st, unsigned char *want)
{
	size_t l;
	int r;

	for (l = 0; l < st->L; l++) {
		if (!want[l])
			continue;
		want[l] = 0;
		if (st->o->only && !st->o->only[l])
			continue;
		r = measure(st, l);
		if (r)
			return r;
	}
	return 0;
}

/* Asks for one more launch of layout l on behalf of decision group d,
 * when the layout can still be launched. Returns 1 if it was asked. */
static int ask(struct state *st, unsigned char *want, size_t d, size_t l)
{
	if (st->dead[l] || st->reps[l] >= st->R)
		return 0;
	want[l] = 1;
	st->asked[d * st->L + l] = 1;
	return 1;
}

static void update_medians(struct state *st)
{
	size_t k;

	for (k = 0; k < st->L * st->G; k++) {
		st->med[k] = NAN;
		if (st->n[k])
			stats_median(st->val + k * st->R, st->n[k], &st->med[k]);
	}
}

/* Pooled within-configuration variance of the groups listed (all when
 * gs is NULL): sum of squared deviations over the configurations measured
 * at least twice, over their degrees of freedom. The sd, or -1 if none. */
static double pooled_sd(const struct state *st, const size_t *gs, size_t m)
{
	double ss = 0;
	size_t df = 0, l, j, i;

	for (l = 0; l < st->L; l++)
		for (j = 0; j < (gs ? m : st->G); j++) {
			size_t k = AT(st, l, gs ? gs[j] : j);
			const double *v = st->val + k * st->R;
			double mean = 0;

			if (st->n[k] < 2)
				continue;
			for (i = 0; i < st->n[k]; i++)
				mean += v[i] / st->n[k];
			for (i = 0; i < st->n[k]; i++)
				ss += (v[i] - mean) * (v[i] - mean);
			df += st->n[k] - 1;
		}
	return df ? sqrt(ss / df) : -1;
}

static double cmed(const struct state *st, const struct dgroup *dg, size_t c)
{
	return st->med[AT(st, c / dg->m, dg->g[c % dg->m])];
}

static unsigned cn(const struct state *st, const struct dgroup *dg, size_t c)
{
	return st->n[AT(st, c / dg->m, dg->g[c % dg->m])];
}

/* Screens and decides decision group d from the values so far (the screen
 * is search.h's). While racing (final 0) the screen uses this search's
 * pooled noise, so that a round's launches go where they can still
 * change the answer; the decision reported (final 1) is made exactly as
 * `recommend` makes it from the stored launches (decide()'s own pooled
 * noise, its degrees of freedom and a leader of two launches or more), so
 * that both give the same verdict on the same database. Fills *ev
 * (release with eval_release()); 0, or -1 when decide() fails. */
static int evaluate(struct state *st, size_t d, int final, struct eval *ev)
{
	const struct dgroup *dg = &st->dg[d];
	struct decide_params dp = DECIDE_PARAMS_OE;
	size_t K = st->L * dg->m, c;
	long lead = -1;

	dp.delta = st->o->tolerance;
	dp.delta_rel = st->o->tolerance_rel;
	if (st->o->alpha > 0)
		dp.alpha = st->o->alpha;
	ev->sigma = pooled_sd(st, dg->g, dg->m);
	if (ev->sigma < 0)
		ev->sigma = st->sigma_all;
	ev->screened = xcalloc(K ? K : 1, 1);
	for (c = 0; c < K; c++) {
		const struct search_layout *ly = &st->p->layouts[c / dg->m];

		st->x[c] = st->val + AT(st, c / dg->m, dg->g[c % dg->m]) * st->R;
		st->xn[c] = cn(st, dg, c);
		st->cost[c] = (struct decide_cost){ ly->workers, ly->wpn,
						    placement_rank(st->o, ly->placement),
						    (int)(c % dg->m) };
		/* The leader as decide() will find it: best median, lowest index. */
		if (st->xn[c] && (lead < 0 || cmed(st, dg, c) > cmed(st, dg, (size_t)lead)))
			lead = (long)c;
	}
	/* The screen is decide()'s, with this search's pooled noise. */
	dp.screen_z = SEARCH_SCREEN_Z;
	dp.sigma = final ? -1 : ev->sigma;
	(void)lead;
	if (decide(st->x, st->xn, K, st->cost, &dp, &ev->d)) {
		free(ev->screened);
		ev->screened = NULL;
		return error("search: deciding %s at %llu bytes failed",
			     st->p->groups[dg->g[0]].collective,
			     (unsigned long long)st->p->groups[dg->g[0]].bytes);
	}
	for (c = 0; c < K; c++)
		ev->screened[c] = ev->d.screened[c];
	/* A configuration whose every point was left out was not beaten: the
	 * decision stays undecided (recommend's rule, verdict.c). */
	for (c = 0; c < K; c++) {
		size_t k = AT(st, c / dg->m, dg->g[c % dg->m]);

		if (st->left[k] && !st->kept[k] && ev->d.verdict != DECIDE_UNDECIDED)
			ev->d.verdict = DECIDE_UNDECIDED;
	}
	return 0;
}

static void eval_release(struct eval *ev)
{
	free(ev->screened);
	decision_release(&ev->d);
}

/* Racing: while decision group d is undecided, its leader and the
 * configurations undecided against it get one more launch each; any
 * member of the indifference set below the minimum repetitions gets one
 * too. Screened and significantly worse configurations get none. */
static int propose_race(struct state *st, size_t d, const struct eval *ev, unsigned char *want)
{
	const struct dgroup *dg = &st->dg[d];
	size_t c, K = st->L * dg->m;
	int any = 0;

	for (c = 0; ev->d.leader >= 0 && c < K; c++) {
		size_t k = AT(st, c / dg->m, dg->g[c % dg->m]);
		int contend, need;

		/* Every point left out so far: another launch may keep one. */
		if (st->left[k] && !st->kept[k]) {
			any |= ask(st, want, d, c / dg->m);
			continue;
		}
		if (ev->screened[c] || !cn(st, dg, c))
			continue;
		contend = (long)c == ev->d.leader || ev->d.status[c] == STATS_UNDECIDED;
		need = (ev->d.verdict == DECIDE_UNDECIDED && contend) ||
		       (ev->d.member[c] && cn(st, dg, c) < st->p->repetitions);
		if (need)
			any |= ask(st, want, d, c / dg->m);
	}
	return any;
}

/* Largest |slope| between consecutive valid points of any line, group g:
 * the Lipschitz constant that bounds where no secant can. */
static double max_slope(const struct state *st, size_t g)
{
	double s = 0;
	int any = 0;
	size_t ln, i;

	for (ln = 0; ln < st->nlines; ln++) {
		long prev = -1;

		for (i = st->line_start[ln]; i < st->line_start[ln + 1]; i++) {
			size_t l = st->order[i];

			if (!st->n[AT(st, l, g)])
				continue;
			if (prev >= 0) {
				double dt = tpos(&st->p->layouts[l]) - tpos(&st->p->layouts[prev]);

				if (dt > 0) {
					double v = fabs(st->med[AT(st, l, g)] -
							st->med[AT(st, (size_t)prev, g)]) /
						   dt;

					if (v > s)
						s = v;
					any = 1;
				}
			}
			prev = (long)l;
		}
	}
	return any ? s : INFINITY;
}

static double slope(const struct state *st, size_t g, size_t a, size_t b)
{
	double dt = tpos(&st->p->layouts[b]) - tpos(&st->p->layouts[a]);

	if (dt <= 0)
		return NAN;
	return (st->med[AT(st, b, g)] - st->med[AT(st, a, g)]) / dt;
}

/* Upper bound of group g at position t between valid layouts a2 < a < t <
 * c < c2 of one line; any of them may be -1 (absent). */
static double bound(const struct state *st, size_t g, double t, long a2, long a, long c, long c2,
		    double smax)
{
	double u = INFINITY;

	if (a >= 0) {
		double fa = st->med[AT(st, (size_t)a, g)], ta = tpos(&st->p->layouts[a]);
		double s = a2 >= 0 ? slope(st, g, (size_t)a2, (size_t)a) : NAN;

		u = fmin(u, fa + smax * (t - ta));
		if (isfinite(s))
			u = fmin(u, fa + s * (t - ta));
	}
	if (c >= 0) {
		double fc = st->med[AT(st, (size_t)c, g)], tc = tpos(&st->p->layouts[c]);
		double s = c2 >= 0 ? slope(st, g, (size_t)c, (size_t)c2) : NAN;

		u = fmin(u, fc + smax * (tc - t));
		if (isfinite(s))
			u = fmin(u, fc - s * (tc - t));
	}
	return u;
}

/* The unmeasured layout of line ln nearest the middle (log scale) of the
 * gap (ta, tc) when the bound there, widened by allow / sqrt(n) (n: the
 * fewer launches of the gap's two neighbours), beats target; else -1.
 * valid[0..nv-1] are the line's layouts with a value, k the gap's index. */
static long refine_gap(const struct state *st, size_t g, size_t ln, const long *valid, size_t nv,
		       size_t k, double smax, double allow, double target)
{
	size_t s0 = st->line_start[ln], s1 = st->line_start[ln + 1], i;
	long a = k ? valid[k - 1] : -1, c = k < nv ? valid[k] : -1;
	long a2 = k >= 2 ? valid[k - 2] : -1, c2 = k + 1 < nv ? valid[k + 1] : -1;
	double ta = a >= 0 ? tpos(&st->p->layouts[a]) : -INFINITY;
	double tc = c >= 0 ? tpos(&st->p->layouts[c]) : INFINITY;
	double umax = -INFINITY, mid, dmin = INFINITY;
	long pick = -1;
	unsigned nmin;

	for (i = s0; i < s1; i++) {
		size_t l = st->order[i];
		double t = tpos(&st->p->layouts[l]);

		if (!st->reps[l] && t > ta && t < tc)
			umax = fmax(umax, bound(st, g, t, a2, a, c, c2, smax));
	}
	/* The neighbours' medians are off by about sigma / sqrt(n): widen the
	 * bound by SEARCH_REFINE_Z of those standard errors. OE is capped at
	 * 100: no layout can beat that. */
	nmin = a >= 0 ? st->n[AT(st, (size_t)a, g)] : UINT32_MAX;
	if (c >= 0 && st->n[AT(st, (size_t)c, g)] < nmin)
		nmin = st->n[AT(st, (size_t)c, g)];
	if (fmin(umax + allow / sqrt((double)nmin), 100.0) <= target)
		return -1;
	/* Bisect the gap (log scale); an open end leans on its measured side. */
	mid = a >= 0 && c >= 0 ? (ta + tc) / 2 : a >= 0 ? ta : tc;
	for (i = s0; i < s1; i++) {
		size_t l = st->order[i];
		double t = tpos(&st->p->layouts[l]);

		if (!st->reps[l] && !st->dead[l] && t > ta && t < tc && fabs(t - mid) < dmin) {
			dmin = fabs(t - mid);
			pick = (long)l;
		}
	}
	return pick;
}

/* Refinement of decision group d: flags in want[] the unmeasured layouts
 * where some group of d could beat the leader's median by more than delta,
 * allowing SEARCH_REFINE_Z pooled standard errors of noise. */
static int propose_refine(struct state *st, size_t d, const struct eval *ev, unsigned char *want)
{
	const struct dgroup *dg = &st->dg[d];
	long *valid;
	double target, allow;
	size_t j, ln, i, k, nv;
	int any = 0;

	if (ev->d.leader < 0 || ev->sigma < 0)
		return 0;
	target = ev->d.median[ev->d.leader] + st->o->tolerance;
	allow = SEARCH_REFINE_Z * ev->sigma;
	valid = xcalloc(st->L + 1, sizeof(long));
	for (j = 0; j < dg->m; j++) {
		size_t g = dg->g[j];
		double smax = max_slope(st, g);

		for (ln = 0; ln < st->nlines; ln++) {
			nv = 0;
			for (i = st->line_start[ln]; i < st->line_start[ln + 1]; i++)
				if (st->n[AT(st, st->order[i], g)])
					valid[nv++] = (long)st->order[i];
			/* Gaps: before valid[0], between neighbours, after the last. */
			for (k = 0; nv && k <= nv; k++) {
				long pick = refine_gap(st, g, ln, valid, nv, k, smax, allow,
						       target);

				if (pick >= 0)
					any |= ask(st, want, d, (size_t)pick);
			}
		}
	}
	free(valid);
	return any;
}

/* One round: decides every decision group and flags in want[] the layouts
 * to launch next (refinement too when refine is set). Returns 1 when
 * something is wanted, 0 when nothing is left to learn, -1 on failure. */
static int plan_round(struct state *st, unsigned char *want, int refine)
{
	struct eval ev;
	size_t d;
	int any = 0;

	update_medians(st);
	st->sigma_all = pooled_sd(st, NULL, 0);
	for (d = 0; d < st->ndg; d++) {
		if (evaluate(st, d, 0, &ev))
			return -1;
		if (refine)
			any |= propose_refine(st, d, &ev, want);
		any |= propose_race(st, d, &ev, want);
		eval_release(&ev);
	}
	return any;
}

/* The leader and runner-up of every decision group, once more each: the
 * pooled spread that screening and refinement need comes from data. */
static int repeat_leaders(struct state *st, unsigned char *want)
{
	struct eval ev;
	size_t d;

	update_medians(st);
	st->sigma_all = -1; /* nothing to screen with yet */
	for (d = 0; d < st->ndg; d++) {
		const struct dgroup *dg = &st->dg[d];

		if (pooled_sd(st, dg->g, dg->m) >= 0)
			continue;
		if (evaluate(st, d, 0, &ev))
			return -1;
		if (ev.d.leader >= 0)
			ask(st, want, d, (size_t)ev.d.leader / dg->m);
		if (ev.d.runner_up >= 0)
			ask(st, want, d, (size_t)ev.d.runner_up / dg->m);
		eval_release(&ev);
	}
	return measure_set(st, want);
}

static int is_pow2u(unsigned v)
{
	return v && !(v & (v - 1));
}

/* Races until nothing is wanted; measure_set's 1 (budget) ends it too. */
static int race(struct state *st, unsigned char *want, int refine)
{
	int r;

	while ((r = plan_round(st, want, refine)) > 0)
		if ((r = measure_set(st, want)))
			break;
	return r < 0 ? -1 : 0;
}

/* The mean log value of (layout l, group g) and its launches; NAN when it
 * has none or a value is not positive. */
static double log_mean(const struct state *st, size_t l, size_t g)
{
	size_t k = AT(st, l, g);
	double m = 0;

	if (!st->n[k])
		return NAN;
	for (unsigned i = 0; i < st->n[k]; i++) {
		double v = st->val[k * st->R + i];

		if (!(v > 0))
			return NAN;
		m += log(v) / st->n[k];
	}
	return m;
}

/* Whether layout l may be launched once more. */
static int launchable(const struct state *st, size_t l)
{
	return !st->dead[l] && st->reps[l] < st->R && (!st->o->only || st->o->only[l]);
}

/* The surrogate of group g at the pooled noise sd noise (log units).
 * 0, or -1 when none could be fitted. */
static int fit_group(const struct state *st, size_t g, double noise, struct surrogate *sg)
{
	double *y = xcalloc(st->L + 1, sizeof(double)), *var = xcalloc(st->L + 1, sizeof(double));
	double *prior = st->o->prior ? xcalloc(st->L + 1, sizeof(double)) : NULL;
	int r;

	for (size_t l = 0; l < st->L; l++) {
		y[l] = log_mean(st, l, g);
		var[l] = noise * noise / (st->n[AT(st, l, g)] ? st->n[AT(st, l, g)] : 1);
		if (prior)
			prior[l] = st->o->prior[AT(st, l, g)] > 0 ?
					   log(st->o->prior[AT(st, l, g)]) :
					   NAN;
	}
	r = surrogate_fit((const double(*)[SURROGATE_DIM])st->feat, y, var, prior, st->L, sg);
	free(y);
	free(var);
	free(prior);
	return r;
}

/* The pooled noise of decision group d's evaluation, or a stand-in (the
 * first round may have none yet): 5%. */
static double eval_noise(const struct eval *ev)
{
	return isfinite(ev->d.model.noise) && ev->d.model.noise > 0 ? ev->d.model.noise : 0.05;
}

/* The acquisition of decision group d at every layout into ei[] (the
 * largest over its groups, in units of the pooled noise): the augmented
 * expected improvement of Huang, Allen, Notz & Zeng (2006) for noisy
 * measurements. The improvement is over the effective best, the
 * surrogate's mean at the measured configuration with the largest mean
 * less one posterior sd (not the best measured mean, which the winner of
 * noisy launches overstates), and is scaled by 1 - noise / sqrt(sd^2 +
 * noise^2): a launch of a configuration the surrogate already knows to
 * within the noise of one launch (one measured a few times) teaches
 * little, and re-measuring is the confirmation round's work. -1 when a
 * fit is poor (or none could be made). */
static int decision_acq(const struct state *st, size_t d, double noise, double *ei)
{
	const struct dgroup *dg = &st->dg[d];
	size_t K = st->L * dg->m;
	double *mu = xcalloc(K + 1, sizeof(double)), *sd = xcalloc(K + 1, sizeof(double));
	double lower = -INFINITY, best = NAN;
	int r = 0;

	for (size_t j = 0; j < dg->m && !r; j++) {
		struct surrogate sg;

		/* A failed fit leaves sg empty: releasing it is harmless. */
		if (fit_group(st, dg->g[j], noise, &sg) || !sg.ok)
			r = -1;
		for (size_t l = 0; !r && l < st->L; l++) {
			mu[l * dg->m + j] = sg.mu[l];
			sd[l * dg->m + j] = sg.sd[l];
		}
		surrogate_release(&sg);
	}
	for (size_t c = 0; !r && c < K; c++)
		if (cn(st, dg, c) && mu[c] - sd[c] > lower) {
			lower = mu[c] - sd[c];
			best = mu[c];
		}
	for (size_t c = 0; !r && isfinite(best) && c < K; c++) {
		double keep = 1 - noise / sqrt(sd[c] * sd[c] + noise * noise);

		ei[c / dg->m] = fmax(ei[c / dg->m],
				     surrogate_ei(mu[c], sd[c], best) * keep / noise);
	}
	free(mu);
	free(sd);
	return r;
}

/* The next layout to explore: where the surrogates' acquisition
 * (decision_acq()), summed over decisions, is largest. A decision whose
 * surrogate fits poorly asks by the measured-only rule (propose_refine)
 * instead, first. -1 when nothing is worth a launch; -2 on failure. */
static long choose_next(struct state *st)
{
	double *acq = xcalloc(st->L + 1, sizeof(double)), top = 0;
	unsigned char *want = xcalloc(st->L + 1, 1);
	long pick = -1;

	update_medians(st);
	st->sigma_all = pooled_sd(st, NULL, 0);
	for (size_t d = 0; d < st->ndg; d++) {
		struct eval ev;
		double *ei;

		if (evaluate(st, d, 0, &ev)) {
			free(acq);
			free(want);
			return -2;
		}
		ei = xcalloc(st->L + 1, sizeof(double));
		if (decision_acq(st, d, eval_noise(&ev), ei))
			propose_refine(st, d, &ev, want);
		else
			for (size_t l = 0; l < st->L; l++)
				acq[l] += ei[l];
		free(ei);
		eval_release(&ev);
	}
	for (size_t l = 0; l < st->L && pick < 0; l++)
		if (want[l] && launchable(st, l))
			pick = (long)l;
	for (size_t l = 0; l < st->L && !memchr(want, 1, st->L); l++)
		if (launchable(st, l) && acq[l] > top) {
			top = acq[l];
			pick = (long)l;
		}
	if (pick >= 0 && !want[pick] && top < SEARCH_EI_STOP)
		pick = -1;
	for (size_t d = 0; pick >= 0 && d < st->ndg; d++)
		st->asked[d * st->L + (size_t)pick] = 1;
	free(acq);
	free(want);
	return pick;
}

/* Exploration: one launch at a time where choose_next() says, until it
 * sees nothing worth a launch or only the reserve is left. */
static int explore(struct state *st, unsigned reserve)
{
	while (!st->budget || st->launches + reserve < st->budget) {
		long l = choose_next(st);

		if (l == -2)
			return -1;
		if (l < 0)
			return 0;
		int r = measure(st, (size_t)l);

		if (r)
			return r < 0 ? -1 : 1;
	}
	return 0;
}

/* Means of log values by configuration for ranking finalists. */
static double cmean(const struct state *st, const struct dgroup *dg, size_t c)
{
	return log_mean(st, c / dg->m, dg->g[c % dg->m]);
}

/* How hard configuration c is to tell from the leader: the gap of mean
 * log values in pooled standard errors (the smaller, the harder). */
static double hardness(const struct state *st, const struct dgroup *dg, const struct eval *ev,
		       size_t c)
{
	size_t L = (size_t)ev->d.leader;
	double se = eval_noise(ev) * sqrt(1.0 / cn(st, dg, c) + 1.0 / cn(st, dg, L));

	return (cmean(st, dg, L) - cmean(st, dg, c)) / se;
}

/* Measures the layouts flagged in want[] and first[] before the rest of
 * want[] (each in plan order); clears first[]. measure_set()'s return. */
static int measure_first(struct state *st, unsigned char *want, unsigned char *first)
{
	unsigned char *rest = xcalloc(st->L + 1, 1);
	int r;

	for (size_t l = 0; l < st->L; l++)
		if (want[l] && !first[l]) {
			rest[l] = 1;
			want[l] = 0;
		}
	r = measure_set(st, want);
	if (!r)
		r = measure_set(st, rest);
	memset(first, 0, st->L);
	free(rest);
	return r;
}

/* Confirmation and racing (F-race-like, on the pooled model): every round,
 * per undecided decision, the SEARCH_FINALISTS - 1 configurations hardest
 * to tell from the leader (hardness()) get one launch each, and the
 * leader one too while it has fewer than twice theirs; a leader with
 * fewer launches than a finalist (a newcomer, leading on a few launches
 * that may be lucky: the winner's curse) is launched first, so that the
 * budget's last launches re-measure what the choice would rest on; every finalist
 * (leader and those) is first brought to SEARCH_CONFIRM_N launches, so
 * the choice rests on launches of itself. A round's launches are made one
 * after the other (interleaved), so a drift of the machine hits them
 * alike. Ends at the budget, or when every decision is made and its
 * finalists have their launches, or when nothing can be launched. */
static int confirm(struct state *st, unsigned char *want)
{
	unsigned char *first = xcalloc(st->L + 1, 1);

	for (;;) {
		int any = 0, r;

		update_medians(st);
		st->sigma_all = pooled_sd(st, NULL, 0);
		for (size_t d = 0; d < st->ndg; d++) {
			const struct dgroup *dg = &st->dg[d];
			size_t K = st->L * dg->m, taken = 0;
			unsigned char *fin = xcalloc(K + 1, 1);
			unsigned most = 0;
			struct eval ev;
			int open;

			if (evaluate(st, d, 0, &ev)) {
				free(fin);
				free(first);
				return -1;
			}
			open = ev.d.verdict == DECIDE_UNDECIDED;
			while (ev.d.leader >= 0 && taken + 1 < SEARCH_FINALISTS) {
				long b = -1;

				for (size_t c = 0; c < K; c++)
					if (!fin[c] && (long)c != ev.d.leader && cn(st, dg, c) &&
					    ev.d.status[c] != STATS_WORSE &&
					    launchable(st, c / dg->m) &&
					    (ev.d.status[c] == STATS_UNDECIDED ||
					     cn(st, dg, c) < SEARCH_CONFIRM_N) &&
					    (b < 0 || hardness(st, dg, &ev, c) <
							      hardness(st, dg, &ev, (size_t)b)))
						b = (long)c;
				if (b < 0)
					break;
				fin[b] = 1;
				taken++;
				if (cn(st, dg, (size_t)b) > most)
					most = cn(st, dg, (size_t)b);
			}
			for (size_t c = 0; c < K; c++)
				if (fin[c] && (open || cn(st, dg, c) < SEARCH_CONFIRM_N))
					any |= ask(st, want, d, c / dg->m);
			if (ev.d.leader >= 0 &&
			    (cn(st, dg, (size_t)ev.d.leader) < SEARCH_CONFIRM_N ||
			     (open && cn(st, dg, (size_t)ev.d.leader) < 2 * most)) &&
			    ask(st, want, d, (size_t)ev.d.leader / dg->m)) {
				any = 1;
				first[(size_t)ev.d.leader / dg->m] |= cn(st, dg,
									 (size_t)ev.d.leader) <
								      most;
			}
			free(fin);
			eval_release(&ev);
		}
		r = any ? measure_first(st, want, first) : 0;
		if (!any || r) {
			free(first);
			return r < 0 ? -1 : 0;
		}
	}
}

/* The effective budget: the caller's launches, else its fraction of the
 * grid, else (adaptive) SEARCH_BUDGET_FRAC of the grid but never fewer
 * than the coarse pass and the confirmation of every decision's leader
 * need (on a grid of fewer than SEARCH_CONFIRM_N repetitions that may be
 * more than the grid: no choice rests on fewer launches); grid: none. */
static unsigned effective_budget(const struct state *st, unsigned ncoarse)
{
	unsigned grid = (unsigned)(st->L * st->p->repetitions), b, least;

	if (st->o->budget)
		return st->o->budget;
	if (st->o->budget_frac > 0)
		return (unsigned)fmax(1, floor(st->o->budget_frac * grid + 1e-9));
	if (st->o->strategy != SEARCH_ADAPTIVE)
		return 0;
	b = (unsigned)floor(SEARCH_BUDGET_FRAC * grid + 1e-9);
	least = ncoarse + (unsigned)(st->ndg * (SEARCH_CONFIRM_N - 1));
	return b > least ? b : least;
}

/* The coarse pass: powers of two of workers, and both ends of every
 * line, flagged in want[] and asked for by every decision group. The
 * launches it takes. */
static unsigned coarse(struct state *st, unsigned char *want)
{
	unsigned ncoarse = 0;

	for (size_t ln = 0; ln < st->nlines; ln++)
		for (size_t i = st->line_start[ln]; i < st->line_start[ln + 1]; i++) {
			size_t l = st->order[i];

			if (is_pow2u(st->p->layouts[l].workers) || i == st->line_start[ln] ||
			    i + 1 == st->line_start[ln + 1]) {
				want[l] = 1;
				ncoarse += launchable(st, l);
				for (size_t d = 0; d < st->ndg; d++)
					st->asked[d * st->L + l] = 1;
			}
		}
	return ncoarse;
}

static int run_adaptive(struct state *st)
{
	unsigned char *want = xcalloc(st->L ? st->L : 1, 1);
	int r;

	st->budget = effective_budget(st, coarse(st, want));
	r = measure_set(st, want);
	if (!r)
		r = repeat_leaders(st, want);
	/* A third of the budget, and at least enough to bring every
	 * decision's leader to SEARCH_CONFIRM_N, is kept for the
	 * confirmation and racing. */
	if (!r)
		r = explore(st,
			    (unsigned)fmax(st->budget / 3.0, (double)(st->ndg * SEARCH_CONFIRM_N)));
	if (r >= 0)
		r = confirm(st, want);
	free(want);
	return r < 0 ? -1 : 0;
}

/* Every layout `repetitions` times, then the same racing as adaptive, so
 * that both strategies give the same kind of verdict. */
static int run_grid(struct state *st)
{
	unsigned char *want = xcalloc(st->L ? st->L : 1, 1);
	size_t l, d;
	unsigned k;
	int r = 0;

	st->budget = effective_budget(st, 0);
	for (k = 0; k < st->p->repetitions && !r; k++) {
		for (l = 0; l < st->L; l++) {
			want[l] = 1;
			for (d = 0; d < st->ndg; d++)
				st->asked[d * st->L + l] = 1;
		}
		r = measure_set(st, want);
	}
	if (!r)
		r = race(st, want, 0);
	free(want);
	return r < 0 ? -1 : 0;
}

/* Whether layout a beats layout b for group g by median (both measured):
 * exact ties go to fewer workers, then fewer WPN. */
static int better(const struct state *st, size_t g, size_t a, size_t b)
{
	double ma = st->med[AT(st, a, g)], mb = st->med[AT(st, b, g)];
	const struct search_layout *la = &st->p->layouts[a], *lb = &st->p->layouts[b];

	if (ma > mb + TIE_EPS)
		return 1;
	if (mb > ma + TIE_EPS)
		return 0;
	if (la->workers != lb->workers)
		return la->workers < lb->workers;
	if (la->wpn != lb->wpn)
		return la->wpn < lb->wpn;
	return a < b;
}

static struct search_config config_of(const struct state *st, const struct dgroup *dg, long c)
{
	if (c < 0)
		return (struct search_config){ -1, -1, 0, NAN };
	return (struct search_config){ c / (long)dg->m, (long)dg->g[(size_t)c % dg->m],
				       cn(st, dg, (size_t)c), cmed(st, dg, (size_t)c) };
}

static double cell_spread(const struct state *st, size_t l, size_t g, double sigma)
{
	size_t k = AT(st, l, g), i;
	const double *v = st->val + k * st->R;
	double lo = v[0], hi = v[0];

	if (st->n[k] < 2)
		return sigma >= 0 ? sigma : 0;
	for (i = 1; i < st->n[k]; i++) {
		lo = fmin(lo, v[i]);
		hi = fmax(hi, v[i]);
	}
	return (hi - lo) / 2;
}

/* The result of decision group d from its final evaluation. */
static void fill_decision(const struct state *st, size_t d, const struct eval *ev,
			  struct search_decision *sd)
{
	const struct dgroup *dg = &st->dg[d];
	const struct decision *dc = &ev->d;
	size_t c, K = st->L * dg->m;

	sd->collective = st->p->groups[dg->g[0]].collective;
	sd->bytes = st->p->groups[dg->g[0]].bytes;
	sd->dtype = st->p->groups[dg->g[0]].dtype;
	sd->op = st->p->groups[dg->g[0]].op;
	sd->verdict = dc->verdict;
	sd->choice = config_of(st, dg, dc->choice);
	sd->leader = config_of(st, dg, dc->leader);
	sd->runner_up = config_of(st, dg, dc->runner_up);
	sd->choice_oe = dc->choice >= 0 ? dc->median[dc->choice] : NAN;
	sd->leader_oe = dc->leader >= 0 ? dc->median[dc->leader] : NAN;
	sd->runner_up_oe = dc->runner_up >= 0 ? dc->median[dc->runner_up] : NAN;
	sd->p_value = dc->p_value;
	sd->ci_lo = dc->ci_lo;
	sd->ci_hi = dc->ci_hi;
	sd->ci_exact = dc->ci_exact;
	sd->launches = dg->launches;
	sd->model = dc->model;
	sd->more_a = config_of(st, dg, dc->more_a);
	sd->more_b = config_of(st, dg, dc->more_b);
	sd->more_equal = dc->more_equal;
	sd->surrogate_ok = sd->surrogate_prior = 1;
	sd->surrogate_rms = 0;
	sd->surrogate_points = UINT32_MAX;
	for (size_t j = 0; j < dg->m; j++) {
		struct surrogate sg;

		if (fit_group(st, dg->g[j], eval_noise(ev), &sg)) {
			sd->surrogate_ok = sd->surrogate_prior = 0;
			sd->surrogate_points = 0;
			sd->surrogate_rms = NAN;
			break;
		}
		sd->surrogate_ok &= sg.ok;
		sd->surrogate_prior &= sg.prior;
		sd->surrogate_rms = fmax(sd->surrogate_rms, sg.loo_rms);
		if (sg.used < sd->surrogate_points)
			sd->surrogate_points = (unsigned)sg.used;
		surrogate_release(&sg);
	}
	sd->indifferent = xcalloc(dc->nmembers + 1, sizeof(*sd->indifferent));
	for (c = 0; c < K; c++) {
		if (!cn(st, dg, c))
			continue;
		sd->measured++;
		if (ev->screened[c]) {
			sd->screened++;
			continue;
		}
		if (dc->member[c])
			sd->indifferent[sd->nindifferent++] = config_of(st, dg, (long)c);
		if (dc->status[c] == STATS_WORSE)
			sd->worse++;
		else if ((long)c == dc->leader || dc->status[c] == STATS_UNDECIDED)
			sd->contenders++;
	}
}

/* After a launch: every decision group whose verdict is now reached, as
 * fill_result() would decide it, told to search_opts.reached once; quiet
 * (the launch was read back: an earlier invocation told it) marks it told
 * without a word. 0, or -1 when deciding failed. Deciding here changes
 * nothing the search chooses by: what it reads is recomputed before use. */
static int tell_reached(struct state *st, int quiet)
{
	int fresh = 1;

	for (size_t d = 0; d < st->ndg; d++) {
		struct search_decision sd = { 0 };
		struct eval ev;

		if (st->told[d])
			continue;
		if (fresh) {
			update_medians(st);
			st->sigma_all = pooled_sd(st, NULL, 0);
			fresh = 0;
		}
		if (evaluate(st, d, 1, &ev))
			return -1;
		if (ev.d.verdict != DECIDE_UNDECIDED) {
			st->told[d] = 1;
			if (!quiet) {
				fill_decision(st, d, &ev, &sd);
				st->o->reached(st->o->reached_ctx, &sd);
				free(sd.indifferent);
			}
		}
		eval_release(&ev);
	}
	return 0;
}

/* best[g]: the decision's choice where its group is g, else group g's own
 * best median (so that callers asking per group still get an answer). */
static void fill_best(const struct state *st, size_t g, const struct search_decision *sd,
		      double sigma, struct search_best *b)
{
	long bi = -1, ri = -1;
	size_t l;

	for (l = 0; l < st->L; l++)
		if (st->n[AT(st, l, g)] && (bi < 0 || better(st, g, l, (size_t)bi)))
			bi = (long)l;
	if (sd->choice.group == (long)g)
		bi = sd->choice.layout;
	for (l = 0; bi >= 0 && l < st->L; l++)
		if ((long)l != bi && st->n[AT(st, l, g)] &&
		    (ri < 0 || better(st, g, l, (size_t)ri)))
			ri = (long)l;
	b->layout = bi;
	b->runner_up = ri;
	b->runner_up_oe = ri >= 0 ? st->med[AT(st, (size_t)ri, g)] : NAN;
	b->oe = b->spread = NAN;
	b->reps = 0;
	if (bi >= 0) {
		b->oe = st->med[AT(st, (size_t)bi, g)];
		b->spread = cell_spread(st, (size_t)bi, g, sigma);
		b->reps = st->n[AT(st, (size_t)bi, g)];
	}
}

static int fill_result(struct state *st, struct search_result *res)
{
	struct eval ev;
	size_t d, j;

	res->decisions = xcalloc(st->ndg + 1, sizeof(*res->decisions));
	res->best = xcalloc(st->G ? st->G : 1, sizeof(*res->best));
	update_medians(st);
	st->sigma_all = pooled_sd(st, NULL, 0);
	for (d = 0; d < st->ndg; d++) {
		if (evaluate(st, d, 1, &ev))
			return -1;
		fill_decision(st, d, &ev, &res->decisions[d]);
		res->ndecisions++;
		for (j = 0; j < st->dg[d].m; j++)
			fill_best(st, st->dg[d].g[j], &res->decisions[d], ev.sigma,
				  &res->best[st->dg[d].g[j]]);
		eval_release(&ev);
	}
	return 0;
}

static void state_release(struct state *st)
{
	size_t d;

	for (d = 0; d < st->ndg; d++)
		free(st->dg[d].g);
	free(st->dg);
	free(st->reps);
	free(st->dead);
	free(st->n);
	free(st->val);
	free(st->med);
	free(st->buf);
	free(st->twin);
	free(st->kept);
	free(st->left);
	free(st->order);
	free(st->line_start);
	free(st->asked);
	free(st->told);
	free(st->x);
	free(st->xn);
	free(st->cost);
	free(st->feat);
}

int search_run(const struct search_problem *p, const struct search_opts *o,
	       struct search_result *res)
{
	struct state st;
	int ret;

	memset(res, 0, sizeof(*res));
	state_init(&st, p, o);
	ret = o->strategy == SEARCH_ADAPTIVE ? run_adaptive(&st) : run_grid(&st);
	if (!ret)
		ret = fill_result(&st, res);
	if (!ret) {
		res->launches = st.launches;
		res->grid_launches = (unsigned)(st.L * p->repetitions);
		res->budget = st.budget;
		res->budget_exhausted = st.budget_hit;
		res->failed_launches = st.failed;
		res->max_repetitions = (unsigned)st.R;
		res->reps = st.reps;
		st.reps = NULL;
	} else {
		search_result_release(res);
	}
	state_release(&st);
	return ret;
}

/* The state search_run() begins with: 0 launches, every layout open but
 * those search_opts.only leaves out. */
static void state_init(struct state *st, const struct search_problem *p,
		       const struct search_opts *o)
{
	size_t cells;

	memset(st, 0, sizeof(*st));
	st->p = p;
	st->o = o;
	st->L = p->nlayouts;
	st->G = p->ngroups;
	st->R = o->max_repetitions			 ? o->max_repetitions :
		p->repetitions > SEARCH_DEFAULT_MAX_REPS ? p->repetitions :
							   SEARCH_DEFAULT_MAX_REPS;
	if (st->R < p->repetitions)
		st->R = p->repetitions;
	if (!st->R)
		st->R = 1;
	cells = st->L * st->G;
	if (!cells)
		cells = 1;
	st->reps = xcalloc(st->L ? st->L : 1, sizeof(unsigned));
	st->dead = xcalloc(st->L ? st->L : 1, 1);
	st->n = xcalloc(cells, sizeof(unsigned));
	st->val = xcalloc(cells * st->R, sizeof(double));
	st->med = xcalloc(cells, sizeof(double));
	st->buf = xcalloc(st->G ? st->G : 1, sizeof(double));
	st->kept = xcalloc(cells, 1);
	st->left = xcalloc(cells, 1);
	if (o->merge_twins)
		find_twins(st);
	/* Layouts left out are never asked for: as if they could not run,
	 * without counting as failed. */
	for (size_t l = 0; o->only && l < st->L; l++)
		st->dead[l] = !o->only[l];
	build_lines(st);
	build_dgroups(st);
	st->feat = xcalloc(st->L ? st->L : 1, sizeof(*st->feat));
	for (size_t l = 0; l < st->L; l++) {
		const struct search_layout *ly = &p->layouts[l];

		st->feat[l][0] = log2(ly->workers ? ly->workers : 1);
		st->feat[l][1] = log2(ly->wpn ? ly->wpn : 1);
		st->feat[l][2] = !strcmp(ly->placement, "onload");
		st->feat[l][3] = log2(ly->nodes ? ly->nodes : 1);
	}
}

unsigned search_budget(const struct search_problem *p, const struct search_opts *o)
{
	struct state st;
	unsigned char *want;
	unsigned b;

	state_init(&st, p, o);
	want = xcalloc(st.L ? st.L : 1, 1);
	b = effective_budget(&st, o->strategy == SEARCH_ADAPTIVE ? coarse(&st, want) : 0);
	free(want);
	state_release(&st);
	return b;
}

const char *search_decision_words(const struct search_layout *layouts, const struct point *groups,
				  const struct search_decision *d, char *buf, size_t len)
{
	char sz[32], pt[160], p[32];
	const struct search_layout *l;

	if (d->choice.layout < 0) {
		snprintf(buf, len, "%s %s: no valid measurement", d->collective,
			 format_size(d->bytes, sz, sizeof(sz)));
		return buf;
	}
	l = &layouts[d->choice.layout];
	if (isfinite(d->p_value))
		snprintf(p, sizeof(p), "p=%.2g", d->p_value);
	else
		snprintf(p, sizeof(p), "no runner-up");
	snprintf(buf, len, "%s %s%s%s%s%s: %u worker%s (%u WPN, %s) %s, %s (%s), median OE %.1f",
		 d->collective, format_size(d->bytes, sz, sizeof(sz)), d->dtype ? " " : "",
		 d->dtype ? d->dtype : "", d->op ? " " : "", d->op ? d->op : "", l->workers,
		 l->workers == 1 ? "" : "s", l->wpn, l->placement,
		 point_text(&groups[d->choice.group], POINT_SCHEDULE | POINT_AXES, pt, sizeof(pt)),
		 decide_verdict_name(d->verdict), p, d->choice_oe);
	return buf;
}

void search_result_release(struct search_result *res)
{
	size_t d;

	for (d = 0; d < res->ndecisions; d++)
		free(res->decisions[d].indifferent);
	free(res->decisions);
	free(res->best);
	free(res->reps);
	memset(res, 0, sizeof(*res));
}

struct groups_fill {
	struct point *g;
	size_t n;
};

static int add_group(const struct point *pt, void *data)
{
	struct groups_fill *f = data;

	if (f->g)
		f->g[f->n] = (struct point){ pt->collective, pt->algorithm, pt->assignment,
					     pt->bytes,	     pt->dtype,	    pt->op,
					     pt->chunk,	     pt->window,    pt->radix };
	f->n++;
	return 0;
}

void search_space_from_plan(const struct spec *s, const struct plan *p, struct search_space *out)
{
	struct groups_fill f = { NULL, 0 };

	memset(out, 0, sizeof(*out));
	out->layouts = xcalloc(p->nlayouts ? p->nlayouts : 1, sizeof(*out->layouts));
	for (size_t i = 0; i < p->nlayouts; i++) {
		const struct layout *l = &p->layouts[i];

		out->layouts[i] = (struct search_layout){ l->id,  l->nodes,
							  l->ppn, l->workers,
							  l->wpn, placement_name(l->placement) };
	}
	out->nlayouts = p->nlayouts;
	out->repetitions = p->repetitions;
	/* Groups are the points of one launch, in the kernel's loop order:
	 * every axis where it applies (dtype, op, chunk, window, radix). */
	f.g = xcalloc(plan_foreach_point(s, NULL, NULL) + 1, sizeof(*f.g));
	plan_foreach_point(s, add_group, &f);
	out->groups = f.g;
	out->ngroups = f.n;
}

void search_space_release(struct search_space *sp)
{
	free(sp->layouts);
	free(sp->groups);
	memset(sp, 0, sizeof(*sp));
}
