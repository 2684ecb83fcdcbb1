/*
 * tuner/decide/pooled.h: the machine's noise, pooled over every configuration of
 * a decision, and the comparisons it allows on a few launches each.
 *
 * The model: the log of a launch's value is the configuration's level plus
 * the machine's noise, one normal spread sigma shared by every
 * configuration (noise is multiplicative, so CV, not points, is what the
 * configurations share). With it, a configuration measured 2-3 times can
 * be compared with the leader, since the spread is estimated from all of
 * them together, with sum(n_i - 1) degrees of freedom.
 *
 * - Outlier launches (robustness): residuals from each configuration's
 *   median (the middle launch of an odd count left out, it is 0 by
 *   construction), their pooled MAD, and a modified z-score 0.6745 r / MAD
 *   beyond STATS_MADZ_LIMIT (3.5, Iglewicz & Hoaglin) flags a launch, in
 *   configurations of four launches or more (of two or three the outlier
 *   cannot be told: flagging there, measured, made Gupta's subset cover
 *   the best in only 92-93% of equal-configuration replays). Flagged launches are left out of the means and sigma.
 * - sigma: the pooled standard deviation of the launches kept around their
 *   configuration's mean, df = sum(n_i - 1); every standard error uses the
 *   moderated variances (POOLED_PRIOR_DF below).
 * - The checks of the model (each at POOLED_CHECK_ALPHA; any failing one
 *   makes the caller fall back to the rank test, see decide.h):
 *     heterogeneous noise: Brown-Forsythe (one-way ANOVA of |y - median|
 *       over the configurations of two launches or more, F distribution);
 *     heavy tails: more than POOLED_OUTLIER_FRAC of the launches flagged;
 *     drift: a Mann-Kendall trend test of each configuration's launches in
 *       the order they were made, stratified (S summed over the
 *       configurations, its null variance too), normal approximation;
 *       each configuration's first launch left out (the one a search
 *       selected it on: regression to the mean after it is no drift).
 * - Many-to-one critical values (Dunnett 1955): for m comparisons with a
 *   control whose statistics T_i = (ybar_i - ybar_c) / (s sqrt(1/n_i +
 *   1/n_c)) have the product correlation lambda_i lambda_j, lambda_i =
 *   sqrt(n_i / (n_i + n_c)), P(T_i <= d for all i) is
 *     int_0^inf f_nu(s) int phi(z) prod_i Phi((d s + lambda_i z) /
 *                                             sqrt(1 - lambda_i^2)) dz ds
 *   with f_nu the density of sqrt(chi2_nu / nu) (two-sided: the product of
 *   Phi(a) - Phi(b) with -d s in b). Both integrals by Simpson's rule; d by
 *   bisection; computed, not read from a table.
 * - Gupta's subset selection (Gupta 1965; unequal n as Gupta & Huang): i
 *   is in the subset when ybar_i >= ybar_j - d_i s sqrt(1/n_i + 1/n_j) for
 *   every j, d_i the one-sided critical value with i as the control at
 *   1 - alpha. The subset holds the best configuration with probability
 *   >= 1 - alpha whatever the levels.
 */
#ifndef SWEETSPOT_POOLED_H
#define SWEETSPOT_POOLED_H

#include <stddef.h>

/* The moderated variance (Smyth 2004's empirical-Bayes shrinkage, with a
 * fixed prior): configuration i's own variance s_i^2 shrunk towards the
 * pooled sigma^2 as (POOLED_PRIOR_DF sigma^2 + (n_i - 1) s_i^2) /
 * (POOLED_PRIOR_DF + n_i - 1); sigma^2 for one launch. Every standard
 * error uses it: under equal noise it is sigma^2 give or take, and a
 * configuration noisier than the rest (which the Brown-Forsythe check
 * cannot see on 2-3 launches) is judged at its own noise instead of
 * passing for significant at the machine's. */
#define POOLED_PRIOR_DF 2.0

/* Each check's level, and the most launches that may be flagged. */
#define POOLED_CHECK_ALPHA  0.05
#define POOLED_OUTLIER_FRAC 0.10
/* Fewer degrees of freedom than this: no pooled model. */
#define POOLED_MIN_DF	    2

enum pooled_check { POOLED_OK, POOLED_FEW_DF, POOLED_HETERO, POOLED_TAILS, POOLED_DRIFT };

struct pooled {
	size_t k;
	double sigma; /* pooled sd of log values; NAN when df = 0 */
	size_t df;
	size_t launches, flagged; /* used and flagged as outliers */
	double p_hetero, p_drift; /* the checks' p values (NAN: not computable) */
	enum pooled_check check;  /* the first failing check, or POOLED_OK */
	/* Per configuration, k entries, owned (pooled_release()). */
	double *mean; /* mean of the log values kept; NAN without */
	size_t *n;    /* launches kept */
	double *var;  /* moderated variance of one launch (below) */
	double *ss;   /* sum of squares of the log values kept about their mean */
};

/* The pooled noise of k configurations x[i][0..n[i]-1] (values > 0, in the
 * order launched). 0, or -1 on bad input (a value <= 0 or not finite). */
int pooled_fit(const double *const *x, const size_t *n, size_t k, struct pooled *out);
void pooled_release(struct pooled *p);

/* "pooled model holds", "too few degrees of freedom", "noise differs
 * between configurations", "heavy tails", "drift". */
const char *pooled_check_name(enum pooled_check c);

/* The many-to-one critical value d at level 1 - alpha for the comparisons
 * of m configurations of n_i[i] launches (m entries) with a control of nc
 * launches, df degrees of freedom of the pooled sd (0: known sigma), one-
 * or two-sided. Cached (the search asks for the same ones every round).
 * NAN on bad arguments. */
double pooled_dunnett(const size_t *n_i, size_t m, size_t nc, size_t df, double alpha,
		      int two_sided);

/* The standard error of mean[i] - mean[j] with the moderated variances. */
double pooled_se(const struct pooled *p, size_t i, size_t j);

/* The check of the leader a "best" would rest on: its own launches no
 * noisier than the others' (one-sided F test of its variance against the
 * pooled variance of the rest, at POOLED_CHECK_ALPHA). A configuration
 * that leads because it is noisy (a lucky launch) is the false winner the
 * pooled model makes where noise differs, and 2-4 launches each hide that
 * from the tests of the whole set. 1 when it passes (or cannot be told). */
int pooled_leader_ok(const struct pooled *p, size_t lead);

/* Welch's contrast of the leader lead with configuration i: the standard
 * error of mean[lead] - mean[i] with the leader's own variance (its sum of
 * squares over n - 1, not moderated: a configuration may lead by being
 * noisy, and only its own launches say how noisy) and i's moderated one;
 * Satterthwaite's degrees of freedom in *df (n - 1 for the leader's part,
 * the pooled df for i's). NAN (and *df NAN) when the leader has fewer than
 * two launches or i none. */
double pooled_welch_se(const struct pooled *p, size_t lead, size_t i, double *df);

/* Student's t: two-sided p of |T| >= t with df degrees of freedom. */
double pooled_t_p(double t, size_t df);
/* The upper one-sided t quantile: P(T > t) = p, df degrees of freedom
 * (0: normal). */
double pooled_t_upper(double p, size_t df);

/* Gupta's subset of the configurations with a mean (higher is better when
 * higher, else lower): in[i] = 1 for members (caller's array of k). d[i]
 * gets each configuration's critical value when d is not NULL. 0 or -1. */
int pooled_subset(const struct pooled *p, int higher, double alpha, int *in, double *d);

#endif
