/*
 * kernels/stats.c: averages, medians and the three efficiency figures.
 * Zero denominators give 0 rather than infinities in the JSON.
 */
#include "stats.h"
#include "sort.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

void tstats_of(const double *t, size_t n, struct tstats *s)
{
	double *c = xmalloc(n * sizeof(*c)), sum = 0;

	memcpy(c, t, n * sizeof(*c));
	sort_doubles(c, n);
	for (size_t i = 0; i < n; i++)
		sum += c[i];
	s->avg = sum / n;
	s->min = c[0];
	s->max = c[n - 1];
	s->median = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
	free(c);
}

double oe_paper(double ref, double comm, double compute)
{
	double m = comm > compute ? comm : compute;

	return m > 0 ? ref / m * 100 : 0;
}

double oe_measured(double ref, double total)
{
	double v = total > 0 ? ref / total * 100 : 0;

	return v > 100 ? 100 : v;
}

double overlap_pct(double comm, double compute, double total)
{
	double m = comm < compute ? comm : compute, f;

	if (m <= 0)
		return 0;
	f = (comm + compute - total) / m;
	if (f < 0)
		f = 0;
	if (f > 1)
		f = 1;
	return 100 * f;
}
