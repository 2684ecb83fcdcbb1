/*
 * kernels/stats.h: statistics of per-iteration times and the offload
 * efficiency formulas, named as in the output. Pure C (unit-tested).
 */
#ifndef SWEETSPOT_STATS_H
#define SWEETSPOT_STATS_H

#include <stddef.h>

struct tstats {
	double avg, min, median, max;
};

/* Of n >= 1 times (not modified). */
void tstats_of(const double *t, size_t n, struct tstats *s);

/* The paper's ideal: ref / max(comm, compute) * 100. */
double oe_paper(double ref, double comm, double compute);
/* The DPU-Bench code's measured form: min(100, ref / total * 100). */
double oe_measured(double ref, double total);
/* IMB-NBC: 100 * max(0, min(1, (comm + compute - total) / min(comm, compute))). */
double overlap_pct(double comm, double compute, double total);

#endif
