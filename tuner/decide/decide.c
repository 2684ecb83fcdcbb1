/*
 * tuner/decide/decide.c: the leader, the indifference set, the cheapest member and
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
	d->p_value = d->ci_lo = d->ci_hi = d->sigma = d->model.noise = NAN;
	d->more_a = d->more_b = -1;
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
static void fill_from_indiff(struct decision *d, const struct stats_indiff *ind, const size_t *idx,
			     size_t m, const double *const *x, const size_t *n,
			     const struct decide_params *p)
{
	struct stats_mw mw;
	double best = NAN;

	d->leader = (long)idx[ind->leader];
	for (size_t i = 0; i < d->k; i++) {
		/* The runner-up among every configuration measured, screened too. */
		if ((long)i == d->leader || isnan(d->median[i]))
			continue;
		if (d->runner_up < 0 ||
		    (p->lower_is_better ? d->median[i] < best : d->median[i] > best)) {
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
		     ind->verdict == STATS_TIE	  ? DECIDE_TIE :
						    DECIDE_UNDECIDED;
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
static void screen(const double *const *x, const size_t *n, size_t k, const struct decide_params *p,
		   struct decision *out)
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
		if (n[i] && (lead < 0 ||
			     (p->lower_is_better ? out->median[i] < lm : out->median[i] > lm))) {
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
		reach = p->delta +
			p->screen_z * sigma * sqrt(1.0 / (double)n[i] + 1.0 / (double)n[lead]);
		if (gap > reach)
			out->screened[i] = 1;
	}
}

/* delta (the samples' units) as a gap of log values at the leader's level
 * lv: what the leader loses when it is worse by delta. */
static double delta_log(double lv, double delta, int lower)
{
	if (lower)
		return log((lv + delta) / lv);
	return lv > delta ? log(lv / (lv - delta)) : INFINITY;
}

/* How many launches each of the leader and configuration i would need
 * for the pair to be told apart (gap >= delta) or shown equal (gap <
 * delta) at the pooled noise, their means staying where they are. */
static double launches_needed(double gap, double dl, double s, double d1, double d2)
{
	double n;

	if (gap >= dl)
		n = 2 * (d1 * s / gap) * (d1 * s / gap);
	else
		n = 2 * (d2 * s / (dl - gap)) * (d2 * s / (dl - gap));
	return fmin(ceil(n), 1e5);
}

/* The one-sided many-to-one critical value for Welch's contrasts with the
 * leader L (pooled_welch_se()): Dunnett's, at the fewest Satterthwaite
 * degrees of freedom of any of them (Dunnett's T3 takes each contrast's
 * own; the fewest is the conservative side of it). NAN when the leader
 * has no spread of its own. */
static double welch_dunnett(const struct pooled *pm, const size_t *order, size_t m, size_t L,
			    const size_t *others, size_t no, double alpha)
{
	double nu = INFINITY, df;

	for (size_t g = 0; g < m; g++)
		if (order[g] != L && !isnan(pooled_welch_se(pm, L, order[g], &df)))
			nu = fmin(nu, df);
	if (!no || !isfinite(nu))
		return NAN;
	return pooled_dunnett(others, no, pm->n[L], (size_t)fmax(1, floor(nu)), alpha, 0);
}

/* Whether configuration i is shown worse than the leader L by gap (log
 * values, dl the practical threshold): out of Gupta's subset (in_subset
 * 0), and beyond dw Welch standard errors too, so that the leader's noise
 * is its own, not the others' it may lead by being noisier than. */
static int shown_worse(const struct pooled *pm, size_t i, size_t L, int in_subset, double gap,
		       double dl, double dw)
{
	double df;

	if (in_subset || !(gap >= dl && gap > 0))
		return 0;
	return gap > dw * pooled_welch_se(pm, L, i, &df);
}

/* The pooled decision (pooled.h) over the configurations in order[0..m-1]
 * (cheapest first, so that a tie of means goes to the cheaper): leader =
 * best mean of log values; WORSE = shown_worse(); TIE = the two-sided
 * many-to-one interval of the difference with the leader within +-delta;
 * else UNDECIDED. */
static int pooled_decide(const struct pooled *pm, const size_t *order, size_t m,
			 const struct decide_params *p, struct decision *out)
{
	int higher = !p->lower_is_better, *in = calloc(pm->k + 1, sizeof(int));
	size_t *others = calloc(pm->k + 1, sizeof(size_t)), no = 0, L;
	double dl, d2, dw, hard_n = 0, lead_n = 0;
	long lead = -1;
	int undecided = 0, tie = 0;

	if (!in || !others || pooled_subset(pm, higher, p->alpha, in, NULL)) {
		free(in);
		free(others);
		return -1;
	}
	for (size_t g = 0; g < m; g++) {
		size_t i = order[g];

		if (lead < 0 ||
		    (higher ? pm->mean[i] > pm->mean[lead] : pm->mean[i] < pm->mean[lead]))
			lead = (long)i;
	}
	L = (size_t)lead;
	out->leader = lead;
	for (size_t g = 0; g < m; g++)
		if (order[g] != L)
			others[no++] = pm->n[order[g]];
	d2 = no ? pooled_dunnett(others, no, pm->n[L], pm->df, p->alpha, 1) : 0;
	dw = welch_dunnett(pm, order, m, L, others, no, p->alpha);
	dl = delta_log(exp(pm->mean[L]), p->delta, p->lower_is_better);
	for (size_t g = 0; g < m; g++) {
		size_t i = order[g];
		double gap = higher ? pm->mean[L] - pm->mean[i] : pm->mean[i] - pm->mean[L];
		double se = pooled_se(pm, i, L);
		double t = gap / se;

		if (i == L) {
			out->status[i] = STATS_BETTER;
			out->member[i] = 1;
			continue;
		}
		out->p_adj[i] = se > 0 ? pooled_t_p(t, pm->df) : gap != 0 ? 0 : 1;
		if (shown_worse(pm, i, L, in[i], gap, dl, dw))
			out->status[i] = STATS_WORSE;
		else if (fabs(gap) + d2 * se <= dl)
			out->status[i] = STATS_TIE;
		else
			out->status[i] = STATS_UNDECIDED;
		out->member[i] = out->status[i] != STATS_WORSE;
		out->nmembers += (size_t)out->member[i];
		tie |= out->status[i] == STATS_TIE;
		if (out->status[i] == STATS_UNDECIDED) {
			double n1 = pooled_dunnett(others, no, pm->n[L], pm->df, p->alpha, 0);
			double need = launches_needed(fabs(gap), dl,
						      sqrt((pm->var[i] + pm->var[L]) / 2), n1, d2);
			unsigned more_i = need > (double)pm->n[i] ?
						  (unsigned)(need - (double)pm->n[i]) :
						  1;

			undecided = 1;
			out->model.more_launches += more_i;
			lead_n = fmax(lead_n, need);
			if (need > hard_n || out->more_b < 0) {
				hard_n = need;
				out->more_b = (long)i;
				out->more_equal = gap < dl;
			}
		}
	}
	out->nmembers++;
	if (undecided) {
		out->more_a = lead;
		out->model.more_launches += lead_n > (double)pm->n[L] ?
						    (unsigned)(lead_n - (double)pm->n[L]) :
						    1;
	}
	out->verdict = undecided ? DECIDE_UNDECIDED : tie ? DECIDE_TIE : DECIDE_BEST;
	for (size_t g = 0; g < m; g++) {
		size_t i = order[g];

		if (i != L &&
		    (out->runner_up < 0 || (higher ? pm->mean[i] > pm->mean[out->runner_up] :
						     pm->mean[i] < pm->mean[out->runner_up])))
			out->runner_up = (long)i;
	}
	if (out->runner_up >= 0)
		out->p_value = out->p_adj[out->runner_up];
	free(in);
	free(others);
	return 0;
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

/* The rank rule's floor of more_launches (decide.h): the least n at which
 * n against n launches can reach alpha / m, and what the leader and the
 * undecided configurations lack of it. */
static void rank_floor(const size_t *n, size_t k, const struct decide_params *p,
		       struct decision *out)
{
	size_t m = 0, need = 1;
	double c = 2; /* C(2n, n) for n = need */

	for (size_t i = 0; i < k; i++)
		m += n[i] && (long)i != out->leader;
	if (!m || out->verdict != DECIDE_UNDECIDED)
		return;
	while (2 / c > p->alpha / (double)m && need < 1000) {
		need++;
		c *= (2.0 * need) * (2.0 * need - 1) / ((double)need * need);
	}
	for (size_t i = 0; i < k; i++)
		if (n[i] && ((long)i == out->leader || out->status[i] == STATS_UNDECIDED) &&
		    n[i] < need)
			out->model.more_launches += (unsigned)(need - n[i]);
	out->more_a = out->leader;
	out->more_b = out->runner_up;
	out->model.more_floor = out->model.more_launches > 0;
}

/* Whether every sample is positive (the log scale needs it). */
static int all_positive(const double *const *x, const size_t *n, size_t k)
{
	for (size_t i = 0; i < k; i++)
		for (size_t j = 0; j < n[i]; j++)
			if (!(x[i][j] > 0))
				return 0;
	return 1;
}

/* The rank rule (the pooled model's fallback): the screen, then
 * Mann-Whitney against the leader under Holm (stats_indifference()). The
 * screen is a pooled-sd rule itself: when the pooled model was refuted
 * (noise differing between configurations, heavy tails, drift: with_screen
 * 0) it is left out too, and the decision is the rank tests' alone. */
static int rank_decide(const double *const *x, const size_t *n, size_t k,
		       const struct decide_cost *cost, const struct decide_params *p,
		       int with_screen, const double **xs, size_t *ns, size_t *idx,
		       struct decision *out)
{
	struct stats_indiff ind;
	size_t m = 0;

	if (with_screen)
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
	if (!m)
		return 0;
	sort_by_cost(idx, m, cost, x, n, xs, ns);
	if (stats_indifference(xs, ns, m, p->lower_is_better, p->alpha, p->delta, &ind))
		return -1;
	fill_from_indiff(out, &ind, idx, m, x, n, p);
	stats_indiff_free(&ind);
	return 0;
}

int decide(const double *const *x, const size_t *n, size_t k, const struct decide_cost *cost,
	   const struct decide_params *p, struct decision *out)
{
	const double **xs = NULL;
	size_t *ns = NULL, *idx = NULL, m = 0;
	struct stats_summary sum;
	struct pooled pm = { 0 };
	struct decide_params q;
	int ret = -1, have_pm = 0;

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
		xs[m] = x[i];
		ns[m] = n[i];
		idx[m++] = i;
	}
	if (!m) {
		ret = 0;
		goto out;
	}
	if (p->delta_rel > 0) {
		double best = out->median[idx[0]];

		for (size_t g = 1; g < m; g++)
			best = p->lower_is_better ? fmin(best, out->median[idx[g]]) :
						    fmax(best, out->median[idx[g]]);
		q = *p;
		q.delta = fmax(p->delta, p->delta_rel * fabs(best));
		p = &q;
	}
	out->model.check = POOLED_FEW_DF;
	if (all_positive(x, n, k)) {
		if (pooled_fit(x, n, k, &pm))
			goto out;
		have_pm = 1;
		out->model.check = pm.check;
		out->model.noise = pm.sigma;
		out->model.df = (unsigned)pm.df;
		out->flagged = pm.flagged;
	}
	if (have_pm && pm.check == POOLED_OK) {
		size_t lead = idx[0];

		for (size_t g = 1; g < m; g++)
			if (p->lower_is_better ? pm.mean[idx[g]] < pm.mean[lead] :
						 pm.mean[idx[g]] > pm.mean[lead])
				lead = idx[g];
		if (!pooled_leader_ok(&pm, lead))
			out->model.check = pm.check = POOLED_HETERO;
	}
	if (have_pm && pm.check == POOLED_OK) {
		out->model.pooled = 1;
		sort_by_cost(idx, m, cost, x, n, xs, ns);
		if (pooled_decide(&pm, idx, m, p, out))
			goto out;
	} else if (rank_decide(x, n, k, cost, p, out->model.check == POOLED_FEW_DF, xs, ns, idx,
			       out)) {
		goto out;
	} else {
		rank_floor(n, k, p, out);
	}
	if (out->leader < 0) {
		ret = 0;
		goto out;
	}
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
	if (have_pm)
		pooled_release(&pm);
	free(xs);
	free(ns);
	free(idx);
	if (ret)
		decision_release(out);
	return ret;
}
