/*
 * common/sort.c: see sort.h.
 */
#include "sort.h"

#include <stdlib.h>

int sort_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void sort_doubles(double *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), sort_cmp_double);
}
