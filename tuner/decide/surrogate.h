/*
 * tuner/decide/surrogate.h: a model of the landscape's shape that the search uses
 * to choose what to launch next, never to choose the answer.
 *
 * Assumption: over the layouts of one point group, the log of the offload
 * efficiency is a smooth function of (log2 workers, log2 WPN, placement,
 * log2 nodes): a Gaussian process with a constant prior mean (the mean of
 * what was measured) or, where the model's predictions are at hand (every
 * layout predicted), the model's log OE plus a constant offset fitted to
 * what was measured (the GP then models what the model leaves unexplained,
 * its signal variance that of the residuals), a squared-exponential kernel whose length scales are
 * chosen from a small grid by the marginal likelihood, and a noise term per
 * layout of sigma^2 / n (sigma the pooled noise, n its launches). This is
 * what the DPU-Bench curves look like: along the workers of one WPN line OE
 * rises to a knee, then is flat or declines slowly, and neighbouring WPN
 * lines look alike; the GP needs no parametric form of the knee.
 *
 * The fit is checked by its leave-one-out residuals, each standardized by
 * its predictive sd (Rasmussen & Williams, 5.4.2: mu_-i = y_i -
 * [K^-1 y]_i / [K^-1]_ii, var_-i = 1 / [K^-1]_ii): their root mean square
 * is about 1 when the assumption holds; above SURROGATE_RMS_MAX the fit is
 * poor and the search falls back to its measured-only rule.
 */
#ifndef SWEETSPOT_SURROGATE_H
#define SWEETSPOT_SURROGATE_H

#include <stddef.h>

#define SURROGATE_DIM	     4
/* Leave-one-out standardized residuals: largest acceptable RMS, and the
 * fewest measured layouts for a fit to be judged at all. */
#define SURROGATE_RMS_MAX    2.0
#define SURROGATE_MIN_POINTS 5

struct surrogate {
	size_t n;		  /* layouts */
	double *mu, *sd;	  /* posterior mean and sd of the latent log OE; owned */
	double ls[SURROGATE_DIM]; /* length scales chosen */
	double signal;		  /* prior sd */
	double prior_mean;	  /* the constant, or the prior's offset */
	int prior;		  /* 1: the prior mean was the caller's prior */
	size_t used;		  /* measured layouts fitted */
	double loo_rms, loo_max;  /* standardized LOO residuals */
	int ok;			  /* enough points and loo_rms <= SURROGATE_RMS_MAX */
};

/* Fits over n layouts with features x[i][0..SURROGATE_DIM-1]; y[i] the mean
 * log value measured (NAN: not measured), var[i] its noise variance,
 * prior[i] the model's log value (NULL, or any NAN: a constant prior mean).
 * 0, or -1 when nothing could be fitted (out holds nothing then). */
int surrogate_fit(const double (*x)[SURROGATE_DIM], const double *y, const double *var,
		  const double *prior, size_t n, struct surrogate *out);
void surrogate_release(struct surrogate *s);

/* Expected improvement over best of N(mu, sd^2). */
double surrogate_ei(double mu, double sd, double best);

#endif
