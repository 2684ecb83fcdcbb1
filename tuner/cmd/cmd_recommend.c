/*
 * tuner/cmd/cmd_recommend.c: `sweetspot recommend SPEC [--db FILE] [--json]`:
 * one answer to act on. Uses the results the database holds for SPEC (or
 * runs the adaptive search first when it holds none), and prints, per
 * collective and size band, the best configuration, its offload efficiency
 * with spread, the margin over the runner-up and over no offload at all,
 * the files that launch it (written for the spec's launchers by the plan's
 * generator) and the exact command that measured it, as the store recorded
 * it: the launcher that really ran, its arguments and environment.
 */
#include "cli.h"
#include "colls.h"
#include "cmds.h"
#include "files.h"
#include "error.h"
#include "generate.h"
#include "parse.h"
#include "plan.h"
#include "recommend.h"
#include "search.h"
#include "runner.h"
#include "spec.h"
#include "store.h"
#include "strvec.h"

#include <jansson.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { OPT_DB, OPT_RUN, OPT_COLLECTIVE, OPT_FILES, OPT_JSON, NOPTS };

static const struct cli_option recommend_options[NOPTS + 1] = {
	[OPT_DB] = CLI_OPTION_DB,
	[OPT_RUN] = { "run", 0, "ID", "a run other than the latest of SPEC" },
	[OPT_COLLECTIVE] = { "collective", 0, "C", "only this collective" },
	[OPT_FILES] = { "files", 0, "DIR",
			"where the launch files go (default: recommended/\n"
			"beside the database), one folder per layout" },
	[OPT_JSON] = { "json", 0, NULL, "one JSON object: source, run, recommendations[]" },
	[NOPTS] = { NULL, 0, NULL, NULL },
};

static const struct cli_command recommend_cli = {
	"recommend",
	"SPEC [--db FILE] [--run ID] [--collective C]\n[--files DIR] [--json]",
	"Recommends, for every collective and size band of SPEC, the configuration\n"
	"(algorithm, assignment, workers, WPN, placement) with the highest offload\n"
	"efficiency, from the results the database holds for SPEC; when it holds\n"
	"none, the adaptive search runs first (real launches). For each it prints\n"
	"the efficiency with its spread, the margin over the runner-up and over no\n"
	"offload, the files that launch it, and the command that measured it (the\n"
	"last launch of that layout that ended well, as the database recorded it:\n"
	"launcher, arguments and environment; runnable as printed).",
	recommend_options,
	"Exit status: 0 success, 1 failure, 2 bad usage or input (nothing measured\n"
	"for a collective asked for, an empty database, a bad spec).",
};

struct recommend_args {
	const char *path, *db, *coll, *files;
	long long run;
	int json;
};

/* CLI_END when the command goes on, else CLI_HELP or CLI_BAD. */
static int recommend_args(int argc, char **argv, struct recommend_args *a)
{
	struct cli c;
	uint64_t v;
	int o;

	cli_begin(&c, &recommend_cli, argc, argv);
	while ((o = cli_next(&c)) >= 0) {
		switch (o) {
		case OPT_DB:
			a->db = c.arg;
			break;
		case OPT_COLLECTIVE:
			a->coll = c.arg;
			break;
		case OPT_FILES:
			a->files = c.arg;
			break;
		case OPT_JSON:
			a->json = 1;
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
	if (cli_operands(&c, 1, 1, "SPEC"))
		return CLI_BAD;
	a->path = c.operands[0];
	if (a->coll && !colls_find(a->coll)) {
		cli_usage_error(&recommend_cli, "--collective: unknown collective '%s' (%s)",
				a->coll, colls_names_list());
		return CLI_BAD;
	}
	return CLI_END;
}

/* Runs the adaptive search for real when the database has no run of spec:
 * none of its sweeps, nor its baseline (then *baseline is that run's id,
 * which the decisions are read from: a baseline alone decides the MPI
 * library's algorithms, and no search is started for offloading). */
static int ensure_results(const struct spec *s, const struct plan *p, const char *spec_path,
			  const char *db, long long *baseline)
{
	struct store *st = NULL;
	struct store_run run = { 0 };
	struct search_opts opts = SEARCH_OPTS_INIT;
	struct search_result res;
	enum launcher l;
	unsigned failed = 0;
	int have = 0, ret;

	search_opts_from_spec(s, &opts);

	if (!access(db, F_OK)) {
		char *key = spec_run_key(spec_path);

		if (store_open(db, STORE_RDONLY, &st)) {
			free(key);
			return -1;
		}
		have = store_latest_run(st, key, &run);
		store_run_release(&run);
		if (!have) {
			char *bkey = xasprintf("%s:baseline", key);

			if ((have = store_latest_run(st, bkey, &run)) > 0)
				*baseline = run.id;
			store_run_release(&run);
			free(bkey);
		}
		free(key);
		store_close(st);
		if (have < 0)
			return -1;
	}
	if (have)
		return 0;
	fprintf(stderr, "sweetspot: %s holds no results of %s: searching first\n", db, spec_path);
	if (runner_pick_launcher(NULL, s, spec_path, 0, &l))
		return -1;
	ret = runner_search_run(s, p, spec_path, db, l, &opts, NULL, &res, &failed) ? -1 : 0;
	if (!ret) {
		fprintf(stderr, "sweetspot: adaptive search used %u launches of %u\n", res.launches,
			res.grid_launches);
		search_result_release(&res);
	}
	return ret;
}

static char *files_root(const char *files, const char *db)
{
	char *copy, *out;

	if (files)
		return xstrdup(files);
	copy = xstrdup(db);
	out = xasprintf("%s/recommended", dirname(copy));
	free(copy);
	return out;
}

/* Everything one recommendation reads and writes. */
struct recommend {
	const struct recommend_args *a;
	struct spec spec;
	struct plan plan;
	struct decisions d;
	struct store *st;	/* the database again, for the launches' commands */
	char *root;		/* where the launch files go */
	json_t *jo, *jrecs;	/* --json: the object and its recommendations */
	long long uncalibrated; /* points left out: calibrated false */
	long long baseline;	/* the spec has only this baseline run: decided from it */
};

/* "  measured with chunk 8K window 2 radix 2" for the choice, or nothing
 * when no such axis applies to it. */
static void axes_print(const struct offload_choice *x)
{
	char pt[96];

	if (x->key.chunk || x->key.radix)
		printf("  measured with %s\n", point_text(&x->key, POINT_AXES, pt, sizeof(pt)));
}

/* Valid points of the run that recommend left out: calibrated false. */
static int count_uncalibrated(const struct store_point *p, void *data)
{
	*(long long *)data += p->calibrated < 0;
	return 0;
}

/* One band's recommendation, with what it points at. */
struct band_out {
	const char *coll;
	const struct band *b;
	const struct offload_choice *x;
	char *dir; /* its generated files; NULL when not in the plan */
	char *cmd; /* the measured command; NULL when none ended ok */
};

static json_t *round_or_null(double v, int ok)
{
	return ok && isfinite(v) ? json_real(round(v * 100) / 100) : json_null();
}

/* The choices of one band, one per size: [*first, *first + n). */
static size_t band_sizes(const struct recommend *r, const struct band_out *o,
			 const struct offload_choice **first)
{
	size_t n = 0;

	*first = NULL;
	for (size_t i = 0; i < r->d.noff; i++) {
		const struct offload_choice *c = &r->d.off[i];

		struct point q = c->key;

		/* The band's question (o->x's collective, dtype, op) at any size in it. */
		q.bytes = o->x->key.bytes;
		if (strcmp(c->key.collective, o->coll) || c->key.bytes < o->b->lo ||
		    c->key.bytes > o->b->hi || point_cmp_question(&q, &o->x->key))
			continue;
		if (!*first)
			*first = c;
		n++;
	}
	return n;
}

static json_t *size_json(const struct offload_choice *c)
{
	json_t *j = json_pack("{s:I, s:s, s:s, s:I, s:I}", "bytes", (json_int_t)c->key.bytes,
			      "verdict", c->verdict ? c->verdict : "undecided", "leader",
			      c->leader ? c->leader : "", "launches", (json_int_t)c->launches,
			      "repetitions", (json_int_t)c->reps);

	json_object_set_new(j, "oe_measured", round_or_null(c->oe, 1));
	json_object_set_new(
		j, "ci",
		json_pack("[o, o]", round_or_null(c->ci_lo, 1), round_or_null(c->ci_hi, 1)));
	json_object_set_new(j, "ci_exact", json_boolean(c->ci_exact));
	json_object_set_new(j, "p_value",
			    isfinite(c->p_value) ? json_real(round(c->p_value * 10000) / 10000) :
						   json_null());
	json_object_set_new(j, "runner_up", c->runner_up ? json_string(c->runner_up) : json_null());
	json_object_set_new(
		j, "noise",
		json_pack("{s:s, s:s, s:o, s:I}", "model", c->model.pooled ? "pooled" : "rank",
			  "check", pooled_check_name(c->model.check), "sd_log",
			  isfinite(c->model.noise) ? json_real(round(c->model.noise * 1e5) / 1e5) :
						     json_null(),
			  "df", (json_int_t)c->model.df));
	json_object_set_new(j, "more_launches", json_integer(c->model.more_launches));
	json_object_set_new(j, "runner_up_oe",
			    round_or_null(c->runner_up_oe, c->runner_up != NULL));
	json_object_set_new(j, "indifferent", json_string(c->indifferent ? c->indifferent : ""));
	json_object_set_new(j, "offload_pays", json_string(c->pays ? c->pays : "unclear"));
	json_object_set_new(j, "outliers", json_integer(c->outliers));
	json_object_set_new(j, "unstable", json_boolean(c->unstable));
	json_object_set_new(j, "excluded", json_integer(c->excluded));
	json_object_set_new(j, "twins", json_integer(c->twins));
	json_object_set_new(j, "aa_separated", json_integer(c->twins_separated));
	json_object_set_new(j, "gain",
			    json_pack("[o, o, o]", round_or_null(c->gain, 1),
				      round_or_null(c->gain_lo, 1), round_or_null(c->gain_hi, 1)));
	if (c->placement_cmp.have)
		json_object_set_new(
			j, "placement",
			json_pack("{s:s, s:s, s:s, s:o, s:o, s:i, s:i}", "dpu", c->dpu_best,
				  "onload", c->onload_best, "dpu_vs_onload",
				  stats_verdict_name(c->placement_cmp.dpu_vs_onload), "p_value",
				  round_or_null(c->placement_cmp.p, 1), "shift_oe",
				  round_or_null(c->placement_cmp.shift, 1), "dpu_cores_left",
				  c->placement_cmp.dpu_cores_left, "onload_cores_left",
				  c->placement_cmp.onload_cores_left));
	return j;
}

static json_t *band_json(const struct recommend *r, const struct band_out *o)
{
	const struct offload_choice *x = o->x, *first;
	size_t n = band_sizes(r, o, &first);
	json_t *sizes = json_array();
	json_t *j = json_pack("{s:s, s:I, s:I, s:s, s:s, s:s, s:I, s:I, s:s, s:s}", "collective",
			      o->coll, "bytes_min", (json_int_t)o->b->lo, "bytes_max",
			      (json_int_t)o->b->hi, "algorithm", x->key.algorithm, "assignment",
			      x->key.assignment, "layout", x->layout, "workers",
			      (json_int_t)x->workers, "wpn", (json_int_t)x->wpn, "placement",
			      x->placement, "verdict", x->verdict ? x->verdict : "undecided");

	if (point_has(x->key.dtype))
		json_object_set_new(j, "dtype", json_string(x->key.dtype));
	if (point_has(x->key.op))
		json_object_set_new(j, "op", json_string(x->key.op));
	if (x->key.chunk) {
		json_object_set_new(j, "chunk", json_integer((json_int_t)x->key.chunk));
		json_object_set_new(j, "window", json_integer(x->key.window));
	}
	if (x->key.radix)
		json_object_set_new(j, "radix", json_integer(x->key.radix));

	for (size_t i = 0; i < n; i++)
		json_array_append_new(sizes, size_json(&first[i]));
	json_object_set_new(j, "indifferent", json_string(x->indifferent ? x->indifferent : ""));
	json_object_set_new(j, "p_value",
			    isfinite(x->p_value) ? json_real(round(x->p_value * 10000) / 10000) :
						   json_null());
	json_object_set_new(
		j, "ci",
		json_pack("[o, o]", round_or_null(x->ci_lo, 1), round_or_null(x->ci_hi, 1)));
	json_object_set_new(j, "launches", json_integer(x->launches));
	json_object_set_new(j, "oe_measured", round_or_null(x->oe, 1));
	json_object_set_new(j, "offload_pays", json_string(x->pays ? x->pays : "unclear"));
	json_object_set_new(j, "sizes", sizes);
	json_object_set_new(j, "files", o->dir ? json_string(o->dir) : json_null());
	json_object_set_new(j, "command", o->cmd ? json_string(o->cmd) : json_null());
	/* Which launch the command is: run's latest of the layout that ended ok. */
	json_object_set_new(
		j, "command_launch",
		o->cmd ? json_pack("{s:I, s:s}", "run", (json_int_t)r->d.run, "layout", x->layout) :
			 json_null());
	return j;
}

/* The verdict in words: what is known, and why this configuration. */
static void verdict_print(const struct offload_choice *c)
{
	const char *v = c->verdict ? c->verdict : "undecided";

	if (!strcmp(v, "best") && !c->runner_up)
		printf("    the only configuration measured");
	else if (!strcmp(v, "best"))
		printf("    best: significantly better than every other configuration");
	else if (!strcmp(v, "tie"))
		printf("    tie: %u configuration%s within %s of the best (not significantly "
		       "different); this is the cheapest",
		       c->nindifferent, c->nindifferent == 1 ? "" : "s", "the practical threshold");
	else
		printf("    undecided: %u configuration%s not shown worse than the best yet, none "
		       "shown "
		       "as good; the cheapest of the best and those shown as good is chosen (more "
		       "launches would tell)",
		       c->nindifferent, c->nindifferent == 1 ? "" : "s");
	if (c->runner_up && isfinite(c->p_value))
		printf("; best %s %.1f%%, runner-up %s %.1f%% (p=%.2g)",
		       c->leader ? c->leader : "?", c->leader_oe, c->runner_up, c->runner_up_oe,
		       c->p_value);
	putchar('\n');
	if (c->nindifferent > 1)
		printf("    not significantly worse than the best, cheapest first: %s\n",
		       c->indifferent);
	if (isfinite(c->model.noise))
		printf("    noise: %.1f%% per launch, pooled over the configurations (%u df); ",
		       100 * c->model.noise, c->model.df);
	else
		printf("    noise: not estimated; ");
	if (c->model.pooled)
		printf("decided on it (Gupta's subset, Dunnett's bounds, Welch's contrast with the "
		       "leader)\n");
	else
		printf("decided by rank tests (Mann-Whitney, Holm): %s\n",
		       pooled_check_name(c->model.check));
	if (!strcmp(c->verdict ? c->verdict : "undecided", "undecided") && c->model.more_floor)
		printf("    a decision would take at least %u more launches (before then no rank "
		       "test can separate the leader from those undecided, after Holm)\n",
		       c->model.more_launches);
	else if (!strcmp(c->verdict ? c->verdict : "undecided", "undecided") &&
		 c->model.more_launches)
		printf("    a decision would take about %u more launches at this noise%s\n",
		       c->model.more_launches,
		       c->model.more_launches > 1000 ?
			       " (none affordable: the difference is below what "
			       "the noise resolves)" :
			       "");
}

static void size_print(const struct offload_choice *c)
{
	char sz[32];

	printf("  %s: OE %.1f%% (median of %u launch%s; reference over total, medians over "
	       "iterations, uncapped%s); the best median %.1f%%, its 95%% CI [%.1f, %.1f]%s\n",
	       format_size(c->key.bytes, sz, sizeof(sz)), c->oe, c->reps, c->reps == 1 ? "" : "es",
	       c->oe > 100 ? ": oe_measured caps it at 100.0" : "", c->leader_oe, c->ci_lo,
	       c->ci_hi, c->ci_exact ? "" : " (too few launches for 95%: min..max)");
	verdict_print(c);
	if (c->twin_of_choice)
		printf("    one schedule: %s and %s give every host the same worker here, decided "
		       "as "
		       "one configuration (a sample per launch, the geometric mean of the two)\n",
		       c->key.assignment, c->twin_of_choice);
	if (c->twins)
		printf("    A/A: %u pair%s of such twins, each decided alone first: %s\n", c->twins,
		       c->twins == 1 ? "" : "s",
		       c->twins_separated ? "told apart, which one schedule never should be: look "
					    "at the machine before trusting this" :
					    "none told apart");
	if (c->excluded)
		printf("    not compared: %u configuration%s with every launch left out (compute "
		       "not "
		       "calibrated to the reference), %s first; no verdict rests on a rival never "
		       "measured\n",
		       c->excluded, c->excluded == 1 ? "" : "s", c->excluded_first);
	if (c->unstable)
		printf("    unstable: %u of its %u launches are outliers (Tukey 3 IQR or modified "
		       "z-score), kept, not dropped: look at the machine before trusting it\n",
		       c->outliers, c->reps);
	else if (c->outliers)
		printf("    %u of its %u launches flagged as outliers (kept)\n", c->outliers,
		       c->reps);
	if (isfinite(c->gain))
		printf("    offloading pays: %s (host-only time / offloaded time %.2f, CI [%.2f, "
		       "%.2f];"
		       " reference %.1f + compute %.1f us vs %.1f us)\n",
		       c->pays, c->gain, c->gain_lo, c->gain_hi, c->ref_us, c->compute_us,
		       c->total_us);
	if (c->placement_cmp.have) {
		const struct placement_cmp *pc = &c->placement_cmp;
		const char *w = pc->dpu_vs_onload == STATS_BETTER ? "DPU wins" :
				pc->dpu_vs_onload == STATS_WORSE  ? "onload wins" :
				pc->dpu_vs_onload == STATS_TIE	  ? "a tie" :
								    "undecided";

		printf("    DPU (%s) against onload (%s): %s, %+.1f points (p=%.2g)", c->dpu_best,
		       c->onload_best, w, pc->shift, pc->p);
		if (pc->dpu_cores_left >= 0)
			printf("; cores per node left to the application: DPU %d, onload %d",
			       pc->dpu_cores_left, pc->onload_cores_left);
		putchar('\n');
	}
}

static int band_pays_not(const struct offload_choice *first, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!first[i].pays || strcmp(first[i].pays, "no"))
			return 0;
	return n > 0;
}

static void band_print(const struct recommend *r, const struct band_out *o)
{
	const struct offload_choice *x = o->x, *first;
	size_t n = band_sizes(r, o, &first);
	char lo[32], hi[32];

	format_size(o->b->lo, lo, sizeof(lo));
	format_size(o->b->hi, hi, sizeof(hi));
	printf("\n%s%s%s%s%s, %s%s%s: ", o->coll, point_has(x->key.dtype) ? " " : "",
	       point_has(x->key.dtype) ? x->key.dtype : "", point_has(x->key.op) ? " " : "",
	       point_has(x->key.op) ? x->key.op : "", lo, o->b->lo == o->b->hi ? "" : "..",
	       o->b->lo == o->b->hi ? "" : hi);
	if (band_pays_not(first, n))
		printf("offloading does not pay: keep %s on the host ranks (host-only %s)\n"
		       "  the least bad offload: ",
		       o->coll,
		       decisions_has_mpi(&r->d, o->coll) ?
			       "with Open MPI's fastest algorithm below" :
			       "Open MPI's own choice; run 'sweetspot baseline' to pick its "
			       "algorithm");
	printf("%u worker%s (WPN %u, %s), %s algorithm, %s assignment: %s\n", x->workers,
	       x->workers == 1 ? "" : "s", x->wpn, x->placement, x->key.algorithm,
	       x->key.assignment, x->verdict ? x->verdict : "undecided");
	printf("  layout %s\n", x->layout);
	axes_print(x);
	for (size_t i = 0; i < n; i++)
		size_print(&first[i]);
	if (o->dir)
		printf("  files: %s/\n", o->dir);
	if (o->cmd)
		printf("  measured by the last launch of %s in run %lld that ended ok, with:\n"
		       "  launch: %s\n",
		       x->layout, r->d.run, o->cmd);
	else
		printf("  launch: none of %s in run %lld ended ok: no command to repeat\n",
		       x->layout, r->d.run);
}

/* Writes the band's launch files, finds its measured command, and prints
 * or adds it. 0, or -1 after error(). */
static int recommend_band(struct recommend *r, struct band_out *o)
{
	const struct layout *l = plan_find(&r->plan, o->x->layout);
	int ret = -1;

	if (l) {
		o->dir = xasprintf("%s/%s", r->root, l->id);
		if (generate_layout(&r->spec, l, o->dir))
			goto out;
	}
	if (store_launch_command(r->st, r->d.run, o->x->layout, &o->cmd) < 0)
		goto out;
	if (r->a->json)
		json_array_append_new(r->jrecs, band_json(r, o));
	else
		band_print(r, o);
	ret = 0;
out:
	free(o->dir);
	free(o->cmd);
	return ret;
}

/* Every band of every collective asked for. 0, or -1 after error(). */
static int recommend_bands(struct recommend *r)
{
	for (size_t c = 0; c < colls_count; c++) {
		const char *coll = colls_name(&colls_table[c]);
		struct band *b;
		size_t nb;
		int bad = 0;

		if (r->a->coll && strcmp(r->a->coll, coll))
			continue;
		nb = decisions_bands(&r->d, coll, &b);
		for (size_t k = 0; k < nb && !bad; k++) {
			struct band_out o = { coll, &b[k], b[k].best, NULL, NULL };

			bad = recommend_band(r, &o);
		}
		free(b);
		if (bad)
			return -1;
	}
	return 0;
}

static json_t *mpi_json(const struct mpi_choice *m)
{
	json_t *o = json_pack(
		"{s:s, s:I, s:I, s:i, s:s, s:f}", "collective", m->collective, "ranks",
		(json_int_t)m->ranks, "bytes", (json_int_t)m->bytes, "algorithm", m->alg, "name",
		mpi_algorithm_name(m->collective, m->alg), "avg_us", round(m->avg_us * 100) / 100);

	json_object_set_new(o, "default_us", round_or_null(m->default_us, isfinite(m->default_us)));
	json_object_set_new(o, "verdict", json_string(m->verdict ? m->verdict : "undecided"));
	json_object_set_new(o, "p_value",
			    isfinite(m->p_value) ? json_real(round(m->p_value * 10000) / 10000) :
						   json_null());
	json_object_set_new(
		o, "ci",
		json_pack("[o, o]", round_or_null(m->ci_lo, 1), round_or_null(m->ci_hi, 1)));
	json_object_set_new(o, "runner_up",
			    m->runner_up >= 0 ? json_integer(m->runner_up) : json_null());
	json_object_set_new(o, "launches", json_integer(m->launches));
	return o;
}

/* Open MPI on the hosts alone, when its baseline was measured. */
static void recommend_mpi(struct recommend *r)
{
	const char *coll = r->a->coll;
	json_t *jm = r->a->json ? json_array() : NULL;

	if (!r->a->json)
		printf("\nOpen MPI alone (sweetspot baseline), fastest coll/tuned algorithm:\n");
	for (size_t k = 0; k < r->d.nmpi; k++) {
		const struct mpi_choice *m = &r->d.mpi[k];
		char sz[32];

		if (coll && strcmp(coll, m->collective))
			continue;
		if (jm) {
			json_array_append_new(jm, mpi_json(m));
			continue;
		}
		printf("  %-9s %3u ranks %6s: %s (%d), median %.1f us [%.1f, %.1f], %s",
		       m->collective, m->ranks, format_size(m->bytes, sz, sizeof(sz)),
		       mpi_algorithm_name(m->collective, m->alg), m->alg, m->avg_us, m->ci_lo,
		       m->ci_hi, m->verdict ? m->verdict : "undecided");
		if (m->runner_up >= 0)
			printf(" (runner-up %s %.1f us, p=%.2g)",
			       mpi_algorithm_name(m->collective, m->runner_up), m->runner_up_us,
			       m->p_value);
		if (isfinite(m->default_us) && m->alg)
			printf("; Open MPI's own choice %.1f us", m->default_us);
		printf("; %u launches over %u algorithms\n", m->launches, m->algorithms);
	}
	if (jm)
		json_object_set_new(r->jo, "mpi", jm);
	else
		printf("  files: sweetspot export --format ompi-rules|ompi-json|ucc|mca-params "
		       "--db %s %s\n",
		       r->a->db, r->a->path);
}

/* The spec, its results (searched for when there are none), the decisions
 * and the store. Returns the exit status: 0 to go on, else 1 or EXIT_USAGE. */
static int recommend_load(struct recommend *r)
{
	const struct recommend_args *a = r->a;

	if (spec_load(a->path, &r->spec) || plan_build(&r->spec, &r->plan))
		return EXIT_USAGE;
	if (!a->run && ensure_results(&r->spec, &r->plan, a->path, a->db, &r->baseline))
		return 1;
	r->d.params = recommend_spec_params(&r->spec);
	if (decisions_from_db(a->db, a->run ? a->run : r->baseline, a->path, &r->d))
		return EXIT_USAGE;
	if (r->baseline && !decisions_has_mpi(&r->d, a->coll)) {
		error("recommend: %s baseline run %lld holds no measurement%s%s", a->db,
		      r->baseline, a->coll ? " of " : "", a->coll ? a->coll : "");
		return EXIT_USAGE;
	}
	/* A baseline alone: the MPI library's algorithms, nothing offloaded. */
	if (!r->baseline && a->coll && !decisions_has_offload(&r->d, a->coll)) {
		error("recommend: %s run %lld holds no offloaded measurement of %s", a->db,
		      r->d.run, a->coll);
		return EXIT_USAGE;
	}
	if (!r->baseline && !decisions_has_offload(&r->d, NULL)) {
		error("recommend: %s run %lld holds no offloaded measurement", a->db, r->d.run);
		return EXIT_USAGE;
	}
	if (store_open(a->db, STORE_RDONLY, &r->st))
		return 1;
	if (store_foreach_point(r->st, r->d.run, STORE_VALID_ONLY, count_uncalibrated,
				&r->uncalibrated))
		return 1;
	r->root = files_root(a->files, a->db);
	return files_mkdir_p(r->root) ? 1 : 0;
}

int cmd_recommend(int argc, char **argv)
{
	struct recommend_args a = { NULL, STORE_DEFAULT_PATH, NULL, NULL, 0, 0 };
	struct recommend r = { .a = &a, .spec = SPEC_INIT, .plan = PLAN_INIT, .d = DECISIONS_INIT };
	int status;

	status = recommend_args(argc, argv, &a);
	if (status != CLI_END)
		return cli_status(status);
	status = recommend_load(&r);
	if (status)
		goto out;
	if (a.json) {
		r.jo = json_object();
		r.jrecs = json_array();
		json_object_set_new(r.jo, "source", json_string(a.db));
		json_object_set_new(r.jo, "run", json_integer(r.d.run));
		json_object_set_new(r.jo, "spec", json_string(a.path));
		json_object_set_new(r.jo, "uncalibrated", json_integer(r.uncalibrated));
	} else {
		printf("Recommendation from %s, run %lld (%s)\n", a.db, r.d.run, a.path);
		if (r.uncalibrated)
			printf("%lld point%s left out: the compute phase missed its reference "
			       "(calibrated: false)\n",
			       r.uncalibrated, r.uncalibrated == 1 ? "" : "s");
	}
	if (!r.baseline && recommend_bands(&r)) {
		status = 1;
		goto out;
	}
	if (decisions_has_mpi(&r.d, a.coll))
		recommend_mpi(&r);
	if (a.json) {
		json_object_set_new(r.jo, "recommendations", r.jrecs);
		r.jrecs = NULL; /* r.jo's now */
		json_dumpf(r.jo, stdout,
			   JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
		putchar('\n');
	}
out:
	json_decref(r.jrecs);
	json_decref(r.jo);
	free(r.root);
	store_close(r.st);
	decisions_release(&r.d);
	plan_release(&r.plan);
	spec_release(&r.spec);
	return status;
}
