/* tests/unit/decide-t.c: the leader, the indifference set, the cheapest
 * member and the verdict on hand-made samples whose answers are known:
 * fully separated samples of 7 give p = 2/C(14,7) = 2/3432; overlapping
 * ones within the threshold tie; single launches stay undecided; and an
 * A/A of 8 equal configurations, one 8 times noisier than the rest,
 * replayed 2000 times with a seeded PRNG: "best" in at most 5%. */
#include "tap.h"
#include "seeded.h"
#include "decide.h"

#include <math.h>
#include <stdint.h>

static uint64_t state = 2024;

static double gauss(void)
{
	return seeded_gauss(&state);
}

static const double hi7[] = { 80, 81, 82, 83, 84, 85, 86 };
static const double lo7[] = { 60, 61, 62, 63, 64, 65, 66 };
static const double flat_a[] = { 80.0, 80.1, 80.2, 80.1, 80.0, 80.2, 80.1, 80.1 };
static const double flat_b[] = { 80.05, 80.1, 80.15, 80.1, 80.0, 80.2, 80.05, 80.1 };

int main(void)
{
	struct decide_params oe = DECIDE_PARAMS_OE;
	struct decision d;

	plan(33);

	/* 0: cheap but clearly worse; 1: expensive and clearly better. */
	{
		const double *x[] = { lo7, hi7 };
		size_t n[] = { 7, 7 };
		struct decide_cost c[] = { { 1, 1, 0, 0 }, { 4, 2, 0, 0 } };

		ok(!decide(x, n, 2, c, &oe, &d), "separated: decided");
		is_int(d.leader, 1, "leader is the higher median");
		is_int(d.choice, 1, "the worse cheap one is not chosen");
		is_int(d.verdict, DECIDE_BEST, "verdict best");
		ok(fabs(d.p_value - 2.0 / 3432) < 1e-12, "p = 2/3432 (exact, 7 vs 7 separated)");
		is_int(d.member[0], 0, "the worse one is outside the set");
		is_int(d.status[0], STATS_WORSE, "and marked worse");
		is_int(d.nmembers, 1, "one member");
		ok(d.ci_exact && d.ci_lo == 80 && d.ci_hi == 86,
		   "leader CI: ranks (1,7) of 7 (coverage 1 - 2/128 = 0.984; (2,6) has 0.875)");
		is_int(d.launches, 14, "14 launches counted");
		is_str(decide_verdict_name(d.verdict), "best", "named best");
		decision_release(&d);
	}
	/* Within 0.5 point of each other, 8 launches each: a tie, take the cheaper. */
	{
		const double *x[] = { flat_a, flat_b };
		size_t n[] = { 8, 8 };
		struct decide_cost c[] = { { 4, 1, 0, 0 }, { 2, 1, 0, 0 } };

		ok(!decide(x, n, 2, c, &oe, &d), "flat: decided");
		is_int(d.verdict, DECIDE_TIE, "verdict tie");
		is_int(d.nmembers, 2, "both in the set");
		is_int(d.choice, 1, "the cheaper (2 workers) is chosen");
		ok(d.p_value > 0.05, "p above alpha (%g)", d.p_value);
		decision_release(&d);
	}
	/* One launch each: nothing can be said yet. */
	{
		const double a[] = { 90 }, b[] = { 70 };
		const double *x[] = { a, b };
		size_t n[] = { 1, 1 };
		struct decide_cost c[] = { { 8, 2, 0, 0 }, { 1, 1, 0, 0 } };

		ok(!decide(x, n, 2, c, &oe, &d), "single launches: decided");
		is_int(d.verdict, DECIDE_UNDECIDED, "verdict undecided");
		is_int(d.leader, 0, "leader the higher");
		is_int(d.choice, 0,
		       "not yet shown worse is not shown equal: the leader is the choice");
		ok(!d.ci_exact && d.ci_lo == 90 && d.ci_hi == 90,
		   "CI of one launch is the launch, not exact");
		/* No pooled noise (0 df): the rank rule, whose 4 against 4 is the
		 * first that can reach 0.05 (2/C(8,4) = 0.029): 3 more of each. */
		ok(!d.model.pooled && d.model.more_floor && d.model.more_launches == 6,
		   "rank rule: at least 6 more launches before a rank test can decide (%u)",
		   d.model.more_launches);
		decision_release(&d);
	}
	/* A configuration with no valid launch takes no part. */
	{
		const double *x[] = { hi7, NULL, lo7 };
		size_t n[] = { 7, 0, 7 };
		struct decide_cost c[] = { { 4, 1, 0, 0 }, { 1, 1, 0, 0 }, { 2, 1, 0, 0 } };

		ok(!decide(x, n, 3, c, &oe, &d), "with an empty configuration: decided");
		is_int(d.member[1], 0, "the empty one is no member");
		ok(isnan(d.median[1]), "and has no median");
		is_int(d.choice, 0, "the leader is chosen");
		decision_release(&d);
	}
	/* Times: lower is better, placement rank breaks equal counts. */
	{
		const double *x[] = { flat_a, flat_b };
		size_t n[] = { 8, 8 };
		struct decide_cost c[] = { { 2, 1, 0, 0 }, { 2, 1, 1, 0 } };
		struct decide_params t = { 0.05, 0.8, 0.95, 1, 1, DECIDE_SCREEN_Z, -1, 0 };

		ok(!decide(x, n, 2, c, &t, &d), "times: decided");
		/* Equal medians (80.1); the pooled model's leader is the lower
		 * mean of logs (flat_b: 80.094 against 80.1). */
		is_int(d.leader, 1, "leader the lower mean");
		is_int(d.verdict, DECIDE_TIE, "within delta 0.8: a tie");
		is_int(d.choice, 0, "same counts: the lower placement rank");
		decision_release(&d);
	}
	/* A/A where the pooled model is wrong: 8 configurations of equal level,
	 * 7 of CV 2% measured 3 times, one of CV 16% measured 4 times (the
	 * leader a search would have relaunched). The pooled contrasts alone
	 * (before Welch's on the leader) declared "best" in 144 of these
	 * 2000 replays (7.2%): a noisy configuration leads by its noise, and
	 * 3-4 launches hide it from the equal-noise checks. */
	{
		static double v[8][4];
		const double *x[8];
		size_t n[8];
		unsigned best = 0;

		for (size_t i = 0; i < 8; i++) {
			x[i] = v[i];
			n[i] = i == 7 ? 4 : 3;
		}
		for (unsigned r = 0; r < 2000; r++) {
			for (size_t i = 0; i < 8; i++)
				for (size_t j = 0; j < n[i]; j++)
					v[i][j] = 80 * exp((i == 7 ? 0.16 : 0.02) * gauss());
			if (decide(x, n, 8, NULL, &oe, &d))
				break;
			best += d.verdict == DECIDE_BEST;
			decision_release(&d);
		}
		ok(best <= 100,
		   "A/A, one configuration 8 times noisier: 'best' in <= 5%% (%u/2000)", best);
	}
	/* Nothing at all. */
	{
		const double *x[] = { NULL };
		size_t n[] = { 0 };

		ok(!decide(x, n, 1, NULL, &oe, &d), "no samples: still an answer");
		is_int(d.leader, -1, "no leader");
		decision_release(&d);
	}
	return done_testing();
}
