/*
 * tuner/plot.c: the figures of plot.h. Repetitions are averaged per layout
 * first; at each worker count the layout (WPN, placement) with the highest
 * mean OE stands for it, as a person reading "OE against workers" expects.
 */
#include "plot.h"

#include "child.h"
#include "error.h"
#include "parse.h"
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

/* One (series, size, workers) cell: the best layout's means. */
struct cell {
	double oe, ref, comm;
	unsigned n;	/* repetitions behind the means; 0: empty */
};

/* Mean of one layout of one group. */
struct lacc {
	const struct store_point *p;
	unsigned n;
	double oe, ref, comm;
};

struct series {
	const char *collective, *algorithm, *assignment;
	uint64_t *sizes;
	size_t nsizes;
	unsigned *workers;
	size_t nworkers;
	struct cell *cells;	/* nsizes x nworkers */
};

static int same_series(const struct store_point *a, const struct series *s)
{
	return !strcmp(a->collective, s->collective) && !strcmp(a->algorithm, s->algorithm) &&
	       !strcmp(a->assignment, s->assignment);
}

static int is_offload(const struct store_point *p)
{
	return p->valid && (!p->mode || strcmp(p->mode, "mpi")) && isfinite(p->oe_measured) &&
	       p->workers > 0 && p->layout && *p->layout;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_uns(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

/* A file name part: letters, digits, '-' and '_' only. */
static void safe_name(char *dst, size_t n, const char *src)
{
	size_t i;

	for (i = 0; src[i] && i + 1 < n; i++) {
		char c = src[i];

		dst[i] = ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			  c == '-') ? c : '_';
	}
	dst[i] = '\0';
}

static size_t build_series(const struct store_point *pts, size_t n, struct series **out)
{
	struct series *s = xcalloc(n + 1, sizeof(*s));
	struct lacc *acc = xcalloc(n + 1, sizeof(*acc));
	size_t ns = 0, na = 0, i, j;

	/* Layout means. */
	for (i = 0; i < n; i++) {
		const struct store_point *p = &pts[i];

		if (!is_offload(p))
			continue;
		for (j = 0; j < na; j++)
			if (acc[j].p->bytes == p->bytes && !strcmp(acc[j].p->layout, p->layout) &&
			    !strcmp(acc[j].p->collective, p->collective) &&
			    !strcmp(acc[j].p->algorithm, p->algorithm) &&
			    !strcmp(acc[j].p->assignment, p->assignment))
				break;
		if (j == na)
			acc[na++].p = p;
		acc[j].n++;
		acc[j].oe += p->oe_measured;
		acc[j].ref += p->ref_us;
		acc[j].comm += p->comm_us;
	}
	/* Series and their axes. */
	for (i = 0; i < na; i++) {
		const struct store_point *p = acc[i].p;
		struct series *x = NULL;

		for (j = 0; j < ns; j++)
			if (same_series(p, &s[j]))
				x = &s[j];
		if (!x) {
			x = &s[ns++];
			x->collective = p->collective;
			x->algorithm = p->algorithm;
			x->assignment = p->assignment;
			x->sizes = xcalloc(na, sizeof(uint64_t));
			x->workers = xcalloc(na, sizeof(unsigned));
		}
		for (j = 0; j < x->nsizes && x->sizes[j] != p->bytes; j++)
			;
		if (j == x->nsizes)
			x->sizes[x->nsizes++] = p->bytes;
		for (j = 0; j < x->nworkers && x->workers[j] != (unsigned)p->workers; j++)
			;
		if (j == x->nworkers)
			x->workers[x->nworkers++] = (unsigned)p->workers;
	}
	for (i = 0; i < ns; i++) {
		qsort(s[i].sizes, s[i].nsizes, sizeof(uint64_t), cmp_u64);
		qsort(s[i].workers, s[i].nworkers, sizeof(unsigned), cmp_uns);
		s[i].cells = xcalloc(s[i].nsizes * s[i].nworkers + 1, sizeof(struct cell));
	}
	/* The best layout per (size, workers). */
	for (i = 0; i < na; i++) {
		const struct store_point *p = acc[i].p;
		double oe = acc[i].oe / acc[i].n;

		for (j = 0; j < ns; j++) {
			size_t a, b;
			struct cell *c;

			if (!same_series(p, &s[j]))
				continue;
			for (a = 0; s[j].sizes[a] != p->bytes; a++)
				;
			for (b = 0; s[j].workers[b] != (unsigned)p->workers; b++)
				;
			c = &s[j].cells[a * s[j].nworkers + b];
			if (!c->n || oe > c->oe) {
				c->oe = oe;
				c->ref = acc[i].ref / acc[i].n;
				c->comm = acc[i].comm / acc[i].n;
				c->n = acc[i].n;
			}
		}
	}
	free(acc);
	*out = s;
	return ns;
}

static void free_series(struct series *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(s[i].sizes);
		free(s[i].workers);
		free(s[i].cells);
	}
	free(s);
}

static void put_val(FILE *f, double v, int ok)
{
	if (ok && isfinite(v))
		fprintf(f, " %.4f", v);
	else
		fputs(" ?", f);
}

/* Writes name.dat and appends the plot of both terminals to the script;
 * nothing when the series has no value of that kind. */
static int write_figure(const char *tmp, const struct series *s, FILE *gp, int runtime)
{
	char c[64], a[64], g[64], name[256], sz[32], *path;
	FILE *f;
	size_t i, k;
	int any = 0, ret;

	for (i = 0; i < s->nsizes * s->nworkers; i++)
		any |= s->cells[i].n && (runtime ? isfinite(s->cells[i].ref) && isfinite(s->cells[i].comm)
					       : isfinite(s->cells[i].oe));
	if (!any)
		return 0;	/* e.g. a replay table has no times to draw */
	ret = 1;

	safe_name(c, sizeof(c), s->collective);
	safe_name(a, sizeof(a), s->algorithm);
	safe_name(g, sizeof(g), s->assignment);
	snprintf(name, sizeof(name), "%s-%s-%s-%s", runtime ? "runtime" : "oe", c, a, g);
	path = xasprintf("%s/%s.dat", tmp, name);
	f = fopen(path, "w");
	if (!f) {
		error("cannot write %s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	fprintf(f, "# workers");
	for (k = 0; k < s->nsizes; k++)
		fprintf(f, runtime ? " ref_us@%s comm_us@%s" : " oe_measured@%s",
			format_size(s->sizes[k], sz, sizeof(sz)), sz);
	fputc('\n', f);
	for (i = 0; i < s->nworkers; i++) {
		fprintf(f, "%u", s->workers[i]);
		for (k = 0; k < s->nsizes; k++) {
			const struct cell *x = &s->cells[k * s->nworkers + i];

			if (runtime) {
				put_val(f, x->ref, x->n);
				put_val(f, x->comm, x->n);
			} else {
				put_val(f, x->oe, x->n);
			}
		}
		fputc('\n', f);
	}
	if (fclose(f)) {
		error("cannot write %s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	free(path);

	fprintf(gp, "\nset title \"%s (%s, %s assignment): %s\" noenhanced\n", s->collective,
		s->algorithm, s->assignment, runtime ?
		"reference (hosts alone) vs offloaded communication" :
		"offload efficiency, best WPN at each worker count");
	fprintf(gp, "set xlabel 'workers'\n");
	if (s->nworkers > 1 && s->workers[s->nworkers - 1] >= 4 * s->workers[0])
		fprintf(gp, "set logscale x 2\n");
	else
		fprintf(gp, "unset logscale x\n");
	if (runtime)
		fprintf(gp, "set ylabel 'time per call (us)'\nset logscale y\nset autoscale y\n"
			"set key outside right\n");
	else
		fprintf(gp, "set ylabel 'oe\\_measured (%%)'\nunset logscale y\nset yrange [0:105]\n"
			"set key bottom right\n");
	/* Every worker count as a tic, unless there are too many to read. */
	fprintf(gp, "set xtics (");
	for (i = 0, k = 0; i < s->nworkers; i++) {
		unsigned w = s->workers[i];

		if (s->nworkers > 12 && (w & (w - 1)) && i + 1 < s->nworkers)
			continue;
		fprintf(gp, "%s\"%u\" %u", k++ ? ", " : "", w, w);
	}
	fprintf(gp, ")\n");
	for (int t = 0; t < 2; t++) {
		fprintf(gp, t ? "set terminal svg size 900,540 dynamic font 'sans,11'\n"
			      : "set terminal pngcairo size 900,540 font 'sans,10'\n");
		fprintf(gp, "set output '%s.%s'\nplot", name, t ? "svg" : "png");
		for (k = 0; k < s->nsizes; k++) {
			format_size(s->sizes[k], sz, sizeof(sz));
			if (runtime)
				fprintf(gp, "%s '%s.dat' using 1:%zu with linespoints dt 2 lc %zu pt 6 "
					"title 'reference %s', '' using 1:%zu with linespoints dt 1 lc %zu "
					"pt 7 title 'offloaded comm %s'", k ? "," : "", name, 2 + 2 * k,
					k + 1, sz, 3 + 2 * k, k + 1, sz);
			else
				fprintf(gp, "%s '%s.dat' using 1:%zu with linespoints lw 2 pt 7 title '%s'",
					k ? "," : "", name, 2 + k, sz);
		}
		fprintf(gp, "\nunset output\n");
	}
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

int plot_write(const struct store_point *pts, size_t n, const char *dir)
{
	struct series *s;
	size_t ns = build_series(pts, n, &s), i;
	char *tmp = NULL, *script = NULL, *log = NULL;
	struct strvec av = STRVEC_INIT;
	struct launch_child c = { 0 };
	struct launch_result r;
	FILE *gp = NULL;
	int ret = -1, figs = 0;

	if (!ns) {
		error("no valid offloaded measurement to plot");
		goto out;
	}
	if (mkdir(dir, 0777) && errno != EEXIST) {
		error("cannot create %s: %s", dir, strerror(errno));
		goto out;
	}
	tmp = xasprintf("%s/.plot.XXXXXX", dir);
	if (!mkdtemp(tmp)) {
		error("cannot create a folder in %s: %s", dir, strerror(errno));
		free(tmp);
		tmp = NULL;
		goto out;
	}
	script = xasprintf("%s/figures.gp", tmp);
	gp = fopen(script, "w");
	if (!gp) {
		error("cannot write %s: %s", script, strerror(errno));
		goto out;
	}
	fprintf(gp, "# sweetspot plot: run 'gnuplot figures.gp' in this folder to redraw.\n"
		"set datafile missing '?'\nset grid\n");
	for (i = 0; i < ns; i++)
		for (int rt = 0; rt < 2; rt++) {
			int w = write_figure(tmp, &s[i], gp, rt);

			if (w < 0)
				goto out;
			figs += w;
		}
	if (fclose(gp)) {
		gp = NULL;
		error("cannot write %s: %s", script, strerror(errno));
		goto out;
	}
	gp = NULL;
	strvec_pushv(&av, (const char *const[]){ "gnuplot", "figures.gp", NULL });
	c.argv = &av;
	c.dir = tmp;
	log = xasprintf("%s/gnuplot.log", tmp);
	c.log = log;
	c.timeout_s = 120;
	if (launch_spawn(&c, &r)) {
		FILE *lf = fopen(log, "r");
		char line[512];

		error("gnuplot failed: %s", r.reason);
		while (lf && fgets(line, sizeof(line), lf))
			fprintf(stderr, "  gnuplot: %s", line);
		if (lf)
			fclose(lf);
		goto out;
	}
	unlink(log);
	if (move_all(tmp, dir))
		goto out;
	ret = figs;
out:
	if (gp)
		fclose(gp);
	if (tmp)
		remove_tmp(tmp);
	free(tmp);
	free(script);
	free(log);
	strvec_clear(&av);
	free_series(s, ns);
	return ret;
}
