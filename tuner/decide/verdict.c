/*
 * tuner/decide/verdict.c: recommend's decisions (see verdict.h). Points are first
 * gathered into configurations, one sample per launch, then each decision
 * group goes through decide(); everything else (whether offloading pays,
 * DPU against onload) is a comparison of the same launch-level samples.
 */
#include "verdict.h"

#include "colls.h"
#include "store.h"
#include "xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One configuration's launches. */
struct cfg {
	const struct store_point *p; /* its first point: layout and names */
	double *oe, *gain, *total, *ref, *compute;
	long long *launch; /* each sample's launch */
	size_t n, alloc;
	/* Its twin: the same schedule under another assignment, merged into
	 * it (twin_of >= 0: this one was, into that one, and takes no part). */
	const struct store_point *twin;
	long twin_of;
	int aa_separated;
	int order; /* first seen: the algorithm/assignment tiebreak */
};

/* A decision group: collective and size, and a reduction's dtype and op
 * (different arithmetic is a different question), and ranks for Open MPI. */
struct grp {
	const char *collective;
	uint64_t bytes;
	const char *dtype, *op;
	unsigned ranks;
	struct cfg *c;
	size_t n, alloc;
};

struct grps {
	struct grp *g;
	size_t n, alloc;
};

static int is_mpi(const struct store_point *p)
{
	return p->mode && !strcmp(p->mode, "mpi");
}

static void push(double **v, size_t n, size_t alloc, double x)
{
	if (n + 1 > alloc)
		*v = xrealloc(*v, 2 * (n + 1) * sizeof(**v));
	(*v)[n] = x;
}

static void cfg_add(struct cfg *c, const struct store_point *p, double sample)
{
	size_t n = c->n;

	push(&c->oe, n, c->alloc, sample);
	push(&c->gain, n, c->alloc, (p->ref_us + p->compute_us) / p->total_us);
	push(&c->total, n, c->alloc,
	     is_mpi(p) && p->total_us_median > 0 ? p->total_us_median : p->total_us);
	push(&c->ref, n, c->alloc, p->ref_us);
	push(&c->compute, n, c->alloc, p->compute_us);
	if (n + 1 > c->alloc)
		c->launch = xrealloc(c->launch, 2 * (n + 1) * sizeof(*c->launch));
	c->launch[n] = p->launch;
	if (n + 1 > c->alloc)
		c->alloc = 2 * (n + 1);
	c->n++;
}

static const char *str_or_empty(const char *s)
{
	return s ? s : "";
}

static struct grp *grp_get(struct grps *gs, const struct store_point *p, unsigned ranks)
{
	const char *dtype = str_or_empty(p->key.dtype), *op = str_or_empty(p->key.op);

	for (size_t i = 0; i < gs->n; i++)
		if (gs->g[i].bytes == p->key.bytes && gs->g[i].ranks == ranks &&
		    !strcmp(gs->g[i].collective, p->key.collective) &&
		    !strcmp(gs->g[i].dtype, dtype) && !strcmp(gs->g[i].op, op))
			return &gs->g[i];
	if (gs->n == gs->alloc) {
		gs->alloc = gs->alloc ? 2 * gs->alloc : 16;
		gs->g = xrealloc(gs->g, gs->alloc * sizeof(*gs->g));
	}
	gs->g[gs->n] = (struct grp){
		p->key.collective, p->key.bytes, dtype, op, ranks, NULL, 0, 0
	};
	return &gs->g[gs->n++];
}

/* The configuration of p in g: the same layout, algorithm, assignment,
 * and pipelining and radix (dtype and op are the group's). */
static struct cfg *cfg_get(struct grp *g, const struct store_point *p)
{
	for (size_t i = 0; i < g->n; i++) {
		const struct store_point *q = g->c[i].p;

		if (!point_cmp_config(&q->key, &p->key) &&
		    !strcmp(str_or_empty(q->layout), str_or_empty(p->layout)))
			return &g->c[i];
	}
	if (g->n == g->alloc) {
		g->alloc = g->alloc ? 2 * g->alloc : 16;
		g->c = xrealloc(g->c, g->alloc * sizeof(*g->c));
	}
	memset(&g->c[g->n], 0, sizeof(g->c[g->n]));
	g->c[g->n].p = p;
	g->c[g->n].order = (int)g->n;
	g->c[g->n].twin_of = -1;
	return &g->c[g->n++];
}

static void grps_release(struct grps *gs)
{
	for (size_t i = 0; i < gs->n; i++) {
		for (size_t j = 0; j < gs->g[i].n; j++) {
			struct cfg *c = &gs->g[i].c[j];

			free(c->oe);
			free(c->gain);
			free(c->total);
			free(c->ref);
			free(c->compute);
			free(c->launch);
		}
		free(gs->g[i].c);
	}
	free(gs->g);
	memset(gs, 0, sizeof(*gs));
}

static double median_of(const double *x, size_t n)
{
	double m = NAN;

	if (n)
		stats_median(x, n, &m);
	return m;
}

static struct verdict_config vconfig(const struct cfg *c)
{
	const struct store_point *p = c->p;

	return (struct verdict_config){
		.layout = p->layout,
		.placement = p->placement ? p->placement : "",
		.key = p->key,
		.nodes = p->nodes > 0 ? (unsigned)p->nodes : 0,
		.ppn = p->ppn > 0 ? (unsigned)p->ppn : 0,
		.workers = p->workers > 0 ? (unsigned)p->workers : 0,
		.wpn = p->wpn > 0 ? (unsigned)p->wpn : 0,
		.launches = c->n,
		.median = median_of(c->oe, c->n),
	};
}

static struct decide_cost cost_of(const struct cfg *c, const struct verdict_params *vp)
{
	const struct store_point *p = c->p;
	int onload = p->placement && !strcmp(p->placement, "onload");

	return (struct decide_cost){ p->workers > 0 ? (unsigned)p->workers : 0,
				     p->wpn > 0 ? (unsigned)p->wpn : 0,
				     vp->dpu_first ? onload : !onload, c->order };
}

const char *verdict_pays_name(enum verdict_pays p)
{
	return p == PAYS_YES ? "yes" : p == PAYS_NO ? "no" : "unclear";
}

/* The choice's outliers (never dropped, only reported). */
static void outliers(const struct cfg *c, struct offload_verdict *v)
{
	struct stats_summary s;

	if (!c->n || stats_summarize(c->oe, c->n, 0.95, 1, &s))
		return;
	v->outliers = s.n_outliers;
	v->unstable = s.unstable;
	stats_summary_free(&s);
}

/* Whether offloading pays at c: the CI of the median gain against 1. */
static void pays(const struct cfg *c, struct offload_verdict *v)
{
	struct stats_summary s;

	v->pays = PAYS_UNCLEAR;
	v->gain = v->gain_lo = v->gain_hi = NAN;
	if (!c->n || stats_summarize(c->gain, c->n, 0.95, 1, &s))
		return;
	v->gain = s.median;
	v->gain_lo = s.ci_lo;
	v->gain_hi = s.ci_hi;
	stats_summary_free(&s);
	if (v->gain_lo > 1)
		v->pays = PAYS_YES;
	else if (v->gain_hi < 1)
		v->pays = PAYS_NO;
}

/* The best configuration of one placement in g (-1 when none). */
static long best_of(const struct grp *g, const char *placement)
{
	long b = -1;
	double bm = -INFINITY;

	for (size_t i = 0; i < g->n; i++) {
		double m = median_of(g->c[i].oe, g->c[i].n);

		if (g->c[i].p->placement && !strcmp(g->c[i].p->placement, placement) && m > bm) {
			bm = m;
			b = (long)i;
		}
	}
	return b;
}

static void placement_compare(const struct grp *g, const struct verdict_params *vp,
			      struct placement_cmp *pc)
{
	long d = best_of(g, "dpu"), o = best_of(g, "onload");
	struct stats_cmp cmp;

	memset(pc, 0, sizeof(*pc));
	if (d < 0 || o < 0)
		return;
	if (stats_compare(g->c[d].oe, g->c[d].n, g->c[o].oe, g->c[o].n, vp->alpha, vp->delta_oe, 0,
			  &cmp))
		return;
	pc->have = 1;
	pc->dpu = vconfig(&g->c[d]);
	pc->onload = vconfig(&g->c[o]);
	pc->dpu_vs_onload = cmp.verdict;
	pc->p = cmp.p;
	pc->shift = cmp.shift;
	pc->ci_lo = cmp.ci_lo;
	pc->ci_hi = cmp.ci_hi;
	pc->dpu_cores_left = vp->cores ? (int)vp->cores : -1;
	pc->onload_cores_left = vp->cores ? (int)vp->cores - (int)pc->onload.wpn : -1;
}

/* The indifference set, cheapest first (the order of decide_cheaper). */
static void fill_set(const struct grp *g, const struct decision *dc, const struct decide_cost *cost,
		     struct offload_verdict *v)
{
	size_t k = 0;

	v->indifferent = xcalloc(dc->nmembers + 1, sizeof(*v->indifferent));
	for (size_t i = 0; i < g->n; i++)
		if (dc->member[i]) {
			size_t j = k++;

			/* insertion by cost */
			while (j > 0) {
				size_t prev = 0;

				for (size_t q = 0; q < g->n; q++)
					if (g->c[q].p->layout == v->indifferent[j - 1].layout &&
					    !point_cmp_config(&g->c[q].p->key,
							      &v->indifferent[j - 1].key))
						prev = q;
				if (!decide_cheaper(&cost[i], &cost[prev]))
					break;
				v->indifferent[j] = v->indifferent[j - 1];
				j--;
			}
			v->indifferent[j] = vconfig(&g->c[i]);
		}
	v->nindifferent = k;
}

/* The configurations of exc (left-out points of g's question) that have
 * no launch kept in g: *v gets their count and the first of them. */
static void excluded_of(const struct grp *g, const struct grp *exc, struct offload_verdict *v)
{
	for (size_t i = 0; exc && i < exc->n; i++) {
		int kept = 0;

		for (size_t j = 0; j < g->n && !kept; j++)
			kept = !point_cmp_config(&g->c[j].p->key, &exc->c[i].p->key) &&
			       !strcmp(str_or_empty(g->c[j].p->layout),
				       str_or_empty(exc->c[i].p->layout));
		if (kept)
			continue;
		if (!v->excluded++)
			v->excluded_first = vconfig(&exc->c[i]);
	}
}

/* Whether a and b are one schedule measured twice (point.h). */
static int twins(const struct cfg *a, const struct cfg *b)
{
	const struct store_point *p = a->p, *q = b->p;

	return !strcmp(str_or_empty(p->layout), str_or_empty(q->layout)) && p->hosts == q->hosts &&
	       p->workers == q->workers &&
	       point_same_schedule(&p->key, &q->key, p->hosts, p->workers);
}

/* Twins of g (twins()) become one configuration: one sample per launch,
 * the geometric mean of the two measured in that launch (the launch, not
 * the measurement, is what repeats: the two of a launch share its
 * machine). Before, the pair is decided alone, as any two configurations
 * are: one schedule, it must never be told apart (the A/A), and
 * aa_separated says when it was. */
static void merge_twins(struct grp *g, const struct verdict_params *vp)
{
	struct decide_params dp = { vp->alpha, vp->delta_oe,	0.95, 0,
				    1,	       DECIDE_SCREEN_Z, -1,   vp->delta_rel };

	for (size_t i = 0; i < g->n; i++)
		for (size_t j = i + 1; j < g->n; j++) {
			struct cfg *a = &g->c[i], *b = &g->c[j];
			const double *x[2] = { a->oe, b->oe };
			size_t n[2] = { a->n, b->n }, na = a->n;
			struct decide_cost cost[2] = { { 0, 0, 0, 0 }, { 0, 0, 0, 1 } };
			struct decision dc;

			if (a->twin_of >= 0 || b->twin_of >= 0 || a->twin || !a->n || !b->n ||
			    !twins(a, b))
				continue;
			if (!decide(x, n, 2, cost, &dp, &dc)) {
				a->aa_separated = dc.status[0] == STATS_WORSE ||
						  dc.status[1] == STATS_WORSE;
				decision_release(&dc);
			}
			for (size_t s = 0; s < b->n; s++) {
				size_t t = 0;

				while (t < na && a->launch[t] != b->launch[s])
					t++;
				if (t == na) {
					push(&a->oe, a->n, a->alloc, b->oe[s]);
					push(&a->gain, a->n, a->alloc, b->gain[s]);
					push(&a->total, a->n, a->alloc, b->total[s]);
					push(&a->ref, a->n, a->alloc, b->ref[s]);
					push(&a->compute, a->n, a->alloc, b->compute[s]);
					if (a->n + 1 > a->alloc) {
						a->launch = xrealloc(a->launch,
								     2 * (a->n + 1) *
									     sizeof(*a->launch));
						a->alloc = 2 * (a->n + 1);
					}
					a->launch[a->n++] = b->launch[s];
					continue;
				}
				a->oe[t] = sqrt(a->oe[t] * b->oe[s]);
				a->gain[t] = sqrt(a->gain[t] * b->gain[s]);
				a->total[t] = (a->total[t] + b->total[s]) / 2;
				a->ref[t] = (a->ref[t] + b->ref[s]) / 2;
				a->compute[t] = (a->compute[t] + b->compute[s]) / 2;
			}
			a->twin = b->p;
			b->twin_of = (long)i;
		}
}

static int decide_offload(const struct grp *g, const struct grp *exc,
			  const struct verdict_params *vp, struct offload_verdict *v)
{
	const double **x = xcalloc(g->n + 1, sizeof(*x));
	size_t *n = xcalloc(g->n + 1, sizeof(*n));
	struct decide_cost *cost = xcalloc(g->n + 1, sizeof(*cost));
	struct decide_params dp = { vp->alpha, vp->delta_oe,	0.95, 0,
				    1,	       DECIDE_SCREEN_Z, -1,   vp->delta_rel };
	struct decision dc;
	int ret = -1;

	for (size_t i = 0; i < g->n; i++) {
		x[i] = g->c[i].oe;
		n[i] = g->c[i].twin_of >= 0 ? 0 : g->c[i].n;
		cost[i] = cost_of(&g->c[i], vp);
		if (g->c[i].twin) {
			v->twins++;
			v->twins_separated += (size_t)g->c[i].aa_separated;
		}
	}
	if (decide(x, n, g->n, cost, &dp, &dc) || dc.choice < 0)
		goto out;
	v->twin_of_choice = g->c[dc.choice].twin ? g->c[dc.choice].twin->key.assignment : NULL;
	v->collective = g->collective;
	v->bytes = g->bytes;
	v->dtype = g->dtype;
	v->op = g->op;
	v->choice = vconfig(&g->c[dc.choice]);
	v->leader = vconfig(&g->c[dc.leader]);
	if (dc.runner_up >= 0)
		v->runner_up = vconfig(&g->c[dc.runner_up]);
	v->verdict = dc.verdict;
	v->p_value = dc.p_value;
	v->ci_lo = dc.ci_lo;
	v->ci_hi = dc.ci_hi;
	v->ci_exact = dc.ci_exact;
	v->launches = dc.launches;
	v->model = dc.model;
	v->total_us = median_of(g->c[dc.choice].total, g->c[dc.choice].n);
	v->ref_us = median_of(g->c[dc.choice].ref, g->c[dc.choice].n);
	v->compute_us = median_of(g->c[dc.choice].compute, g->c[dc.choice].n);
	fill_set(g, &dc, cost, v);
	/* A rival whose launches were all left out was not beaten: no verdict
	 * can rest on its absence. */
	excluded_of(g, exc, v);
	if (v->excluded)
		v->verdict = DECIDE_UNDECIDED;
	pays(&g->c[dc.choice], v);
	outliers(&g->c[dc.choice], v);
	placement_compare(g, vp, &v->placement);
	decision_release(&dc);
	ret = 0;
out:
	free(x);
	free(n);
	free(cost);
	return ret;
}

static int decide_mpi(const struct grp *g, const struct verdict_params *vp, struct mpi_verdict *v)
{
	const double **x = xcalloc(g->n + 1, sizeof(*x));
	size_t *n = xcalloc(g->n + 1, sizeof(*n));
	struct decide_cost *cost = xcalloc(g->n + 1, sizeof(*cost));
	struct decide_params dp = { vp->alpha, 0, 0.95, 1, 1, DECIDE_SCREEN_Z, -1, 0 };
	struct decision dc;
	double best = INFINITY;
	int ret = -1;

	for (size_t i = 0; i < g->n; i++) {
		x[i] = g->c[i].total;
		n[i] = g->c[i].n;
		/* Open MPI's own decision (id 0) first among equals. */
		cost[i].tiebreak = atoi(strchr(g->c[i].p->key.algorithm, ':') ?
						strchr(g->c[i].p->key.algorithm, ':') + 1 :
						"0");
		best = fmin(best, median_of(x[i], n[i]));
	}
	dp.delta = vp->delta_time * best;
	if (decide(x, n, g->n, cost, &dp, &dc) || dc.leader < 0)
		goto out;
	*v = (struct mpi_verdict){
		g->collective,	      g->ranks, g->bytes, (int)cost[dc.leader].tiebreak,
		dc.median[dc.leader], dc.ci_lo, dc.ci_hi, dc.verdict,
		dc.p_value,	      -1,	NAN,	  g->n,
		dc.launches,	      NULL,	0
	};
	if (dc.runner_up >= 0) {
		v->runner_up = cost[dc.runner_up].tiebreak;
		v->runner_up_us = dc.median[dc.runner_up];
	}
	v->indifferent = xcalloc(dc.nmembers + 1, sizeof(int));
	for (size_t i = 0; i < g->n; i++)
		if (dc.member[i])
			v->indifferent[v->nindifferent++] = cost[i].tiebreak;
	decision_release(&dc);
	ret = 0;
out:
	free(x);
	free(n);
	free(cost);
	return ret;
}

static int cmp_grp(const void *a, const void *b)
{
	const struct grp *x = a, *y = b;
	int c = colls_rank(x->collective) - colls_rank(y->collective);

	if (c)
		return c;
	if (x->ranks != y->ranks)
		return x->ranks < y->ranks ? -1 : 1;
	if ((c = strcmp(x->dtype, y->dtype)) || (c = strcmp(x->op, y->op)))
		return c;
	return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

/* Gathers valid points into the groups of each kind; a point whose
 * compute phase missed its reference (calibrated false) measured another
 * question, so it is left out, and counted. */
static void gather(const struct store_point *pts, size_t n, struct grps *off, struct grps *mpi,
		   struct grps *exc, size_t *uncalibrated)
{
	for (size_t i = 0; i < n; i++) {
		const struct store_point *p = &pts[i];

		if (!p->valid || !p->key.collective || !p->key.algorithm || !p->key.assignment)
			continue;
		if (p->calibrated < 0) {
			(*uncalibrated)++;
			if (!is_mpi(p) && p->layout && *p->layout)
				cfg_add(cfg_get(grp_get(exc, p, 0), p), p, NAN);
			continue;
		}
		if (is_mpi(p)) {
			unsigned ranks = p->ranks > 0 ? (unsigned)p->ranks :
							(unsigned)(p->hosts > 0 ? p->hosts : 0);
			double t = p->total_us_median > 0 ? p->total_us_median : p->total_us;

			if (ranks && isfinite(t) && !strncmp(p->key.algorithm, "tuned:", 6))
				cfg_add(cfg_get(grp_get(mpi, p, ranks), p), p, t);
			else if (ranks && isfinite(t) && !strcmp(p->key.algorithm, "default"))
				cfg_add(cfg_get(grp_get(mpi, p, ranks), p), p, t);
			continue;
		}
		if (!isfinite(store_point_oe(p)) || !p->layout || !*p->layout)
			continue;
		cfg_add(cfg_get(grp_get(off, p, 0), p), p, store_point_oe(p));
	}
	if (off->n > 1)
		qsort(off->g, off->n, sizeof(*off->g), cmp_grp);
	if (mpi->n > 1)
		qsort(mpi->g, mpi->n, sizeof(*mpi->g), cmp_grp);
}

int verdicts_from_points(const struct store_point *pts, size_t n, const struct verdict_params *vp,
			 struct verdicts *v)
{
	struct grps off = { 0 }, mpi = { 0 }, exc = { 0 };
	int ret = 0;

	memset(v, 0, sizeof(*v));
	gather(pts, n, &off, &mpi, &exc, &v->uncalibrated);
	v->off = xcalloc(off.n + 1, sizeof(*v->off));
	v->mpi = xcalloc(mpi.n + 1, sizeof(*v->mpi));
	for (size_t i = 0; i < off.n && !ret; i++) {
		const struct grp *x = NULL;

		for (size_t j = 0; j < exc.n && !x; j++)
			if (!cmp_grp(&exc.g[j], &off.g[i]))
				x = &exc.g[j];
		merge_twins(&off.g[i], vp);
		if (!(ret = decide_offload(&off.g[i], x, vp, &v->off[v->noff])))
			v->noff++;
	}
	for (size_t i = 0; i < mpi.n && !ret; i++)
		if (!(ret = decide_mpi(&mpi.g[i], vp, &v->mpi[v->nmpi])))
			v->nmpi++;
	grps_release(&off);
	grps_release(&mpi);
	grps_release(&exc);
	if (ret)
		verdicts_release(v);
	return ret;
}

void verdicts_release(struct verdicts *v)
{
	for (size_t i = 0; i < v->noff; i++)
		free(v->off[i].indifferent);
	for (size_t i = 0; i < v->nmpi; i++)
		free(v->mpi[i].indifferent);
	free(v->off);
	free(v->mpi);
	memset(v, 0, sizeof(*v));
}
