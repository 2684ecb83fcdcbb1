/* tests/unit/pooled-t.c: the pooled noise model against known answers:
 * Dunnett's critical values as published (Dunnett 1955/1964 tables, one-
 * and two-sided, alpha 0.05) and Student's t quantiles they reduce to for
 * one comparison; the pooled sigma and its df on hand-made samples; an
 * outlier launch flagged and kept out; each check failing on data made to
 * fail it; Gupta's subset on separated and on equal groups, and its
 * coverage over 2000 seeded replays of 6 equal configurations; Welch's
 * contrast with the leader on hand-made samples, and its level where one
 * configuration is 8 times noisier than the other (where the pooled
 * contrast's is not). */
#include "tap.h"
#include "seeded.h"
#include "pooled.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static uint64_t state = 12345;

static double gauss(void)
{
	return seeded_gauss(&state);
}

static int near(double a, double b, double tol)
{
	return fabs(a - b) <= tol;
}

int main(void)
{
	size_t n4[5] = { 4, 4, 4, 4, 4 };
	struct pooled p;

	plan(21);
	/* Tables: m treatments, df, alpha 0.05. */
	ok(near(pooled_dunnett(n4, 2, 4, 0, 0.05, 0), 1.916, 0.002),
	   "one-sided, 2 vs control, df inf: 1.916");
	ok(near(pooled_dunnett(n4, 2, 4, 0, 0.05, 1), 2.212, 0.002), "two-sided, 2, df inf: 2.212");
	ok(near(pooled_dunnett(n4, 5, 4, 20, 0.05, 0), 2.39, 0.01), "one-sided, 5, df 20: 2.39");
	ok(near(pooled_dunnett(n4, 5, 4, 20, 0.05, 1), 2.73, 0.01), "two-sided, 5, df 20: 2.73");
	ok(near(pooled_dunnett(n4, 1, 4, 5, 0.05, 0), 2.015, 0.002),
	   "one comparison is t: 2.015 (df 5)");
	ok(near(pooled_dunnett(n4, 1, 4, 2, 0.05, 1), 4.303, 0.005), "two-sided t, df 2: 4.303");
	ok(near(pooled_t_p(2.228, 10), 0.05, 0.0005), "t 2.228 on 10 df: p 0.05");

	/* Two configurations, logs known: sd of log values pooled. */
	{
		double a[] = { 100, 110, 90 }, b[] = { 50, 55, 45 };
		const double *x[] = { a, b };
		size_t n[] = { 3, 3 };
		double va = 0, ma = (log(100) + log(110) + log(90)) / 3;

		ok(!pooled_fit(x, n, 2, &p), "fit");
		va = (pow(log(100) - ma, 2) + pow(log(110) - ma, 2) + pow(log(90) - ma, 2)) / 2;
		ok(p.df == 4 && near(p.sigma, sqrt(va), 1e-12),
		   "sigma pooled over both (same shape on the log scale), df 4");
		pooled_release(&p);
	}
	/* An outlier launch: flagged at modified z > 3.5, left out. */
	{
		double a[] = { 80, 80.4, 79.6, 80.2, 40 }, b[] = { 70, 70.3, 69.8, 70.1, 69.9 };
		const double *x[] = { a, b };
		size_t n[] = { 5, 5 };

		ok(!pooled_fit(x, n, 2, &p) && p.flagged == 1 && p.n[0] == 4,
		   "one launch at half the others is flagged and left out");
		pooled_release(&p);
	}
	/* Checks: noise differing by 20x, and a drift in every configuration. */
	{
		static double v[6][8];
		const double *x[6];
		size_t n[6];

		for (size_t i = 0; i < 6; i++) {
			for (size_t j = 0; j < 8; j++)
				v[i][j] = 80 * exp((i < 3 ? 0.002 : 0.04) * gauss());
			x[i] = v[i];
			n[i] = 8;
		}
		ok(!pooled_fit(x, n, 6, &p), "fit, noise 0.2%% against 4%%");
		ok(p.check == POOLED_HETERO || p.check == POOLED_TAILS,
		   "the check fails (%s, Brown-Forsythe p %.2g)", pooled_check_name(p.check),
		   p.p_hetero);
		pooled_release(&p);
		for (size_t i = 0; i < 6; i++)
			for (size_t j = 0; j < 8; j++)
				v[i][j] = 80 * (1 + 0.01 * (double)j) * exp(0.002 * gauss());
		pooled_fit(x, n, 6, &p);
		ok(p.check == POOLED_DRIFT,
		   "every configuration rising launch after launch: drift (p %.2g)", p.p_drift);
		pooled_release(&p);
		for (size_t i = 0; i < 6; i++)
			for (size_t j = 0; j < 8; j++)
				v[i][j] = 80 * exp(0.01 * gauss()) * (j % 4 == 3 ? 1.5 : 1);
		pooled_fit(x, n, 6, &p);
		ok(p.check == POOLED_TAILS,
		   "a quarter of the launches 50%% off: heavy tails (%zu flagged)", p.flagged);
		pooled_release(&p);
	}
	/* Gupta's subset: separated groups leave the best alone; equal ones
	 * keep the best (every one is) in 95% of replays or more. */
	{
		static double v[6][3];
		const double *x[6];
		size_t n[6];
		int in[6];
		unsigned covered = 0, alone = 0;

		for (size_t i = 0; i < 6; i++) {
			for (size_t j = 0; j < 3; j++)
				v[i][j] = (i == 2 ? 90 : 70) * exp(0.01 * gauss());
			x[i] = v[i];
			n[i] = 3;
		}
		ok(!pooled_fit(x, n, 6, &p) && !pooled_subset(&p, 1, 0.05, in, NULL) && in[2] &&
			   in[0] + in[1] + in[3] + in[4] + in[5] == 0,
		   "90 against 70 at 1%%: the subset is the best alone");
		pooled_release(&p);
		for (unsigned r = 0; r < 2000; r++) {
			for (size_t i = 0; i < 6; i++)
				for (size_t j = 0; j < 3; j++)
					v[i][j] = 80 * exp(0.025 * gauss());
			if (pooled_fit(x, n, 6, &p) || pooled_subset(&p, 1, 0.05, in, NULL))
				break;
			covered += in[0];
			alone += in[0] + in[1] + in[2] + in[3] + in[4] + in[5] == 1;
			pooled_release(&p);
		}
		diag("equal configurations: the first in the subset in %u of 2000, a subset of one "
		     "in %u",
		     covered, alone);
		ok(covered >= 1880,
		   "equal configurations: any one is kept in 95%% (>= 94%% allowing 2000 replays' "
		   "spread: %u/2000)",
		   covered);
		ok(alone <= 100, "and a subset of one (a false 'best') in <= 5%% (%u/2000)", alone);
	}
	/* Welch's contrast, by hand: leader logs 0, 0.1, 0.2 (ss 0.02, own
	 * variance 0.01), the other's 0.05, -0.05 (ss 0.005); pooled sigma^2
	 * 0.025 / 3, the other's moderated variance (2 sigma^2 + 0.005) / 3;
	 * se^2 = 0.01 / 3 + that / 2 = 0.0069444; Satterthwaite's df
	 * se^4 / ((0.01/3)^2 / 2 + (that / 2)^2 / 3) = 4.870. */
	{
		double a[] = { 1, exp(0.1), exp(0.2) }, b[] = { exp(0.05), exp(-0.05) }, df = NAN;
		double se = NAN;
		const double *x[] = { a, b };
		size_t n[] = { 3, 2 };
		int fit = pooled_fit(x, n, 2, &p);

		if (!fit)
			se = pooled_welch_se(&p, 0, 1, &df);
		ok(!fit && near(se, 0.083333, 1e-5) && near(df, 4.870, 1e-3),
		   "Welch: the leader's own variance, Satterthwaite's df (se %.6f, df %.3f)", se,
		   df);
		if (!fit)
			pooled_release(&p);
	}
	/* Its level, a known answer: equal levels, the leader (3 launches: of
	 * 4 or more the pooled MAD, set by the quiet one, would flag its
	 * launches as outliers) of CV 16%, the other (8) of CV 2%. The
	 * one-sided 5% test of the leader ahead, at Student's quantile for
	 * Satterthwaite's df (rounded down), rejects in about 5% of replays
	 * (Welch's approximation is a little liberal at 2-3 df); the pooled
	 * contrast (pooled sd, its df), which the equal-noise checks let
	 * through on so few launches, in far more. */
	{
		double v[2][8], df;
		const double *x[] = { v[0], v[1] };
		size_t n[] = { 3, 8 }, one = 8;
		unsigned welch = 0, pooled = 0;

		for (unsigned r = 0; r < 4000; r++) {
			double gap, se, tw, tp;

			for (size_t i = 0; i < 2; i++)
				for (size_t j = 0; j < n[i]; j++)
					v[i][j] = 80 * exp((i ? 0.02 : 0.16) * gauss());
			if (pooled_fit(x, n, 2, &p))
				break;
			gap = p.mean[0] - p.mean[1];
			se = pooled_welch_se(&p, 0, 1, &df);
			tw = pooled_dunnett(&one, 1, 3, (size_t)fmax(1, floor(df)), 0.05, 0);
			tp = pooled_dunnett(&one, 1, 3, p.df, 0.05, 0);
			welch += gap > tw * se;
			pooled += gap > tp * pooled_se(&p, 0, 1);
			pooled_release(&p);
		}
		diag("one configuration 8 times noisier: the one-sided 5%% test rejects in %u of "
		     "4000 (Welch), %u (pooled)",
		     welch, pooled);
		ok(welch >= 120 && welch <= 280,
		   "Welch's contrast holds its level where noise differs (3-7%%: %u/4000)", welch);
		ok(pooled > 280, "where the pooled contrast does not (> 7%%: %u/4000)", pooled);
	}
	/* Lower is better (times): the subset of the lowest. */
	{
		double a[] = { 10, 10.1, 9.9 }, b[] = { 20, 20.2, 19.8 };
		const double *x[] = { a, b };
		size_t n[] = { 3, 3 };
		int in[2];

		ok(!pooled_fit(x, n, 2, &p) && !pooled_subset(&p, 0, 0.05, in, NULL) && in[0] &&
			   !in[1],
		   "times: the lower one alone");
		pooled_release(&p);
	}
	return done_testing();
}
