/*
 * tuner/cmd_plot.c: `sweetspot plot [--db FILE] [--run ID] [SPEC] -o DIR`:
 * the paper's figures from a run (or from a replay table with --csv), as
 * PNG and SVG drawn by gnuplot.
 */
#include "cmds.h"
#include "error.h"
#include "parse.h"
#include "plot.h"
#include "recommend.h"
#include "replay.h"
#include "store.h"
#include "strvec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void plot_usage(FILE *f)
{
	fputs("usage: sweetspot plot [--db FILE | --csv FILE] [--run ID] [SPEC] -o DIR\n\n"
	      "Draws, per collective, algorithm and assignment, the offload efficiency\n"
	      "against the number of workers (one line per message size) and the runtimes\n"
	      "of the reference against the offloaded communication, as PNG and SVG files\n"
	      "in DIR (with the data and gnuplot script beside them). The run is the latest\n"
	      "of SPEC when given, else the latest one.\n\n"
	      "  --db FILE   results database (default " STORE_DEFAULT_PATH ")\n"
	      "  --csv FILE  a replay table instead (sweetspot search --replay's format)\n"
	      "  --run ID    a run other than the latest\n"
	      "  -o DIR      where the figures go (created)\n\n"
	      "Exit status: 0 drawn, 1 gnuplot or a file failed, 2 bad usage or input.\n", f);
}

/* Replay rows as points (layout ids made up from workers, WPN, placement). */
static struct store_point *rows_as_points(const struct replay *rp, size_t *n)
{
	struct store_point *p = xcalloc(rp->nrows + 1, sizeof(*p));

	for (size_t i = 0; i < rp->nrows; i++) {
		const struct replay_row *r = &rp->rows[i];

		p[i].mode = "offload";
		p[i].collective = r->collective;
		p[i].algorithm = r->algorithm;
		p[i].assignment = r->assignment;
		p[i].placement = r->placement;
		p[i].layout = xasprintf("w%u-wpn%u-%s", r->workers, r->wpn, r->placement);
		p[i].bytes = r->bytes;
		p[i].workers = (int)r->workers;
		p[i].wpn = (int)r->wpn;
		p[i].valid = r->valid;
		p[i].oe_measured = r->oe_measured;
		p[i].total_us = r->total_us;
		p[i].ref_us = p[i].comm_us = NAN;
	}
	*n = rp->nrows;
	return p;
}

int cmd_plot(int argc, char **argv)
{
	const char *db = NULL, *csv = NULL, *out = NULL, *spec = NULL;
	long long run_id = 0;
	struct store *st = NULL;
	struct store_run run = { 0 };
	struct store_point *pts = NULL;
	struct replay rp = REPLAY_INIT;
	size_t n = 0;
	int status = EXIT_USAGE, i, r, figs;
	char err[128];
	uint64_t v;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			plot_usage(stdout);
			return 0;
		} else if (!strcmp(a, "--db") || !strcmp(a, "--csv") || !strcmp(a, "-o") ||
			   !strcmp(a, "--run")) {
			if (i + 1 >= argc) {
				error("plot: %s needs a value", a);
				return EXIT_USAGE;
			}
			i++;
			if (!strcmp(a, "--db"))
				db = argv[i];
			else if (!strcmp(a, "--csv"))
				csv = argv[i];
			else if (!strcmp(a, "-o"))
				out = argv[i];
			else if (parse_uint(argv[i], 1, 1ull << 62, &v, err, sizeof(err))) {
				error("plot: --run: %s", err);
				return EXIT_USAGE;
			} else {
				run_id = (long long)v;
			}
		} else if (a[0] == '-' && a[1]) {
			error("plot: unknown option '%s'", a);
			plot_usage(stderr);
			return EXIT_USAGE;
		} else if (spec) {
			error("plot: one spec only ('%s' and '%s')", spec, a);
			return EXIT_USAGE;
		} else {
			spec = a;
		}
	}
	if (!out) {
		error("plot: where to? give -o DIR");
		plot_usage(stderr);
		return EXIT_USAGE;
	}
	if (db && csv) {
		error("plot: --db and --csv exclude each other");
		return EXIT_USAGE;
	}
	if (csv) {
		if (replay_load(csv, &rp))
			goto out;
		pts = rows_as_points(&rp, &n);
	} else {
		if (!db)
			db = STORE_DEFAULT_PATH;
		if (store_open(db, STORE_RDONLY, &st))
			goto out;
		if (run_id)
			r = store_get_run(st, run_id, &run);
		else {
			/* The latest sweep, not an Open MPI baseline run
			 * recorded after it (those hold no offloaded point). */
			r = spec ? recommend_find_run(st, spec, 0, &run) : 0;
			if (!r)
				r = recommend_find_run(st, NULL, 0, &run);
		}
		if (r <= 0) {
			if (!r)
				error(run_id ? "%s: no run %lld" : "%s: the database holds no run yet%.0lld",
				      db, run_id);
			goto out;
		}
		if (store_load_points(st, run.id, STORE_VALID_ONLY, &pts, &n))
			goto out;
		if (!n) {
			error("%s: run %lld holds no valid measurement to plot", db, run.id);
			goto out;
		}
	}
	figs = plot_write(pts, n, out);
	if (figs < 0) {
		status = 1;
		goto out;
	}
	fprintf(stderr, "sweetspot: %d figures (PNG and SVG) in %s/\n", figs, out);
	status = 0;
out:
	if (csv && pts) {
		for (size_t k = 0; k < n; k++)
			free((char *)pts[k].layout);
		free(pts);
	} else if (pts) {
		store_points_free(pts, n);
	}
	replay_release(&rp);
	store_run_release(&run);
	store_close(st);
	return status;
}
