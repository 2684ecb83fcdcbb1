/* tests/unit/stats-t.c: the statistics of tuner/decide/stats.c against values
 * worked out independently: by hand where the arithmetic is short, else
 * with exact fractions in python3 (fractions.Fraction, math.comb, and
 * itertools.combinations enumerating every split of the pooled sample for
 * the permutation tests; scipy is not installed here). Nothing random but
 * the seeded bootstrap. */
#include <math.h>
#include <string.h>

#include "tap.h"
#include "stats.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static int near(double got, double want, double tol)
{
	if (fabs(got - want) <= tol)
		return 1;
	diag("got %.17g, want %.17g", got, want);
	return 0;
}

static void test_quantiles(void)
{
	const double odd[] = { 5, 1, 4, 2, 3 };
	const double even[] = { 8, 2, 6, 4 };
	double orig[] = { 5, 1, 4, 2, 3 }, v;

	ok(stats_median(odd, N_OF(odd), &v) == 0 && v == 3, "median of 5 values");
	/* by hand: sorted 2 4 6 8, (4 + 6) / 2 */
	ok(stats_median(even, N_OF(even), &v) == 0 && v == 5, "median of 4 values");
	/* by hand, type 7: h = (4-1) * 0.25 = 0.75, 2 + 0.75 * (4 - 2) */
	ok(stats_quantile(even, N_OF(even), 0.25, &v) == 0 && v == 3.5, "quantile 0.25");
	/* h = 3 * 0.9 = 2.7: 6 + 0.7 * 2 */
	ok(stats_quantile(even, N_OF(even), 0.9, &v) == 0 && near(v, 7.4, 1e-12), "quantile 0.9");
	ok(stats_quantile(even, N_OF(even), 1, &v) == 0 && v == 8, "quantile 1 is the max");
	stats_median(orig, N_OF(orig), &v);
	ok(memcmp(orig, odd, sizeof(orig)) == 0, "the caller's array keeps its order");
	is_int(stats_median(odd, 0, &v), -1, "no samples: -1");
	is_int(stats_quantile(odd, N_OF(odd), 1.5, &v), -1, "p outside [0,1]: -1");
}

static void test_ranks(void)
{
	/* Coverage 1 - 2 sum_{i<j} C(n,i) / 2^n, exact fractions in python3:
	 * n=6: 31/32; n=10: 501/512; n=20: 125647/131072;
	 * n=50: 544463162459111/562949953421312 = 0.96716086...
	 * (Le Boudec's table: (1,6), (2,9), (6,15), (18,33)). */
	static const struct {
		size_t n, j, k;
		double cov;
	} t[] = {
		{ 6, 1, 6, 31.0 / 32 },
		{ 10, 2, 9, 501.0 / 512 },
		{ 20, 6, 15, 125647.0 / 131072 },
		{ 50, 18, 33, 544463162459111.0 / 562949953421312.0 },
	};
	size_t j, k;
	double cov;
	int r;

	for (size_t i = 0; i < N_OF(t); i++) {
		r = stats_median_ci_ranks(t[i].n, 0.95, &j, &k, &cov);

		ok(r == 1 && j == t[i].j && k == t[i].k && near(cov, t[i].cov, 1e-15),
		   "median CI ranks n=%zu: (%zu,%zu) coverage %.6f", t[i].n, j, k, cov);
	}
	/* n = 5: (min, max) misses only when all 5 fall on one side:
	 * 1 - 2/32 = 0.9375 < 0.95 */
	ok(stats_median_ci_ranks(5, 0.95, &j, &k, &cov) == 0 && j == 1 && k == 5 && cov == 0.9375,
	   "n=5 at 95%%: no pair, (1,5) at 0.9375");
	/* a large n takes the lgamma path; python3 with math.comb and exact
	 * fractions: (469, 532), coverage 0.9537088026395019 */
	r = stats_median_ci_ranks(1000, 0.95, &j, &k, &cov);
	ok(r == 1 && j == 469 && k == 532 && near(cov, 0.9537088026395019, 1e-9),
	   "n=1000: (%zu,%zu) coverage %.4f", j, k, cov);
}

static void test_summary(void)
{
	const double x[] = { 10, 11, 12, 13, 14, 15, 16, 17, 18, 100 };
	const double few[] = { 3, 1, 2, 5, 4 };
	struct stats_summary s, s2;
	int ok_sum = stats_summarize(x, N_OF(x), 0.95, 42, &s) == 0;

	ok(ok_sum, "summarize 10 samples");
	/* python3 statistics.mean / stdev: 22.6, 27.317881811492388 */
	ok(s.n == 10 && near(s.mean, 22.6, 1e-12) && near(s.sd, 27.317881811492388, 1e-9) &&
		   near(s.cv, 27.317881811492388 / 22.6, 1e-9),
	   "mean, sd, cv");
	/* by hand, type 7: q1 at h=2.25 is 12.25, q3 at h=6.75 is 16.75 */
	ok(s.min == 10 && s.max == 100 && s.median == 14.5 && s.q1 == 12.25 && s.q3 == 16.75 &&
		   s.iqr == 4.5,
	   "min, quartiles, max, IQR");
	/* |x - 14.5| sorted: .5 .5 1.5 1.5 2.5 2.5 3.5 3.5 4.5 85.5 */
	ok(s.mad == 2.5, "MAD");
	/* n=10 -> ranks (2,9): the 2nd and 9th smallest */
	ok(s.ci_exact_possible && s.ci_j == 2 && s.ci_k == 9 && s.ci_lo == 11 && s.ci_hi == 18 &&
		   near(s.ci_coverage, 501.0 / 512, 1e-15),
	   "order-statistic CI");
	/* 100 > q3 + 3 IQR = 30.25, and z = 0.6745 * 85.5 / 2.5 = 23.07 */
	ok(s.n_outliers == 1 && s.outlier[9] == 1 && s.outlier[0] == 0, "one outlier: 100");
	ok(!s.unstable, "1 outlier in 10 is not unstable");
	ok(s.boot_b == STATS_BOOT_B && s.boot_lo <= s.median && s.median <= s.boot_hi &&
		   s.boot_lo >= 10 && s.boot_hi <= 100,
	   "bootstrap CI [%g, %g] holds the median", s.boot_lo, s.boot_hi);
	ok(stats_summarize(x, N_OF(x), 0.95, 42, &s2) == 0 && s2.boot_lo == s.boot_lo &&
		   s2.boot_hi == s.boot_hi,
	   "bootstrap: same seed, same CI");
	stats_summary_free(&s2);
	{
		double lo1, hi1, lo2, hi2;

		ok(stats_bootstrap_median_ci(x, N_OF(x), 0.95, 500, 7, &lo1, &hi1) == 0 &&
			   stats_bootstrap_median_ci(x, N_OF(x), 0.95, 500, 7, &lo2, &hi2) == 0 &&
			   lo1 == lo2 && hi1 == hi2 && lo1 <= hi1,
		   "bootstrap with B=500 repeats");
	}
	stats_summary_free(&s);
	ok(s.outlier == NULL, "summary_free clears the flags");

	/* n = 5 at 95%: too few launches for an order-statistic CI */
	ok(stats_summarize(few, N_OF(few), 0.95, 1, &s) == 0 && !s.ci_exact_possible &&
		   s.ci_lo == 1 && s.ci_hi == 5 && s.ci_coverage == 0.9375,
	   "5 samples: (min, max), flagged, coverage 0.9375");
	stats_summary_free(&s);
	/* n = 1: everything is that value, sd 0 */
	ok(stats_summarize(few, 1, 0.95, 1, &s) == 0 && s.median == 3 && s.sd == 0 &&
		   s.boot_lo == 3 && s.boot_hi == 3 && s.ci_coverage == 0 && s.n_outliers == 0,
	   "one sample");
	stats_summary_free(&s);
}

static void test_outliers(void)
{
	/* by hand: q1 = 11.25, q3 = 15.75, fences -2.25 and 29.25; -100, 200
	 * and 300 are out: 3 of 10 > 20% */
	const double wild[] = { -100, 10, 11, 12, 13, 14, 15, 16, 200, 300 };
	/* q1 = q3 = 5, IQR 0: Tukey flags the 6; MAD = 0 skips the z test */
	const double flat[] = { 5, 5, 5, 5, 5, 6, 5, 5, 5, 5 };
	int flags[10];
	size_t c;
	struct stats_summary s;

	ok(stats_outliers(wild, N_OF(wild), flags, &c) == 0 && c == 3 && flags[0] && flags[8] &&
		   flags[9] && !flags[1] && !flags[7],
	   "Tukey flags both sides");
	ok(stats_summarize(wild, N_OF(wild), 0.95, 3, &s) == 0 && s.unstable && s.n_outliers == 3 &&
		   s.n == 10,
	   "3 outliers in 10: unstable, none dropped");
	stats_summary_free(&s);
	ok(stats_outliers(flat, N_OF(flat), flags, &c) == 0 && c == 1 && flags[5],
	   "IQR 0: the odd value is flagged");
}

static void test_mann_whitney(void)
{
	const double a3[] = { 1, 2, 3 }, b3[] = { 4, 5, 6 };
	const double a5[] = { 1, 2, 3, 4, 5 }, b5[] = { 6, 7, 8, 9, 10 };
	/* python3, all C(9,4) = 126 splits with mid-ranks: U = 2.5, p = 1/9 */
	const double ta[] = { 1, 2, 2, 3 }, tb[] = { 2, 3, 4, 5, 5 };
	/* all C(11,5) = 462 splits: U = 3.5, p = 10/231 */
	const double ua[] = { 3.5, 1, 4, 4, 2 }, ub[] = { 4, 6, 5, 3.5, 7, 8 };
	/* i*7 mod 23 and j*5 mod 19 + 3, i, j < 30; python3 with pair counts,
	 * tie-corrected variance, continuity, math.erfc: U = 432.5,
	 * p = 0.8013386341535669 */
	double na[30], nb[30];
	struct stats_mw mw;
	int r;

	for (int i = 0; i < 30; i++) {
		na[i] = (i * 7) % 23;
		nb[i] = (i * 5) % 19 + 3;
	}
	/* by hand: only 1 of the C(6,3) = 20 splits has U = 0, p = 2/20 */
	ok(stats_mann_whitney(a3, 3, b3, 3, &mw) == 0 && mw.u == 0 && mw.exact &&
		   near(mw.p, 0.1, 1e-15),
	   "3 vs 3 separated: U 0, p 0.1");
	/* by hand: 2 / C(10,5) = 2/252 */
	ok(stats_mann_whitney(a5, 5, b5, 5, &mw) == 0 && mw.u == 0 && near(mw.p, 2.0 / 252, 1e-15),
	   "5 vs 5 separated: p 2/252");
	ok(stats_mann_whitney(b5, 5, a5, 5, &mw) == 0 && mw.u == 25 && near(mw.p, 2.0 / 252, 1e-15),
	   "swapped: U 25, same p");
	ok(stats_mann_whitney(ta, 4, tb, 5, &mw) == 0 && mw.exact && mw.ties && mw.u == 2.5 &&
		   near(mw.p, 1.0 / 9, 1e-15),
	   "ties, exact: U 2.5, p 1/9");
	ok(stats_mann_whitney(ua, 5, ub, 6, &mw) == 0 && mw.exact && mw.u == 3.5 &&
		   near(mw.p, 10.0 / 231, 1e-15),
	   "ties, exact: U 3.5, p 10/231");
	r = stats_mann_whitney(na, 30, nb, 30, &mw);
	ok(r == 0 && !mw.exact && mw.u == 432.5 && near(mw.p, 0.8013386341535669, 1e-12),
	   "30 vs 30: normal, p %.6f", mw.p);
	ok(stats_mann_whitney(na, 20, nb, 20, &mw) == 0 && mw.exact, "20 vs 20 is exact");
	ok(stats_mann_whitney(na, 21, nb, 20, &mw) == 0 && !mw.exact, "21 vs 20 is not");
	ok(stats_mann_whitney(a3, 3, a3, 3, &mw) == 0 && mw.p == 1, "same sample: p 1");
	is_int(stats_mann_whitney(a3, 0, b3, 3, &mw), -1, "empty sample: -1");
}

static void test_hodges_lehmann(void)
{
	/* python3: the 25 differences sorted; at 95% the exact null of U for
	 * 5 vs 5 gives k = 3 (P(U <= 2) = 4/252, coverage 61/63): median 4,
	 * 3rd smallest 0, 3rd largest 8 */
	const double a[] = { 12, 15, 11, 18, 14 }, b[] = { 10, 9, 13, 8, 11 };
	const double a3[] = { 1, 2, 3 }, b3[] = { 4, 5, 6 };
	double na[30], nb[30], est, lo, hi;

	for (int i = 0; i < 30; i++) {
		na[i] = (i * 7) % 23;
		nb[i] = (i * 5) % 19 + 3;
	}
	ok(stats_hodges_lehmann(a, 5, b, 5, 0.95, &est, &lo, &hi) == 0 && est == 4 && lo == 0 &&
		   hi == 8,
	   "HL 5 vs 5: 4 in [0, 8]");
	/* 3 vs 3: P(U <= 0) = 1/20, so 95% needs k = 0 but 90% has k = 1;
	 * differences -5..-1, median -3 (by hand) */
	ok(stats_hodges_lehmann(a3, 3, b3, 3, 0.95, &est, &lo, &hi) == 0 && est == -3 &&
		   isinf(lo) && lo < 0 && isinf(hi) && hi > 0,
	   "HL 3 vs 3 at 95%%: no finite CI");
	ok(stats_hodges_lehmann(a3, 3, b3, 3, 0.90, &est, &lo, &hi) == 0 && lo == -5 && hi == -1,
	   "HL 3 vs 3 at 90%%: [-5, -1]");
	/* python3: k = floor(450 + 0.5 - z * sqrt(900 * 61 / 12)) = 317 with
	 * z from statistics.NormalDist; the 900 differences sorted: median 0,
	 * 317th -4, 584th 3 */
	ok(stats_hodges_lehmann(na, 30, nb, 30, 0.95, &est, &lo, &hi) == 0 && est == 0 &&
		   lo == -4 && hi == 3,
	   "HL 30 vs 30, normal k: 0 in [-4, 3]");
}

static void test_holm(void)
{
	/* by hand: sorted .005 .01 .03 .04 times 4 3 2 1 = .02 .03 .06 .04,
	 * running max .02 .03 .06 .06 */
	const double p[] = { 0.01, 0.04, 0.03, 0.005 };
	double adj[4];
	int rej[4];

	ok(stats_holm_adjust(p, 4, adj) == 0 && near(adj[0], 0.03, 1e-15) &&
		   near(adj[1], 0.06, 1e-15) && near(adj[2], 0.06, 1e-15) &&
		   near(adj[3], 0.02, 1e-15),
	   "Holm adjusted p");
	is_int(stats_holm(p, 4, 0.05, rej), 2, "Holm rejects two at 0.05");
	ok(rej[0] && !rej[1] && !rej[2] && rej[3], "the two smallest");
	is_int(stats_holm(p, 4, 0.07, rej), 4, "all four at 0.07");
}

static void test_compare(void)
{
	const double fast[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	const double slow[] = { 21, 22, 23, 24, 25, 26, 27, 28, 29, 30 };
	const double t1[] = {
		100.0, 100.1, 100.2, 100.3, 100.4, 100.5, 100.6, 100.7, 100.8, 100.9
	};
	const double t2[] = { 100.05, 100.15, 100.25, 100.35, 100.45,
			      100.55, 100.65, 100.75, 100.85, 100.95 };
	const double a3[] = { 1, 2, 3 }, b3[] = { 4, 5, 6 };
	struct stats_cmp c;

	/* 10 vs 10 separated: p = 2 / C(20,10) = 1.0825e-5, shift -20 */
	ok(stats_compare(fast, 10, slow, 10, 0.05, 1, 1, &c) == 0 && c.verdict == STATS_BETTER &&
		   c.shift == -20 && c.p < 2e-5,
	   "fast beats slow");
	ok(stats_compare(slow, 10, fast, 10, 0.05, 1, 1, &c) == 0 && c.verdict == STATS_WORSE,
	   "slow loses to fast");
	ok(stats_compare(fast, 10, slow, 10, 0.05, 1, 0, &c) == 0 && c.verdict == STATS_WORSE,
	   "higher is better: fast is worse");
	/* significant, but 20 is below delta 25 and the CI within +-25 */
	ok(stats_compare(fast, 10, slow, 10, 0.05, 25, 1, &c) == 0 && c.verdict == STATS_TIE,
	   "a real but irrelevant difference is a tie");
	/* interleaved, shift ~0.05, CI within +-1 */
	ok(stats_compare(t1, 10, t2, 10, 0.05, 1, 1, &c) == 0 && c.verdict == STATS_TIE &&
		   c.p > 0.5 && c.ci_lo >= -1 && c.ci_hi <= 1,
	   "interleaved: tie");
	/* p = 0.1 and no finite 95% CI from 3 vs 3 */
	ok(stats_compare(a3, 3, b3, 3, 0.05, 1, 1, &c) == 0 && c.verdict == STATS_UNDECIDED,
	   "3 vs 3: undecided");
	is_str(stats_verdict_name(c.verdict), "undecided", "verdict name");
	ok(stats_compare(t1, 10, t2, 10, 0.05, 0.01, 1, &c) == 0 && c.verdict == STATS_UNDECIDED,
	   "interleaved with a tiny delta: undecided");
}

static void test_indifference(void)
{
	const double g0[] = { 10.0, 10.1, 10.2, 10.3, 10.4, 10.5, 10.6, 10.7, 10.8, 10.9 };
	const double g1[] = {
		10.05, 10.15, 10.25, 10.35, 10.45, 10.55, 10.65, 10.75, 10.85, 10.95
	};
	const double g2[] = { 20.0, 20.1, 20.2, 20.3, 20.4, 20.5, 20.6, 20.7, 20.8, 20.9 };
	const double g3[] = { 15.0, 15.1, 15.2, 15.3, 15.4, 15.5, 15.6, 15.7, 15.8, 15.9 };
	const double few[] = { 10.6, 30, 5 }; /* median 10.6: not the leader */
	const double *x[3] = { g1, g0, g2 };
	size_t n[3] = { 10, 10, 10 };
	struct stats_indiff r;

	/* python3, all C(20,10) splits: p(g1 vs g0) = 68301/92378 =
	 * 0.7393643508194592; p(g2 vs g0) = 2/184756 = 1.0825e-5; Holm over
	 * the two: 0.7393643508194592 and 2.165017644893806e-05 */
	ok(stats_indifference(x, n, 3, 1, 0.05, 1, &r) == 0 && r.leader == 1, "leader g0");
	ok(r.member[0] && r.member[1] && !r.member[2], "g1 in the set, g2 out");
	ok(r.status[0] == STATS_TIE && r.status[1] == STATS_BETTER && r.status[2] == STATS_WORSE,
	   "statuses tie, leader, worse");
	ok(near(r.p_raw[0], 0.7393643508194592, 1e-12) && near(r.p_raw[2], 2.0 / 184756, 1e-15) &&
		   near(r.p_adj[0], 0.7393643508194592, 1e-12) &&
		   near(r.p_adj[2], 2.165017644893806e-05, 1e-15),
	   "raw and Holm p");
	ok(near(r.shift[2], 10, 1e-9) && r.ci_lo[2] > 9 && r.ci_hi[2] < 11, "g2 - g0 about 10");
	is_str(stats_verdict_name(r.verdict), "tie", "verdict: tie");
	stats_indiff_free(&r);

	x[0] = g3;
	ok(stats_indifference(x, n, 3, 1, 0.05, 1, &r) == 0 && r.verdict == STATS_BETTER &&
		   r.leader == 1 && !r.member[0] && !r.member[2],
	   "every other worse: best");
	stats_indiff_free(&r);

	x[0] = few;
	n[0] = 3;
	ok(stats_indifference(x, n, 3, 1, 0.05, 1, &r) == 0 && r.verdict == STATS_UNDECIDED &&
		   r.status[0] == STATS_UNDECIDED && r.member[0],
	   "3 launches: undecided, kept");
	stats_indiff_free(&r);

	/* higher is better: g2 leads, both others far below */
	x[0] = g1;
	n[0] = 10;
	ok(stats_indifference(x, n, 3, 0, 0.05, 1, &r) == 0 && r.leader == 2 &&
		   r.verdict == STATS_BETTER,
	   "higher is better: g2 best");
	stats_indiff_free(&r);
}

/* A permutation, the same for the same seed, another for another seed. */
static void test_shuffle(void)
{
	size_t a[20], b[20], c[20], seen = 0;

	stats_shuffle(a, 20, 42);
	stats_shuffle(b, 20, 42);
	stats_shuffle(c, 20, 43);
	for (size_t i = 0; i < 20; i++)
		seen |= (size_t)1 << a[i];
	ok(seen == ((size_t)1 << 20) - 1, "shuffle: a permutation of 0..19");
	ok(!memcmp(a, b, sizeof(a)) && memcmp(a, c, sizeof(a)),
	   "shuffle: same seed same order, another seed another");
}

int main(void)
{
	plan(67);
	test_shuffle();
	test_quantiles();
	test_ranks();
	test_summary();
	test_outliers();
	test_mann_whitney();
	test_hodges_lehmann();
	test_holm();
	test_compare();
	test_indifference();
	return done_testing();
}
