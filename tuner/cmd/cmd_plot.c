/*
 * tuner/cmd/cmd_plot.c: `sweetspot plot [--db FILE] [--run ID] [SPEC] -o DIR`:
 * the paper's figures from a run (or from a replay table with --csv), as
 * PNG and SVG drawn by gnuplot.
 */
#include "cli.h"
#include "cmds.h"
#include "error.h"
#include "model_run.h"
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

enum { OPT_DB, OPT_CSV, OPT_RUN, OPT_OUTPUT, OPT_MODEL, NOPTS };

static const struct cli_option plot_options[NOPTS + 1] = {
	[OPT_DB] = CLI_OPTION_DB,
	[OPT_CSV] = { "csv", 0, "FILE",
		      "a replay table instead (sweetspot search --replay's format)" },
	[OPT_RUN] = { "run", 0, "ID", "a run other than the latest" },
	[OPT_OUTPUT] = { "output", 'o', "DIR", "where the figures go (created)" },
	[OPT_MODEL] = { "model", 0, NULL,
			"with SPEC: the model's predictions beside the measurements "
			"(model-*; parameters stored by 'sweetspot model SPEC')" },
	[NOPTS] = { NULL, 0, NULL, NULL },
};

static const struct cli_command plot_cli = {
	"plot",
	"[--db FILE | --csv FILE] [--run ID] [--model] [SPEC] -o DIR",
	"Draws, per collective, algorithm and assignment, as PNG and SVG files in DIR\n"
	"(with the data and gnuplot script beside them): the offload efficiency\n"
	"against the number of workers, one line per message size (oe-*); the same\n"
	"per WPN at the largest size (wpn-*); DPU against onload workers with the\n"
	"cores each leaves to the application, when both were measured (placement-*);\n"
	"per collective and size holding two or more algorithms or schedules, one\n"
	"line per algorithm (the best assignment and layout at each worker count)\n"
	"(sched-COLLECTIVE-SIZE);\n"
	"the runtimes of the reference, with its min-max band, against the\n"
	"offloaded communication, one panel per size (runtime-*); per collective\n"
	"and algorithm the DPU-Bench paper's figure: OE against workers at the\n"
	"largest size, one line per WPN, block and cyclic panels side by side on\n"
	"the same axes (paper-*); with --model, measured and predicted OE on one\n"
	"figure (model-*). Each OE is the median over the launches with its 95%\n"
	"confidence interval as error bars; the indifference set is ringed. The\n"
	"run is the latest of SPEC when given, else the latest one.",
	plot_options,
	"Exit status: 0 drawn, 1 gnuplot or a file failed, 2 bad usage or input.",
};

struct plot_args {
	const char *db, *csv, *out, *spec;
	long long run;
	int model;
};

/* CLI_END when the command goes on, else CLI_HELP or CLI_BAD. */
static int plot_args(int argc, char **argv, struct plot_args *a)
{
	struct cli c;
	uint64_t v;
	int o;

	cli_begin(&c, &plot_cli, argc, argv);
	while ((o = cli_next(&c)) >= 0) {
		switch (o) {
		case OPT_DB:
			a->db = c.arg;
			break;
		case OPT_CSV:
			a->csv = c.arg;
			break;
		case OPT_OUTPUT:
			a->out = c.arg;
			break;
		case OPT_MODEL:
			a->model = 1;
			break;
		case OPT_RUN:
			if (cli_uint(&c, 1, 1ull << 62, &v))
				return CLI_BAD;
			a->run = (long long)v;
			break;
		}
	}
	if (o != CLI_END)
		return o;
	if (cli_operands(&c, 0, 1, "SPEC"))
		return CLI_BAD;
	a->spec = c.noperands ? c.operands[0] : NULL;
	if (!a->out) {
		cli_usage_error(&plot_cli, "where to? give -o DIR");
		return CLI_BAD;
	}
	if (a->db && a->csv) {
		cli_usage_error(&plot_cli, "--db and --csv exclude each other");
		return CLI_BAD;
	}
	if (a->model && (!a->spec || a->csv)) {
		cli_usage_error(&plot_cli, "--model needs SPEC and a database (not --csv)");
		return CLI_BAD;
	}
	return CLI_END;
}

/* Replay rows as points (layout ids made up from workers, WPN, placement). */
static struct store_point *rows_as_points(const struct replay *rp, size_t *n)
{
	struct store_point *p = xcalloc(rp->nrows + 1, sizeof(*p));

	for (size_t i = 0; i < rp->nrows; i++) {
		const struct replay_row *r = &rp->rows[i];

		p[i].mode = "offload";
		p[i].key.collective = r->collective;
		p[i].key.algorithm = r->algorithm;
		p[i].key.assignment = r->assignment;
		p[i].placement = r->placement;
		p[i].layout = xasprintf("w%u-wpn%u-%s", r->workers, r->wpn, r->placement);
		p[i].key.bytes = r->bytes;
		p[i].workers = (int)r->workers;
		p[i].wpn = (int)r->wpn;
		p[i].ppn = (int)r->ppn; /* -1 when the table has none */
		p[i].nodes = (int)r->nodes;
		p[i].valid = r->valid;
		p[i].oe_measured = r->oe_measured;
		p[i].total_us = r->total_us;
		p[i].ref_us = p[i].comm_us = NAN;
	}
	*n = rp->nrows;
	return p;
}

/* The valid points of the run a asks for. 0, or -1 after error(). */
static int db_points(const struct plot_args *a, struct store_point **pts, size_t *n)
{
	const char *db = a->db ? a->db : STORE_DEFAULT_PATH;
	struct store *st = NULL;
	struct store_run run = { 0 };
	int r, ret = -1;

	if (store_open(db, STORE_RDONLY, &st))
		return -1;
	if (a->run)
		r = store_get_run(st, a->run, &run);
	else {
		/* The latest sweep, not an Open MPI baseline run
		 * recorded after it (those hold no offloaded point). */
		r = a->spec ? recommend_find_run(st, a->spec, 0, &run) : 0;
		if (!r)
			r = recommend_find_run(st, NULL, 0, &run);
	}
	if (r <= 0) {
		if (!r && a->run)
			error("%s: no run %lld", db, a->run);
		else if (!r)
			error("%s: the database holds no run yet", db);
		goto out;
	}
	if (store_load_points(st, run.id, STORE_VALID_ONLY, pts, n))
		goto out;
	if (!*n) {
		error("%s: run %lld holds no valid measurement to plot", db, run.id);
		goto out;
	}
	ret = 0;
out:
	store_run_release(&run);
	store_close(st);
	return ret;
}

/* The model's predictions of every point of SPEC's plan, from the
 * parameters the database holds for it. 0, or the exit status. */
static int model_points(const struct plot_args *a, struct store_point **pred, size_t *npred)
{
	struct spec s = SPEC_INIT;
	struct plan p = PLAN_INIT;
	struct store *st = NULL;
	int status = EXIT_USAGE, have;

	if (spec_load(a->spec, &s) || plan_build(&s, &p))
		goto out;
	status = 1;
	if (store_open(a->db ? a->db : STORE_DEFAULT_PATH, STORE_RDONLY, &st))
		goto out;
	have = model_predicted_points(a->spec, &s, &p, st, pred, npred);
	if (!have)
		error("%s: no model parameters for %s: run 'sweetspot model %s' first",
		      a->db ? a->db : STORE_DEFAULT_PATH, a->spec, a->spec);
	else if (have > 0)
		status = 0;
out:
	store_close(st);
	plan_release(&p);
	spec_release(&s);
	return status;
}

int cmd_plot(int argc, char **argv)
{
	struct plot_args a = { NULL, NULL, NULL, NULL, 0, 0 };
	struct store_point *pts = NULL, *pred = NULL;
	struct replay rp = REPLAY_INIT;
	size_t n = 0, npred = 0;
	int status = EXIT_USAGE, figs;

	figs = plot_args(argc, argv, &a);
	if (figs != CLI_END)
		return cli_status(figs);
	if (a.csv) {
		if (replay_load(a.csv, &rp))
			goto out;
		pts = rows_as_points(&rp, &n);
	} else if (db_points(&a, &pts, &n)) {
		goto out;
	}
	if (a.model && (status = model_points(&a, &pred, &npred)) != 0)
		goto out;
	figs = plot_write(pts, n, pred, npred, a.out);
	if (figs < 0) {
		status = 1;
		goto out;
	}
	fprintf(stderr, "sweetspot: %d figures (PNG and SVG) in %s/\n", figs, a.out);
	status = 0;
out:
	if (a.csv && pts) {
		for (size_t k = 0; k < n; k++)
			free((char *)pts[k].layout);
		free(pts);
	} else if (pts) {
		store_points_free(pts, n);
	}
	if (pred)
		store_points_free(pred, npred);
	replay_release(&rp);
	return status;
}
