/*
 * tuner/cmd_search.c: `sweetspot search SPEC [--strategy grid|adaptive]
 * [--budget N] [--replay FILE.csv] [--json]`: finds the best layout for
 * every collective, algorithm, assignment and message size of a spec with
 * as few launches as it can, and says how many it used. With --replay the
 * measurements come from a table (deterministic tests and benchmarks);
 * without it, every launch is a real one through `sweetspot run`'s
 * machinery, stored in the database.
 */
#include "cmds.h"
#include "error.h"
#include "parse.h"
#include "plan.h"
#include "replay.h"
#include "search.h"
#include "search_real.h"
#include "spec.h"
#include "store.h"
#include "strvec.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void search_usage(FILE *f)
{
	fputs("usage: sweetspot search SPEC [--strategy grid|adaptive] [--budget N]\n"
	      "                        [--replay FILE.csv | --db FILE [--launcher L]] [--json]\n\n"
	      "Finds, for every collective, algorithm, assignment and message size of\n"
	      "the sweep spec SPEC, the layout (workers, WPN, placement) with the highest\n"
	      "offload efficiency (oe_measured; exact ties go to fewer workers).\n\n"
	      "  --strategy S   grid: every layout at every repetition (the baseline);\n"
	      "                 adaptive (default): powers of two first, then refine\n"
	      "                 around the best, repeat where the ranking is within the\n"
	      "                 noise, stop when the best is known within its spread\n"
	      "  --budget N     use at most N launches (one launch = one layout once)\n"
	      "  --replay FILE  take measurements from a CSV table instead of launching\n"
	      "                 (columns collective, algorithm, assignment, bytes, workers,\n"
	      "                 wpn, placement, repetition, oe_measured, total_us)\n"
	      "  --db FILE      where real launches are stored (default " STORE_DEFAULT_PATH ");\n"
	      "                 each launch is one 'sweetspot run SPEC --only LAYOUT:REP', so\n"
	      "                 what the database already holds is used, not measured again\n"
	      "  --launcher L   srun, mpirun or mpirun_rsh for those launches\n"
	      "  --json         one JSON object: strategy, launches, grid_launches, best[]\n\n"
	      "Exit status: 0 success, 1 a launch could not be recorded, 2 bad usage or\n"
	      "bad input (file:line: message).\n", f);
}

static const char *fmt_num(double v, char *buf, size_t n)
{
	if (isfinite(v))
		snprintf(buf, n, "%.1f", v);
	else
		snprintf(buf, n, "-");
	return buf;
}

static int print_json(const struct search_space *sp, const struct search_result *r,
		      enum search_strategy strategy)
{
	json_t *o = json_object(), *arr = json_array();
	int ret;

	for (size_t g = 0; g < sp->ngroups; g++) {
		const struct search_group *gr = &sp->groups[g];
		const struct search_best *b = &r->best[g];
		const struct search_layout *l;

		if (b->layout < 0)
			continue;
		l = &sp->layouts[b->layout];
		json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:s, s:s, s:f, s:f, s:I}",
			"collective", gr->collective, "algorithm", gr->algorithm,
			"assignment", gr->assignment, "bytes", (json_int_t)gr->bytes,
			"workers", (json_int_t)l->workers, "wpn", (json_int_t)l->wpn,
			"placement", l->placement, "layout", l->id,
			"oe_measured", round(b->oe * 100) / 100, "spread", round(b->spread * 100) / 100,
			"repetitions", (json_int_t)b->reps));
	}
	json_object_set_new(o, "strategy", json_string(search_strategy_name(strategy)));
	json_object_set_new(o, "launches", json_integer(r->launches));
	json_object_set_new(o, "grid_launches", json_integer(r->grid_launches));
	json_object_set_new(o, "budget_exhausted", json_boolean(r->budget_exhausted));
	json_object_set_new(o, "best", arr);
	ret = json_dumpf(o, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	putchar('\n');
	json_decref(o);
	return ret;
}

static void print_people(const struct search_space *sp, const struct search_result *r,
			 enum search_strategy strategy)
{
	char sz[32], a[32], b[32];

	printf("%s search: %u launches of %u for the full grid (%.0f%%)%s\n\n",
	       search_strategy_name(strategy), r->launches, r->grid_launches,
	       r->grid_launches ? 100.0 * r->launches / r->grid_launches : 0.0,
	       r->budget_exhausted ? "; budget exhausted" : "");
	printf("%-10s %-9s %-10s %6s %7s %4s %-9s %11s %6s %4s  %s\n", "collective",
	       "algorithm", "assignment", "size", "workers", "wpn", "placement",
	       "oe_measured", "spread", "reps", "layout");
	for (size_t g = 0; g < sp->ngroups; g++) {
		const struct search_group *gr = &sp->groups[g];
		const struct search_best *bs = &r->best[g];

		if (bs->layout < 0) {
			printf("%-10s %-9s %-10s %6s  no valid measurement\n", gr->collective,
			       gr->algorithm, gr->assignment, format_size(gr->bytes, sz, sizeof(sz)));
			continue;
		}
		printf("%-10s %-9s %-10s %6s %7u %4u %-9s %11s %6s %4u  %s\n", gr->collective,
		       gr->algorithm, gr->assignment, format_size(gr->bytes, sz, sizeof(sz)),
		       sp->layouts[bs->layout].workers, sp->layouts[bs->layout].wpn,
		       sp->layouts[bs->layout].placement, fmt_num(bs->oe, a, sizeof(a)),
		       fmt_num(bs->spread, b, sizeof(b)), bs->reps, sp->layouts[bs->layout].id);
	}
}

int cmd_search(int argc, char **argv)
{
	struct spec spec = SPEC_INIT;
	struct plan plan = PLAN_INIT;
	struct search_space sp = { 0 };
	struct search_problem prob = { 0 };
	struct search_opts opts = SEARCH_OPTS_INIT;
	struct search_result res;
	struct replay rp = REPLAY_INIT;
	struct search_real real = SEARCH_REAL_INIT;
	const char *path = NULL, *replay = NULL, *db = NULL, *launcher = NULL;
	int json = 0, status = EXIT_USAGE, i;
	char err[128];
	uint64_t v;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			search_usage(stdout);
			return 0;
		} else if (!strcmp(a, "--json")) {
			json = 1;
		} else if (!strcmp(a, "--strategy") || !strcmp(a, "--budget") ||
			   !strcmp(a, "--replay") || !strcmp(a, "--db") || !strcmp(a, "--launcher")) {
			if (i + 1 >= argc) {
				error("search: %s needs a value", a);
				return EXIT_USAGE;
			}
			i++;
			if (!strcmp(a, "--strategy")) {
				if (search_parse_strategy(argv[i], &opts.strategy))
					return EXIT_USAGE;
			} else if (!strcmp(a, "--budget")) {
				if (parse_uint(argv[i], 1, 100000000, &v, err, sizeof(err))) {
					error("search: --budget: %s", err);
					return EXIT_USAGE;
				}
				opts.budget = (unsigned)v;
			} else if (!strcmp(a, "--replay")) {
				replay = argv[i];
			} else if (!strcmp(a, "--launcher")) {
				launcher = argv[i];
			} else {
				db = argv[i];
			}
		} else if (a[0] == '-' && a[1]) {
			error("search: unknown option '%s'", a);
			search_usage(stderr);
			return EXIT_USAGE;
		} else if (path) {
			error("search: one spec only ('%s' and '%s')", path, a);
			return EXIT_USAGE;
		} else {
			path = a;
		}
	}
	if (!path) {
		search_usage(stderr);
		return EXIT_USAGE;
	}
	if (replay && (db || launcher)) {
		error("search: --replay measures nothing: no --db or --launcher with it");
		return EXIT_USAGE;
	}
	if (spec_load(path, &spec) || plan_build(&spec, &plan))
		goto out;
	search_space_from_plan(&spec, &plan, &sp);
	prob.layouts = sp.layouts;
	prob.nlayouts = sp.nlayouts;
	prob.groups = sp.groups;
	prob.ngroups = sp.ngroups;
	prob.repetitions = sp.repetitions;
	if (replay) {
		if (replay_load(replay, &rp))
			goto out;
		if (!replay_bind(&rp, &prob)) {
			error("%s: no row matches a layout and point of %s", replay, path);
			goto out;
		}
		prob.measure = replay_measure;
		prob.ctx = &rp;
	} else {
		if (search_real_init(&real, path, db ? db : STORE_DEFAULT_PATH, launcher, &sp))
			goto out;
		prob.measure = search_real_measure;
		prob.ctx = &real;
	}
	if (search_run(&prob, &opts, &res)) {
		status = 1;
		goto out;
	}
	if (real.failed)
		warning("%u launches failed (recorded in %s; 'sweetspot results' shows why)",
			real.failed, real.db);
	if (rp.missing_launches)
		warning("%s has no rows for %u of the launches asked for: counted as failed",
			replay, rp.missing_launches);
	if (json)
		print_json(&sp, &res, opts.strategy);
	else
		print_people(&sp, &res, opts.strategy);
	search_result_release(&res);
	status = 0;
out:
	search_real_release(&real);
	replay_release(&rp);
	search_space_release(&sp);
	plan_release(&plan);
	spec_release(&spec);
	return status;
}
