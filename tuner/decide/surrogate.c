/*
 * tuner/decide/surrogate.c: the Gaussian-process surrogate of surrogate.h:
 * Cholesky factorization, the marginal likelihood over a grid of length
 * scales, the posterior at every layout and the leave-one-out check.
 */
#include "surrogate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The length-scale grid (log2 units of workers and WPN; placement and
 * nodes fixed): the marginal likelihood picks one pair. */
static const double LS_WORKERS[] = { 0.75, 1.5, 3.0 };
static const double LS_WPN[] = { 1.0, 2.0 };
#define LS_PLACEMENT 1.0
#define LS_NODES     1.5

static double kern(const double *a, const double *b, const double *ls, double s2)
{
	double r = 0;

	for (int d = 0; d < SURROGATE_DIM; d++) {
		double t = (a[d] - b[d]) / ls[d];

		r += t * t;
	}
	return s2 * exp(-r / 2);
}

/* In-place Cholesky of the m x m matrix a (lower triangle). 0, or -1 when
 * not positive definite. */
static int cholesky(double *a, size_t m)
{
	for (size_t j = 0; j < m; j++) {
		double s = a[j * m + j];

		for (size_t k = 0; k < j; k++)
			s -= a[j * m + k] * a[j * m + k];
		if (!(s > 0))
			return -1;
		a[j * m + j] = sqrt(s);
		for (size_t i = j + 1; i < m; i++) {
			double t = a[i * m + j];

			for (size_t k = 0; k < j; k++)
				t -= a[i * m + k] * a[j * m + k];
			a[i * m + j] = t / a[j * m + j];
		}
	}
	return 0;
}

/* Solves L L^T v = b in place. */
static void chol_solve(const double *l, size_t m, double *b)
{
	for (size_t i = 0; i < m; i++) {
		for (size_t k = 0; k < i; k++)
			b[i] -= l[i * m + k] * b[k];
		b[i] /= l[i * m + i];
	}
	for (size_t i = m; i-- > 0;) {
		for (size_t k = i + 1; k < m; k++)
			b[i] -= l[k * m + i] * b[k];
		b[i] /= l[i * m + i];
	}
}

struct fit {
	const double (*x)[SURROGATE_DIM];
	const size_t *idx; /* measured layouts */
	size_t m;
	double *r; /* y - prior mean, at idx */
	const double *var;
	double *l, *alpha; /* m x m factor; K^-1 r */
};

/* Factors K for length scales ls and signal variance s2; the log marginal
 * likelihood, or -INFINITY. */
static double factor(struct fit *f, const double *ls, double s2)
{
	double lml = 0;
	size_t m = f->m;

	for (size_t i = 0; i < m; i++)
		for (size_t j = 0; j <= i; j++) {
			double k = kern(f->x[f->idx[i]], f->x[f->idx[j]], ls, s2);

			if (i == j)
				k += f->var[f->idx[i]] + 1e-10 * s2;
			f->l[i * m + j] = f->l[j * m + i] = k;
		}
	if (cholesky(f->l, m))
		return -INFINITY;
	memcpy(f->alpha, f->r, m * sizeof(double));
	chol_solve(f->l, m, f->alpha);
	for (size_t i = 0; i < m; i++)
		lml -= 0.5 * f->r[i] * f->alpha[i] + log(f->l[i * m + i]);
	return lml;
}

void surrogate_release(struct surrogate *s)
{
	free(s->mu);
	free(s->sd);
	memset(s, 0, sizeof(*s));
}

/* The leave-one-out residuals of the factored fit into s. */
static void loo(struct fit *f, struct surrogate *s)
{
	size_t m = f->m;
	double *e = calloc(m, sizeof(double)), ss = 0;

	if (!e)
		return;
	for (size_t i = 0; i < m; i++) {
		double kii, z;

		/* [K^-1]_ii: solve for the unit vector i. */
		memset(e, 0, m * sizeof(double));
		e[i] = 1;
		chol_solve(f->l, m, e);
		kii = e[i];
		z = f->alpha[i] / sqrt(kii);
		ss += z * z;
		s->loo_max = fmax(s->loo_max, fabs(z));
	}
	s->loo_rms = sqrt(ss / (double)m);
	free(e);
}

/* The prior mean at layout i: the constant mean, or the prior plus it. */
static double prior_at(const double *prior, size_t i, double mean)
{
	return prior ? prior[i] + mean : mean;
}

int surrogate_fit(const double (*x)[SURROGATE_DIM], const double *y, const double *var,
		  const double *prior, size_t n, struct surrogate *out)
{
	struct fit f = { x, NULL, 0, NULL, var, NULL, NULL };
	double mean = 0, s2 = 0, best = -INFINITY, ls[SURROGATE_DIM], *kv = NULL;
	size_t *idx = calloc(n + 1, sizeof(size_t));
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (!idx)
		return -1;
	for (size_t i = 0; prior && i < n; i++)
		if (!isfinite(prior[i]))
			prior = NULL; /* a prior with holes is no prior */
	for (size_t i = 0; i < n; i++)
		if (isfinite(y[i]))
			idx[f.m++] = i;
	f.idx = idx;
	if (f.m < 2)
		goto out;
	/* With a prior, the GP models what it leaves: y - prior, whose mean
	 * (the prior's offset on the log scale) is fitted as the constant. */
	for (size_t i = 0; i < f.m; i++)
		mean += (y[idx[i]] - prior_at(prior, idx[i], 0)) / (double)f.m;
	for (size_t i = 0; i < f.m; i++) {
		double e = y[idx[i]] - prior_at(prior, idx[i], mean);

		s2 += e * e / (double)(f.m - 1);
	}
	s2 = fmax(s2, 1e-8);
	f.r = calloc(f.m, sizeof(double));
	f.l = calloc(f.m * f.m, sizeof(double));
	f.alpha = calloc(f.m, sizeof(double));
	out->mu = calloc(n, sizeof(double));
	out->sd = calloc(n, sizeof(double));
	kv = calloc(f.m, sizeof(double));
	if (!f.r || !f.l || !f.alpha || !out->mu || !out->sd || !kv)
		goto out;
	for (size_t i = 0; i < f.m; i++)
		f.r[i] = y[idx[i]] - prior_at(prior, idx[i], mean);
	ls[2] = LS_PLACEMENT;
	ls[3] = LS_NODES;
	for (size_t a = 0; a < sizeof(LS_WORKERS) / sizeof(*LS_WORKERS); a++)
		for (size_t b = 0; b < sizeof(LS_WPN) / sizeof(*LS_WPN); b++) {
			double l[SURROGATE_DIM] = { LS_WORKERS[a], LS_WPN[b], LS_PLACEMENT,
						    LS_NODES };
			double lml = factor(&f, l, s2);

			if (lml > best) {
				best = lml;
				memcpy(ls, l, sizeof(ls));
			}
		}
	if (!isfinite(best) || !isfinite(factor(&f, ls, s2)))
		goto out;
	memcpy(out->ls, ls, sizeof(ls));
	out->signal = sqrt(s2);
	out->prior_mean = mean;
	out->prior = prior != NULL;
	out->n = n;
	out->used = f.m;
	for (size_t i = 0; i < n; i++) {
		double mu = prior_at(prior, i, mean), v = s2;

		for (size_t j = 0; j < f.m; j++)
			kv[j] = kern(x[i], x[idx[j]], ls, s2);
		for (size_t j = 0; j < f.m; j++)
			mu += kv[j] * f.alpha[j];
		chol_solve(f.l, f.m, kv);
		for (size_t j = 0; j < f.m; j++)
			v -= kern(x[i], x[idx[j]], ls, s2) * kv[j];
		out->mu[i] = mu;
		out->sd[i] = sqrt(fmax(v, 0));
	}
	loo(&f, out);
	out->ok = f.m >= SURROGATE_MIN_POINTS && out->loo_rms <= SURROGATE_RMS_MAX;
	ret = 0;
out:
	free(idx);
	free(f.r);
	free(f.l);
	free(f.alpha);
	free(kv);
	if (ret)
		surrogate_release(out);
	return ret;
}

double surrogate_ei(double mu, double sd, double best)
{
	double z;

	if (!(sd > 0))
		return fmax(0, mu - best);
	z = (mu - best) / sd;
	return (mu - best) * 0.5 * erfc(-z / M_SQRT2) + sd * exp(-z * z / 2) / sqrt(2 * M_PI);
}
