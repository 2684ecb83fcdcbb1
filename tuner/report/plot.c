/*
 * tuner/report/plot.c: the figures of plot.h. Every stored point is one launch's
 * value (the launch-level sample); per configuration (collective,
 * algorithm, assignment, layout, size) the launches are summarised with
 * stats_summarize(): the median of oe_measured and its 95% CI of the median
 * from order statistics (min-max when there are too few launches), drawn as
 * error bars; the reference time with its min-max across launches, drawn
 * as a band. Where a figure has one line per size or WPN, the layout with
 * the highest median OE at each worker count stands for it.
 */
#include "plot.h"
#include "plot_style.h"
#include "verdict.h"

#include "child.h"
#include "error.h"
#include "parse.h"
#include "stats.h"
#include "store.h"
#include "strvec.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PLOT_CONF 0.95

/* A median with its interval: the CI for OE and comm, min-max for ref. */
struct band {
	double mid, lo, hi;
	int ok;
};

/* One configuration and the summary of its launches. */
struct conf {
	const struct store_point *p; /* its first launch's point */
	struct band oe, ref, comm;
	int in_set;    /* in its decision's indifference set (verdict.h) */
	int predicted; /* the model's, not measured (model figures) */
};

/* The configurations of one collective, algorithm and assignment. */
struct group {
	const struct store_point *p;
	struct conf *confs;
	size_t nconfs;
	unsigned workers[256];
	size_t nworkers;
	uint64_t sizes[64];
	size_t nsizes;
	unsigned wpns[64];
	size_t nwpns;
	int has_dpu, has_onload, ppn, most_onload_wpn;
	/* Another group has the same collective, algorithm and assignment
	 * (another dtype, op, chunk, window or radix): the figures' names and
	 * titles say which axes this one has. */
	int axes_differ;
};

/* One line of a figure: its column name, its legend, a conf per worker count. */
struct line {
	char key[64], title[128];
	int predicted; /* pick() takes the model's confs, else measured ones */
	const struct conf *cell[256];
};

static int is_offload(const struct store_point *p)
{
	return p->valid && (!p->mode || strcmp(p->mode, "mpi")) && isfinite(p->oe_measured) &&
	       p->workers > 0 && p->layout && *p->layout;
}

/* A point's group: the point but its size (point.h), so that points of
 * another dtype, op, chunk, window or radix are never drawn as one. */
static struct point group_key(const struct store_point *p)
{
	struct point k = p->key;

	k.bytes = 0;
	return k;
}

/* Sort order: group (collective, dtype and op, algorithm, assignment, the
 * pipelining and radix), then layout, size. */
static int cmp_point(const void *a, const void *b)
{
	const struct store_point *x = *(const struct store_point *const *)a;
	const struct store_point *y = *(const struct store_point *const *)b;
	struct point kx = group_key(x), ky = group_key(y);
	int c;

	if ((c = point_cmp(&kx, &ky)) || (c = strcmp(x->layout, y->layout)))
		return c;
	return x->key.bytes < y->key.bytes ? -1 : x->key.bytes > y->key.bytes;
}

static int same_group(const struct store_point *x, const struct store_point *y)
{
	struct point kx = group_key(x), ky = group_key(y);

	return point_same(&kx, &ky);
}

/* Whether x and y differ only beyond (collective, algorithm, assignment). */
static int same_schedule(const struct store_point *x, const struct store_point *y)
{
	return !strcmp(x->key.collective, y->key.collective) &&
	       !strcmp(x->key.algorithm, y->key.algorithm) &&
	       !strcmp(x->key.assignment, y->key.assignment);
}

/* The median and its CI (ci) or min-max (!ci) of the finite values. */
static struct band summarize(const double *x, size_t n, int ci)
{
	struct stats_summary s;
	struct band b = { NAN, NAN, NAN, 0 };
	double *v = xcalloc(n + 1, sizeof(*v));
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (isfinite(x[i]))
			v[m++] = x[i];
	if (m && !stats_summarize(v, m, PLOT_CONF, 1, &s)) {
		b.mid = s.median;
		b.lo = ci ? s.ci_lo : s.min;
		b.hi = ci ? s.ci_hi : s.max;
		b.ok = 1;
		stats_summary_free(&s);
	}
	free(v);
	return b;
}

/* Summarises the launches pts[0..n-1] of one configuration into *c. */
static void summarize_conf(const struct store_point *const *pts, size_t n, struct conf *c)
{
	double *oe = xcalloc(n, sizeof(double)), *ref = xcalloc(n, sizeof(double));
	double *comm = xcalloc(n, sizeof(double));

	for (size_t i = 0; i < n; i++) {
		oe[i] = pts[i]->oe_measured;
		ref[i] = pts[i]->ref_us;
		comm[i] = pts[i]->comm_us;
	}
	c->p = pts[0];
	c->oe = summarize(oe, n, 1);
	c->ref = summarize(ref, n, 0);
	c->comm = summarize(comm, n, 1);
	free(oe);
	free(ref);
	free(comm);
}

/* Adds v to the ascending set a[0..*n-1] of at most max. */
static void add_uns(unsigned *a, size_t *n, size_t max, unsigned v)
{
	size_t i = 0;

	while (i < *n && a[i] < v)
		i++;
	if ((i < *n && a[i] == v) || *n == max)
		return;
	memmove(a + i + 1, a + i, (*n - i) * sizeof(*a));
	a[i] = v;
	(*n)++;
}

static void add_u64(uint64_t *a, size_t *n, size_t max, uint64_t v)
{
	size_t i = 0;

	while (i < *n && a[i] < v)
		i++;
	if ((i < *n && a[i] == v) || *n == max)
		return;
	memmove(a + i + 1, a + i, (*n - i) * sizeof(*a));
	a[i] = v;
	(*n)++;
}

static void group_add(struct group *g, const struct store_point *const *run, size_t n)
{
	struct conf *c;
	const struct store_point *p = run[0];
	int onload = p->placement && !strcmp(p->placement, "onload");

	g->confs = xrealloc(g->confs, (g->nconfs + 1) * sizeof(*g->confs));
	c = &g->confs[g->nconfs++];
	memset(c, 0, sizeof(*c));
	summarize_conf(run, n, c);
	add_uns(g->workers, &g->nworkers, 256, (unsigned)p->workers);
	add_u64(g->sizes, &g->nsizes, 64, p->key.bytes);
	if (p->wpn > 0)
		add_uns(g->wpns, &g->nwpns, 64, (unsigned)p->wpn);
	g->has_dpu |= !onload;
	g->has_onload |= onload;
	if (p->ppn > g->ppn)
		g->ppn = p->ppn;
	if (onload && p->wpn > g->most_onload_wpn)
		g->most_onload_wpn = p->wpn;
}

/* The groups of the offloaded points, each with its configurations. */
static size_t build_groups(const struct store_point *pts, size_t n, struct group **out)
{
	const struct store_point **v = xcalloc(n + 1, sizeof(*v));
	struct group *g = xcalloc(n + 1, sizeof(*g));
	size_t m = 0, ng = 0, i, j;

	for (i = 0; i < n; i++)
		if (is_offload(&pts[i]))
			v[m++] = &pts[i];
	qsort(v, m, sizeof(*v), cmp_point);
	for (i = 0; i < m; i = j) {
		for (j = i + 1; j < m && !cmp_point(&v[i], &v[j]); j++)
			;
		if (!ng || !same_group(g[ng - 1].p, v[i])) {
			g[ng].p = v[i];
			g[ng].ppn = -1;
			ng++;
		}
		group_add(&g[ng - 1], v + i, j - i);
	}
	for (i = 0; i < ng; i++)
		for (j = 0; j < ng; j++)
			g[i].axes_differ |= i != j && same_schedule(g[i].p, g[j].p);
	free(v);
	*out = g;
	return ng;
}

static void free_groups(struct group *g, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(g[i].confs);
	free(g);
}

/* Fills line l with the best conf (highest median OE) at each worker count
 * among the group's confs of size bytes, WPN wpn (0: any), placement and
 * algorithm (NULL: any). Returns how many cells it filled. */
static size_t pick(const struct group *g, uint64_t bytes, int wpn, const char *placement,
		   const char *algorithm, struct line *l)
{
	size_t filled = 0;

	memset(l->cell, 0, sizeof(l->cell));
	for (size_t i = 0; i < g->nconfs; i++) {
		const struct conf *c = &g->confs[i];
		size_t w;

		if (c->p->key.bytes != bytes || (wpn && c->p->wpn != wpn) ||
		    (placement && (!c->p->placement || strcmp(c->p->placement, placement))) ||
		    (algorithm && strcmp(c->p->key.algorithm, algorithm)) || !c->oe.ok ||
		    c->predicted != l->predicted)
			continue;
		for (w = 0; w < g->nworkers && g->workers[w] != (unsigned)c->p->workers; w++)
			;
		if (w == g->nworkers)
			continue; /* past the 256 worker counts a figure shows */
		if (!l->cell[w]) {
			filled++;
			l->cell[w] = c;
		} else if (c->oe.mid > l->cell[w]->oe.mid) {
			l->cell[w] = c;
		}
	}
	return filled;
}

/* A file name part: letters, digits and '-' kept, the rest '_'. */
static void safe_name(char *dst, size_t n, const char *src)
{
	size_t i;

	for (i = 0; src[i] && i + 1 < n; i++) {
		char c = src[i];

		dst[i] = ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '-') ?
				 c :
				 '_';
	}
	dst[i] = '\0';
}

static void put_val(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, " %.4f", v);
	else
		fputs(" ?", f);
}

/* What a figure shows: FIG_OE, OE with error bars and rings for the set;
 * FIG_RUNTIME, the reference's band and the offloaded communication;
 * FIG_MODEL, FIG_OE with the model's lines dashed, without intervals or
 * sets. */
enum fig_kind { FIG_OE, FIG_RUNTIME, FIG_MODEL };

/* One panel: the lines [from, to) of a data file (its stem dat), which
 * holds lines[0..nlines-1], one row per worker count of g. */
struct panel {
	const struct group *g;
	struct line *lines;
	size_t nlines, from, to;
	char dat[384], title[128];
};

/* One figure: its name stem and title; lines of group g (one panel of
 * them all unless panels are given); the x axis is the worker counts of
 * axes, or of g when it is NULL. */
struct figure {
	enum fig_kind kind;
	char name[256];
	char title[256];
	struct line *lines;
	size_t nlines;
	const struct group *g, *axes;
	struct panel panel[PLOT_PANELS];
	size_t npanels;
};

#define SET_TITLE "the set"
#define SET_NOTE                                                                     \
	"Ringed: the indifference set, every configuration not significantly worse " \
	"than the best (the recommendation is its cheapest member)."
#define REF_BAND_TITLE "reference (hosts alone): min-max of the launches"
#define REF_TITLE      "reference: median"
#define COMM_TITLE     "offloaded communication: median and 95% CI"

/* dat.dat: "workers", then per line the median and its interval of OE
 * (oe@K oe_lo@K oe_hi@K set@K), or of the reference (ref_us@K ref_min@K
 * ref_max@K, min-max across launches) and the offloaded communication
 * (comm_us@K comm_lo@K comm_hi@K, its CI). */
static int write_dat(const char *tmp, enum fig_kind kind, const struct panel *pn)
{
	char *path = xasprintf("%s/%s.dat", tmp, pn->dat);
	FILE *f = fopen(path, "w");
	int ret = 0, oe = kind != FIG_RUNTIME;

	if (!f) {
		ret = error("cannot write %s: %s", path, strerror(errno));
		free(path);
		return ret;
	}
	fprintf(f, "# workers");
	for (size_t k = 0; k < pn->nlines; k++) {
		const char *key = pn->lines[k].key;

		if (oe)
			fprintf(f, " oe@%s oe_lo@%s oe_hi@%s set@%s", key, key, key, key);
		else
			fprintf(f,
				" ref_us@%s ref_min@%s ref_max@%s comm_us@%s comm_lo@%s comm_hi@%s",
				key, key, key, key, key, key);
	}
	fputc('\n', f);
	for (size_t w = 0; w < pn->g->nworkers; w++) {
		fprintf(f, "%u", pn->g->workers[w]);
		for (size_t k = 0; k < pn->nlines; k++) {
			const struct conf *c = pn->lines[k].cell[w];
			const struct band nob = { NAN, NAN, NAN, 0 };
			const struct band *b[3] = { c ? &c->oe : &nob, c ? &c->ref : &nob,
						    c ? &c->comm : &nob };

			for (int i = oe ? 0 : 1; i < (oe ? 1 : 3); i++) {
				put_val(f, b[i]->mid);
				put_val(f, b[i]->lo);
				put_val(f, b[i]->hi);
			}
			if (oe)
				fprintf(f, " %d", c && c->in_set);
		}
		fputc('\n', f);
	}
	if (fclose(f))
		ret = error("cannot write %s: %s", path, strerror(errno));
	free(path);
	return ret;
}

/* The axes of one panel: workers (every panel of a figure the same range
 * and tics; log 2 where they span 4x or more) and OE on 0-105% or, for
 * runtimes, time on a log scale. */
static void put_axes(FILE *gp, const struct figure *fg, const struct panel *pn)
{
	const struct group *g = fg->axes ? fg->axes : fg->g;
	double lo = g->workers[0], hi = g->workers[g->nworkers - 1], pad;
	size_t i, k;

	fprintf(gp, "\nset title \"%s\"\nset xlabel 'workers'\n", pn->title);
	/* A margin left and right: the first and last worker counts' error
	 * bars would lie on the border. */
	if (g->nworkers > 1 && hi >= 4 * lo) {
		fprintf(gp, "set logscale x 2\nset xrange [%g:%g]\n", lo / 1.25, hi * 1.25);
	} else {
		pad = hi > lo ? (hi - lo) * 0.06 : 0.5;
		fprintf(gp, "unset logscale x\nset xrange [%g:%g]\n", lo - pad, hi + pad);
	}
	if (fg->kind == FIG_RUNTIME)
		fprintf(gp, "set logscale y\nset autoscale y\n");
	else
		fprintf(gp, "unset logscale y\nset yrange [0:105]\n");
	/* Every worker count as a tic, unless there are too many to read. */
	fprintf(gp, "set xtics (");
	for (i = 0, k = 0; i < g->nworkers; i++) {
		unsigned w = g->workers[i];

		if (g->nworkers > 12 && (w & (w - 1)) && i + 1 < g->nworkers)
			continue;
		fprintf(gp, "%s\"%u\" %u", k++ ? ", " : "", w, w);
	}
	fprintf(gp, ")\n");
}

/* The plot command of a panel: OE with error bars per line (lt k+1 of the
 * palette: colour and marker) and a ring around each member of the set; or
 * the reference as a dashed line in its min-max band and the offloaded
 * communication with error bars. Columns as write_dat() writes them. */
static void put_plot(FILE *gp, const struct figure *fg, const struct panel *pn)
{
	fputs("plot", gp);
	for (size_t k = pn->from; k < pn->to; k++) {
		const char *t = pn->lines[k].title, *sep = k > pn->from ? "," : "";

		if (fg->kind == FIG_MODEL) {
			size_t c = 2 + 4 * k, lt = k / 2 + 1;

			/* Measured and predicted lines of one size share a colour. */
			if (pn->lines[k].predicted)
				fprintf(gp,
					"%s '%s.dat' using 1:%zu with linespoints lt %zu dt 2 pt 6 "
					"title '%s'",
					sep, pn->dat, c, lt, t);
			else
				fprintf(gp,
					"%s '%s.dat' using 1:%zu:%zu:%zu with yerrorlines lt %zu "
					"title '%s'",
					sep, pn->dat, c, c + 1, c + 2, lt, t);
		} else if (fg->kind == FIG_OE) {
			size_t c = 2 + 4 * k;

			fprintf(gp,
				"%s '%s.dat' using 1:%zu:%zu:%zu with yerrorlines lt %zu title "
				"'%s',"
				" '' using 1:($%zu > 0 ? $%zu : 1/0) with points pt 6 ps 2.6 lw "
				"1.5 "
				"lc rgb '#000000' %s",
				sep, pn->dat, c, c + 1, c + 2, k + 1, t, c + 3, c,
				k + 1 < pn->to ? "notitle" : "title '" SET_TITLE "'");
		} else {
			size_t c = 2 + 6 * k;

			fprintf(gp,
				"%s '%s.dat' using 1:%zu:%zu with filledcurves fs transparent "
				"solid 0.2 "
				"noborder lt 1 title '" REF_BAND_TITLE "',"
				" '' using 1:%zu with linespoints lt 1 dt 2 title '" REF_TITLE "',"
				" '' using 1:%zu:%zu:%zu with yerrorlines lt 2 title '%s'",
				sep, pn->dat, c + 1, c + 2, c, c + 3, c + 4, c + 5, COMM_TITLE);
		}
	}
	fputc('\n', gp);
}

/* The key's entries and the longest of their titles (the first panel's:
 * the panels of a figure share one key). */
static size_t key_entries(const struct figure *fg, size_t *longest)
{
	const struct panel *pn = &fg->panel[0];
	size_t n = 0;

	*longest = 0;
	if (fg->kind == FIG_RUNTIME) {
		*longest = strlen(COMM_TITLE) > strlen(REF_BAND_TITLE) ? strlen(COMM_TITLE) :
									 strlen(REF_BAND_TITLE);
		return 3;
	}
	for (size_t k = pn->from; k < pn->to; k++, n++)
		if (strlen(pn->lines[k].title) > *longest)
			*longest = strlen(pn->lines[k].title);
	if (fg->kind == FIG_OE && n) {
		n++;
		if (strlen(SET_TITLE) > *longest)
			*longest = strlen(SET_TITLE);
	}
	return n;
}

/* Writes the figure's data and its drawing in both terminals: its panels
 * (one of all its lines unless it has some) on one canvas of the style's. */
static int put_figure(const char *tmp, FILE *gp, struct figure *fg)
{
	struct plot_frame fr;
	size_t nkeys, longest;

	if (!fg->npanels) {
		struct panel *pn = &fg->panel[0];

		pn->g = fg->g;
		pn->lines = fg->lines;
		pn->nlines = pn->to = fg->nlines;
		pn->from = 0;
		snprintf(pn->dat, sizeof(pn->dat), "%s", fg->name);
		pn->title[0] = '\0';
		fg->npanels = 1;
	}
	for (size_t i = 0; i < fg->npanels; i++)
		if ((!i || strcmp(fg->panel[i].dat, fg->panel[i - 1].dat)) &&
		    write_dat(tmp, fg->kind, &fg->panel[i]))
			return -1;
	nkeys = key_entries(fg, &longest);
	plot_frame_layout(&fr, fg->npanels, fg->title, nkeys, longest,
			  fg->kind == FIG_OE ? SET_NOTE : NULL);
	for (int t = 0; t < 2; t++) {
		plot_frame_begin(gp, &fr, fg->name, t);
		for (size_t i = 0; i < fg->npanels; i++) {
			put_axes(gp, fg, &fg->panel[i]);
			plot_frame_panel(gp, &fr, i,
					 fg->kind == FIG_RUNTIME ?
						 "time per call (us)" :
						 "oe_measured (%), median and 95% CI");
			put_plot(gp, fg, &fg->panel[i]);
			plot_frame_drawn(gp, i);
		}
		plot_frame_end(gp);
	}
	return 0;
}

/* The figure's name (kind-collective-algorithm-assignment, and the axes
 * where another group differs only there: -int32_sum_chunk_4K_window_2)
 * and title. */
static void name_figure(struct figure *fg, const char *kind, const char *what)
{
	const struct store_point *p = fg->g->p;
	char c[40], a[40], s[40], axes[96] = "", x[96] = "";

	safe_name(c, sizeof(c), p->key.collective);
	safe_name(a, sizeof(a), p->key.algorithm);
	safe_name(s, sizeof(s), p->key.assignment);
	if (fg->g->axes_differ) {
		point_text(&p->key, POINT_REDUCTION | POINT_AXES, axes, sizeof(axes));
		safe_name(x, sizeof(x), axes);
	}
	/* Names and titles are bounded by their parts: kind (a word), three
	 * names of at most 39 characters, axes of at most 95. */
	snprintf(fg->name, sizeof(fg->name), "%.16s-%s-%s-%s%s%s", kind, c, a, s, *x ? "-" : "", x);
	snprintf(fg->title, sizeof(fg->title), "%.39s (%.39s, %.39s assignment%s%s): %s",
		 p->key.collective, p->key.algorithm, p->key.assignment, *axes ? ", " : "", axes,
		 what);
}

/* The runtimes as small multiples: one panel per size (up to
 * PLOT_PANELS) that has times, so that the reference's bands of different
 * sizes do not overlap; every panel reads the figure's one data file. */
static int runtime_figure(const char *tmp, FILE *gp, struct figure *fg)
{
	fg->kind = FIG_RUNTIME;
	fg->npanels = 0;
	for (size_t k = 0; k < fg->nlines && fg->npanels < PLOT_PANELS; k++) {
		struct panel *pn = &fg->panel[fg->npanels];
		int times = 0;

		for (size_t w = 0; w < fg->g->nworkers; w++)
			times |= fg->lines[k].cell[w] && fg->lines[k].cell[w]->ref.ok &&
				 fg->lines[k].cell[w]->comm.ok;
		if (!times)
			continue;
		*pn = (struct panel){ fg->g, fg->lines, fg->nlines, k, k + 1, "", "" };
		snprintf(pn->title, sizeof(pn->title), "%s", fg->lines[k].title);
		fg->npanels++;
	}
	if (!fg->npanels)
		return 0; /* a replay table has no times to draw */
	name_figure(fg, "runtime",
		    "reference (hosts alone) against the offloaded communication, "
		    "one panel per size");
	for (size_t i = 0; i < fg->npanels; i++)
		snprintf(fg->panel[i].dat, sizeof(fg->panel[i].dat), "%s", fg->name);
	return put_figure(tmp, gp, fg) ? -1 : 1;
}

/* OE and runtime against workers, one line per size (best layout each). */
static int size_figures(const char *tmp, FILE *gp, const struct group *g, const struct group *axes)
{
	struct figure fg = { .kind = FIG_OE,
			     .lines = xcalloc(g->nsizes, sizeof(struct line)),
			     .g = g,
			     .axes = axes };
	int figs = 0, r;
	char sz[32];

	for (size_t k = 0; k < g->nsizes; k++) {
		struct line *l = &fg.lines[fg.nlines];

		if (!pick(g, g->sizes[k], 0, NULL, NULL, l))
			continue;
		format_size(g->sizes[k], sz, sizeof(sz));
		snprintf(l->key, sizeof(l->key), "%s", sz);
		snprintf(l->title, sizeof(l->title), "%s", sz);
		fg.nlines++;
	}
	name_figure(&fg, "oe", "offload efficiency, best WPN and placement at each worker count");
	if (fg.nlines && put_figure(tmp, gp, &fg) == 0)
		figs++;
	else if (fg.nlines)
		figs = -1;
	if (figs > 0) {
		r = runtime_figure(tmp, gp, &fg);
		figs = r < 0 ? -1 : figs + r;
	}
	free(fg.lines);
	return figs;
}

/* OE against workers at the largest size, one line per WPN. */
static int wpn_figure(const char *tmp, FILE *gp, const struct group *g, const struct group *axes)
{
	struct figure fg = { .kind = FIG_OE,
			     .lines = xcalloc(g->nwpns + 1, sizeof(struct line)),
			     .g = g,
			     .axes = axes };
	uint64_t bytes = g->sizes[g->nsizes - 1];
	char sz[32], what[128];
	int ret = 0;

	for (size_t k = 0; k < g->nwpns; k++) {
		struct line *l = &fg.lines[fg.nlines];

		if (!pick(g, bytes, (int)g->wpns[k], NULL, NULL, l))
			continue;
		snprintf(l->key, sizeof(l->key), "wpn%u", g->wpns[k]);
		snprintf(l->title, sizeof(l->title), "WPN %u", g->wpns[k]);
		fg.nlines++;
	}
	snprintf(what, sizeof(what), "offload efficiency per WPN at %s",
		 format_size(bytes, sz, sizeof(sz)));
	name_figure(&fg, "wpn", what);
	if (fg.nlines)
		ret = put_figure(tmp, gp, &fg) ? -1 : 1;
	free(fg.lines);
	return ret;
}

/* DPU against onload at the largest size, when both were measured: DPU
 * workers (best WPN) leave every core of a node to the application, onload
 * workers take WPN of them. A node's cores are taken as its host ranks plus
 * the most onload workers put on it. */
static int placement_figure(const char *tmp, FILE *gp, const struct group *g,
			    const struct group *axes)
{
	struct figure fg = { .kind = FIG_OE,
			     .lines = xcalloc(g->nwpns + 2, sizeof(struct line)),
			     .g = g,
			     .axes = axes };
	uint64_t bytes = g->sizes[g->nsizes - 1];
	int cores = g->ppn > 0 ? g->ppn + g->most_onload_wpn : -1, ret = 0;
	char sz[32], what[128];
	struct line *l = &fg.lines[0];

	if (!g->has_dpu || !g->has_onload)
		goto out;
	if (pick(g, bytes, 0, "dpu", NULL, l)) {
		snprintf(l->key, sizeof(l->key), "dpu");
		if (cores > 0)
			snprintf(l->title, sizeof(l->title),
				 "DPU: the application keeps all %d cores/node", cores);
		else
			snprintf(l->title, sizeof(l->title),
				 "DPU: the application keeps every core");
		fg.nlines++;
	}
	for (size_t k = 0; k < g->nwpns; k++) {
		unsigned w = g->wpns[k];

		l = &fg.lines[fg.nlines];
		if (!pick(g, bytes, (int)w, "onload", NULL, l))
			continue;
		snprintf(l->key, sizeof(l->key), "onload-wpn%u", w);
		if (cores > 0)
			snprintf(l->title, sizeof(l->title),
				 "onload WPN %u: the application keeps %d of %d cores/node", w,
				 cores - (int)w, cores);
		else
			snprintf(l->title, sizeof(l->title),
				 "onload WPN %u: %u cores/node taken from the application", w, w);
		fg.nlines++;
	}
	snprintf(what, sizeof(what), "DPU vs onload at %s", format_size(bytes, sz, sizeof(sz)));
	name_figure(&fg, "placement", what);
	if (fg.nlines > 1)
		ret = put_figure(tmp, gp, &fg) ? -1 : 1;
out:
	free(fg.lines);
	return ret;
}

/* The configurations of every group of one collective, g[0..n-1], in one
 * group (algorithm and assignment those of the first); the caller frees
 * its confs (the summaries are copied, their points borrowed). */
static struct group merge_groups(const struct group *g, size_t n)
{
	struct group m = { g[0].p, NULL, 0, { 0 }, 0,  { 0 }, 0,
			   { 0 },  0,	 0, 0,	   -1, 0,     g[0].axes_differ };

	for (size_t i = 0; i < n; i++) {
		m.confs = xrealloc(m.confs, (m.nconfs + g[i].nconfs + 1) * sizeof(*m.confs));
		memcpy(m.confs + m.nconfs, g[i].confs, g[i].nconfs * sizeof(*m.confs));
		m.nconfs += g[i].nconfs;
		for (size_t k = 0; k < g[i].nworkers; k++)
			add_uns(m.workers, &m.nworkers, 256, g[i].workers[k]);
		for (size_t k = 0; k < g[i].nsizes; k++)
			add_u64(m.sizes, &m.nsizes, 64, g[i].sizes[k]);
		for (size_t k = 0; k < g[i].nwpns; k++)
			add_uns(m.wpns, &m.nwpns, 64, g[i].wpns[k]);
	}
	return m;
}

/* OE against workers for one collective (groups g[0..n-1]) at each size,
 * one line per algorithm or schedule (the best assignment and layout at
 * each worker count), when the run holds two or more of them. Returns the
 * figures drawn, or -1. */
static int sched_figures(const char *tmp, FILE *gp, const struct group *g, size_t n)
{
	struct group m = merge_groups(g, n);
	struct figure fg = { .kind = FIG_OE,
			     .lines = xcalloc(n + 1, sizeof(struct line)),
			     .g = &m };
	int figs = 0;
	char c[64], sz[32], a[64];

	safe_name(c, sizeof(c), m.p->key.collective);
	for (size_t k = 0; k < m.nsizes && figs >= 0; k++) {
		fg.nlines = 0;
		fg.npanels = 0;
		for (size_t i = 0; i < n; i++) {
			struct line *l = &fg.lines[fg.nlines];

			/* Groups are sorted by algorithm: one line per name. */
			if (i && !strcmp(g[i].p->key.algorithm, g[i - 1].p->key.algorithm))
				continue;
			if (!pick(&m, m.sizes[k], 0, NULL, g[i].p->key.algorithm, l))
				continue;
			safe_name(a, sizeof(a), g[i].p->key.algorithm);
			snprintf(l->key, sizeof(l->key), "%s", a);
			snprintf(l->title, sizeof(l->title), "%s", g[i].p->key.algorithm);
			fg.nlines++;
		}
		if (fg.nlines < 2)
			continue;
		format_size(m.sizes[k], sz, sizeof(sz));
		snprintf(fg.name, sizeof(fg.name), "sched-%s-%s", c, sz);
		snprintf(fg.title, sizeof(fg.title),
			 "%s at %s: offload efficiency per algorithm/schedule, "
			 "best assignment and layout at each worker count",
			 m.p->key.collective, sz);
		figs = put_figure(tmp, gp, &fg) ? -1 : figs + 1;
	}
	free(fg.lines);
	free(m.confs);
	return figs;
}

/* The DPU-Bench paper's figure (its Figures 8 and 9 side by side): OE
 * against workers at the largest size, one line per WPN (the best
 * placement at each worker count), with CIs and the set's rings; one panel
 * per assignment on the same axes. g[0..n-1] are the groups of one
 * collective and algorithm. Returns the figures drawn (0 or 1), or -1. */
static int paper_figure(const char *tmp, FILE *gp, const struct group *g, size_t n)
{
	struct group m = merge_groups(g, n);
	struct figure fg = { .kind = FIG_OE, .g = &m };
	uint64_t bytes = m.sizes[m.nsizes - 1];
	char c[64], a[64], s[64], sz[32];
	int ret = 0;

	safe_name(c, sizeof(c), m.p->key.collective);
	safe_name(a, sizeof(a), m.p->key.algorithm);
	snprintf(fg.name, sizeof(fg.name), "paper-%s-%s", c, a);
	for (size_t i = 0; i < n && fg.npanels < PLOT_PANELS; i++) {
		struct panel *pn = &fg.panel[fg.npanels];
		size_t filled = 0;

		/* Every panel has a line per WPN of any: one colour per WPN. */
		*pn = (struct panel){ &g[i],   xcalloc(m.nwpns + 1, sizeof(struct line)),
				      m.nwpns, 0,
				      m.nwpns, "",
				      "" };
		for (size_t k = 0; k < m.nwpns; k++) {
			filled += pick(&g[i], bytes, (int)m.wpns[k], NULL, NULL, &pn->lines[k]);
			snprintf(pn->lines[k].key, sizeof(pn->lines[k].key), "wpn%u", m.wpns[k]);
			snprintf(pn->lines[k].title, sizeof(pn->lines[k].title), "WPN %u",
				 m.wpns[k]);
		}
		if (!filled) {
			free(pn->lines);
			continue;
		}
		safe_name(s, sizeof(s), g[i].p->key.assignment);
		snprintf(pn->dat, sizeof(pn->dat), "%s-%s", fg.name, s);
		snprintf(pn->title, sizeof(pn->title), "%s assignment", g[i].p->key.assignment);
		fg.npanels++;
	}
	snprintf(fg.title, sizeof(fg.title),
		 "%s (%s) at %s: offload efficiency against workers, one "
		 "line per WPN, median and 95%% CI (the DPU-Bench paper's figure)",
		 m.p->key.collective, m.p->key.algorithm, format_size(bytes, sz, sizeof(sz)));
	if (fg.npanels)
		ret = put_figure(tmp, gp, &fg) ? -1 : 1;
	for (size_t i = 0; i < fg.npanels; i++)
		free(fg.panel[i].lines);
	free(m.confs);
	return ret;
}

/* The model against the measurements of group g (its predictions pg):
 * OE against workers, per size the measured line (median, 95% CI) and the
 * predicted one, dashed, in one colour; the best layout at each worker
 * count for each. Sizes with only one of the two are left out. */
static int model_figure(const char *tmp, FILE *gp, const struct group *g, const struct group *pg)
{
	const struct group both[2] = { *g, *pg };
	struct group m = merge_groups(both, 2);
	struct figure fg = { .kind = FIG_MODEL,
			     .lines = xcalloc(2 * m.nsizes + 2, sizeof(struct line)),
			     .g = &m };
	int ret = 0;
	char sz[32];

	for (size_t i = g->nconfs; i < m.nconfs; i++)
		m.confs[i].predicted = 1;
	for (size_t k = 0; k < m.nsizes; k++) {
		struct line *a = &fg.lines[fg.nlines], *b = a + 1;

		b->predicted = 1;
		if (!pick(&m, m.sizes[k], 0, NULL, NULL, a) ||
		    !pick(&m, m.sizes[k], 0, NULL, NULL, b))
			continue;
		format_size(m.sizes[k], sz, sizeof(sz));
		snprintf(a->key, sizeof(a->key), "%s", sz);
		snprintf(a->title, sizeof(a->title), "measured %s", sz);
		snprintf(b->key, sizeof(b->key), "model-%s", sz);
		snprintf(b->title, sizeof(b->title), "predicted %s", sz);
		fg.nlines += 2;
	}
	name_figure(&fg, "model",
		    "measured (95% CI) and predicted offload efficiency, best layout at "
		    "each worker count");
	if (fg.nlines)
		ret = put_figure(tmp, gp, &fg) ? -1 : 1;
	free(fg.lines);
	free(m.confs);
	return ret;
}

static int remove_tmp(const char *tmp)
{
	DIR *d = opendir(tmp);
	struct dirent *e;

	if (d) {
		while ((e = readdir(d))) {
			char *p;

			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			p = xasprintf("%s/%s", tmp, e->d_name);
			unlink(p);
			free(p);
		}
		closedir(d);
	}
	return rmdir(tmp);
}

/* Moves every file of tmp into dir. */
static int move_all(const char *tmp, const char *dir)
{
	DIR *d = opendir(tmp);
	struct dirent *e;
	int ret = 0;

	if (!d)
		return error("cannot read %s: %s", tmp, strerror(errno));
	while (!ret && (e = readdir(d))) {
		char *from, *to;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		from = xasprintf("%s/%s", tmp, e->d_name);
		to = xasprintf("%s/%s", dir, e->d_name);
		if (rename(from, to))
			ret = error("cannot move %s to %s: %s", from, to, strerror(errno));
		free(from);
		free(to);
	}
	closedir(d);
	return ret;
}

/* Marks every configuration that is in its decision's indifference set, as
 * recommend decides it from the same points (verdict.h). */
static void mark_sets(const struct store_point *pts, size_t n, struct group *g, size_t ng)
{
	struct verdict_params vp = VERDICT_PARAMS_INIT;
	struct verdicts v;

	if (verdicts_from_points(pts, n, &vp, &v))
		return;
	for (size_t i = 0; i < ng; i++)
		for (size_t c = 0; c < g[i].nconfs; c++) {
			const struct store_point *p = g[i].confs[c].p;

			for (size_t d = 0; d < v.noff; d++) {
				const struct offload_verdict *o = &v.off[d];

				if (o->bytes != p->key.bytes ||
				    strcmp(o->collective, p->key.collective) ||
				    strcmp(o->dtype ? o->dtype : "",
					   p->key.dtype ? p->key.dtype : "") ||
				    strcmp(o->op ? o->op : "", p->key.op ? p->key.op : ""))
					continue;
				for (size_t k = 0; k < o->nindifferent; k++)
					if (!strcmp(o->indifferent[k].layout, p->layout) &&
					    !strcmp(o->indifferent[k].key.algorithm,
						    p->key.algorithm) &&
					    !strcmp(o->indifferent[k].key.assignment,
						    p->key.assignment))
						g[i].confs[c].in_set = 1;
			}
		}
	verdicts_release(&v);
}

/* Every figure of the groups g[0..ng-1] (and the model's, pg[0..npg-1])
 * into the script gp, their data into tmp. Returns the figures, or -1. */
static int draw_all(const char *tmp, FILE *gp, const struct group *g, size_t ng,
		    const struct group *pg, size_t npg)
{
	int (*const draw[])(const char *, FILE *, const struct group *, const struct group *) = {
		size_figures,
		wpn_figure,
		placement_figure,
	};
	int figs = 0, w = 0;
	size_t i, j;

	/* The figures of one collective and algorithm (one per assignment)
	 * are compared: they share the x axis (groups are sorted by
	 * collective, then algorithm). */
	for (i = 0; i < ng && w >= 0; i = j) {
		struct group axes;

		for (j = i + 1; j < ng && !strcmp(g[j].p->key.collective, g[i].p->key.collective) &&
				!strcmp(g[j].p->key.algorithm, g[i].p->key.algorithm);
		     j++)
			;
		axes = merge_groups(g + i, j - i);
		for (size_t k = i; k < j && w >= 0; k++)
			for (size_t d = 0; d < sizeof(draw) / sizeof(draw[0]) && w >= 0; d++)
				if ((w = draw[d](tmp, gp, &g[k], &axes)) >= 0)
					figs += w;
		free(axes.confs);
	}
	if (w < 0)
		return -1;
	/* Per collective its schedules; per collective and algorithm the
	 * paper's figure (groups are sorted by collective, then algorithm). */
	for (i = 0; i < ng; i = j) {
		for (j = i + 1; j < ng && !strcmp(g[j].p->key.collective, g[i].p->key.collective);
		     j++)
			;
		if ((w = sched_figures(tmp, gp, g + i, j - i)) < 0)
			return -1;
		figs += w;
	}
	for (i = 0; i < ng; i = j) {
		for (j = i + 1; j < ng && !strcmp(g[j].p->key.collective, g[i].p->key.collective) &&
				!strcmp(g[j].p->key.algorithm, g[i].p->key.algorithm);
		     j++)
			;
		if ((w = paper_figure(tmp, gp, g + i, j - i)) < 0)
			return -1;
		figs += w;
	}
	for (i = 0; i < ng; i++)
		for (j = 0; j < npg; j++)
			if (same_group(g[i].p, pg[j].p)) {
				if ((w = model_figure(tmp, gp, &g[i], &pg[j])) < 0)
					return -1;
				figs += w;
			}
	return figs;
}

/* Runs gnuplot on tmp/figures.gp in tmp; its messages on failure. */
static int run_gnuplot(const char *tmp)
{
	struct strvec av = STRVEC_INIT;
	struct launch_child c = { 0 };
	struct launch_result r;
	char *log = xasprintf("%s/gnuplot.log", tmp);
	int ret = 0;

	strvec_pushv(&av, (const char *const[]){ "gnuplot", "figures.gp", NULL });
	c.argv = &av;
	c.dir = tmp;
	c.log = log;
	c.timeout_s = 120;
	if (launch_spawn(&c, &r)) {
		FILE *lf = fopen(log, "r");
		char line[512];

		ret = error("gnuplot failed: %s", r.reason);
		while (lf && fgets(line, sizeof(line), lf))
			fprintf(stderr, "  gnuplot: %s", line);
		if (lf)
			fclose(lf);
	}
	unlink(log);
	strvec_clear(&av);
	free(log);
	return ret;
}

/* A fresh folder in dir (created if needed) for the figures being drawn;
 * NULL after error(). The caller frees it. */
static char *make_tmp(const char *dir)
{
	char *tmp;

	if (mkdir(dir, 0777) && errno != EEXIST) {
		error("cannot create %s: %s", dir, strerror(errno));
		return NULL;
	}
	tmp = xasprintf("%s/.plot.XXXXXX", dir);
	if (!mkdtemp(tmp)) {
		error("cannot create a folder in %s: %s", dir, strerror(errno));
		free(tmp);
		return NULL;
	}
	return tmp;
}

int plot_write(const struct store_point *pts, size_t n, const struct store_point *pred,
	       size_t npred, const char *dir)
{
	struct group *g, *pg = NULL;
	size_t ng = build_groups(pts, n, &g), npg = pred ? build_groups(pred, npred, &pg) : 0;
	char *tmp = NULL, *script = NULL;
	FILE *gp = NULL;
	int ret = -1, figs;

	if (!ng) {
		error("no valid offloaded measurement to plot");
		goto out;
	}
	mark_sets(pts, n, g, ng);
	if (!(tmp = make_tmp(dir)))
		goto out;
	script = xasprintf("%s/figures.gp", tmp);
	if (!(gp = fopen(script, "w"))) {
		error("cannot write %s: %s", script, strerror(errno));
		goto out;
	}
	fputs("# sweetspot plot: run 'gnuplot figures.gp' in this folder to redraw.\n", gp);
	plot_style_put(gp);
	figs = draw_all(tmp, gp, g, ng, pg, npg);
	if (fclose(gp) || figs < 0) {
		if (figs >= 0)
			error("cannot write %s: %s", script, strerror(errno));
		gp = NULL;
		goto out;
	}
	gp = NULL;
	if (run_gnuplot(tmp) || move_all(tmp, dir))
		goto out;
	ret = figs;
out:
	if (gp)
		fclose(gp);
	if (tmp)
		remove_tmp(tmp);
	free(tmp);
	free(script);
	free_groups(g, ng);
	if (pg)
		free_groups(pg, npg);
	return ret;
}
