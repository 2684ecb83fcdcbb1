/*
 * tuner/decide.c: the leader, the indifference set, the cheapest member and
 * the verdict (see decide.h), on top of stats.c. Configurations without
 * samples are left out of the statistics and mapped back afterwards.
 */
#include "decide.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *decide_verdict_name(enum decide_verdict v)
{
	switch (v) {
	case DECIDE_BEST:
		return "best";
	case DECIDE_TIE:
		return "tie";
	default:
		return "undecided";
	}
}

int decide_cheaper(const struct decide_cost *a, const struct decide_cost *b)
{
	if (a->workers != b->workers)
		return a->workers < b->workers;
	if (a->wpn != b->wpn)
		return a->wpn < b->wpn;
	if (a->placement_rank != b->placement_rank)
		return a->placement_rank < b->placement_rank;
	return a->tiebreak < b->tiebreak;
}

void decision_release(struct decision *d)
{
	free(d->member);
	free(d->median);
	free(d->p_adj);
	free(d->status);
	free(d->screened);
	memset(d, 0, sizeof(*d));
}

static int alloc_decision(struct decision *d, size_t k)
{
	memset(d, 0, sizeof(*d));
	d->k = k;
	d->leader = d->choice = d->runner_up = -1;
	d->verdict = DECIDE_UNDECIDED;
	d->p_value = d->ci_lo = d->ci_hi = d->sigma = NAN;
	d->member = calloc(k ? k : 1, sizeof(*d->member));
	d->median = calloc(k ? k : 1, sizeof(*d->median));
	d->p_adj = calloc(k ? k : 1, sizeof(*d->p_adj));
	d->status = calloc(k ? k : 1, sizeof(*d->status));
	d->screened = calloc(k ? k : 1, 1);
	if (!d->member || !d->median || !d->p_adj || !d->status || !d->screened) {
		decision_release(d);
		return -1;
	}
	for (size_t i = 0; i < k; i++) {
		d->median[i] = d->p_adj[i] = NAN;
		d->status[i] = STATS_UNDECIDED;
	}
	return 0;
}

/* Whether configuration i is a better choice than j for the cheapest-member
 * rule: the cheaper, and among equal costs the better median. */
static int better_choice(const struct decision *d, const struct decide_cost *cost,
			 const struct decide_params *p, size_t i, size_t j)
{
	struct decide_cost ci = { 0 }, cj = { 0 };

	if (cost) {
		ci = cost[i];
		cj = cost[j];
	} else {
		ci.tiebreak = (int)i;
		cj.tiebreak = (int)j;
	}
	if (decide_cheaper(&ci, &cj))
		return 1;
	if (decide_cheaper(&cj, &ci))
		return 0;
	return p->lower_is_better ? d->median[i] < d->median[j] : d->median[i] > d->median[j];
}

/* From the statistics of the m configurations with samples (idx[] maps
 * them back) to the decision over all k. */
static void fill_from_indiff(struct decision *d, const struct stats_indiff *ind,
			     const size_t *idx, size_t m, const double *const *x,
			     const size_t *n, const struct decide_params *p)
{
	struct stats_mw mw;
	double best = NAN;

	d->leader = (long)idx[ind->leader];
	for (size_t i = 0; i < d->k; i++) {
		/* The runner-up among every configuration measured, screened too. */
		if ((long)i == d->leader || isnan(d->median[i]))
			continue;
		if (d->runner_up < 0 || (p->lower_is_better ? d->median[i] < best : d->median[i] > best)) {
			d->runner_up = (long)i;
			best = d->median[i];
		}
	}
	for (size_t g = 0; g < m; g++) {
		size_t i = idx[g];

		d->member[i] = ind->member[g];
		d->nmembers += (size_t)ind->member[g];
		d->status[i] = ind->status[g];
		d->p_adj[i] = g == ind->leader ? NAN : ind->p_adj[g];
	}
	d->verdict = ind->verdict == STATS_BETTER ? DECIDE_BEST :
		     ind->verdict == STATS_TIE ? DECIDE_TIE : DECIDE_UNDECIDED;
	if (d->runner_up >= 0 &&
	    !stats_mann_whitney(x[d->leader], n[d->leader], x[d->runner_up], n[d->runner_up], &mw))
		d->p_value = mw.p;
}

/* Pooled within-configuration sd of the configurations with two samples or
 * more, and its degrees of freedom in *dfp; -1 when none has. */
static double pooled_sd(const double *const *x, const size_t *n, size_t k, size_t *dfp)
{
	double ss = 0;
	size_t df = 0;

	for (size_t i = 0; i < k; i++) {
		double mean = 0;

		if (n[i] < 2)
			continue;
		for (size_t j = 0; j < n[i]; j++)
			mean += x[i][j] / (double)n[i];
		for (size_t j = 0; j < n[i]; j++)
			ss += (x[i][j] - mean) * (x[i][j] - mean);
		df += n[i] - 1;
	}
	*dfp = df;
	return df ? sqrt(ss / (double)df) : -1;
}

/* The screen of decide_params: marks out->screened[i] for configurations
 * far below the leader by median, before the rank tests. */
static void screen(const double *const *x, const size_t *n, size_t k,
		   const struct decide_params *p, struct decision *out)
{
	size_t df = 0;
	double sigma = pooled_sd(x, n, k, &df), lm = NAN;
	long lead = -1;

	if (p->sigma >= 0) {
		sigma = p->sigma;
		df = DECIDE_SCREEN_DF;
	}
	/* A noise estimate from a handful of samples is itself noise: below
	 * DECIDE_SCREEN_DF degrees of freedom nothing is screened. */
	if (p->screen_z <= 0 || sigma < 0 || df < DECIDE_SCREEN_DF)
		return;
	out->sigma = sigma;
	for (size_t i = 0; i < k; i++)
		if (n[i] && (lead < 0 || (p->lower_is_better ? out->median[i] < lm : out->median[i] > lm))) {
			lead = (long)i;
			lm = out->median[i];
		}
	/* One launch of the leader may be luck: from stored results alone
	 * (no caller's sigma) it screens nothing; a search that passes its
	 * own sigma re-decides after every round of launches instead. */
	if (lead < 0 || (p->sigma < 0 && n[lead] < 2))
		return;
	for (size_t i = 0; i < k; i++) {
		double gap, reach;

		if (!n[i] || (long)i == lead)
			continue;
		gap = p->lower_is_better ? out->median[i] - lm : lm - out->median[i];
		reach = p->delta + p->screen_z * sigma * sqrt(1.0 / (double)n[i] + 1.0 / (double)n[lead]);
		if (gap > reach)
			out->screened[i] = 1;
	}
}

/* Cheapest first, so that the statistics' "lowest index on an exact tie of
 * medians" makes the cheaper configuration the leader. */
static void sort_by_cost(size_t *idx, size_t m, const struct decide_cost *cost,
			 const double *const *x, const size_t *n, const double **xs, size_t *ns)
{
	for (size_t a = 1; cost && a < m; a++)
		for (size_t b = a; b > 0 && decide_cheaper(&cost[idx[b]], &cost[idx[b - 1]]); b--) {
			size_t t = idx[b];

			idx[b] = idx[b - 1];
			idx[b - 1] = t;
		}
	for (size_t g = 0; g < m; g++) {
		xs[g] = x[idx[g]];
		ns[g] = n[idx[g]];
	}
}

int decide(const double *const *x, const size_t *n, size_t k,
	   const struct decide_cost *cost, const struct decide_params *p,
	   struct decision *out)
{
	const double **xs = NULL;
	size_t *ns = NULL, *idx = NULL, m = 0;
	struct stats_indiff ind;
	struct stats_summary sum;
	int ret = -1;

	if (alloc_decision(out, k))
		return -1;
	xs = malloc((k ? k : 1) * sizeof(*xs));
	ns = malloc((k ? k : 1) * sizeof(*ns));
	idx = malloc((k ? k : 1) * sizeof(*idx));
	if (!xs || !ns || !idx)
		goto out;
	for (size_t i = 0; i < k; i++) {
		if (!n[i])
			continue;
		if (stats_median(x[i], n[i], &out->median[i]))
			goto out;
		out->launches += n[i];
	}
	screen(x, n, k, p, out);
	for (size_t i = 0; i < k; i++) {
		if (!n[i])
			continue;
		if (out->screened[i]) {
			out->status[i] = STATS_WORSE;
			continue;
		}
		xs[m] = x[i];
		ns[m] = n[i];
		idx[m++] = i;
	}
	if (!m) {
		ret = 0;
		goto out;
	}
	sort_by_cost(idx, m, cost, x, n, xs, ns);
	if (stats_indifference(xs, ns, m, p->lower_is_better, p->alpha, p->delta, &ind))
		goto out;
	fill_from_indiff(out, &ind, idx, m, x, n, p);
	stats_indiff_free(&ind);
	if (stats_summarize(x[out->leader], n[out->leader], p->conf, p->seed, &sum))
		goto out;
	out->ci_lo = sum.ci_lo;
	out->ci_hi = sum.ci_hi;
	out->ci_exact = sum.ci_exact_possible;
	stats_summary_free(&sum);
	/* Not yet shown worse is not shown equal: the choice is the cheapest
	 * of the leader and the members shown equivalent to it (TIE). */
	for (size_t i = 0; i < k; i++)
		if (out->member[i] && ((long)i == out->leader || out->status[i] == STATS_TIE) &&
		    (out->choice < 0 || better_choice(out, cost, p, i, (size_t)out->choice)))
			out->choice = (long)i;
	ret = 0;
out:
	free(xs);
	free(ns);
	free(idx);
	if (ret)
		decision_release(out);
	return ret;
}
