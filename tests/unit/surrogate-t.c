/*
 * tests/unit/surrogate-t.c: the surrogate's prior mean (surrogate.h). On a
 * line of 16 layouts whose log OE rises to a knee and is then flat, with
 * three layouts measured before the knee:
 *  - the model's prediction as the prior, off by a constant factor (a model
 *    calibrated elsewhere), gives the truth at every layout: the offset is
 *    fitted, nothing is left for the GP;
 *  - without a prior the GP cannot know the plateau: far from the data it
 *    reverts to the mean of what was measured;
 *  - a prior with a hole is no prior (the fit is the constant-mean one,
 *    bit for bit);
 *  - a prior of the wrong shape does not override what was measured: at
 *    the measured layouts the posterior stays with the measurements.
 */
#include "tap.h"
#include "surrogate.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define N 16

static double truth(size_t i)
{
	return log(40.0 + 40.0 * fmin(1.0, (double)i / 6.0));
}

int main(void)
{
	double x[N][SURROGATE_DIM], y[N], var[N], prior[N], worst = 0, far = 0;
	struct surrogate a, b, c;
	int same = 1;

	plan(9);
	memset(x, 0, sizeof(x));
	for (size_t i = 0; i < N; i++) {
		x[i][0] = 0.5 * (double)i; /* log2 workers */
		y[i] = NAN;
		var[i] = 1e-4;
		prior[i] = truth(i) + 0.1; /* the model, 10.5% high everywhere */
	}
	y[0] = truth(0);
	y[1] = truth(1);
	y[3] = truth(3);

	ok(!surrogate_fit((const double(*)[SURROGATE_DIM])x, y, var, prior, N, &a),
	   "fitted with the model's prior");
	ok(a.prior == 1, "the fit says its prior mean was the model's");
	for (size_t i = 0; i < N; i++)
		worst = fmax(worst, fabs(a.mu[i] - truth(i)));
	ok(worst < 1e-6, "with the prior, every layout's posterior mean is the truth (worst %.2g)",
	   worst);
	ok(fabs(a.prior_mean + 0.1) < 1e-9, "the model's offset is fitted (%.4f, truth -0.1)",
	   a.prior_mean);

	ok(!surrogate_fit((const double(*)[SURROGATE_DIM])x, y, var, NULL, N, &b),
	   "fitted without a prior");
	far = fabs(b.mu[N - 1] - truth(N - 1));
	ok(b.prior == 0 && far > 0.1,
	   "without it the plateau is unknown: off by %.3f in log OE at the far end", far);

	prior[9] = NAN;
	ok(!surrogate_fit((const double(*)[SURROGATE_DIM])x, y, var, prior, N, &c) && c.prior == 0,
	   "a prior with a hole is not used");
	for (size_t i = 0; i < N; i++)
		same &= c.mu[i] == b.mu[i] && c.sd[i] == b.sd[i];
	ok(same, "and the fit is the constant-mean one, bit for bit");
	surrogate_release(&c);

	/* The wrong shape: falling where the truth rises. */
	for (size_t i = 0; i < N; i++)
		prior[i] = log(80.0) - 0.05 * (double)i;
	if (surrogate_fit((const double(*)[SURROGATE_DIM])x, y, var, prior, N, &c))
		return printf("Bail out! no fit with a prior of the wrong shape\n"), 1;
	ok(fabs(c.mu[0] - y[0]) < 0.05 && fabs(c.mu[1] - y[1]) < 0.05 &&
		   fabs(c.mu[3] - y[3]) < 0.05,
	   "a prior of the wrong shape does not move the measured layouts (%.3f %.3f %.3f)",
	   c.mu[0] - y[0], c.mu[1] - y[1], c.mu[3] - y[3]);
	surrogate_release(&a);
	surrogate_release(&b);
	surrogate_release(&c);
	return done_testing();
}
