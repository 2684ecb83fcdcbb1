/*
 * tuner/decide/pooled.c: the pooled noise model of pooled.h: the robust pooled
 * sigma on the log scale, its checks, Dunnett's many-to-one critical
 * values by numerical integration, and Gupta's subset.
 */
#include "pooled.h"

#include "sort.h"
#include "stats.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *pooled_check_name(enum pooled_check c)
{
	switch (c) {
	case POOLED_OK:
		return "pooled model holds";
	case POOLED_FEW_DF:
		return "too few degrees of freedom";
	case POOLED_HETERO:
		return "noise differs between configurations";
	case POOLED_TAILS:
		return "heavy tails";
	default:
		return "drift";
	}
}

static double phi_cdf(double x)
{
	return 0.5 * erfc(-x / M_SQRT2);
}

/* The continued fraction of the regularized incomplete beta (modified
 * Lentz), valid for x < (a + 1) / (a + b + 2). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 300; m++) {
		double m2 = 2.0 * m, num, del;

		num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		d = 1 + num * d;
		c = 1 + num / c;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = fabs(c) < tiny ? tiny : c;
		h *= d * c;
		num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + num * d;
		c = 1 + num / c;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = fabs(c) < tiny ? tiny : c;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-14)
			break;
	}
	return h;
}

/* I_x(a, b), the regularized incomplete beta function. */
static double ibeta(double a, double b, double x)
{
	double lead;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	lead = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return lead * beta_cf(a, b, x) / a;
	return 1 - lead * beta_cf(b, a, 1 - x) / b;
}

double pooled_t_p(double t, size_t df)
{
	if (!isfinite(t))
		return isnan(t) ? NAN : 0;
	if (!df)
		return erfc(fabs(t) / M_SQRT2);
	return ibeta(df / 2.0, 0.5, df / (df + t * t));
}

/* Upper tail of F(d1, d2) at f. */
static double f_upper(double f, double d1, double d2)
{
	if (!(f > 0))
		return 1;
	return ibeta(d2 / 2, d1 / 2, d2 / (d2 + d1 * f));
}

/* ---- Dunnett's critical values ---- */

/* Distinct launch counts of the m compared configurations, with counts. */
struct nclass {
	size_t n, count;
};

#define Z_STEPS 64 /* Simpson intervals over z in [-8, 8] */
#define S_STEPS 48 /* over s */

/* P(T_i <= d for all i) (two-sided: |T_i| <= d), the m compared in the
 * classes c[0..nc-1], control of nctl launches, df (0: known sigma). */
static double dunnett_prob(const struct nclass *c, size_t ncls, size_t nctl, size_t df, double d,
			   int two)
{
	double lam[64], den[64], slo = 1, shi = 1, hs = 0, total = 0, norm = 0, lc = 0;
	int ssteps = df ? S_STEPS : 0;

	for (size_t k = 0; k < ncls; k++) {
		lam[k] = sqrt((double)c[k].n / (double)(c[k].n + nctl));
		den[k] = sqrt(1 - lam[k] * lam[k]);
	}
	if (df) {
		double w = 1 / sqrt(2.0 * (double)df);

		slo = fmax(0, 1 - 8 * w);
		shi = 1 + 10 * w;
		hs = (shi - slo) / ssteps;
		lc = M_LN2 + (df / 2.0) * log(df / 2.0) - lgamma(df / 2.0);
	}
	for (int a = 0; a <= ssteps; a++) {
		double s = slo + a * hs, ws, fs, inner = 0, hz = 16.0 / Z_STEPS;

		ws = !ssteps ? 1 : (a == 0 || a == ssteps) ? 1 : (a % 2 ? 4 : 2);
		fs = !ssteps ? 1 :
		     s > 0   ? exp(lc + (df - 1.0) * log(s) - df * s * s / 2) :
		     df == 1 ? exp(lc) :
			       0;
		if (fs == 0)
			continue;
		for (int b = 0; b <= Z_STEPS; b++) {
			double z = -8 + b * hz, wz = (b == 0 || b == Z_STEPS) ? 1 : (b % 2 ? 4 : 2);
			double prod = 1;

			for (size_t k = 0; k < ncls && prod > 0; k++) {
				double up = phi_cdf((d * s + lam[k] * z) / den[k]);

				if (two)
					up -= phi_cdf((-d * s + lam[k] * z) / den[k]);
				prod *= pow(fmax(up, 0), (double)c[k].count);
			}
			inner += wz * prod * exp(-z * z / 2);
		}
		inner *= hz / 3 / sqrt(2 * M_PI);
		total += ws * fs * inner;
		norm += ws * fs;
	}
	return total / norm;
}

struct dcache {
	uint64_t key;
	double d;
};

#define DCACHE 1024
static struct dcache cache[DCACHE];
static size_t cache_next;

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h * 0xbf58476d1ce4e5b9ULL;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

double pooled_dunnett(const size_t *n_i, size_t m, size_t nc, size_t df, double alpha,
		      int two_sided)
{
	struct nclass c[64];
	size_t ncls = 0, *s;
	uint64_t key = 0x5151;
	double lo = 0, hi = 60, a;
	uint64_t abits;

	if (!m || !nc || !(alpha > 0 && alpha < 1))
		return NAN;
	s = malloc(m * sizeof(*s));
	if (!s)
		return NAN;
	memcpy(s, n_i, m * sizeof(*s));
	qsort(s, m, sizeof(*s), cmp_size);
	for (size_t i = 0; i < m; i++) {
		if (!s[i]) {
			free(s);
			return NAN;
		}
		if (ncls && c[ncls - 1].n == s[i]) {
			c[ncls - 1].count++;
			continue;
		}
		if (ncls == 64) {
			/* More distinct counts than classes: the rest join the
			 * last one at its (smaller, so conservative) lambda. */
			c[ncls - 1].count++;
			continue;
		}
		c[ncls++] = (struct nclass){ s[i], 1 };
	}
	free(s);
	memcpy(&abits, &alpha, sizeof(abits));
	for (size_t k = 0; k < ncls; k++)
		key = mix(mix(key, c[k].n), c[k].count);
	key = mix(mix(mix(mix(key, nc), df), abits), (uint64_t)two_sided);
	if (!key)
		key = 1;
	for (size_t i = 0; i < DCACHE; i++)
		if (cache[i].key == key)
			return cache[i].d;
	/* The root of P(d) = 1 - alpha by regula falsi (Illinois): P rises
	 * with d; the bracket starts at the normal quantile's neighbourhood. */
	{
		double flo, fhi, target = 1 - alpha;
		int side = 0;

		lo = 0.5;
		hi = 6;
		flo = dunnett_prob(c, ncls, nc, df, lo, two_sided) - target;
		fhi = dunnett_prob(c, ncls, nc, df, hi, two_sided) - target;
		while (fhi < 0 && hi < 200) {
			lo = hi;
			flo = fhi;
			hi *= 2;
			fhi = dunnett_prob(c, ncls, nc, df, hi, two_sided) - target;
		}
		if (flo > 0)
			lo = 0, flo = -target;
		for (int it = 0; it < 60 && hi - lo > 1e-4; it++) {
			double mid = (lo * fhi - hi * flo) / (fhi - flo), fm;

			if (!(mid > lo && mid < hi))
				mid = (lo + hi) / 2;
			fm = dunnett_prob(c, ncls, nc, df, mid, two_sided) - target;
			if (fabs(fm) < 1e-7) {
				lo = hi = mid;
				break;
			}
			if (fm < 0) {
				lo = mid;
				flo = fm;
				if (side == -1)
					fhi /= 2;
				side = -1;
			} else {
				hi = mid;
				fhi = fm;
				if (side == 1)
					flo /= 2;
				side = 1;
			}
		}
	}
	a = hi;
	cache[cache_next] = (struct dcache){ key, a };
	cache_next = (cache_next + 1) % DCACHE;
	return a;
}

/* ---- the pooled fit ---- */

void pooled_release(struct pooled *p)
{
	free(p->mean);
	free(p->n);
	free(p->var);
	free(p->ss);
	memset(p, 0, sizeof(*p));
}

static double median_sorted(const double *v, size_t n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* |log x - median| of configuration i into r (the middle one of an odd
 * count, 0 by construction, left out); returns how many. */
static size_t abs_resid(const double *x, size_t n, double *tmp, double *r)
{
	double med;
	size_t m = 0;
	int dropped = 0;

	for (size_t j = 0; j < n; j++)
		tmp[j] = log(x[j]);
	sort_doubles(tmp, n);
	med = median_sorted(tmp, n);
	for (size_t j = 0; j < n; j++) {
		double v = fabs(log(x[j]) - med);

		if (n % 2 && !dropped && v == 0) {
			dropped = 1;
			continue;
		}
		r[m++] = v;
	}
	return m;
}

/* Brown-Forsythe over the configurations of three launches or more, on
 * the absolute residuals abs_resid() gives, flagged launches left out:
 * the one-way ANOVA F of those residuals between configurations. kept,
 * tmp and r hold the largest n. */
static double brown_forsythe(const double *const *x, const size_t *n, size_t k,
			     const unsigned char *const *flag, double *kept, double *tmp, double *r)
{
	double sum = 0, sumsq = 0, between = 0;
	size_t groups = 0, total = 0;

	/* sum of squares about the grand mean = between + within. */
	for (size_t i = 0; i < k; i++) {
		double zs = 0;
		size_t nk = 0, m;

		for (size_t j = 0; j < n[i]; j++)
			if (!flag[i][j])
				kept[nk++] = x[i][j];
		if (nk < 3)
			continue;
		m = abs_resid(kept, nk, tmp, r);
		for (size_t j = 0; j < m; j++) {
			zs += r[j];
			sumsq += r[j] * r[j];
		}
		sum += zs;
		between += zs * zs / (double)m;
		groups++;
		total += m;
	}
	if (groups < 2 || total <= groups)
		return NAN;
	{
		double within = sumsq - between;

		between -= sum * sum / (double)total;
		if (within <= 1e-300)
			return between > 0 ? 0 : 1;
		return f_upper((between / (double)(groups - 1)) /
				       (within / (double)(total - groups)),
			       (double)(groups - 1), (double)(total - groups));
	}
}

/* Bartlett's test of equal variances (Bartlett 1937) on the log values
 * kept, over the configurations of two launches or more with a spread:
 * on normal data (the model's) it has more power than Brown-Forsythe at
 * 2-4 launches a configuration, and heavy tails make it fail too, which
 * is a failure of the model as well. ss[i] are the sums of squares about
 * the means, nk[i] the launches kept. Chi-square with k - 1 df as F(k -
 * 1, large). */
static double bartlett(const double *ss, const size_t *nk, size_t k)
{
	double num = 0, inv = 0, sp = 0, t;
	size_t groups = 0, df = 0;

	for (size_t i = 0; i < k; i++)
		if (nk[i] >= 2 && ss[i] > 0) {
			groups++;
			df += nk[i] - 1;
			sp += ss[i];
			inv += 1.0 / (double)(nk[i] - 1);
		}
	if (groups < 2)
		return NAN;
	sp /= (double)df;
	for (size_t i = 0; i < k; i++)
		if (nk[i] >= 2 && ss[i] > 0)
			num += (double)(nk[i] - 1) * log(ss[i] / (double)(nk[i] - 1));
	t = ((double)df * log(sp) - num) /
	    (1 + (inv - 1.0 / (double)df) / (3.0 * (double)(groups - 1)));
	return f_upper(t / (double)(groups - 1), (double)(groups - 1), 1e7);
}

/* Mann-Kendall, stratified by configuration, in launch order, each
 * configuration's first launch left out: a search launches a
 * configuration again because its first launch looked good, so that launch
 * is high by selection, and what follows regresses to the mean: a falling
 * trend that is the search's, not the machine's (it refuted the model in
 * 13% of search-quality-t's power replays, at a 5% level). */
static double mann_kendall(const double *const *x, const size_t *n, size_t k)
{
	double s = 0, var = 0, z;

	for (size_t i = 0; i < k; i++) {
		double nn = (double)n[i] - 1;

		if (n[i] < 3)
			continue;
		for (size_t a = 1; a < n[i]; a++)
			for (size_t b = a + 1; b < n[i]; b++)
				s += (x[i][b] > x[i][a]) - (x[i][b] < x[i][a]);
		var += nn * (nn - 1) * (2 * nn + 5) / 18;
	}
	if (var <= 0)
		return NAN;
	z = fmax(0, fabs(s) - 1) / sqrt(var);
	return erfc(z / M_SQRT2);
}

/* Configuration i's launches x[0..n-1] on the log scale: those more than
 * STATS_MADZ_LIMIT robust z from its median flagged (four launches or
 * more; mad is the pooled MAD), its mean and sum of squares of the rest
 * into out. Returns that sum of squares. tmp holds n doubles. */
static double fit_one(const double *x, size_t n, double mad, unsigned char *flag, double *tmp,
		      struct pooled *out, size_t i)
{
	double med, mean = 0, ss = 0;
	size_t nk = 0;

	if (!n)
		return 0;
	for (size_t j = 0; j < n; j++)
		tmp[j] = log(x[j]);
	sort_doubles(tmp, n);
	med = median_sorted(tmp, n);
	for (size_t j = 0; j < n; j++) {
		double y = log(x[j]);

		if (n >= 4 && mad > 0 && 0.6745 * fabs(y - med) / mad > STATS_MADZ_LIMIT) {
			flag[j] = 1;
			out->flagged++;
			continue;
		}
		mean += y;
		nk++;
	}
	out->mean[i] = mean / (double)nk;
	out->n[i] = nk;
	out->launches += n;
	for (size_t j = 0; j < n; j++)
		if (!flag[j])
			ss += (log(x[j]) - out->mean[i]) * (log(x[j]) - out->mean[i]);
	out->var[i] = ss;
	out->ss[i] = ss;
	out->df += nk - 1;
	return ss;
}

/* Which check, if any, refutes the pooled model of out (its checks in the
 * order they are reported). */
static enum pooled_check classify(const struct pooled *out)
{
	if (out->df < POOLED_MIN_DF || !(out->sigma >= 0))
		return POOLED_FEW_DF;
	if ((double)out->flagged > POOLED_OUTLIER_FRAC * (double)out->launches)
		return POOLED_TAILS;
	if (out->p_hetero < POOLED_CHECK_ALPHA)
		return POOLED_HETERO;
	if (out->p_drift < POOLED_CHECK_ALPHA)
		return POOLED_DRIFT;
	return POOLED_OK;
}

int pooled_fit(const double *const *x, const size_t *n, size_t k, struct pooled *out)
{
	unsigned char **flag = NULL;
	double *tmp = NULL, *r = NULL, *all = NULL, *kept = NULL, mad = 0, ss = 0, pb;
	size_t nmax = 1, nall = 0;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	out->k = k;
	out->sigma = out->p_hetero = out->p_drift = NAN;
	out->check = POOLED_FEW_DF;
	out->mean = calloc(k ? k : 1, sizeof(*out->mean));
	out->n = calloc(k ? k : 1, sizeof(*out->n));
	out->var = calloc(k ? k : 1, sizeof(*out->var));
	out->ss = calloc(k ? k : 1, sizeof(*out->ss));
	flag = calloc(k ? k : 1, sizeof(*flag));
	if (!out->mean || !out->n || !out->var || !out->ss || !flag)
		goto out;
	for (size_t i = 0; i < k; i++) {
		out->mean[i] = NAN;
		nmax = n[i] > nmax ? n[i] : nmax;
		nall += n[i];
		for (size_t j = 0; j < n[i]; j++)
			if (!(x[i][j] > 0) || !isfinite(x[i][j]))
				goto out;
	}
	tmp = malloc(nmax * sizeof(*tmp));
	r = malloc(nmax * sizeof(*r));
	kept = malloc(nmax * sizeof(*kept));
	all = malloc((nall ? nall : 1) * sizeof(*all));
	if (!tmp || !r || !all || !kept)
		goto out;
	/* The pooled MAD of the residuals from each configuration's median. */
	nall = 0;
	for (size_t i = 0; i < k; i++) {
		if (!(flag[i] = calloc(n[i] + 1, 1)))
			goto out;
		if (n[i] >= 2)
			nall += abs_resid(x[i], n[i], tmp, all + nall);
	}
	if (nall) {
		sort_doubles(all, nall);
		mad = median_sorted(all, nall);
	}
	/* Flags (configurations of four launches or more), then the means
	 * and sigma of the launches kept. */
	for (size_t i = 0; i < k; i++)
		ss += fit_one(x[i], n[i], mad, flag[i], tmp, out, i);
	if (out->df)
		out->sigma = sqrt(ss / (double)out->df);
	pb = bartlett(out->var, out->n, k);
	/* Moderated: the sums of squares above become variances. */
	for (size_t i = 0; i < k; i++) {
		double s2 = out->df ? out->sigma * out->sigma : 0;

		if (out->n[i] >= 2)
			out->var[i] = (POOLED_PRIOR_DF * s2 + out->var[i]) /
				      (POOLED_PRIOR_DF + (double)out->n[i] - 1);
		else
			out->var[i] = s2;
	}
	out->p_hetero = brown_forsythe(x, n, k, (const unsigned char *const *)flag, kept, tmp, r);
	/* Either test refuting equal noise refutes the model. */
	if (isnan(out->p_hetero) || pb < out->p_hetero)
		out->p_hetero = pb;
	out->p_drift = mann_kendall(x, n, k);
	/* sigma 0 (every repeated launch identical: synthetic or replayed
	 * data) is exact, not unknown: differences are then certain. */
	out->check = classify(out);
	ret = 0;
out:
	for (size_t i = 0; flag && i < k; i++)
		free(flag[i]);
	free(flag);
	free(tmp);
	free(r);
	free(all);
	free(kept);
	if (ret)
		pooled_release(out);
	return ret;
}

double pooled_t_upper(double p, size_t df)
{
	double lo = 0, hi = 1e3;

	for (int it = 0; it < 80; it++) {
		double mid = (lo + hi) / 2;

		if (pooled_t_p(mid, df) / 2 > p)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

int pooled_leader_ok(const struct pooled *p, size_t lead)
{
	double rest = 0;
	size_t df = 0, dl;

	if (p->n[lead] < 2)
		return 1;
	dl = p->n[lead] - 1;
	for (size_t i = 0; i < p->k; i++)
		if (i != lead && p->n[i] >= 2) {
			rest += p->ss[i];
			df += p->n[i] - 1;
		}
	if (!df || !(rest > 0))
		return 1;
	return f_upper((p->ss[lead] / (double)dl) / (rest / (double)df), (double)dl, (double)df) >=
	       POOLED_CHECK_ALPHA;
}

double pooled_se(const struct pooled *p, size_t i, size_t j)
{
	return sqrt(p->var[i] / (double)p->n[i] + p->var[j] / (double)p->n[j]);
}

double pooled_welch_se(const struct pooled *p, size_t lead, size_t i, double *df)
{
	double a, b, dl;

	*df = NAN;
	if (p->n[lead] < 2 || !p->n[i] || !p->df)
		return NAN;
	dl = (double)(p->n[lead] - 1);
	a = p->ss[lead] / dl / (double)p->n[lead];
	b = p->var[i] / (double)p->n[i];
	*df = a + b > 0 ? (a + b) * (a + b) / (a * a / dl + b * b / (double)p->df) : (double)p->df;
	return sqrt(a + b);
}

/* The largest bar any other configuration sets for i at critical value
 * d: i is in the subset when it is <= 0. */
static double subset_bar(const struct pooled *p, int higher, size_t i, double d)
{
	double worst = -INFINITY;

	for (size_t j = 0; j < p->k; j++) {
		if (j == i || !p->n[j])
			continue;
		worst = fmax(worst, (higher ? p->mean[j] - p->mean[i] : p->mean[i] - p->mean[j]) -
					    d * pooled_se(p, i, j));
	}
	return worst;
}

int pooled_subset(const struct pooled *p, int higher, double alpha, int *in, double *d)
{
	size_t *others = malloc((p->k ? p->k : 1) * sizeof(*others)), m = 0, measured = 0;
	double dlo, dhi;

	if (!others)
		return -1;
	for (size_t i = 0; i < p->k; i++)
		measured += p->n[i] > 0;
	/* Dunnett's d lies between one comparison's t quantile and
	 * Bonferroni's: a configuration in (or out) at both needs no
	 * integration, and most are one or the other. */
	dlo = pooled_t_upper(alpha, p->df);
	dhi = measured > 1 ? pooled_t_upper(alpha / (double)(measured - 1), p->df) : dlo;
	for (size_t i = 0; i < p->k; i++) {
		double di;

		in[i] = 0;
		if (d)
			d[i] = NAN;
		if (!p->n[i])
			continue;
		if (measured == 1) {
			in[i] = 1;
			continue;
		}
		if (!d && subset_bar(p, higher, i, dhi) > 0) {
			continue;
		}
		if (!d && subset_bar(p, higher, i, dlo) <= 0) {
			in[i] = 1;
			continue;
		}
		m = 0;
		for (size_t j = 0; j < p->k; j++)
			if (j != i && p->n[j])
				others[m++] = p->n[j];
		di = pooled_dunnett(others, m, p->n[i], p->df, alpha, 0);
		if (d)
			d[i] = di;
		in[i] = subset_bar(p, higher, i, di) <= 0;
	}
	free(others);
	return 0;
}
