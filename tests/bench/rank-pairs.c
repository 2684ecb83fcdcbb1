/*
 * tests/bench/rank-pairs.c: do two measures rank algorithms alike?
 * tests/bench/baseline-rank.sh feeds it the launches of `sweetspot baseline`
 * and of sweetspot-loop with the same coll/tuned algorithm forced:
 *
 *   rank-pairs [--alpha A] [--delta D] X Y FILE
 *
 * FILE holds one line per launch and size, "MEASURE BYTES ALG VALUE" (a
 * time, lower is better; '#' lines skipped), MEASURE being X or Y. For each
 * size and each pair of algorithms (A the lower id, B the higher), each
 * measure's verdict comes from `sweetspot verify`'s statistics
 * (verify_decide(): medians per launch, B/A by Hodges-Lehmann of the logs
 * with its 95% CI, two-sided Mann-Whitney, Holm over the pairs of that size
 * and measure): "B faster", "A faster", "same" (the CI within 1 +- D),
 * "undecided". The pair then
 *
 *   disagrees when one measure is significant in a direction (B faster or
 *   A faster) and the other's 95% CI of B/A excludes every ratio that
 *   would count as a difference in that direction: its low end above 1 - D
 *   (when B was faster) or its high end below 1 + D (when A was faster);
 *   so opposite significant verdicts always disagree;
 *   agrees when it does not disagree and at least one measure is
 *   significant;
 *   is undecided by both otherwise (neither significant).
 *
 * Prints a row per pair and the counts. Exit 0 when computed, 2 bad usage
 * or input (file:line), 1 when the statistics cannot be computed (fewer
 * than 2 launches of an algorithm at a size).
 */
#include "error.h"
#include "verify.h"
#include "xalloc.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sample {
	int measure; /* 0: X, 1: Y */
	unsigned long long bytes;
	int alg;
	double v;
};

struct data {
	struct sample *s;
	size_t n, alloc;
};

static int parse_line(const char *path, unsigned line, char *buf, const char *const m[2],
		      struct data *d)
{
	char name[64], extra[2];
	unsigned long long bytes;
	int alg, k;
	double v;

	if (sscanf(buf, "%63s %llu %d %lf %1s", name, &bytes, &alg, &v, extra) != 4)
		return error("%s:%u: expected 'MEASURE BYTES ALG VALUE'", path, line);
	for (k = 0; k < 2 && strcmp(name, m[k]); k++)
		;
	if (k == 2)
		return error("%s:%u: measure '%s' is neither '%s' nor '%s'", path, line, name, m[0],
			     m[1]);
	if (alg < 0 || !isfinite(v) || v <= 0)
		return error("%s:%u: the algorithm must be >= 0 and the value a positive number",
			     path, line);
	if (d->n == d->alloc) {
		d->alloc = d->alloc ? 2 * d->alloc : 256;
		d->s = xrealloc(d->s, d->alloc * sizeof(*d->s));
	}
	d->s[d->n++] = (struct sample){ k, bytes, alg, v };
	return 0;
}

static int load(const char *path, const char *const m[2], struct data *d)
{
	FILE *f = fopen(path, "r");
	char buf[512];
	unsigned line = 0;
	int ret = 0;

	if (!f)
		return error("%s: %s", path, strerror(errno));
	while (!ret && fgets(buf, sizeof(buf), f)) {
		line++;
		if (buf[strspn(buf, " \t")] == '#' || buf[strspn(buf, " \t\n")] == '\0')
			continue;
		ret = parse_line(path, line, buf, m, d);
	}
	if (!ret && ferror(f))
		ret = error("%s: %s", path, strerror(errno));
	fclose(f);
	if (!ret && !d->n)
		ret = error("%s: no launch", path);
	return ret;
}

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;

	return (x > y) - (x < y);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The distinct sizes and algorithms, sorted: *sizes and *algs malloc'd. */
static void distinct(const struct data *d, unsigned long long **sizes, size_t *ns, int **algs,
		     size_t *na)
{
	unsigned long long *v = xcalloc(d->n, sizeof(*v));
	int *a = xcalloc(d->n, sizeof(*a));

	for (size_t i = 0; i < d->n; i++) {
		v[i] = d->s[i].bytes;
		a[i] = d->s[i].alg;
	}
	qsort(v, d->n, sizeof(*v), cmp_ull);
	qsort(a, d->n, sizeof(*a), cmp_int);
	*ns = *na = 0;
	for (size_t i = 0; i < d->n; i++) {
		if (!*ns || v[i] != v[*ns - 1])
			v[(*ns)++] = v[i];
		if (!*na || a[i] != a[*na - 1])
			a[(*na)++] = a[i];
	}
	*sizes = v;
	*algs = a;
}

/* -1: A faster (B/A above 1), 1: B faster, 0: not significant. */
static int direction(const struct verify_figure *f)
{
	if (!strcmp(f->verdict, "faster"))
		return 1;
	return !strcmp(f->verdict, "slower") ? -1 : 0;
}

static const char *verdict_text(const struct verify_figure *f)
{
	int d = direction(f);

	if (d)
		return d > 0 ? "B faster" : "A faster";
	return !strcmp(f->verdict, "no difference") ? "same" : "undecided";
}

/* 1 disagree, 0 agree, 2 both undecided (the header says which is which). */
static int judge(const struct verify_figure *x, const struct verify_figure *y, double delta)
{
	const struct verify_figure *f[2] = { x, y };
	int any = 0;

	for (int k = 0; k < 2; k++) {
		const struct verify_figure *o = f[1 - k];
		int d = direction(f[k]);

		any |= d != 0;
		if ((d > 0 && o->r_lo > 1 - delta) || (d < 0 && o->r_hi < 1 + delta))
			return 1;
	}
	return any ? 0 : 2;
}

/* The pairs of one size, each measure decided over them. Adds to count[3]. */
static int one_size(const struct data *d, unsigned long long bytes, const int *algs, size_t na,
		    const char *const m[2], double alpha, double delta, size_t count[3])
{
	size_t np = na * (na - 1) / 2, p = 0;
	struct verify_figure *fig[2] = { xcalloc(np ? np : 1, sizeof(*fig[0])),
					 xcalloc(np ? np : 1, sizeof(*fig[1])) };
	static const char *const what[3] = { "agree", "DISAGREE", "both undecided" };
	int ret = -1;

	for (size_t i = 0; i < na; i++)
		for (size_t j = i + 1; j < na; j++, p++)
			for (size_t s = 0; s < d->n; s++) {
				const struct sample *x = &d->s[s];

				if (x->bytes != bytes || (x->alg != algs[i] && x->alg != algs[j]))
					continue;
				verify_figure_add(&fig[x->measure][p], x->alg == algs[j], x->v);
			}
	for (int k = 0; k < 2; k++) {
		for (p = 0; p < np; p++)
			fig[k][p].name = xstrdup(m[k]);
		if (verify_decide(fig[k], np, 0, alpha, delta) < 0)
			goto out;
	}
	p = 0;
	for (size_t i = 0; i < na; i++)
		for (size_t j = i + 1; j < na; j++, p++) {
			const struct verify_figure *x = &fig[0][p], *y = &fig[1][p];
			int c = judge(x, y, delta);

			count[c == 1 ? 1 : c == 2 ? 2 : 0]++;
			printf("%9llu %3d %3d  %-9s %6.3f [%5.3f %5.3f] %7.4f  %-9s %6.3f [%5.3f "
			       "%5.3f] %7.4f  %s\n",
			       bytes, algs[i], algs[j], verdict_text(x), x->ratio, x->r_lo, x->r_hi,
			       x->p_holm, verdict_text(y), y->ratio, y->r_lo, y->r_hi, y->p_holm,
			       what[c == 1 ? 1 :
				    c == 2 ? 2 :
					     0]);
		}
	ret = 0;
out:
	verify_figures_free(fig[0], np);
	verify_figures_free(fig[1], np);
	return ret;
}

static int parse_fraction(const char *name, const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (errno || end == s || *end || !(*out >= 0 && *out < 1))
		return error("%s: '%s' is not a number in [0, 1)", name, s);
	return 0;
}

int main(int argc, char **argv)
{
	double alpha = 0.05, delta = 0.01;
	struct data d = { NULL, 0, 0 };
	unsigned long long *sizes = NULL;
	int *algs = NULL, i = 1, status = 2;
	size_t count[3] = { 0, 0, 0 }, ns, na;

	error_set_prog("rank-pairs");
	for (; i + 1 < argc && argv[i][0] == '-' && argv[i][1] == '-'; i += 2)
		if (strcmp(argv[i], "--alpha") && strcmp(argv[i], "--delta")) {
			break;
		} else if (parse_fraction(argv[i], argv[i + 1],
					  argv[i][2] == 'a' ? &alpha : &delta)) {
			return 2;
		}
	if (argc - i != 3) {
		fprintf(stderr, "usage: rank-pairs [--alpha A] [--delta D] X Y FILE\n");
		return 2;
	}
	if (!strcmp(argv[i], argv[i + 1])) {
		error("the two measures have one name, '%s'", argv[i]);
		return 2;
	}
	if (load(argv[i + 2], (const char *const *)&argv[i], &d))
		goto out;
	status = 1;
	distinct(&d, &sizes, &ns, &algs, &na);
	printf("#%8s %3s %3s  %-38s  %-38s  %s\n", "bytes", "A", "B", argv[i], argv[i + 1], "pair");
	printf("#%8s %3s %3s  %-9s %6s %-13s %7s  %-9s %6s %-13s %7s\n", "", "", "", "verdict",
	       "B/A", "[95% CI]", "p(Holm)", "verdict", "B/A", "[95% CI]", "p(Holm)");
	for (size_t s = 0; s < ns; s++)
		if (one_size(&d, sizes[s], algs, na, (const char *const *)&argv[i], alpha, delta,
			     count))
			goto out;
	printf("pairs: %zu agree, %zu disagree, %zu undecided by both (alpha %g, delta %g; "
	       "target: 0 disagree)\n",
	       count[0], count[1], count[2], alpha, delta);
	status = fflush(stdout) || ferror(stdout) ? 1 : 0;
out:
	free(sizes);
	free(algs);
	free(d.s);
	return status;
}
