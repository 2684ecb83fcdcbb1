/*
 * tuner/report/plot.h: figures like the DPU-Bench paper's, drawn by gnuplot (run
 * as an argv child on a script file; no shell). Per collective, algorithm
 * and assignment: offload efficiency against the number of workers, one
 * line per message size (the best WPN and placement at each worker count),
 * and the runtimes of the reference (hosts alone) against the offloaded
 * communication; per collective and size, one line per algorithm or
 * schedule when there are several. Each figure comes as PNG and SVG, with
 * its data and script beside it so that it can be redrawn.
 */
#ifndef SWEETSPOT_PLOT_H
#define SWEETSPOT_PLOT_H

#include <stddef.h>

struct store_point;

/* Writes the figures of the offloaded points into dir (created if needed);
 * with pred (the model's predictions of the same plan, npred of them), a
 * model-* figure per collective, algorithm and assignment that has both:
 * measured and predicted OE on one figure. Everything is drawn in a
 * temporary folder first and moved in only when gnuplot succeeded, so a
 * failure leaves dir as it was. Returns the number of figures (PNG+SVG
 * pairs) written, or -1 after error(). */
int plot_write(const struct store_point *pts, size_t n, const struct store_point *pred,
	       size_t npred, const char *dir);

#endif
