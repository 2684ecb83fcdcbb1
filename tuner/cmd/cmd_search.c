/*
 * tuner/cmd/cmd_search.c: `sweetspot search SPEC`: finds the sweet spot of every
 * collective and message size of a spec with as few launches as it can, and
 * says how sure it is. Decisions are made as `recommend` makes them, with the
 * spec's statistics (alpha, delta_oe, max_repetitions, cost_order; the
 * command line may override alpha and max_repetitions): per (collective,
 * size), the verdict, the indifference set, the leader against the runner-up
 * (p) and the CI of the leader's median. With --replay the measurements come
 * from a table (deterministic tests and benchmarks); without it, every
 * launch is a real one through the sweep engine (runner.h), in this
 * process, stored in the database like a sweep's. The model strategy
 * calibrates the model (or takes its stored parameters), predicts the grid
 * and measures only the predicted top candidates (model_search.c), as the
 * grid strategy would measure them.
 */
#include "cli.h"
#include "cmds.h"
#include "error.h"
#include "model_run.h"
#include "parse.h"
#include "plan.h"
#include "replay.h"
#include "search.h"
#include "runner.h"
#include "child.h"
#include "spec.h"
#include "store.h"
#include "strvec.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	OPT_STRATEGY,
	OPT_BUDGET,
	OPT_MAXREPS,
	OPT_ALPHA,
	OPT_REPLAY,
	OPT_REPLAY_SEED,
	OPT_DB,
	OPT_LAUNCHER,
	OPT_MAX_LAUNCHES,
	OPT_WAIT_LOCK,
	OPT_JSON,
	NOPTS
};

static const struct cli_option search_options[NOPTS + 1] = {
	[OPT_STRATEGY] = { "strategy", 0, "S",
			   "grid: every layout `repetitions` times, then racing;\n"
			   "adaptive (default): powers of two first, then refine where\n"
			   "a layout could still beat the leader, then racing;\n"
			   "model: the model predicts the grid (calibrating it first\n"
			   "unless the database holds its parameters), then grid over\n"
			   "the predicted top candidates only (not with --replay)" },
	[OPT_BUDGET] = { "budget", 0, "N|P%",
			 "use at most N launches, or P% of the grid's "
			 "(one launch = one layout once; default: the spec's budget, else 15%)" },
	[OPT_MAXREPS] = { "max-repetitions", 0, "N",
			  "most launches of a configuration in contention\n"
			  "(default: the spec's max_repetitions)" },
	[OPT_ALPHA] = { "alpha", 0, "A",
			"significance level of the comparisons (default: the\n"
			"spec's alpha, 0.05 unless it says otherwise)" },
	[OPT_REPLAY] = { "replay", 0, "FILE",
			 "take measurements from a CSV table instead of launching\n"
			 "(columns collective, algorithm, assignment, bytes, workers,\n"
			 "wpn, placement, repetition, oe_measured, total_us)" },
	[OPT_REPLAY_SEED] = { "replay-seed", 0, "N",
			      "with --replay: each layout's launches are its stored\n"
			      "launches in an order drawn from seed N (0 to 2^64-1),\n"
			      "each once; without it, in the table's order of repetition" },
	[OPT_DB] = { "db", 0, "FILE",
		     "where real launches are stored (default " STORE_DEFAULT_PATH ");\n"
		     "each launch is one of the run of SPEC, as 'sweetspot run'\n"
		     "makes it, so what the database already holds is used, not\n"
		     "measured again" },
	[OPT_LAUNCHER] = { "launcher", 0, "L", "srun, mpirun or mpirun_rsh for those launches" },
	[OPT_MAX_LAUNCHES] = { "max-launches", 0, "N",
			       "stop after N new launches (exit 0); the next search of\n"
			       "SPEC into the same database resumes where it stopped\n"
			       "(submit --chunks cuts a search into jobs this way)" },
	[OPT_WAIT_LOCK] = { "wait-lock", 0, NULL,
			    "wait while another run, search or submit of SPEC holds\n"
			    "the database's lock, instead of refusing" },
	[OPT_JSON] = { "json", 0, NULL,
		       "one JSON object: strategy, launches, grid_launches,\n"
		       "decisions[] (verdict, choice, leader, p_value, ci,\n"
		       "indifferent[], launches) and best[] per group; with the\n"
		       "model strategy also calibration_launches, total_launches,\n"
		       "candidates[] and predicted[]" },
	[NOPTS] = { NULL, 0, NULL, NULL },
};

static const struct cli_command search_cli = {
	"search",
	"SPEC [--strategy grid|adaptive|model] [--budget N]\n"
	"[--max-repetitions N] [--alpha A]\n"
	"[--replay FILE.csv [--replay-seed N] |\n"
	" --db FILE [--launcher L] [--max-launches N] [--wait-lock]] [--json]",
	"Finds, for every collective and message size of the sweep spec SPEC, the\n"
	"configuration (layout, algorithm, assignment) to use, as 'recommend'\n"
	"decides it. The launch-to-launch noise is pooled over the configurations\n"
	"on the log scale; where its checks hold, the leader is the best mean, the\n"
	"indifference set is Gupta's subset (Dunnett's many-to-one bounds), and a\n"
	"configuration is worse when outside it by at least delta_oe and by\n"
	"Welch's contrast with the leader; where a check fails, the rank rule:\n"
	"the best median leads, the others are compared with it by Mann-Whitney\n"
	"under Holm. The choice is the cheapest of the leader and those shown\n"
	"equal to it. The verdict: best, tie or undecided.",
	search_options,
	"Exit status: 0 success, 1 a launch could not be recorded, 2 bad usage or\n"
	"bad input (file:line: message), 130 interrupted (what was measured stays).",
};

struct search_args {
	const char *path, *replay, *db, *launcher;
	int json, seeded; /* seeded: --replay-seed given */
	uint64_t seed;
	uint64_t max_launches; /* 0: no limit */
	int wait_lock;
	unsigned maxreps; /* 0: the spec's */
	double alpha;	  /* 0: the spec's */
	struct search_opts opts;
};

/* --alpha's value, in (0, 0.5] as the spec's key. 0, or -1 after a report. */
static int parse_alpha(const struct cli *c, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(c->arg, &end);
	if (end == c->arg || *end || errno == ERANGE || !(v >= 1e-6 && v <= 0.5))
		return cli_usage_error(c->cmd, "--alpha: '%s' is not a number in [0.000001, 0.5]",
				       c->arg);
	*out = v;
	return 0;
}

/* One option into *a: 0, or -1 after a report. */
static int take_option(const struct cli *c, int o, struct search_args *a)
{
	uint64_t v;

	switch (o) {
	case OPT_STRATEGY:
		if (strcmp(c->arg, "grid") && strcmp(c->arg, "adaptive") && strcmp(c->arg, "model"))
			return cli_usage_error(c->cmd,
					       "--strategy: unknown strategy '%s' "
					       "(grid, adaptive or model)",
					       c->arg);
		return search_parse_strategy(c->arg, &a->opts.strategy);
	case OPT_BUDGET: {
		char err[160];

		if (parse_budget(c->arg, &a->opts.budget, &a->opts.budget_frac, err, sizeof(err)))
			return cli_usage_error(c->cmd, "--budget: %s", err);
		return 0;
	}
	case OPT_MAXREPS:
		if (cli_uint(c, 1, 10000, &v))
			return -1;
		a->maxreps = (unsigned)v;
		return 0;
	case OPT_ALPHA:
		return parse_alpha(c, &a->alpha);
	case OPT_REPLAY:
		a->replay = c->arg;
		return 0;
	case OPT_REPLAY_SEED:
		a->seeded = 1;
		return cli_uint(c, 0, UINT64_MAX, &a->seed);
	case OPT_DB:
		a->db = c->arg;
		return 0;
	case OPT_LAUNCHER:
		a->launcher = c->arg;
		return 0;
	case OPT_MAX_LAUNCHES:
		return cli_uint(c, 1, 1000000, &a->max_launches);
	case OPT_WAIT_LOCK:
		a->wait_lock = 1;
		return 0;
	case OPT_JSON:
		a->json = 1;
		return 0;
	}
	return 0;
}

/* Options and the one spec: CLI_END to go on, CLI_HELP or CLI_BAD. */
static int parse_args(int argc, char **argv, struct search_args *a)
{
	struct cli c;
	int o;

	cli_begin(&c, &search_cli, argc, argv);
	while ((o = cli_next(&c)) >= 0)
		if (take_option(&c, o, a))
			return CLI_BAD;
	if (o != CLI_END)
		return o;
	if (cli_operands(&c, 1, 1, "SPEC"))
		return CLI_BAD;
	a->path = c.operands[0];
	if (a->replay && (a->db || a->launcher || a->max_launches || a->wait_lock)) {
		cli_usage_error(&search_cli, "--replay measures nothing: no --db, --launcher, "
					     "--max-launches or --wait-lock with it");
		return CLI_BAD;
	}
	if (a->seeded && !a->replay) {
		cli_usage_error(&search_cli, "--replay-seed orders a replayed table's launches: "
					     "it needs --replay");
		return CLI_BAD;
	}
	if (a->replay && a->opts.strategy == SEARCH_MODEL) {
		cli_usage_error(&search_cli,
				"--strategy model calibrates the model on the machine: "
				"a replayed table has none (use grid or adaptive with --replay)");
		return CLI_BAD;
	}
	return CLI_END;
}

/* The statistics: the spec's, then the command line's. EXIT_USAGE after a
 * report when they do not fit the spec, else 0. */
static int settle_opts(struct search_args *a, const struct spec *s)
{
	search_opts_from_spec(s, &a->opts);
	if (a->alpha > 0)
		a->opts.alpha = a->alpha;
	if (a->maxreps) {
		if (a->maxreps < s->repetitions) {
			cli_usage_error(&search_cli,
					"--max-repetitions: %u is fewer than the "
					"spec's repetitions (%u)",
					a->maxreps, s->repetitions);
			return EXIT_USAGE;
		}
		a->opts.max_repetitions = a->maxreps;
	}
	return 0;
}

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(round(v * 1e4) / 1e4) : json_null();
}

/* The axes of group g that apply (chunk, window, radix) into o. */
static void axes_json(json_t *o, const struct point *g)
{
	if (g->chunk)
		json_object_set_new(o, "chunk", json_integer((json_int_t)g->chunk));
	if (g->window)
		json_object_set_new(o, "window", json_integer(g->window));
	if (g->radix)
		json_object_set_new(o, "radix", json_integer(g->radix));
}

/* A configuration as JSON: its layout and group, its launches and median. */
static json_t *config_json(const struct search_space *sp, const struct search_config *c)
{
	const struct search_layout *l;
	const struct point *g;
	json_t *o;

	if (c->layout < 0 || c->group < 0)
		return json_null();
	l = &sp->layouts[c->layout];
	g = &sp->groups[c->group];
	o = json_pack("{s:s, s:I, s:I, s:s, s:s, s:s, s:I, s:o}", "layout", l->id, "workers",
		      (json_int_t)l->workers, "wpn", (json_int_t)l->wpn, "placement", l->placement,
		      "algorithm", g->algorithm, "assignment", g->assignment, "n", (json_int_t)c->n,
		      "oe_measured", num_or_null(c->median));
	axes_json(o, g);
	return o;
}

static json_t *decision_json(const struct search_space *sp, const struct search_decision *d)
{
	json_t *set = json_array();

	for (size_t i = 0; i < d->nindifferent; i++)
		json_array_append_new(set, config_json(sp, &d->indifferent[i]));
	json_t *o = json_pack(
		"{s:s, s:I, s:s, s:o, s:o, s:o, s:o, s:[o, o], s:b, s:o, s:I, s:I, s:I, s:I, s:I}",
		"collective", d->collective, "bytes", (json_int_t)d->bytes, "verdict",
		decide_verdict_name(d->verdict), "choice", config_json(sp, &d->choice), "leader",
		config_json(sp, &d->leader), "runner_up", config_json(sp, &d->runner_up), "p_value",
		num_or_null(d->p_value), "ci", num_or_null(d->ci_lo), num_or_null(d->ci_hi),
		"ci_exact", d->ci_exact, "indifferent", set, "launches", (json_int_t)d->launches,
		"measured", (json_int_t)d->measured, "screened", (json_int_t)d->screened, "worse",
		(json_int_t)d->worse, "contenders", (json_int_t)d->contenders);

	if (d->dtype)
		json_object_set_new(o, "dtype", json_string(d->dtype));
	if (d->op)
		json_object_set_new(o, "op", json_string(d->op));
	json_object_set_new(o, "noise",
			    json_pack("{s:s, s:s, s:o, s:I}", "model",
				      d->model.pooled ? "pooled" : "rank", "check",
				      pooled_check_name(d->model.check), "sd_log",
				      num_or_null(d->model.noise), "df", (json_int_t)d->model.df));
	json_object_set_new(o, "more_launches", json_integer(d->model.more_launches));
	if (d->model.more_launches)
		json_object_set_new(
			o, "more",
			json_pack("{s:o, s:o, s:s}", "leader", config_json(sp, &d->more_a),
				  "contender", config_json(sp, &d->more_b), "would",
				  d->model.more_floor ? "let a rank test separate them at best" :
				  d->more_equal	      ? "show them equal" :
							"separate them"));
	json_object_set_new(o, "surrogate",
			    json_pack("{s:I, s:o, s:b, s:s}", "points",
				      (json_int_t)d->surrogate_points, "loo_rms",
				      num_or_null(d->surrogate_rms), "fit_good", d->surrogate_ok,
				      "prior", d->surrogate_prior ? "model" : "constant"));
	return o;
}

static json_t *best_json(const struct search_space *sp, const struct search_result *r)
{
	json_t *arr = json_array();

	for (size_t g = 0; g < sp->ngroups; g++) {
		const struct point *gr = &sp->groups[g];
		const struct search_best *b = &r->best[g];
		const struct search_layout *l;
		json_t *o;

		if (b->layout < 0)
			continue;
		l = &sp->layouts[b->layout];
		o = json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:s, s:s, s:f, s:f, s:I}",
			      "collective", gr->collective, "algorithm", gr->algorithm,
			      "assignment", gr->assignment, "bytes", (json_int_t)gr->bytes,
			      "workers", (json_int_t)l->workers, "wpn", (json_int_t)l->wpn,
			      "placement", l->placement, "layout", l->id, "oe_measured",
			      round(b->oe * 100) / 100, "spread", round(b->spread * 100) / 100,
			      "repetitions", (json_int_t)b->reps);
		if (gr->dtype)
			json_object_set_new(o, "dtype", json_string(gr->dtype));
		if (gr->op)
			json_object_set_new(o, "op", json_string(gr->op));
		axes_json(o, gr);
		json_array_append_new(arr, o);
	}
	return arr;
}

/* Why the model strategy measures every layout, or NULL when it does not. */
static const char *why_every_layout(const struct search_space *sp, const struct model_search *ms)
{
	if (ms->ncandidates < sp->nlayouts)
		return NULL;
	return sp->nlayouts <= MODEL_SEARCH_CAP ?
		       "the grid has no more layouts than a decision's candidates" :
		       "the model cannot tell them apart within its uncertainty";
}

/* The model strategy's part of the JSON object: what calibrating cost, the
 * candidates measured and what the model predicted per decision group. */
static void model_json(json_t *obj, const struct search_space *sp, const struct search_result *r,
		       const struct model_search *ms)
{
	json_t *cand = json_array(), *pred = json_array();

	for (size_t l = 0; l < sp->nlayouts; l++)
		if (ms->only[l])
			json_array_append_new(cand, json_string(sp->layouts[l].id));
	for (size_t d = 0; d < ms->ngroups; d++) {
		const struct model_search_group *g = &ms->groups[d];

		json_array_append_new(
			pred,
			json_pack("{s:s, s:I, s:o, s:o, s:o, s:o, s:o, s:I}", "collective",
				  g->key.collective, "bytes", (json_int_t)g->key.bytes, "dtype",
				  g->key.dtype ? json_string(g->key.dtype) : json_null(), "op",
				  g->key.op ? json_string(g->key.op) : json_null(), "layout",
				  g->best >= 0 ? json_string(sp->layouts[g->best].id) : json_null(),
				  "oe_measured", num_or_null(g->oe), "oe_measured_sd",
				  num_or_null(g->sd), "candidates", (json_int_t)g->ncandidates));
	}
	json_object_set_new(obj, "calibration", json_string(ms->reused ? "stored" : "calibrated"));
	json_object_set_new(obj, "calibration_launches", json_integer(ms->calibration_launches));
	json_object_set_new(obj, "total_launches",
			    json_integer((json_int_t)r->launches + ms->calibration_launches));
	json_object_set_new(obj, "layouts", json_integer((json_int_t)sp->nlayouts));
	json_object_set_new(obj, "candidates", cand);
	if (why_every_layout(sp, ms))
		json_object_set_new(obj, "every_layout", json_string(why_every_layout(sp, ms)));
	json_object_set_new(obj, "predicted", pred);
}

static int print_json(const struct search_space *sp, const struct search_result *r,
		      const struct search_opts *o, const struct model_search *ms)
{
	json_t *obj = json_object(), *dec = json_array();
	int ret;

	for (size_t d = 0; d < r->ndecisions; d++)
		json_array_append_new(dec, decision_json(sp, &r->decisions[d]));
	json_object_set_new(obj, "strategy", json_string(search_strategy_name(o->strategy)));
	json_object_set_new(obj, "launches", json_integer(r->launches));
	json_object_set_new(obj, "grid_launches", json_integer(r->grid_launches));
	json_object_set_new(obj, "budget", r->budget ? json_integer(r->budget) : json_null());
	if (ms)
		model_json(obj, sp, r, ms);
	json_object_set_new(obj, "budget_exhausted", json_boolean(r->budget_exhausted));
	json_object_set_new(obj, "failed_launches", json_integer(r->failed_launches));
	json_object_set_new(obj, "alpha", json_real(o->alpha));
	json_object_set_new(obj, "delta_oe", json_real(o->tolerance));
	json_object_set_new(obj, "max_repetitions", json_integer(r->max_repetitions));
	json_object_set_new(obj, "decisions", dec);
	json_object_set_new(obj, "best", best_json(sp, r));
	ret = json_dumpf(obj, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	putchar('\n');
	json_decref(obj);
	return ret;
}

/* Whether decision d has more than one (algorithm, assignment): then they
 * are named beside the layout. */
static int several_groups(const struct search_space *sp, const struct search_decision *d)
{
	size_t n = 0;

	for (size_t g = 0; g < sp->ngroups; g++)
		n += sp->groups[g].bytes == d->bytes &&
		     !strcmp(sp->groups[g].collective, d->collective) &&
		     (!d->dtype ||
		      (sp->groups[g].dtype && !strcmp(sp->groups[g].dtype, d->dtype))) &&
		     (!d->op || (sp->groups[g].op && !strcmp(sp->groups[g].op, d->op)));
	return n > 1;
}

/* "4 workers (2 WPN, dpu)", with " direct/block" when several, and the
 * chunk, window and radix where they apply. */
static const char *config_words(const struct search_space *sp, const struct search_config *c,
				int groups, char *buf, size_t len)
{
	const struct search_layout *l = &sp->layouts[c->layout];
	const struct point *g = &sp->groups[c->group];
	int k;

	k = snprintf(buf, len, "%u worker%s (%u WPN, %s)", l->workers, l->workers == 1 ? "" : "s",
		     l->wpn, l->placement);
	if (groups && k > 0 && (size_t)k < len) {
		char pt[160];

		snprintf(buf + k, len - (size_t)k, " %s",
			 point_text(g, POINT_SCHEDULE | POINT_AXES, pt, sizeof(pt)));
	}
	return buf;
}

/* The members of the set other than skip, in words: "2 workers (...) and 8
 * workers (...)", the first OTHERS_NAMED of them and how many more; ""
 * when none. */
#define OTHERS_NAMED 3

static void others_words(const struct search_space *sp, const struct search_decision *d,
			 const struct search_config *skip, int groups, char *buf, size_t len)
{
	size_t k = 0, left = 0, i;
	char one[128];

	buf[0] = 0;
	for (i = 0; i < d->nindifferent; i++)
		left += d->indifferent[i].layout != skip->layout ||
			d->indifferent[i].group != skip->group;
	for (i = 0; i < d->nindifferent && k < OTHERS_NAMED; i++) {
		const struct search_config *c = &d->indifferent[i];

		if (c->layout == skip->layout && c->group == skip->group)
			continue;
		k++;
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
			 k == 1	   ? "" :
			 k == left ? " and " :
				     ", ",
			 config_words(sp, c, groups, one, sizeof(one)));
	}
	if (left > k)
		snprintf(buf + strlen(buf), len - strlen(buf), " and %zu more", left - k);
}

static void fmt_p(double p, char *buf, size_t len)
{
	if (!isfinite(p))
		snprintf(buf, len, "no runner-up");
	else
		snprintf(buf, len, "p=%.2g", p);
}

/* Beyond this many more launches, a decision is out of reach in practice. */
#define SEARCH_MORE_AFFORDABLE 1000

/* The noise model, what more launches would buy, and the surrogate's fit. */
static void print_noise(const struct search_space *sp, const struct search_decision *d, int groups)
{
	char a[128], b[128];

	if (isfinite(d->model.noise))
		printf("    noise: pooled over the configurations, %.1f%% per launch (sd of log "
		       "OE, "
		       "%u df); ",
		       100 * d->model.noise, d->model.df);
	else
		printf("    noise: not estimated yet (too few repeated launches); ");
	if (d->model.pooled)
		printf("decided on it (Gupta's subset, Dunnett's bounds, Welch's contrast with the "
		       "leader)\n");
	else
		printf("decided by rank tests (Mann-Whitney, Holm): %s\n",
		       pooled_check_name(d->model.check));
	if (d->verdict == DECIDE_UNDECIDED && d->model.more_floor)
		printf("    at least %u more launches (of the leader and those undecided against "
		       "it) "
		       "before a rank test could separate any of them at alpha after Holm\n",
		       d->model.more_launches);
	else if (d->verdict == DECIDE_UNDECIDED && d->model.more_launches > SEARCH_MORE_AFFORDABLE)
		printf("    no affordable number of launches (%u more) would %s at the pooled "
		       "noise: "
		       "the difference is below what this machine's noise resolves\n",
		       d->model.more_launches,
		       d->more_equal ? "show the contenders equal within delta" :
				       "separate the contenders");
	else if (d->verdict == DECIDE_UNDECIDED && d->model.more_launches)
		printf("    %u more launches of %s and %s would %s at the pooled noise\n",
		       d->model.more_launches, config_words(sp, &d->more_a, groups, a, sizeof(a)),
		       config_words(sp, &d->more_b, groups, b, sizeof(b)),
		       d->more_equal ? "show them equal within delta" : "separate them");
	if (d->surrogate_points)
		printf("    surrogate (assumed: log OE smooth over log workers, log WPN, "
		       "placement, nodes; GP with the pooled noise, prior mean %s): %u layouts "
		       "fitted, leave-one-out residuals %.2f sd RMS: %s\n",
		       d->surrogate_prior ? "the model's prediction plus a fitted offset" :
					    "constant",
		       d->surrogate_points, d->surrogate_rms,
		       d->surrogate_ok ? "fit good, used to choose the layouts launched" :
					 "fit poor, layouts chosen by the measured-only rule");
}

/* One decision in words: the choice, then why; then the evidence. */
static void print_decision(const struct search_space *sp, const struct search_decision *d,
			   double delta)
{
	char sz[32], ch[128], ld[128], p[32], others[1024];
	int groups = several_groups(sp, d),
	    same = d->choice.layout == d->leader.layout && d->choice.group == d->leader.group;

	printf("%s %s%s%s%s%s: ", d->collective, format_size(d->bytes, sz, sizeof(sz)),
	       d->dtype ? " " : "", d->dtype ? d->dtype : "", d->op ? " " : "", d->op ? d->op : "");
	if (d->choice.layout < 0) {
		printf("no valid measurement\n");
		return;
	}
	config_words(sp, &d->choice, groups, ch, sizeof(ch));
	config_words(sp, &d->leader, groups, ld, sizeof(ld));
	others_words(sp, d, &d->choice, groups, others, sizeof(others));
	fmt_p(d->p_value, p, sizeof(p));
	if (d->verdict == DECIDE_BEST)
		printf("%s; best: significantly better than every other (%s)\n", ch, p);
	else if (d->verdict == DECIDE_TIE)
		printf("%s; tie: %s %s not significantly different and within %g OE point "
		       "of the leader (%s); %s is the cheapest\n",
		       ch, others, d->nindifferent > 2 ? "are" : "is", delta, p, ch);
	else if (!others[0])
		printf("%s; undecided after %u launches of it (%s)\n", ch, d->leader.n, p);
	else
		printf("%s; undecided after %u launches of the leader%s%s: %s %s not significantly "
		       "different (%s); %s is the cheapest of them\n",
		       ch, d->leader.n, same ? "" : ", ", same ? "" : ld, others,
		       d->nindifferent > 2 ? "are" : "is", p, ch);
	printf("    leader %s: median OE %.1f, %s [%.1f, %.1f] over %u launches; "
	       "%u launches for this decision; of %u configurations measured, %u significantly "
	       "worse, %u screened out\n",
	       ld, d->leader_oe, d->ci_exact ? "95% CI" : "range", d->ci_lo, d->ci_hi, d->leader.n,
	       d->launches, d->measured, d->worse, d->screened);
	print_noise(sp, d, groups);
}

static const char *fmt_num(double v, char *buf, size_t n)
{
	if (isfinite(v))
		snprintf(buf, n, "%.1f", v);
	else
		snprintf(buf, n, "-");
	return buf;
}

/* The best layout of every (collective, algorithm, assignment, size). */
static void print_bests(const struct search_space *sp, const struct search_result *r)
{
	char sz[32], a[32], b[32];

	printf("\nper algorithm and assignment (median; spread: half the range):\n");
	printf("%-10s %-9s %-10s %6s %7s %4s %-9s %11s %6s %4s  %s\n", "collective", "algorithm",
	       "assignment", "size", "workers", "wpn", "placement", "oe_measured", "spread", "reps",
	       "layout");
	for (size_t g = 0; g < sp->ngroups; g++) {
		const struct point *gr = &sp->groups[g];
		const struct search_best *bs = &r->best[g];

		if (bs->layout < 0) {
			printf("%-10s %-9s %-10s %6s  no valid measurement\n", gr->collective,
			       gr->algorithm, gr->assignment,
			       format_size(gr->bytes, sz, sizeof(sz)));
			continue;
		}
		printf("%-10s %-9s %-10s %6s %7u %4u %-9s %11s %6s %4u  %s\n", gr->collective,
		       gr->algorithm, gr->assignment, format_size(gr->bytes, sz, sizeof(sz)),
		       sp->layouts[bs->layout].workers, sp->layouts[bs->layout].wpn,
		       sp->layouts[bs->layout].placement, fmt_num(bs->oe, a, sizeof(a)),
		       fmt_num(bs->spread, b, sizeof(b)), bs->reps, sp->layouts[bs->layout].id);
	}
}

/* The model strategy in words: where its parameters came from, launches
 * with and without calibration, the candidates and why so many. */
static void print_model(const struct search_space *sp, const struct search_result *r,
			const struct model_search *ms)
{
	char sz[32];
	size_t k = 0;

	if (ms->reused)
		printf("model: parameters stored for this spec, no calibration launch\n");
	else
		printf("model: calibrated with %u new launches (run SPEC:model)\n",
		       ms->calibration_launches);
	printf("launches: %u measuring + %u calibrating = %u in total, against %u for the full "
	       "grid\n",
	       r->launches, ms->calibration_launches, r->launches + ms->calibration_launches,
	       r->grid_launches);
	printf("candidates: %zu of %zu layouts:", ms->ncandidates, sp->nlayouts);
	for (size_t l = 0; l < sp->nlayouts; l++)
		if (ms->only[l])
			printf("%s %s", k++ ? "," : "", sp->layouts[l].id);
	putchar('\n');
	if (why_every_layout(sp, ms))
		printf("every layout is a candidate: %s\n", why_every_layout(sp, ms));
	for (size_t d = 0; d < ms->ngroups; d++) {
		const struct model_search_group *g = &ms->groups[d];

		if (g->best >= 0)
			printf("    predicted %s %s%s%s%s%s: %s, OE %.1f +- %.1f; %u candidate%s\n",
			       g->key.collective, format_size(g->key.bytes, sz, sizeof(sz)),
			       g->key.dtype ? " " : "", g->key.dtype ? g->key.dtype : "",
			       g->key.op ? " " : "", g->key.op ? g->key.op : "",
			       sp->layouts[g->best].id, g->oe, g->sd, g->ncandidates,
			       g->ncandidates == 1 ? "" : "s");
	}
}

static void print_people(const struct search_space *sp, const struct search_result *r,
			 const struct search_opts *o, const struct model_search *ms)
{
	printf("%s search: %u launches of %u for the full grid (%.0f%%)%s\n",
	       search_strategy_name(o->strategy), r->launches, r->grid_launches,
	       r->grid_launches ? 100.0 * r->launches / r->grid_launches : 0.0,
	       r->budget_exhausted ? "; budget exhausted" : "");
	if (r->budget)
		printf("budget: %u launches (%.0f%% of the grid)\n", r->budget,
		       r->grid_launches ? 100.0 * r->budget / r->grid_launches : 0.0);
	if (ms)
		print_model(sp, r, ms);
	printf("decided at alpha %g, delta %g OE point, at most %u launches per configuration\n\n",
	       o->alpha, o->tolerance, r->max_repetitions);
	for (size_t d = 0; d < r->ndecisions; d++)
		print_decision(sp, &r->decisions[d], o->tolerance);
	print_bests(sp, r);
}

/* The search over a replayed table: the exit status when it did not end
 * well (2 for a bad table), else 0 with *res filled. */
static int search_replay(const struct search_args *a, const struct search_space *sp,
			 struct search_result *res)
{
	struct replay rp = REPLAY_INIT;
	struct search_problem prob = { sp->layouts,	sp->nlayouts,	sp->groups, sp->ngroups,
				       sp->repetitions, replay_measure, &rp };
	struct search_problem most = prob;
	int ret = EXIT_USAGE;

	/* Racing may ask for up to max_repetitions launches of a layout: the
	 * table serves as many as it holds, up to that. */
	if (a->opts.max_repetitions > most.repetitions)
		most.repetitions = a->opts.max_repetitions;
	if (replay_load(a->replay, &rp))
		goto out;
	rp.seeded = a->seeded;
	rp.seed = a->seed;
	if (!replay_bind(&rp, &most)) {
		error("%s: no row matches a layout and point of %s", a->replay, a->path);
		goto out;
	}
	ret = 1;
	if (search_run(&prob, &a->opts, res))
		goto out;
	if (rp.missing_launches)
		warning("%s has no rows for %u of the launches asked for: counted as failed",
			a->replay, rp.missing_launches);
	ret = 0;
out:
	replay_release(&rp);
	return ret;
}

/* search_launching()'s status when it paused (--max-launches): nothing to
 * print, exit 0. */
#define SEARCH_PAUSED -1

/* The search with real launches: the exit status when it did not end well,
 * SEARCH_PAUSED, else 0 with *res filled. */
static int search_launching(const struct search_args *a, const struct spec *s, const struct plan *p,
			    const struct search_space *sp, struct model_search *ms,
			    struct search_result *res)
{
	const char *db = a->db ? a->db : STORE_DEFAULT_PATH;
	struct search_opts o = a->opts;
	struct runner_search_how how = { 0 };
	enum launcher l;
	unsigned failed = 0;
	char *prog;
	double *prior = NULL;
	int rc;

	if (runner_pick_launcher(a->launcher, s, a->path, 0, &l))
		return EXIT_USAGE;
	prog = launch_which(launcher_name(l));
	if (!prog) {
		error("%s is not installed (not found in PATH); choose another with --launcher",
		      launcher_name(l));
		return EXIT_USAGE;
	}
	free(prog);
	if (o.strategy == SEARCH_MODEL) {
		if (model_search_prepare(a->path, db, l, s, p, sp, ms))
			return 1;
		o.only = ms->only;
	}
	/* The model's predictions, where its parameters are stored, as the
	 * surrogate's prior mean. */
	if (o.strategy == SEARCH_ADAPTIVE && model_search_prior(a->path, db, s, p, sp, &prior) < 0)
		return 1;
	o.prior = prior;
	how.max_launches = a->max_launches;
	how.wait_lock = a->wait_lock;
	how.tell = 1;
	rc = runner_search_run(s, p, a->path, db, l, &o, &how, res, &failed);
	free(prior);
	if (rc == 2) {
		printf("search: paused after %llu new launches (--max-launches); the next search "
		       "of %s into %s resumes it\n",
		       (unsigned long long)a->max_launches, a->path, db);
		return SEARCH_PAUSED;
	}
	if (rc)
		return rc == 1 ? 130 : 1;
	if (failed)
		warning("%u launches failed (recorded in %s; 'sweetspot results' shows why)",
			failed, db);
	return 0;
}

static void print_result(const struct search_args *a, const struct search_space *sp,
			 const struct search_result *r, const struct model_search *ms)
{
	if (a->json)
		print_json(sp, r, &a->opts, ms);
	else
		print_people(sp, r, &a->opts, ms);
}

int cmd_search(int argc, char **argv)
{
	struct search_args a = { .opts = SEARCH_OPTS_INIT };
	struct spec spec = SPEC_INIT;
	struct plan plan = PLAN_INIT;
	struct search_space sp = { 0 };
	struct search_result res = { 0 };
	struct model_search ms = { 0 };
	int status = parse_args(argc, argv, &a);

	if (status != CLI_END)
		return cli_status(status);
	status = EXIT_USAGE;
	if (spec_load(a.path, &spec) || plan_build(&spec, &plan) || settle_opts(&a, &spec))
		goto out;
	search_space_from_plan(&spec, &plan, &sp);
	if (a.replay)
		status = search_replay(&a, &sp, &res);
	else
		status = search_launching(&a, &spec, &plan, &sp, &ms, &res);
	if (status == SEARCH_PAUSED)
		status = 0;
	else if (!status)
		print_result(&a, &sp, &res, ms.only ? &ms : NULL);
	search_result_release(&res);
out:
	model_search_release(&ms);
	search_space_release(&sp);
	plan_release(&plan);
	spec_release(&spec);
	return status;
}
