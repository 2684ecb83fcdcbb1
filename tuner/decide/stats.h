/*
 * tuner/decide/stats.h: the statistics that decide whether one benchmark
 * configuration beats another: robust summaries of one sample (one value
 * per launch), confidence intervals of the median, outlier flags, the
 * Mann-Whitney test, the Hodges-Lehmann shift, Holm's correction, and two
 * verdict helpers built on them. Plain C11, libc and libm only; this header
 * includes standard headers only, so the module can move between folders.
 *
 * Definitions and conventions (following Hoefler & Belli, "Scientific
 * Benchmarking of Parallel Computing Systems", SC'15: report medians with
 * nonparametric confidence intervals, compare with rank tests, never drop
 * outliers):
 *
 * - Quantiles are type 7 (Hyndman & Fan; R's and NumPy's default): for
 *   sorted x[0..n-1], h = (n-1)p and Q(p) = x[floor h] + (h - floor h) *
 *   (x[floor h + 1] - x[floor h]). The median is Q(0.5), q1 = Q(0.25),
 *   q3 = Q(0.75), IQR = q3 - q1. sd uses n-1 (0 when n = 1); CV = sd/mean.
 * - Median CI from order statistics (Le Boudec, "Performance Evaluation of
 *   Computer and Communication Systems", ch. 2): the number of samples
 *   below the true median is binomial(n, 1/2), so (x(j), x(k)) with
 *   k = n+1-j (1-based ranks) covers it with probability
 *   1 - 2 P(B <= j-1). We take the largest j whose coverage is >= conf,
 *   computed with exact integers for n <= 60 (lgamma beyond). At 95% no
 *   pair exists for n <= 5: the CI is then (min, max) and flagged.
 * - Bootstrap CI of the median: percentile method, B resamples with
 *   replacement, xoshiro256** seeded through splitmix64 (same seed, same
 *   interval on every machine).
 * - Outliers are flagged, never dropped: Tukey's far fences (x < q1 - 3 IQR
 *   or x > q3 + 3 IQR) or a modified z-score 0.6745 (x - median) / MAD
 *   beyond STATS_MADZ_LIMIT in absolute value (Iglewicz & Hoaglin; skipped
 *   when MAD = 0). "Unstable" means more than 20% of the samples flagged.
 * - Mann-Whitney U (Mann & Whitney 1947) for sample a against b: U = the
 *   number of pairs with a_i > b_j plus half the pairs with a_i == b_j,
 *   i.e. R_a - n(n+1)/2 with R_a the mid-rank sum of a in the pooled
 *   sample. Large U: a tends to be larger. The two-sided p is
 *   min(1, 2 min(P(S <= s), P(S >= s))) with S the rank sum. When n <= 20
 *   and m <= 20 it is exact: the permutation distribution of the rank sum
 *   over all C(n+m, n) splits, counted by dynamic programming over the
 *   pooled mid-ranks doubled to integers, so ties are handled exactly too.
 *   Beyond, the normal approximation with tie correction and continuity
 *   correction: sd^2 = nm/12 (N+1 - sum(t^3-t)/(N(N-1))), z = (|U - nm/2|
 *   - 1/2)/sd.
 * - Hodges-Lehmann shift of a against b (Hodges & Lehmann 1963): the median
 *   of the n*m differences a_i - b_j. Its distribution-free CI is
 *   (d(k), d(nm+1-k)), the k-th smallest and k-th largest difference, with
 *   k the largest integer such that 2 P(U <= k-1) <= 1 - conf under the
 *   null distribution of U without ties (exact for n, m <= 20, normal
 *   beyond). When no k >= 1 qualifies the CI is (-inf, +inf).
 * - Holm's step-down correction (Holm 1979, "A simple sequentially
 *   rejective multiple test procedure"): with p sorted ascending, adjusted
 *   p(i) = max over r <= i of min(1, (k - r + 1) p(r)); reject when the
 *   adjusted p <= alpha.
 *
 * Every function leaves its inputs alone (sorting happens on copies) and
 * returns 0 (or a count) on success, -1 on bad arguments (empty samples,
 * NaN or infinite values, levels outside (0,1)) or when malloc fails.
 */
#ifndef SWEETSPOT_STATS_H
#define SWEETSPOT_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Resamples of the bootstrap in stats_summarize(). */
#define STATS_BOOT_B	 2000
/* Modified z-score limit for the MAD test: Iglewicz & Hoaglin's 3.5 (the
 * statistics issue's decision 3). The pooled noise model (pooled.h) flags
 * launches with it too. */
#define STATS_MADZ_LIMIT 3.5

/* The type-7 quantile p (0 <= p <= 1) of x[0..n-1] in *out. 0 or -1. */
int stats_quantile(const double *x, size_t n, double p, double *out);
/* The median (type 7, the mean of the two middle values when n is even). */
int stats_median(const double *x, size_t n, double *out);

/* The symmetric order statistics (j, k = n+1-j, 1-based) of Le Boudec's
 * median CI at level conf, and their exact coverage. Returns 1 when a pair
 * reaches conf, 0 when none does (then j = 1, k = n and *coverage is that
 * of (min, max), 0 for n = 1), -1 on bad arguments. */
int stats_median_ci_ranks(size_t n, double conf, size_t *j, size_t *k, double *coverage);

/* Percentile-bootstrap CI of the median at level conf from b resamples,
 * deterministic for a given seed. 0 or -1. */
int stats_bootstrap_median_ci(const double *x, size_t n, double conf, unsigned b, uint64_t seed,
			      double *lo, double *hi);

/* idx[0..n-1] = 0..n-1 in a random order (Fisher-Yates), the same for
 * the same seed on every machine: launches interleaved in a seeded order,
 * so a drift of the machine is not taken for a difference. */
void stats_shuffle(size_t *idx, size_t n, uint64_t seed);

/* Sets flags[i] (caller's array of n ints) to 1 when x[i] is an outlier by
 * either test above, else 0, and *count to the number flagged. 0 or -1. */
int stats_outliers(const double *x, size_t n, int *flags, size_t *count);

struct stats_summary {
	size_t n;
	double mean, sd, cv; /* cv is NaN when the mean is 0 */
	double min, q1, median, q3, max, iqr;
	double mad; /* median of |x - median|, unscaled */

	/* Le Boudec's CI of the median: x(ci_j), x(ci_k), 1-based ranks. */
	double conf;
	size_t ci_j, ci_k;
	double ci_lo, ci_hi;
	double ci_coverage;    /* achieved, >= conf when ci_exact_possible */
	int ci_exact_possible; /* 0: too few launches for conf; (min, max) */

	/* Percentile bootstrap CI of the median (STATS_BOOT_B resamples). */
	unsigned boot_b;
	double boot_lo, boot_hi;

	int *outlier; /* n flags; owned, stats_summary_free() */
	size_t n_outliers;
	int unstable; /* n_outliers > 20% of n */
};

/* Fills *out for x[0..n-1]: CIs at level conf, bootstrap seeded by seed.
 * out->outlier is malloc'd here and released by stats_summary_free().
 * 0, or -1 (then nothing is left to free). */
int stats_summarize(const double *x, size_t n, double conf, uint64_t seed,
		    struct stats_summary *out);
void stats_summary_free(struct stats_summary *s);

struct stats_mw {
	size_t n, m;
	double u;  /* U of a: #(a_i > b_j) + #(a_i == b_j)/2; U of b = nm - u */
	double z;  /* (U - nm/2) / sd, tie-corrected, no continuity; 0 if sd = 0 */
	double p;  /* two-sided */
	int exact; /* 1: exact permutation p; 0: normal approximation */
	int ties;  /* 1 when the pooled sample holds ties */
};

/* Two-sided Mann-Whitney test of a[0..n-1] against b[0..m-1]. 0 or -1. */
int stats_mann_whitney(const double *a, size_t n, const double *b, size_t m, struct stats_mw *out);

/* Hodges-Lehmann shift of a against b (positive: a larger) in *est and its
 * CI at level conf in *lo, *hi (infinite when the samples are too small for
 * conf). Memory O(n + m): the n*m differences are never stored. 0 or -1. */
int stats_hodges_lehmann(const double *a, size_t n, const double *b, size_t m, double conf,
			 double *est, double *lo, double *hi);

/* Holm-adjusted p-values of p[0..k-1] into adj[0..k-1] (caller's). 0 or -1. */
int stats_holm_adjust(const double *p, size_t k, double *adj);
/* reject[i] (caller's array of k ints) = 1 when Holm rejects hypothesis i at
 * family-wise level alpha. Returns the number rejected, or -1. */
int stats_holm(const double *p, size_t k, double alpha, int *reject);

enum stats_verdict {
	STATS_BETTER,
	STATS_WORSE,
	STATS_TIE,
	STATS_UNDECIDED,
};

/* "better", "worse", "tie", "undecided": a static string. */
const char *stats_verdict_name(enum stats_verdict v);

struct stats_cmp {
	enum stats_verdict verdict; /* of a against b */
	double u, p;		    /* Mann-Whitney, two-sided */
	int exact;
	double shift, ci_lo, ci_hi; /* Hodges-Lehmann a - b, CI at 1 - alpha */
};

/* Does a beat b? With gain = the HL shift a - b counted positive in a's
 * favour (-shift when lower_is_better): BETTER when p < alpha and gain >=
 * delta (and > 0); WORSE when p < alpha and -gain >= delta (and > 0); else
 * TIE when the CI of the shift lies within [-delta, +delta]; else
 * UNDECIDED. delta >= 0, in the samples' units. 0 or -1. */
int stats_compare(const double *a, size_t n, const double *b, size_t m, double alpha, double delta,
		  int lower_is_better, struct stats_cmp *out);

struct stats_indiff {
	size_t k;
	size_t leader;		    /* best median; lowest index on a tie */
	enum stats_verdict verdict; /* BETTER ("best"), TIE or UNDECIDED */
	/* Arrays of k, owned, released by stats_indiff_free(). Entry leader
	 * holds member 1, status BETTER, p 1, shift and CI 0. */
	int *member;		       /* 1: in the indifference set */
	enum stats_verdict *status;    /* WORSE, TIE or UNDECIDED vs leader */
	double *p_raw, *p_adj;	       /* two-sided MW, and Holm over k-1 */
	double *shift, *ci_lo, *ci_hi; /* HL of group - leader, CI 1 - alpha */
};

/* The indifference set of k groups x[g][0..n[g]-1]. The leader has the
 * best median (lowest when lower_is_better, else highest). Every other
 * group is compared with it by the two-sided Mann-Whitney test, the k-1 p
 * values Holm-corrected at alpha, and by the HL shift (group - leader) with
 * its CI at 1 - alpha. Group g's status: WORSE when Holm rejects and it is
 * worse than the leader by at least delta (and by more than 0); else TIE
 * when its shift CI lies within [-delta, +delta]; else UNDECIDED. A group is
 * a member unless it is WORSE. The verdict for the leader: BETTER ("best")
 * when every other group is WORSE (so also when k = 1); TIE when none is
 * UNDECIDED and at least one is TIE; UNDECIDED otherwise. The arrays of out
 * are malloc'd here; 0, or -1 (then nothing is left to free). */
int stats_indifference(const double *const *x, const size_t *n, size_t k, int lower_is_better,
		       double alpha, double delta, struct stats_indiff *out);
void stats_indiff_free(struct stats_indiff *r);

#endif
