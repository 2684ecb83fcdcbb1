/*
 * tuner/decide/stats.c: robust summaries, confidence intervals, rank tests and
 * verdicts for benchmark samples (one double per launch). The definitions
 * and their references are in stats.h. Nothing here keeps state between
 * calls: the bootstrap's generator lives on the caller's stack, seeded by
 * the caller, so the same inputs give the same answers everywhere.
 */
#include "stats.h"
#include "sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Slack when comparing an achieved coverage or tail with a level: a level
 * like 0.95 is not exact in binary, and an exact tail of 0.05 must count as
 * reaching it. */
#define LEVEL_EPS 1e-12

/* Up to this n the binomial tails of the median CI are summed in exact
 * integers (C(60, 30) * 31 still fits in 64 bits). */
#define EXACT_BINOM_MAX 60

/* Up to this size of each sample the Mann-Whitney distribution is counted
 * exactly; C(40, 20) arrangements fit easily in 64 bits. */
#define MW_EXACT_MAX 20

static int all_finite(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return 0;
	return 1;
}

static int level_ok(double conf)
{
	return conf > 0 && conf < 1;
}

/* A malloc'd array of n doubles, or NULL (also when n * 8 would wrap). */
static double *alloc_doubles(size_t n)
{
	if (n > SIZE_MAX / sizeof(double))
		return NULL;
	return malloc((n ? n : 1) * sizeof(double));
}

/* A sorted malloc'd copy of x, which the caller frees; NULL when out of
 * memory. Sorting a copy keeps the caller's launch order intact. */
static double *sorted_copy(const double *x, size_t n)
{
	double *c = alloc_doubles(n);

	if (!c)
		return NULL;
	memcpy(c, x, n * sizeof(*c));
	sort_doubles(c, n);
	return c;
}

/* Type-7 quantile of an already sorted s[0..n-1], n >= 1. */
static double quantile_sorted(const double *s, size_t n, double p)
{
	double h = (double)(n - 1) * p;
	size_t lo = (size_t)floor(h);

	if (lo >= n - 1)
		return s[n - 1];
	return s[lo] + (h - (double)lo) * (s[lo + 1] - s[lo]);
}

int stats_quantile(const double *x, size_t n, double p, double *out)
{
	double *s;

	if (!x || !n || !out || !(p >= 0 && p <= 1) || !all_finite(x, n))
		return -1;
	s = sorted_copy(x, n);
	if (!s)
		return -1;
	*out = quantile_sorted(s, n, p);
	free(s);
	return 0;
}

int stats_median(const double *x, size_t n, double *out)
{
	return stats_quantile(x, n, 0.5, out);
}

/* Standard normal upper tail P(Z > z). */
static double norm_sf(double z)
{
	return 0.5 * erfc(z / sqrt(2.0));
}

/* z with P(Z > z) = tail, 0 < tail < 1/2, by bisection: slow but only
 * called a few times per verdict, and accurate to the last bits. */
static double norm_isf(double tail)
{
	double lo = 0, hi = 40;

	for (int it = 0; it < 200; it++) {
		double mid = 0.5 * (lo + hi);

		if (norm_sf(mid) > tail)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

/* ---- median CI from order statistics (Le Boudec) ---- */

int stats_median_ci_ranks(size_t n, double conf, size_t *j, size_t *k, double *coverage)
{
	size_t best = 0;
	double best_cov = 0;

	if (!n || !level_ok(conf) || !j || !k || !coverage)
		return -1;
	if (n <= EXACT_BINOM_MAX) {
		/* tail = sum_{i < jj} C(n, i); coverage = 1 - 2 tail / 2^n. */
		uint64_t total = (uint64_t)1 << n, c = 1, tail = 0;

		for (size_t jj = 1; 2 * jj <= n; jj++) {
			double cov;

			tail += c; /* c = C(n, jj - 1) */
			cov = (double)(total - 2 * tail) / (double)total;
			if (cov < conf - LEVEL_EPS)
				break;
			best = jj;
			best_cov = cov;
			c = c * (n - (jj - 1)) / jj;
		}
	} else {
		/* Large n: terms in log space, summed from the far tail so
		 * that the small ones are not lost. */
		double tail = 0, lnf = lgamma((double)n + 1), ln2n = (double)n * log(2.0);

		for (size_t jj = 1; 2 * jj <= n; jj++) {
			double i = (double)(jj - 1), cov;

			tail += exp(lnf - lgamma(i + 1) - lgamma((double)n - i + 1) - ln2n);
			cov = 1 - 2 * tail;
			if (cov < conf - LEVEL_EPS)
				break;
			best = jj;
			best_cov = cov;
		}
	}
	if (best) {
		*j = best;
		*k = n + 1 - best;
		*coverage = best_cov;
		return 1;
	}
	*j = 1;
	*k = n;
	/* (min, max) misses the median only when all n fall on one side. */
	*coverage = n >= 2 ? 1 - ldexp(1.0, 1 - (int)(n < 2000 ? n : 2000)) : 0;
	return 0;
}

/* ---- bootstrap ---- */

/* xoshiro256** (Blackman & Vigna), seeded through splitmix64 so that any
 * 64-bit seed, 0 included, gives a good state. */
struct rng {
	uint64_t s[4];
};

static uint64_t rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void rng_seed(struct rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

/* Uniform in [0, n), n >= 1, without modulo bias: draws below 2^64 mod n
 * are rejected. */
static uint64_t rng_below(struct rng *r, uint64_t n)
{
	uint64_t threshold = (0 - n) % n;

	for (;;) {
		uint64_t v = rng_next(r);

		if (v >= threshold)
			return v % n;
	}
}

void stats_shuffle(size_t *idx, size_t n, uint64_t seed)
{
	struct rng r;

	rng_seed(&r, seed);
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)rng_below(&r, i), t = idx[i - 1];

		idx[i - 1] = idx[j];
		idx[j] = t;
	}
}

/* Reorders v so that v[k] is the (k+1)-th smallest and everything after it
 * is >= v[k] (Hoare's selection); returns v[k]. For the bootstrap, where a
 * full sort per resample would cost a log factor for nothing. */
static double select_kth(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		double a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi], pivot;
		size_t i = lo, j = hi;

		/* median of three, so sorted input is not the worst case */
		pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				double t = v[i];

				v[i] = v[j];
				v[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return v[k];
	}
	return v[k];
}

/* Type-7 median of v[0..n-1], reordering v. */
static double median_inplace(double *v, size_t n)
{
	size_t h = (n - 1) / 2;
	double lo = select_kth(v, n, h), hi;

	if (n % 2)
		return lo;
	hi = v[h + 1];
	for (size_t i = h + 2; i < n; i++)
		if (v[i] < hi)
			hi = v[i];
	return lo + 0.5 * (hi - lo);
}

int stats_bootstrap_median_ci(const double *x, size_t n, double conf, unsigned b, uint64_t seed,
			      double *lo, double *hi)
{
	double *buf, *med;
	struct rng r;

	if (!x || !n || !b || !level_ok(conf) || !lo || !hi || !all_finite(x, n))
		return -1;
	buf = alloc_doubles(n);
	med = alloc_doubles(b);
	if (!buf || !med) {
		free(buf);
		free(med);
		return -1;
	}
	rng_seed(&r, seed);
	for (unsigned it = 0; it < b; it++) {
		for (size_t i = 0; i < n; i++)
			buf[i] = x[rng_below(&r, n)];
		med[it] = median_inplace(buf, n);
	}
	sort_doubles(med, b);
	*lo = quantile_sorted(med, b, (1 - conf) / 2);
	*hi = quantile_sorted(med, b, 1 - (1 - conf) / 2);
	free(buf);
	free(med);
	return 0;
}

/* ---- outliers ---- */

/* Flags outliers of x given its sorted copy s; *mad gets the raw MAD.
 * Returns the count, or -1 when out of memory. */
static long outliers_sorted(const double *x, const double *s, size_t n, int *flags, double *mad)
{
	double q1 = quantile_sorted(s, n, 0.25), q3 = quantile_sorted(s, n, 0.75);
	double med = quantile_sorted(s, n, 0.5), iqr = q3 - q1;
	double *dev = alloc_doubles(n);
	long count = 0;

	if (!dev)
		return -1;
	for (size_t i = 0; i < n; i++)
		dev[i] = fabs(x[i] - med);
	sort_doubles(dev, n);
	*mad = quantile_sorted(dev, n, 0.5);
	free(dev);
	for (size_t i = 0; i < n; i++) {
		int tukey = x[i] < q1 - 3 * iqr || x[i] > q3 + 3 * iqr;
		/* MAD = 0 (over half the samples equal) makes z infinite
		 * for every other sample; Tukey's fences still apply. */
		int madz = *mad > 0 && fabs(0.6745 * (x[i] - med) / *mad) > STATS_MADZ_LIMIT;

		flags[i] = tukey || madz;
		count += flags[i];
	}
	return count;
}

int stats_outliers(const double *x, size_t n, int *flags, size_t *count)
{
	double *s, mad;
	long c;

	if (!x || !n || !flags || !count || !all_finite(x, n))
		return -1;
	s = sorted_copy(x, n);
	if (!s)
		return -1;
	c = outliers_sorted(x, s, n, flags, &mad);
	free(s);
	if (c < 0)
		return -1;
	*count = (size_t)c;
	return 0;
}

/* ---- summary ---- */

int stats_summarize(const double *x, size_t n, double conf, uint64_t seed,
		    struct stats_summary *out)
{
	double *s, sum = 0, ss = 0;
	long c;

	if (!out)
		return -1;
	memset(out, 0, sizeof(*out));
	if (!x || !n || !level_ok(conf) || !all_finite(x, n))
		return -1;
	s = sorted_copy(x, n);
	if (!s)
		return -1;
	out->n = n;
	for (size_t i = 0; i < n; i++)
		sum += x[i];
	out->mean = sum / (double)n;
	/* two passes: no cancellation when the spread is tiny against the mean */
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - out->mean) * (x[i] - out->mean);
	out->sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
	out->cv = out->mean != 0 ? out->sd / out->mean : NAN;
	out->min = s[0];
	out->max = s[n - 1];
	out->q1 = quantile_sorted(s, n, 0.25);
	out->median = quantile_sorted(s, n, 0.5);
	out->q3 = quantile_sorted(s, n, 0.75);
	out->iqr = out->q3 - out->q1;

	out->conf = conf;
	out->ci_exact_possible = stats_median_ci_ranks(n, conf, &out->ci_j, &out->ci_k,
						       &out->ci_coverage) == 1;
	out->ci_lo = s[out->ci_j - 1];
	out->ci_hi = s[out->ci_k - 1];

	out->boot_b = STATS_BOOT_B;
	out->outlier = malloc(n * sizeof(*out->outlier));
	if (!out->outlier ||
	    stats_bootstrap_median_ci(x, n, conf, out->boot_b, seed, &out->boot_lo,
				      &out->boot_hi) ||
	    (c = outliers_sorted(x, s, n, out->outlier, &out->mad)) < 0) {
		free(s);
		free(out->outlier);
		memset(out, 0, sizeof(*out));
		return -1;
	}
	out->n_outliers = (size_t)c;
	out->unstable = out->n_outliers * 5 > n;
	free(s);
	return 0;
}

void stats_summary_free(struct stats_summary *s)
{
	if (!s)
		return;
	free(s->outlier);
	s->outlier = NULL;
}

/* ---- Mann-Whitney ---- */

/* Counts, over all ways to pick n of the N items, how many give each sum of
 * r2 (the doubled ranks): a malloc'd array of *len counts (index = sum),
 * which the caller frees; NULL when out of memory. N <= 2 * MW_EXACT_MAX,
 * so every count is below C(40, 20). */
static uint64_t *ranksum_counts(const unsigned *r2, size_t nitems, size_t n, size_t *len)
{
	size_t smax = 0, width, reach = 0;
	uint64_t *c, *row;

	for (size_t t = 0; t < nitems; t++)
		smax += r2[t];
	width = smax + 1;
	c = calloc((n + 1) * width, sizeof(*c));
	if (!c)
		return NULL;
	c[0] = 1;
	for (size_t t = 0; t < nitems; t++) {
		size_t r = r2[t], imax = t + 1 < n ? t + 1 : n;

		reach += r;
		/* Row i - 1 is still the one without item t, since i goes
		 * down: each item joins a pick at most once. */
		for (size_t i = imax; i >= 1; i--) {
			uint64_t *dst = c + i * width, *src = c + (i - 1) * width;

			for (size_t s = r; s <= reach; s++)
				dst[s] += src[s - r];
		}
	}
	row = malloc(width * sizeof(*row));
	if (row)
		memcpy(row, c + n * width, width * sizeof(*row));
	free(c);
	*len = width;
	return row;
}

struct tagged {
	double v;
	int from_a;
};

static int cmp_tagged(const void *pa, const void *pb)
{
	const struct tagged *a = pa, *b = pb;

	return (a->v > b->v) - (a->v < b->v);
}

int stats_mann_whitney(const double *a, size_t n, const double *b, size_t m, struct stats_mw *out)
{
	size_t nn = n + m;
	struct tagged *pool;
	unsigned *r2;
	uint64_t ra2 = 0; /* doubled rank sum of a */
	double ties3 = 0, mu, var, sd, nm;

	if (!a || !b || !n || !m || !out || !all_finite(a, n) || !all_finite(b, m))
		return -1;
	pool = malloc(nn * sizeof(*pool));
	r2 = malloc(nn * sizeof(*r2));
	if (!pool || !r2) {
		free(pool);
		free(r2);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		pool[i] = (struct tagged){ a[i], 1 };
	for (size_t i = 0; i < m; i++)
		pool[n + i] = (struct tagged){ b[i], 0 };
	qsort(pool, nn, sizeof(*pool), cmp_tagged);
	memset(out, 0, sizeof(*out));
	/* Mid-ranks doubled: a tie group at 0-based positions s..e-1 holds
	 * ranks s+1..e, whose mean doubled, s + e + 1, is an integer. */
	for (size_t s = 0, e; s < nn; s = e) {
		double t;

		for (e = s + 1; e < nn && pool[e].v == pool[s].v; e++)
			;
		for (size_t i = s; i < e; i++) {
			r2[i] = (unsigned)(s + e + 1);
			if (pool[i].from_a)
				ra2 += r2[i];
		}
		t = (double)(e - s);
		ties3 += t * t * t - t;
		if (e - s > 1)
			out->ties = 1;
	}
	nm = (double)n * (double)m;
	out->n = n;
	out->m = m;
	out->u = ((double)ra2 - (double)n * (double)(n + 1)) / 2;
	mu = nm / 2;
	var = nm / 12 * ((double)nn + 1 - ties3 / ((double)nn * (double)(nn - 1)));
	sd = var > 0 ? sqrt(var) : 0;
	out->z = sd > 0 ? (out->u - mu) / sd : 0;

	if (n <= MW_EXACT_MAX && m <= MW_EXACT_MAX) {
		size_t len;
		uint64_t *cnt = ranksum_counts(r2, nn, n, &len), le = 0, ge = 0, total = 0;

		if (!cnt) {
			free(pool);
			free(r2);
			return -1;
		}
		for (size_t s = 0; s < len; s++) {
			total += cnt[s];
			if (s <= ra2)
				le += cnt[s];
			if (s >= ra2)
				ge += cnt[s];
		}
		free(cnt);
		out->exact = 1;
		out->p = 2 * (double)(le < ge ? le : ge) / (double)total;
	} else if (sd > 0) {
		double num = fabs(out->u - mu) - 0.5;

		out->p = 2 * norm_sf(num > 0 ? num / sd : 0);
	} else {
		out->p = 1; /* every value equal: no evidence either way */
	}
	if (out->p > 1)
		out->p = 1;
	free(pool);
	free(r2);
	return 0;
}

/* ---- Hodges-Lehmann ---- */

/* Doubles mapped to unsigned keys in the same order, so that a bisection
 * over keys visits every double between two bounds in at most 64 steps. */
static uint64_t dkey(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return (u >> 63) ? ~u : u | (1ULL << 63);
}

static double keyd(uint64_t k)
{
	uint64_t u = (k >> 63) ? k & ~(1ULL << 63) : ~k;
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

/* How many computed differences sa[i] - sb[j] are <= d, both sorted
 * ascending. Rounding is monotonic, so for each i the j that qualify are a
 * suffix, and its start only moves right as i grows. */
static uint64_t count_le(const double *sa, size_t n, const double *sb, size_t m, double d)
{
	uint64_t cnt = 0;
	size_t p = 0;

	for (size_t i = 0; i < n; i++) {
		while (p < m && sa[i] - sb[p] > d)
			p++;
		cnt += m - p;
	}
	return cnt;
}

/* The k-th smallest (1-based) of the n*m differences: the least double d
 * with count_le(d) >= k, which is one of the differences. */
static double kth_diff(const double *sa, size_t n, const double *sb, size_t m, uint64_t k)
{
	uint64_t lo = dkey(sa[0] - sb[m - 1]), hi = dkey(sa[n - 1] - sb[0]);

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (count_le(sa, n, sb, m, keyd(mid)) >= k)
			hi = mid;
		else
			lo = mid + 1;
	}
	return keyd(lo);
}

/* The rank k of the HL CI at conf (0 when none reaches it), from the null
 * distribution of U without ties. */
static int hl_rank(size_t n, size_t m, double conf, uint64_t *k)
{
	double nm = (double)n * (double)m, alpha = 1 - conf;

	*k = 0;
	if (n <= MW_EXACT_MAX && m <= MW_EXACT_MAX) {
		size_t nn = n + m, len;
		unsigned r2[2 * MW_EXACT_MAX];
		uint64_t *cnt, total = 0, cum = 0, base = (uint64_t)n * (n + 1);

		for (size_t t = 0; t < nn; t++)
			r2[t] = (unsigned)(2 * (t + 1));
		cnt = ranksum_counts(r2, nn, n, &len);
		if (!cnt)
			return -1;
		for (size_t s = 0; s < len; s++)
			total += cnt[s];
		/* doubled rank sum s <-> U = (s - n(n+1)) / 2; s steps by 2 */
		for (uint64_t kk = 1; base + 2 * (kk - 1) < len; kk++) {
			cum += cnt[base + 2 * (kk - 1)]; /* now P(U <= kk-1) */
			if (2 * (double)cum / (double)total > alpha + LEVEL_EPS)
				break;
			*k = kk;
		}
		free(cnt);
	} else {
		double sd = sqrt(nm * ((double)(n + m) + 1) / 12);
		double kk = floor(nm / 2 + 0.5 - norm_isf(alpha / 2) * sd);

		*k = kk >= 1 ? (uint64_t)kk : 0;
	}
	return 0;
}

int stats_hodges_lehmann(const double *a, size_t n, const double *b, size_t m, double conf,
			 double *est, double *lo, double *hi)
{
	double *sa, *sb;
	uint64_t nm, k;

	if (!a || !b || !n || !m || !est || !lo || !hi || !level_ok(conf) || !all_finite(a, n) ||
	    !all_finite(b, m) || (uint64_t)n > UINT64_MAX / m)
		return -1;
	nm = (uint64_t)n * m;
	if (hl_rank(n, m, conf, &k))
		return -1;
	sa = sorted_copy(a, n);
	sb = sorted_copy(b, m);
	if (!sa || !sb) {
		free(sa);
		free(sb);
		return -1;
	}
	if (nm % 2) {
		*est = kth_diff(sa, n, sb, m, (nm + 1) / 2);
	} else {
		double l = kth_diff(sa, n, sb, m, nm / 2), h = kth_diff(sa, n, sb, m, nm / 2 + 1);

		*est = l + 0.5 * (h - l);
	}
	if (k >= 1) {
		*lo = kth_diff(sa, n, sb, m, k);
		*hi = kth_diff(sa, n, sb, m, nm + 1 - k);
	} else {
		*lo = -INFINITY;
		*hi = INFINITY;
	}
	free(sa);
	free(sb);
	return 0;
}

/* ---- Holm ---- */

struct indexed {
	double p;
	size_t i;
};

static int cmp_indexed(const void *pa, const void *pb)
{
	const struct indexed *a = pa, *b = pb;

	if (a->p != b->p)
		return (a->p > b->p) - (a->p < b->p);
	/* equal p: by position, so the order does not depend on qsort */
	return (a->i > b->i) - (a->i < b->i);
}

int stats_holm_adjust(const double *p, size_t k, double *adj)
{
	struct indexed *v;
	double running = 0;

	if (!p || !adj || !k)
		return -1;
	for (size_t i = 0; i < k; i++)
		if (!(p[i] >= 0 && p[i] <= 1))
			return -1;
	v = malloc(k * sizeof(*v));
	if (!v)
		return -1;
	for (size_t i = 0; i < k; i++)
		v[i] = (struct indexed){ p[i], i };
	qsort(v, k, sizeof(*v), cmp_indexed);
	for (size_t r = 0; r < k; r++) {
		double a = (double)(k - r) * v[r].p;

		if (a > 1)
			a = 1;
		/* step-down: never below an earlier, smaller p's adjustment */
		if (a < running)
			a = running;
		running = a;
		adj[v[r].i] = a;
	}
	free(v);
	return 0;
}

int stats_holm(const double *p, size_t k, double alpha, int *reject)
{
	double *adj;
	int count = 0;

	if (!reject || !(alpha > 0 && alpha < 1))
		return -1;
	adj = alloc_doubles(k);
	if (!adj || stats_holm_adjust(p, k, adj)) {
		free(adj);
		return -1;
	}
	for (size_t i = 0; i < k; i++) {
		reject[i] = adj[i] <= alpha;
		count += reject[i];
	}
	free(adj);
	return count;
}

/* ---- verdicts ---- */

const char *stats_verdict_name(enum stats_verdict v)
{
	switch (v) {
	case STATS_BETTER:
		return "better";
	case STATS_WORSE:
		return "worse";
	case STATS_TIE:
		return "tie";
	case STATS_UNDECIDED:
		break;
	}
	return "undecided";
}

int stats_compare(const double *a, size_t n, const double *b, size_t m, double alpha, double delta,
		  int lower_is_better, struct stats_cmp *out)
{
	struct stats_mw mw;
	double gain;

	if (!out || !(alpha > 0 && alpha < 1) || !(delta >= 0) || !isfinite(delta))
		return -1;
	if (stats_mann_whitney(a, n, b, m, &mw) ||
	    stats_hodges_lehmann(a, n, b, m, 1 - alpha, &out->shift, &out->ci_lo, &out->ci_hi))
		return -1;
	out->u = mw.u;
	out->p = mw.p;
	out->exact = mw.exact;
	gain = lower_is_better ? -out->shift : out->shift;
	if (mw.p < alpha && gain >= delta && gain > 0)
		out->verdict = STATS_BETTER;
	else if (mw.p < alpha && -gain >= delta && gain < 0)
		out->verdict = STATS_WORSE;
	else if (out->ci_lo >= -delta && out->ci_hi <= delta)
		out->verdict = STATS_TIE;
	else
		out->verdict = STATS_UNDECIDED;
	return 0;
}

void stats_indiff_free(struct stats_indiff *r)
{
	if (!r)
		return;
	free(r->member);
	free(r->status);
	free(r->p_raw);
	free(r->p_adj);
	free(r->shift);
	free(r->ci_lo);
	free(r->ci_hi);
	memset(r, 0, sizeof(*r));
}

int stats_indifference(const double *const *x, const size_t *n, size_t k, int lower_is_better,
		       double alpha, double delta, struct stats_indiff *out)
{
	double best = 0, *praw = NULL, *padj = NULL;
	size_t nt = 0, ntie = 0, nund = 0;

	if (!out)
		return -1;
	memset(out, 0, sizeof(*out));
	if (!x || !n || !k || !(alpha > 0 && alpha < 1) || !(delta >= 0) || !isfinite(delta))
		return -1;
	out->k = k;
	out->member = malloc(k * sizeof(*out->member));
	out->status = malloc(k * sizeof(*out->status));
	out->p_raw = alloc_doubles(k);
	out->p_adj = alloc_doubles(k);
	out->shift = alloc_doubles(k);
	out->ci_lo = alloc_doubles(k);
	out->ci_hi = alloc_doubles(k);
	/* the k-1 p-values of the others, packed for Holm */
	praw = alloc_doubles(k);
	padj = alloc_doubles(k);
	if (!out->member || !out->status || !out->p_raw || !out->p_adj || !out->shift ||
	    !out->ci_lo || !out->ci_hi || !praw || !padj)
		goto fail;

	for (size_t g = 0; g < k; g++) {
		double med;

		if (stats_median(x[g], n[g], &med))
			goto fail;
		if (g == 0 || (lower_is_better ? med < best : med > best)) {
			best = med;
			out->leader = g;
		}
	}
	for (size_t g = 0; g < k; g++) {
		struct stats_mw mw;

		out->member[g] = 1;
		out->status[g] = STATS_BETTER;
		out->p_raw[g] = out->p_adj[g] = 1;
		out->shift[g] = out->ci_lo[g] = out->ci_hi[g] = 0;
		if (g == out->leader)
			continue;
		if (stats_mann_whitney(x[g], n[g], x[out->leader], n[out->leader], &mw) ||
		    stats_hodges_lehmann(x[g], n[g], x[out->leader], n[out->leader], 1 - alpha,
					 &out->shift[g], &out->ci_lo[g], &out->ci_hi[g]))
			goto fail;
		out->p_raw[g] = praw[nt++] = mw.p;
	}
	if (nt && stats_holm_adjust(praw, nt, padj))
		goto fail;
	nt = 0;
	for (size_t g = 0; g < k; g++) {
		double worse_by;

		if (g == out->leader)
			continue;
		out->p_adj[g] = padj[nt++];
		worse_by = lower_is_better ? out->shift[g] : -out->shift[g];
		if (out->p_adj[g] <= alpha && worse_by >= delta && worse_by > 0) {
			out->status[g] = STATS_WORSE;
			out->member[g] = 0;
		} else if (out->ci_lo[g] >= -delta && out->ci_hi[g] <= delta) {
			out->status[g] = STATS_TIE;
			ntie++;
		} else {
			out->status[g] = STATS_UNDECIDED;
			nund++;
		}
	}
	if (nund)
		out->verdict = STATS_UNDECIDED;
	else if (ntie)
		out->verdict = STATS_TIE;
	else
		out->verdict = STATS_BETTER;
	free(praw);
	free(padj);
	return 0;
fail:
	free(praw);
	free(padj);
	stats_indiff_free(out);
	return -1;
}
