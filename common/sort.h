/*
 * common/sort.h: samples of doubles in ascending order, the one
 * comparator the kernels' statistics, the model and the decisions sort
 * with.
 */
#ifndef SWEETSPOT_COMMON_SORT_H
#define SWEETSPOT_COMMON_SORT_H

#include <stddef.h>

/* qsort's comparator of two doubles: -1, 0 or 1 (a NaN compares equal to
 * everything, as < and > say). */
int sort_cmp_double(const void *a, const void *b);

/* v[0..n) in ascending order. */
void sort_doubles(double *v, size_t n);

#endif
