/*
 * tuner/cmd/cmd_verify.c: `sweetspot verify SPEC --export FILE -- COMMAND
 * [ARGS...]`: is the user's program faster with the exported settings? It
 * launches COMMAND on the spec's host ranks through the spec's launcher
 * (srun inside an allocation) without the settings (A) and with them (B),
 * in pairs whose order is drawn from a seed, `repetitions` pairs at least
 * and more, up to `max_repetitions`, while a figure is undecided. A figure
 * is the launch's wall time, or each number --metric finds in its output
 * (one per message size, say). Every launch goes through the sweep engine
 * into the run "SPEC:verify" (argv, environment, output in its log), so a
 * verify run again continues. Without COMMAND it runs the project's own
 * collective loop (sweetspot-loop beside the spec's kernel, over the spec's
 * collectives and sizes; its median time per call are the figures). An
 * MPMD recipe as the export: B runs the program on the recipe's layout,
 * and the proof is where its ranks ran (verify_recipe.c).
 */
#include "argv.h"
#include "child.h"
#include "cli.h"
#include "cmds.h"
#include "colls.h"
#include "error.h"
#include "export.h"
#include "recommend.h"
#include "runner.h"
#include "sbatch.h"
#include "spec.h"
#include "stats.h"
#include "store_write.h"
#include "strvec.h"
#include "verify.h"
#include "xalloc.h"

#include <errno.h>
#include <glob.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum {
	OPT_EXPORT,
	OPT_DB,
	OPT_LAUNCHER,
	OPT_METRIC,
	OPT_FIGURES,
	OPT_HIGHER,
	OPT_JSON,
	OPT_DRY_RUN,
	NOPTS
};

static const struct cli_option verify_options[NOPTS + 1] = {
	[OPT_EXPORT] = { "export", 0, "FILE",
			 "the exported settings B runs with: an ompi-rules\n"
			 "(or ompi-json) file, an env or mpich file, an mca-params file,\n"
			 "or an mpmd recipe's folder (B runs on its layout)" },
	[OPT_DB] = { "db", 0, "FILE", "results database (default " STORE_DEFAULT_PATH ")" },
	[OPT_LAUNCHER] = { "launcher", 0, "L",
			   "mpirun, srun or hydra (default: srun inside a Slurm\n"
			   "allocation, else the spec's launcher); srun outside an\n"
			   "allocation: one sbatch job runs the whole verify" },
	[OPT_METRIC] = { "metric", 0, "REGEX",
			 "figures from the output: each line it matches, the\n"
			 "last ( ) group the number, earlier groups its name\n"
			 "(default: the launch's wall time)" },
	[OPT_FIGURES] = { "figures", 0, "LIST",
			  "decide only these figures (names as --metric gives\n"
			  "them, comma separated), in this order" },
	[OPT_HIGHER] = { "higher", 0, NULL, "larger figures are better (bandwidth, rate)" },
	[OPT_JSON] = { "json", 0, NULL, "one JSON object: run, pairs, figures[]" },
	[OPT_DRY_RUN] = { "dry-run", 0, NULL, "print the commands of A and B; touch nothing" },
	[NOPTS] = { NULL, 0, NULL, NULL },
};

static const struct cli_command verify_cli = {
	"verify",
	"SPEC [--export FILE] [--db FILE] [--launcher L] [--metric REGEX]\n"
	"[--figures LIST] [--higher] [--json] [--dry-run] [-- COMMAND [ARGS...]]",
	"Runs COMMAND (an MPI program) on the spec's host ranks through the spec's\n"
	"launcher without the exported settings (A) and with them (B), in pairs of\n"
	"seeded random order: the spec's repetitions pairs at least, up to its\n"
	"max_repetitions while a figure is undecided. Per figure it prints A's and\n"
	"B's medians with 95% CIs, B/A with its CI, the Mann-Whitney p (Holm over\n"
	"the figures) and a verdict: faster, slower, no difference (B/A's CI within\n"
	"the spec's practical threshold), or no difference shown (with the launches\n"
	"a decision would take). Launches are stored as the run SPEC:verify and a\n"
	"run again continues. Without COMMAND: the project's collective loop\n"
	"(sweetspot-loop) over the spec's collectives and sizes, a figure each.\n"
	"The spec's verify group may give the command, export, metric, figures,\n"
	"higher, launcher, repetitions and max_repetitions; the command line wins.",
	verify_options,
	"Exit status: 0 verdicts computed (whatever they say), 1 a launch failed\n"
	"(recorded), 2 bad usage or input, 130 interrupted.",
};

/* The collective loop's rows (kernels/loop/loop.c): collective and bytes
 * name the figure, the median time per call is the number. */
#define VERIFY_LOOP_METRIC "^([a-z]+) +([0-9]+) +[0-9.]+ +([0-9.]+) "

struct verify_args {
	const char *path, *db, *export, *launcher, *metric;
	int higher, json, dry;
	struct strvec figures; /* --figures, or the spec's; empty: every figure */
	char **cmd;	       /* COMMAND ARGS..., or NULL */
	int ncmd;
	int cmd_line; /* the spec's line when the command is its verify group's */
};

/* What the two jobs run: the program's argv (the command resolved). */
struct verify_ctx {
	struct strvec prog;
	struct strvec env_b;
	enum verify_kind kind;
	struct verify_recipe recipe; /* kind VERIFY_MPMD: B runs on its layout */
};

/* What one launch runs: a program, and whether under Open MPI's pml
 * monitoring (the proof's launches: every rank writes DIR/mon.N.prof). */
struct vjob {
	const struct strvec *prog;
	int monitor;
	const struct verify_recipe *recipe; /* on an MPMD recipe's layout, or NULL */
};

/* One point of the proof: a collective at a size, the algorithm the rules
 * give there (0: Open MPI's own choice), and what the ranks moved. */
struct proof_point {
	const char *coll;
	uint64_t bytes;
	int alg;
	char id_b[96], id_ref[96];
	struct strvec prog, env_ref;
	struct vjob job;
	int applied; /* 1 yes, 0 no, -1 not known (no traffic seen) */
};

struct proof {
	const char *rules; /* the file B names; NULL: no proof for these settings */
	int mpich;	   /* MPICH CVARs: one launch of every collective and size
				 * with MPIR_CVAR_COLLECTIVE_FALLBACK=error (p[0]) */
	int mpmd;	   /* an MPMD recipe: one launch of sweetspot-loop --where on
				 * its layout (p[0]); where each rank ran in ran */
	struct strvec ran;
	char why[256];	  /* the recipe: the first rank off its host */
	const char *none; /* why there is none */
	struct proof_point *p;
	size_t n;
	int failed; /* a point not applied */
};

/* The comma-separated words of list, appended to out. */
static void split_list(const char *list, struct strvec *out)
{
	char *dup = xstrdup(list), *save = NULL;

	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save))
		strvec_push(out, t);
	free(dup);
}

/* CLI_END when the command goes on, else CLI_HELP or CLI_BAD. */
static int parse_args(int argc, char **argv, struct verify_args *a)
{
	struct cli c;
	int o;

	cli_begin(&c, &verify_cli, argc, argv);
	while ((o = cli_next(&c)) >= 0)
		switch (o) {
		case OPT_EXPORT:
			a->export = c.arg;
			break;
		case OPT_DB:
			a->db = c.arg;
			break;
		case OPT_LAUNCHER:
			a->launcher = c.arg;
			break;
		case OPT_METRIC:
			a->metric = c.arg;
			break;
		case OPT_FIGURES:
			strvec_clear(&a->figures);
			split_list(c.arg, &a->figures);
			break;
		case OPT_HIGHER:
			a->higher = 1;
			break;
		case OPT_JSON:
			a->json = 1;
			break;
		case OPT_DRY_RUN:
			a->dry = 1;
			break;
		}
	if (o != CLI_END)
		return o;
	if (cli_operands(&c, 1, -1, "SPEC [COMMAND ARGS...]"))
		return CLI_BAD;
	a->path = c.operands[0];
	a->cmd = c.noperands > 1 ? c.operands + 1 : NULL;
	a->ncmd = c.noperands - 1;
	return CLI_END;
}

/* What the command line leaves out, from the spec's verify group (the
 * command line wins). 0, or -1 after error(): no export named, or one
 * the group names that cannot be read (file:line). */
static int from_spec(struct verify_args *a, struct spec *s)
{
	const struct spec_verify *v = &s->verify;

	if (!a->export && v->export) {
		if (access(v->export, R_OK))
			return error("%s:%d: 'verify.export': %s: %s", a->path, v->line_export,
				     v->export, strerror(errno));
		a->export = v->export;
	}
	if (!a->export)
		return error("verify: --export FILE is needed (or 'export' in the spec's verify "
			     "group): the settings B runs with (sweetspot export writes them)");
	if (!a->cmd && v->command.nr) {
		a->cmd = v->command.v;
		a->ncmd = (int)v->command.nr;
		a->cmd_line = v->line_command;
	}
	if (!a->metric)
		a->metric = v->metric;
	for (size_t i = 0; !a->figures.nr && i < v->figures.nr; i++)
		strvec_push(&a->figures, v->figures.v[i]);
	a->higher |= v->higher;
	if (!a->launcher && v->launcher_set)
		a->launcher = launcher_name(v->launcher);
	if (v->repetitions)
		s->repetitions = v->repetitions;
	if (v->max_repetitions)
		s->max_repetitions = v->max_repetitions;
	return 0;
}

/* The collective loop beside the spec's kernel (the same MPI family's
 * build), found; NULL when it is not there. The caller frees it. */
static char *loop_path(const struct spec *s)
{
	const char *slash = strrchr(s->host_bin, '/');
	char *loop = slash ? xasprintf("%.*s/sweetspot-loop", (int)(slash - s->host_bin),
				       s->host_bin) :
			     xstrdup("sweetspot-loop"),
	     *path = launch_which(loop);

	free(loop);
	return path;
}

/* The program: COMMAND found (launchers start ranks in the launch's
 * folder, so a relative path is made absolute), else the collective loop.
 * 0, or -1 after error(). */
static int make_program(const struct verify_args *a, const struct spec *s, struct strvec *prog)
{
	char sizes[1024] = "", colls[256] = "", *path;

	if (a->cmd) {
		char *abs = NULL;

		if ((path = launch_which(a->cmd[0])) && strchr(a->cmd[0], '/') && *path != '/') {
			abs = realpath(path, NULL);
			free(path);
			path = abs;
		}
		if (!path && a->cmd_line)
			return error("%s:%d: 'verify.command': %s: command not found", a->path,
				     a->cmd_line, a->cmd[0]);
		if (!path)
			return error("verify: %s: command not found", a->cmd[0]);
		strvec_push(prog, strchr(a->cmd[0], '/') ? path : a->cmd[0]);
		free(path);
		for (int i = 1; i < a->ncmd; i++)
			strvec_push(prog, a->cmd[i]);
		return 0;
	}
	for (size_t i = 0; i < s->collectives.nr; i++)
		if (export_coll_id(s->collectives.v[i]) >= 0)
			snprintf(colls + strlen(colls), sizeof(colls) - strlen(colls), "%s%s",
				 *colls ? "," : "", s->collectives.v[i]);
	if (!*colls)
		return error(
			"verify: %s lists no collective of the MPI library's (bcast, gather, "
			"allgather, reduce, allreduce) for the collective loop: name a COMMAND",
			a->path);
	for (size_t i = 0; i < s->nsizes; i++)
		snprintf(sizes + strlen(sizes), sizeof(sizes) - strlen(sizes), "%s%llu",
			 i ? "," : "", (unsigned long long)s->sizes[i]);
	if (!(path = loop_path(s)))
		return error("verify: sweetspot-loop, the collective loop, is not built beside %s "
			     "(make), and no COMMAND was given",
			     s->host_bin);
	strvec_push(prog, path);
	free(path);
	strvec_pushv(prog, (const char *const[]){ "-c", colls, "-m", sizes, "-i", NULL });
	strvec_pushf(prog, "%u", s->iterations);
	strvec_push(prog, "-x");
	strvec_pushf(prog, "%u", s->warmup);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A launch on an MPMD recipe's layout: its files, with the program in the
 * place of every context's, written into the launch's folder (not in a dry
 * run, where srun takes the recipe's hosts instead). */
static int build_recipe(enum launcher l, const struct vjob *j, const char *dir, int check_files,
			struct launch_opts *lo, struct launch_cmd *cmd)
{
	const struct verify_recipe *rc = j->recipe;
	struct strvec runs = STRVEC_INIT;
	const char **sorted;
	int ret;

	if (check_files && verify_recipe_write(rc, l, j->prog, dir))
		return -1;
	for (size_t i = 0; i < rc->hosts.nr; i++)
		if (!runs.nr || strcmp(runs.v[runs.nr - 1], rc->hosts.v[i]))
			strvec_push(&runs, rc->hosts.v[i]);
	sorted = xcalloc(runs.nr, sizeof(*sorted));
	memcpy(sorted, runs.v, runs.nr * sizeof(*sorted));
	qsort(sorted, runs.nr, sizeof(*sorted), cmp_str);
	lo->dir = dir;
	lo->ranks = (unsigned)rc->hosts.nr;
	lo->check_files = check_files;
	if (!check_files) {
		lo->hosts = &runs;
		for (size_t i = 0; i < runs.nr; i++)
			lo->nodes += !i || strcmp(sorted[i], sorted[i - 1]);
	}
	ret = launch_argv(l, lo, cmd);
	free(sorted);
	strvec_clear(&runs);
	return ret;
}

/* A launch of A or B: the spec's environment, then B's settings (they win). */
static int build_cmd(const struct runner *r, const struct runner_job *rj, const char *dir,
		     int check_files, struct launch_cmd *cmd)
{
	const struct spec *s = r->spec;
	const struct vjob *j = rj->data;
	struct launch_opts lo = LAUNCH_OPTS_INIT;
	struct strvec env = STRVEC_INIT;
	int rc;

	(void)check_files;
	for (size_t i = 0; i < s->env.nr; i++)
		strvec_push(&env, s->env.v[i]);
	for (size_t i = 0; rj->env && i < rj->env->nr; i++)
		strvec_push(&env, rj->env->v[i]);
	if (j->monitor) {
		strvec_push(&env, "OMPI_MCA_pml_monitoring_enable=2");
		strvec_push(&env, "OMPI_MCA_pml_monitoring_enable_output=3");
		strvec_pushf(&env, "OMPI_MCA_pml_monitoring_filename=%s/mon", dir);
	}
	lo.env = &env;
	lo.time_limit_s = s->time_limit;
	if (r->launcher == s->launcher && s->launcher_args.nr)
		lo.extra = &s->launcher_args;
	if (j->recipe)
		rc = build_recipe(r->launcher, j, dir, check_files, &lo, cmd);
	else
		rc = launch_argv_hosts(r->launcher, &lo, &s->nodes, s->ppn, j->prog, cmd);
	strvec_clear(&env);
	return rc;
}

/* The command of a stored launch, from the head of its log ("# command:
 * LINE"), and its folder; 1, or 0 when there is none. */
static int stored_command(struct store *st, long long run, const char *id, char **line, char **dir)
{
	char *log = NULL, *head = NULL, *slash;
	size_t cap = 0;
	double wall;
	int ok, ret = 0;
	FILE *f;

	if (store_launch_get(st, run, id, 1, &ok, &wall, &log) <= 0 || !(slash = strrchr(log, '/')))
		goto out;
	if ((f = fopen(log, "r"))) {
		if (getline(&head, &cap, f) > 0 && !strncmp(head, "# command: ", 11)) {
			head[strcspn(head, "\n")] = '\0';
			*line = xstrdup(head + 11);
			*dir = xasprintf("%.*s", (int)(slash - log), log);
			ret = 1;
		}
		fclose(f);
	}
out:
	free(head);
	free(log);
	return ret;
}

/* Whether the latest verify run of the spec ran other commands (another
 * program, other settings): then a new run begins rather than mixing them.
 * Each job's first launch is built again for its folder and compared with
 * the command its log opens with. */
static int other_commands(struct runner *r, struct store *st, const char *path,
			  const struct runner_job *jobs)
{
	struct store_run last = { 0 };
	char *abs = spec_run_key(path), *key = xasprintf("%s:verify", abs);
	int other = 0;

	if (store_latest_run(st, key, &last) > 0 && !strcmp(last.spec_hash, r->spec->hash))
		for (int i = 0; i < 2 && !other; i++) {
			struct launch_cmd cmd = LAUNCH_CMD_INIT;
			char *stored = NULL, *dir = NULL, *line;

			if (stored_command(st, last.id, jobs[i].row.id, &stored, &dir) &&
			    !build_cmd(r, &jobs[i], dir, 0, &cmd)) {
				line = launch_cmd_line(&cmd);
				other = strcmp(line, stored) != 0;
				free(line);
			}
			launch_cmd_clear(&cmd);
			free(stored);
			free(dir);
		}
	store_run_release(&last);
	free(abs);
	free(key);
	return other;
}

/* The figures of the whole run, in the order of the first launch's. */
struct verify_state {
	const struct verify_args *a;
	struct verify_metric metric;
	int use_metric;
	struct verify_figure *fig;
	size_t nfig;
	int have;	    /* the first launch set the figures */
	unsigned pairs;	    /* complete pairs */
	const char *failed; /* "A", "B" or "A and B" when launches failed */
	char reason[1100];
	int bad_metric; /* no figure in a launch's output */
};

/* Keeps the figures --figures names, in its order (vals and n changed in
 * place). 0, or -1 after error() when one is not in the launch's output. */
static int pick_figures(struct verify_state *v, const struct runner_job *job, unsigned rep,
			struct strvec *names, double *vals, size_t *n)
{
	const struct strvec *want = &v->a->figures;
	struct strvec kept = STRVEC_INIT;
	double *picked = xcalloc(want->nr, sizeof(*picked));

	for (size_t i = 0; i < want->nr; i++) {
		size_t k = 0;

		while (k < *n && strcmp(names->v[k], want->v[i]))
			k++;
		if (k == *n) {
			v->bad_metric = 1;
			error("verify: figure '%s' is not in %s r%u's output (its figures: %zu, "
			      "the "
			      "first '%s')",
			      want->v[i], job->row.id, rep, *n, *n ? names->v[0] : "none");
			strvec_clear(&kept);
			free(picked);
			return -1;
		}
		strvec_push(&kept, names->v[k]);
		picked[i] = vals[k];
	}
	memcpy(vals, picked, want->nr * sizeof(*vals));
	*n = want->nr;
	strvec_clear(names);
	*names = kept;
	free(picked);
	return 0;
}

/* Adds launch (side, rep)'s figures. 0, 1 when the launch failed (noted in
 * v->failed), -1 after error() (its output holds no figure or other
 * figures: bad input). */
static int add_launch(struct verify_state *v, struct runner *r, const struct runner_job *job,
		      int side, unsigned rep)
{
	struct strvec names = STRVEC_INIT;
	double *vals = NULL, wall = 0;
	size_t n = 0;
	char *log = NULL;
	int ok = 0, ret = -1;

	if (store_launch_get(r->store, r->run.id, job->row.id, (int)rep, &ok, &wall, &log) <= 0)
		return error("verify: %s r%u is not in the database", job->row.id, rep);
	if (!ok) {
		if (!v->failed)
			v->failed = side ? "B" : "A";
		else
			v->failed = "A and B";
		ret = 1;
		goto out;
	}
	if (v->use_metric) {
		if (verify_read_figures(&v->metric, log, &names, &vals, &n))
			goto out;
		if (!n) {
			v->bad_metric = 1;
			error("verify: --metric '%s' matches no line of %s r%u's output (%s)",
			      v->a->metric ? v->a->metric : VERIFY_LOOP_METRIC, job->row.id, rep,
			      log);
			goto out;
		}
	} else {
		strvec_push(&names, "wall time (s)");
		vals = xmalloc(sizeof(*vals));
		vals[n++] = wall;
	}
	if (v->a->figures.nr && pick_figures(v, job, rep, &names, vals, &n))
		goto out;
	if (!v->have) {
		v->fig = xcalloc(n, sizeof(*v->fig));
		v->nfig = n;
		for (size_t i = 0; i < n; i++)
			v->fig[i].name = xstrdup(names.v[i]);
		v->have = 1;
	} else if (n != v->nfig) {
		v->bad_metric = 1;
		error("verify: %s r%u's output gives %zu figures, the first launch's %zu (%s)",
		      job->row.id, rep, n, v->nfig, log);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		verify_figure_add(&v->fig[i], side, vals[i]);
	ret = 0;
out:
	free(log);
	free(vals);
	strvec_clear(&names);
	return ret;
}

/* Pairs until decided or max_repetitions. 0, 1 interrupted, 2 a launch
 * failed, -1 after error(). */
static int race(struct verify_state *v, struct runner *r, const struct runner_job *jobs)
{
	const struct spec *s = r->spec;
	uint64_t seed = strtoull(s->hash, NULL, 16);
	unsigned most = s->max_repetitions > s->repetitions ? s->max_repetitions : s->repetitions;

	for (unsigned rep = 1; rep <= most; rep++) {
		size_t order[2];
		int undecided;

		stats_shuffle(order, 2, seed + rep);
		/* A failed launch still lets its pair's other one run: whether
		 * the program fails under B only is what the user needs to know. */
		for (int k = 0; k < 2; k++) {
			const struct runner_job *job = &jobs[order[k]];
			struct runner_outcome oc;
			int rc = runner_launch(r, job, rep, &oc);

			if (!rc && !oc.skipped && !oc.ok && !v->failed)
				snprintf(v->reason, sizeof(v->reason), "%s", oc.reason);
			store_points_free(oc.pts, oc.npoints);
			if (rc == 1 || rc < 0)
				return rc;
			if ((rc = add_launch(v, r, job, (int)order[k], rep)) < 0)
				return -1;
		}
		if (v->failed)
			return 2;
		v->pairs = rep;
		if (rep < s->repetitions || rep < 2)
			continue;
		undecided = verify_decide(v->fig, v->nfig, v->a->higher, s->alpha, s->delta_time);
		if (undecided < 0)
			return -1;
		if (!undecided)
			break;
	}
	return verify_decide(v->fig, v->nfig, v->a->higher, s->alpha, s->delta_time) < 0 ? -1 : 0;
}

static void proof_text(const struct proof *pf);
static json_t *proof_json(const struct proof *pf);

static json_t *num_or_null(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static void print_json(const struct verify_state *v, const struct runner *r,
		       const struct verify_ctx *x, const struct proof *pf)
{
	json_t *o = json_object(), *figs = json_array();

	json_object_set_new(o, "run", json_integer(r->run.id));
	json_object_set_new(o, "pairs", json_integer(v->pairs));
	json_object_set_new(o, "export", json_string(v->a->export));
	json_object_set_new(o, "settings", json_string(verify_kind_name(x->kind)));
	json_object_set_new(o, "higher_is_better", json_boolean(v->a->higher));
	for (size_t i = 0; i < v->nfig; i++) {
		const struct verify_figure *f = &v->fig[i];
		json_t *j = json_object();

		json_object_set_new(j, "name", json_string(f->name));
		json_object_set_new(j, "a",
				    json_pack("{s:o,s:[o,o],s:I}", "median", num_or_null(f->med_a),
					      "ci", num_or_null(f->a_lo), num_or_null(f->a_hi), "n",
					      (json_int_t)f->na));
		json_object_set_new(j, "b",
				    json_pack("{s:o,s:[o,o],s:I}", "median", num_or_null(f->med_b),
					      "ci", num_or_null(f->b_lo), num_or_null(f->b_hi), "n",
					      (json_int_t)f->nb));
		json_object_set_new(j, "ratio", num_or_null(f->ratio));
		json_object_set_new(j, "ratio_ci",
				    json_pack("[o,o]", num_or_null(f->r_lo), num_or_null(f->r_hi)));
		json_object_set_new(j, "p", num_or_null(f->p));
		json_object_set_new(j, "p_holm", num_or_null(f->p_holm));
		json_object_set_new(j, "verdict", json_string(f->verdict));
		json_object_set_new(j, "more_launches",
				    f->more_launches >= 0 ? json_integer(f->more_launches) :
							    json_null());
		json_array_append_new(figs, j);
	}
	json_object_set_new(o, "figures", figs);
	json_object_set_new(o, "proof", proof_json(pf));
	json_dumpf(o, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(o);
}

static void print_text(const struct verify_state *v, const struct runner *r,
		       const struct verify_ctx *x, const struct proof *pf)
{
	printf("verify run %lld: %u pairs; A without, B with %s (%s); %s is better\n", r->run.id,
	       v->pairs, v->a->export, verify_kind_name(x->kind),
	       v->a->higher ? "higher" : "lower");
	printf("%-24s %-28s %-28s %-24s %8s  %s\n", "figure", "A median [95% CI]",
	       "B median [95% CI]", "B/A [95% CI]", "p (Holm)", "verdict");
	for (size_t i = 0; i < v->nfig; i++) {
		const struct verify_figure *f = &v->fig[i];
		char a[64], b[64], q[64], more[64] = "";

		snprintf(a, sizeof(a), "%.4g [%.4g, %.4g]", f->med_a, f->a_lo, f->a_hi);
		snprintf(b, sizeof(b), "%.4g [%.4g, %.4g]", f->med_b, f->b_lo, f->b_hi);
		snprintf(q, sizeof(q), "%.3f [%.3f, %.3f]", f->ratio, f->r_lo, f->r_hi);
		if (f->more_launches > 0)
			snprintf(more, sizeof(more), " (about %ld more launches would decide)",
				 f->more_launches);
		else if (!strcmp(f->verdict, "no difference shown"))
			snprintf(more, sizeof(more),
				 " (no estimate of the launches it would take)");
		printf("%-24s %-28s %-28s %-24s %8.4f  %s%s\n", f->name, a, b, q, f->p_holm,
		       f->verdict, more);
	}
	proof_text(pf);
}

/* ---- the proof ------------------------------------------------------------- */

/* The rules file B's settings name (a rules export, or an env or
 * mca-params file pointing at one), or NULL. */
static const char *rules_of(const struct strvec *env)
{
	static const char key[] = "OMPI_MCA_coll_tuned_dynamic_rules_filename=";

	for (size_t i = 0; i < env->nr; i++)
		if (!strncmp(env->v[i], key, sizeof(key) - 1))
			return env->v[i] + sizeof(key) - 1;
	return NULL;
}

static void proof_release(struct proof *pf)
{
	for (size_t i = 0; i < pf->n; i++) {
		strvec_clear(&pf->p[i].prog);
		strvec_clear(&pf->p[i].env_ref);
	}
	free(pf->p);
	strvec_clear(&pf->ran);
	memset(pf, 0, sizeof(*pf));
}

/* MPICH's proof: its library is stripped, so which algorithm ran cannot be
 * seen; but with MPIR_CVAR_COLLECTIVE_FALLBACK=error a forced algorithm
 * that cannot run on the communicator fails the call instead of falling
 * back to another without a word. One launch of the loop, one call of
 * each collective and size, with B's settings and that: it ends well only
 * when MPICH took every forced algorithm. */
static int proof_plan_mpich(struct proof *pf, const struct spec *s, const struct strvec *env_b)
{
	char colls[256] = "", sizes[1024] = "", *loop;
	struct proof_point *p;
	int forced = 0;

	for (size_t i = 0; i < env_b->nr; i++)
		forced |= !strncmp(env_b->v[i], "MPIR_CVAR_", 10) ||
			  !strncmp(env_b->v[i], "MPICH_", 6);
	if (!forced || !(loop = loop_path(s))) {
		pf->none = forced ? "sweetspot-loop is not built beside the spec's kernel" :
				    "the settings force no MPICH algorithm (MPIR_CVAR_...)";
		return 0;
	}
	for (size_t i = 0; i < s->collectives.nr; i++)
		if (export_coll_id(s->collectives.v[i]) >= 0)
			snprintf(colls + strlen(colls), sizeof(colls) - strlen(colls), "%s%s",
				 *colls ? "," : "", s->collectives.v[i]);
	for (size_t i = 0; i < s->nsizes; i++)
		snprintf(sizes + strlen(sizes), sizeof(sizes) - strlen(sizes), "%s%llu",
			 i ? "," : "", (unsigned long long)s->sizes[i]);
	pf->mpich = 1;
	pf->rules = "MPICH";
	pf->p = xcalloc(1, sizeof(*pf->p));
	pf->n = 1;
	p = pf->p;
	p->coll = "every collective";
	snprintf(p->id_b, sizeof(p->id_b), "proof-B-mpich-fallback-error");
	strvec_pushv(&p->prog,
		     (const char *const[]){ loop, "--once", "-c", colls, "-m", sizes, NULL });
	for (size_t i = 0; i < env_b->nr; i++)
		strvec_push(&p->env_ref, env_b->v[i]);
	strvec_push(&p->env_ref, "MPIR_CVAR_COLLECTIVE_FALLBACK=error");
	p->job = (struct vjob){ &p->prog, 0, NULL };
	free(loop);
	return 0;
}

/* An MPMD recipe's proof: one launch of sweetspot-loop --where on the
 * recipe's layout, as B runs: each rank must have run on the host the
 * recipe gives it. */
static int proof_plan_mpmd(struct proof *pf, const struct spec *s, const struct verify_ctx *x)
{
	struct proof_point *p;
	char *loop;

	if (!(loop = loop_path(s))) {
		pf->none = "sweetspot-loop is not built beside the spec's kernel";
		return 0;
	}
	pf->mpmd = 1;
	pf->rules = x->recipe.dir;
	pf->p = xcalloc(1, sizeof(*pf->p));
	pf->n = 1;
	p = pf->p;
	p->coll = "layout";
	snprintf(p->id_b, sizeof(p->id_b), "proof-B-layout");
	strvec_pushv(&p->prog, (const char *const[]){ loop, "--where", NULL });
	for (size_t i = 0; i < x->env_b.nr; i++)
		strvec_push(&p->env_ref, x->env_b.v[i]);
	p->job = (struct vjob){ &p->prog, 0, &x->recipe };
	free(loop);
	return 0;
}

/* The proof's points: each collective of the spec that coll/tuned has, at
 * each size, with the algorithm the rules give there. Where the settings
 * give no classic rules file, pf->none says why there is no proof. 0, or
 * -1 after error() (a rules file that does not read). */
static int proof_plan(struct proof *pf, const struct spec *s, enum launcher l,
		      const struct verify_ctx *x)
{
	const struct strvec *env_b = &x->env_b;
	struct verify_rules rules;
	unsigned ranks = (unsigned)s->nodes.nr * s->ppn;
	char *loop;
	int rc;

	if (x->kind == VERIFY_MPMD)
		return proof_plan_mpmd(pf, s, x);
	if (l == LAUNCHER_HYDRA)
		return proof_plan_mpich(pf, s, env_b);
	if (!(pf->rules = rules_of(env_b))) {
		pf->none = "the settings name no coll/tuned rules file";
		return 0;
	}
	if ((rc = verify_rules_load(pf->rules, &rules)) < 0)
		return -1;
	if (rc > 0 || !(loop = loop_path(s))) {
		pf->none = rc > 0 ? "JSON rules (Open MPI 6) are not read here" :
				    "sweetspot-loop is not built beside the spec's kernel";
		pf->rules = NULL;
		if (!rc)
			verify_rules_release(&rules);
		return 0;
	}
	for (size_t c = 0; c < s->collectives.nr; c++) {
		const char *coll = s->collectives.v[c];
		int id = export_coll_id(coll);

		for (size_t z = 0; id >= 0 && z < s->nsizes; z++) {
			struct proof_point *p;

			pf->p = xrealloc(pf->p, (pf->n + 1) * sizeof(*pf->p));
			p = &pf->p[pf->n++];
			memset(p, 0, sizeof(*p));
			p->coll = coll;
			p->bytes = s->sizes[z];
			p->alg = verify_rules_alg(&rules, id, ranks,
						  colls_ompi_msg_size(coll, p->bytes, ranks));
			snprintf(p->id_b, sizeof(p->id_b), "proof-B-%s-%llu", coll,
				 (unsigned long long)p->bytes);
			snprintf(p->id_ref, sizeof(p->id_ref), "proof-ref-%s-%llu", coll,
				 (unsigned long long)p->bytes);
			strvec_pushv(&p->prog, (const char *const[]){ loop, "--once", "-c", coll,
								      "-m", NULL });
			strvec_pushf(&p->prog, "%llu", (unsigned long long)p->bytes);
			if (p->alg) {
				strvec_push(&p->env_ref, "OMPI_MCA_coll_tuned_use_dynamic_rules=1");
				strvec_pushf(&p->env_ref, "OMPI_MCA_coll_tuned_%s_algorithm=%d",
					     coll, p->alg);
			}
		}
	}
	/* Now that the array stays where it is. */
	for (size_t i = 0; i < pf->n; i++)
		pf->p[i].job = (struct vjob){ &pf->p[i].prog, 1, NULL };
	free(loop);
	verify_rules_release(&rules);
	return 0;
}

/* What the ranks of a launch in dir sent one another inside collectives:
 * pml monitoring's "I" lines (from, to, bytes, messages) of every rank,
 * sorted, one per line; NULL when there are none. */
static char *traffic(const char *dir)
{
	struct strvec lines = STRVEC_INIT;
	char *pattern = xasprintf("%s/mon.*.prof", dir), *out = NULL, *line = NULL;
	size_t cap = 0, len = 0;
	glob_t g;

	if (!glob(pattern, 0, NULL, &g)) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			FILE *f = fopen(g.gl_pathv[i], "r");

			while (f && getline(&line, &cap, f) > 0) {
				char *field[5], *save = NULL;
				int n = 0;

				if (strncmp(line, "I\t", 2))
					continue;
				for (char *t = strtok_r(line, "\t\n", &save); t && n < 5;
				     t = strtok_r(NULL, "\t\n", &save))
					field[n++] = t;
				if (n == 5)
					strvec_pushf(&lines, "%s %s %s %s", field[1], field[2],
						     field[3], field[4]);
			}
			if (f)
				fclose(f);
		}
		globfree(&g);
	}
	qsort(lines.v, lines.nr, sizeof(*lines.v), cmp_str);
	for (size_t i = 0; i < lines.nr; i++) {
		out = xrealloc(out, len + strlen(lines.v[i]) + 2);
		len += (size_t)sprintf(out + len, "%s\n", lines.v[i]);
	}
	strvec_clear(&lines);
	free(line);
	free(pattern);
	return out;
}

/* Launches one proof job (repetition 1). 0, 1 interrupted, 2 failed (the
 * reason in v), -1 store failure; *dir is its folder (the caller frees it). */
static int proof_launch(struct runner *r, const struct runner_job *job, char *reason, size_t rlen,
			char **dir)
{
	struct runner_outcome oc;
	double wall;
	char *log = NULL;
	int ok = 0, rc = runner_launch(r, job, 1, &oc);

	if (!rc && !oc.skipped && !oc.ok)
		snprintf(reason, rlen, "%s: %s", job->row.id, oc.reason);
	store_points_free(oc.pts, oc.npoints);
	if (rc)
		return rc;
	if (store_launch_get(r->store, r->run.id, job->row.id, 1, &ok, &wall, &log) <= 0)
		return -1;
	free(log);
	*dir = xasprintf("%s%lld/%s-r1", r->root, r->run.id, job->row.id);
	if (!ok && !*reason)
		snprintf(reason, rlen, "%s failed (its log is in %s)", job->row.id, *dir);
	return ok ? 0 : 2;
}

/* The recipe's proof: where each rank of sweetspot-loop --where ran on the
 * recipe's layout, against the recipe. Returns as race(). */
static int proof_run_mpmd(struct proof *pf, struct runner *r, const struct verify_ctx *x,
			  char *reason, size_t rlen)
{
	struct proof_point *p = &pf->p[0];
	struct runner_job b = { .row = { p->id_b, 1, (int)x->recipe.hosts.nr, 0, 0, "host" },
				.env = &p->env_ref,
				.data = &p->job };
	char *dir = NULL, *log;
	int rc = proof_launch(r, &b, reason, rlen, &dir);

	if (!rc) {
		log = xasprintf("%s/log", dir);
		rc = verify_recipe_where(&x->recipe, log, &pf->ran, pf->why, sizeof(pf->why));
		free(log);
		if (rc >= 0) {
			p->applied = !rc;
			pf->failed = rc;
			rc = 0;
		}
	}
	free(dir);
	return rc;
}

/* Each point: B's settings and the reference (the rules' algorithm forced
 * as baseline forced it, or nothing set where the rules leave Open MPI its
 * own choice), each one call under pml monitoring; applied when the ranks
 * moved the same bytes in the same messages. Returns as race(). */
static int proof_run(struct proof *pf, struct runner *r, const struct verify_ctx *x, char *reason,
		     size_t rlen)
{
	if (pf->mpmd)
		return proof_run_mpmd(pf, r, x, reason, rlen);
	if (pf->mpich) {
		struct proof_point *p = &pf->p[0];
		struct runner_job b = { .row = { p->id_b, (int)r->spec->nodes.nr, (int)r->spec->ppn,
						 0, 0, "host" },
					.env = &p->env_ref,
					.data = &p->job };
		char *dir = NULL, why[1100] = "";
		int rc = proof_launch(r, &b, why, sizeof(why), &dir);

		free(dir);
		/* Its failure is the answer (a forced algorithm refused), not a
		 * launch gone wrong. */
		if (rc == 0 || rc == 2) {
			p->applied = rc == 0;
			pf->failed = rc == 2;
			return 0;
		}
		return rc;
	}
	for (size_t i = 0; i < pf->n; i++) {
		struct proof_point *p = &pf->p[i];
		struct runner_job b = { .row = { p->id_b, (int)r->spec->nodes.nr, (int)r->spec->ppn,
						 0, 0, "host" },
					.env = &x->env_b,
					.data = &p->job };
		struct runner_job ref = b;
		char *dir_b = NULL, *dir_ref = NULL, *tb = NULL, *tr = NULL;
		int rc;

		ref.row.id = p->id_ref;
		ref.env = &p->env_ref;
		if (!(rc = proof_launch(r, &b, reason, rlen, &dir_b)))
			rc = proof_launch(r, &ref, reason, rlen, &dir_ref);
		if (!rc) {
			tb = traffic(dir_b);
			tr = traffic(dir_ref);
			p->applied = !tb || !tr ? -1 : !strcmp(tb, tr);
			pf->failed |= !p->applied;
		}
		free(tb);
		free(tr);
		free(dir_b);
		free(dir_ref);
		if (rc)
			return rc;
	}
	return 0;
}

static void proof_text_mpmd(const struct proof *pf)
{
	printf("proof: sweetspot-loop --where on the recipe's layout, each rank's host against "
	       "%s/slurm.hostfile: %s%s\n",
	       pf->rules, pf->failed ? "NOT APPLIED: " : "every rank on its host: applied",
	       pf->failed ? pf->why : "");
	for (size_t i = 0; i < pf->ran.nr && i < 16; i++)
		printf("  rank %-4zu %s\n", i, pf->ran.v[i]);
	if (pf->ran.nr > 16)
		printf("  (%zu ranks more)\n", pf->ran.nr - 16);
}

static void proof_text(const struct proof *pf)
{
	if (!pf->rules) {
		printf("proof: none: %s\n", pf->none);
		return;
	}
	if (pf->mpmd) {
		proof_text_mpmd(pf);
		return;
	}
	if (pf->mpich) {
		printf("proof: one call of each collective and size with B's settings and "
		       "MPIR_CVAR_COLLECTIVE_FALLBACK=error: %s\n",
		       pf->p[0].applied ? "MPICH ran every forced algorithm: applied" :
					  "MPICH refused a forced algorithm (it would have fallen "
					  "back to its own): "
					  "NOT APPLIED");
		return;
	}
	printf("proof: one call of each collective and size under Open MPI's pml monitoring, with "
	       "B's "
	       "settings and with what %s gives forced:\n",
	       pf->rules);
	for (size_t i = 0; i < pf->n; i++) {
		const struct proof_point *p = &pf->p[i];
		char what[64];

		if (p->alg)
			snprintf(what, sizeof(what), "algorithm %d forced", p->alg);
		else
			snprintf(what, sizeof(what), "no rules (Open MPI's own choice)");
		printf("  %-10s %10llu: %s: %s\n", p->coll, (unsigned long long)p->bytes, what,
		       p->applied > 0 ? "the same traffic: applied" :
		       p->applied     ? "no traffic seen: not known" :
				    "other traffic (another algorithm ran, or an inner collective "
				    "followed another rule): NOT APPLIED");
	}
}

static json_t *proof_json(const struct proof *pf)
{
	json_t *o = json_object(), *pts = json_array();

	if (!pf->rules) {
		json_object_set_new(o, "none", json_string(pf->none));
		json_decref(pts);
		return o;
	}
	json_object_set_new(
		o,
		pf->mpich ? "method" :
		pf->mpmd  ? "recipe" :
			    "rules",
		json_string(pf->mpich ? "MPIR_CVAR_COLLECTIVE_FALLBACK=error" : pf->rules));
	json_object_set_new(o, "applied", json_boolean(!pf->failed));
	if (pf->mpmd) {
		json_t *ran = json_array();

		for (size_t i = 0; i < pf->ran.nr; i++)
			json_array_append_new(ran, json_string(pf->ran.v[i]));
		json_object_set_new(o, "ranks", ran);
		if (pf->failed)
			json_object_set_new(o, "why", json_string(pf->why));
		json_decref(pts);
		return o;
	}
	if (pf->mpich) {
		json_decref(pts);
		return o;
	}
	for (size_t i = 0; i < pf->n; i++) {
		const struct proof_point *p = &pf->p[i];

		json_array_append_new(
			pts, json_pack("{s:s,s:I,s:i,s:o}", "collective", p->coll, "bytes",
				       (json_int_t)p->bytes, "algorithm", p->alg, "applied",
				       p->applied < 0 ? json_null() : json_boolean(p->applied)));
	}
	json_object_set_new(o, "points", pts);
	return o;
}

/* ---- outside a Slurm allocation: through sbatch -------------------------- */

/* The allocation: the spec's host nodes and an MPMD recipe's hosts, in
 * order of first use, and the most ranks one of them holds. */
static void alloc_hosts(const struct spec *s, const struct verify_ctx *x, struct strvec *hosts,
			unsigned *tpn)
{
	unsigned *count;

	*tpn = s->ppn;
	for (size_t i = 0; i < s->nodes.nr; i++)
		strvec_push(hosts, s->nodes.v[i]);
	count = xcalloc(hosts->nr + x->recipe.hosts.nr + 1, sizeof(*count));
	for (size_t i = 0; i < x->recipe.hosts.nr; i++) {
		size_t k = 0;

		while (k < hosts->nr && strcmp(hosts->v[k], x->recipe.hosts.v[i]))
			k++;
		if (k == hosts->nr)
			strvec_push(hosts, x->recipe.hosts.v[i]);
		if (++count[k] > *tpn)
			*tpn = count[k];
	}
	free(count);
}

/* What the job runs: this verify again, inside the allocation (where it
 * launches with srun), every choice spelt out, paths absolute. */
static void inner_command(const struct verify_args *a, const struct verify_ctx *x,
			  const char *db_abs, struct strvec *cmd)
{
	char *self = submit_self_path(), *spec = spec_run_key(a->path),
	     *exp = realpath(a->export, NULL);

	strvec_pushv(cmd,
		     (const char *const[]){ self, "verify", spec, "--db", db_abs, "--export",
					    exp ? exp : a->export, "--launcher", "srun", NULL });
	if (a->metric)
		strvec_pushv(cmd, (const char *const[]){ "--metric", a->metric, NULL });
	if (a->figures.nr) {
		char *list = submit_join_hosts(&a->figures);

		strvec_pushv(cmd, (const char *const[]){ "--figures", list, NULL });
		free(list);
	}
	if (a->higher)
		strvec_push(cmd, "--higher");
	if (a->json)
		strvec_push(cmd, "--json");
	if (a->cmd) {
		strvec_push(cmd, "--");
		for (size_t i = 0; i < x->prog.nr; i++)
			strvec_push(cmd, x->prog.v[i]);
	}
	free(self);
	free(spec);
	free(exp);
}

/* Appends file's text to out; 0, or -1 when it cannot be read. */
static int copy_out(const char *file, FILE *out)
{
	FILE *f = fopen(file, "r");
	char buf[8192];
	size_t n;

	if (!f)
		return -1;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, out);
	fclose(f);
	fflush(out);
	return 0;
}

/* The sbatch script of the whole verify: one allocation for every pair
 * and the proof. 0, or -1 after error(). */
static int write_job(const struct verify_args *a, const struct verify_ctx *x,
		     const struct proof *pf, const struct spec *s, const char *db_abs,
		     const char *out, const char *err, const char *script)
{
	const char *slash = strrchr(s->path, '/'), *base = slash ? slash + 1 : s->path;
	unsigned most = s->max_repetitions > s->repetitions ? s->max_repetitions : s->repetitions;
	struct sbatch_job job = { 0 };
	struct strvec hosts = STRVEC_INIT, cmd = STRVEC_INIT;
	char *name = xasprintf("sweetspot-verify-%.*s", (int)strcspn(base, "."), base), *list,
	     cwd[PATH_MAX];
	int rc;

	alloc_hosts(s, x, &hosts, &job.part[0].tasks_per_node);
	inner_command(a, x, db_abs, &cmd);
	list = submit_join_hosts(&hosts);
	job.name = name;
	job.time_limit_s = (unsigned)((2 * most + 2 * pf->n) * (s->time_limit + 30) + 60);
	job.output = out;
	job.error = err;
	job.chdir = getcwd(cwd, sizeof(cwd)) ? cwd : NULL;
	job.part[0].nodes = (unsigned)hosts.nr;
	job.part[0].nodelist = list;
	job.nparts = 1;
	job.command = &cmd;
	rc = sbatch_write(&job, script);
	free(name);
	free(list);
	strvec_clear(&hosts);
	strvec_clear(&cmd);
	return rc;
}

/* --dry-run outside an allocation: what the batch job would run, where. */
static void dry_sbatch(const struct verify_args *a, const struct verify_ctx *x,
		       const struct spec *s)
{
	struct launch_cmd cmd = LAUNCH_CMD_INIT;
	struct strvec hosts = STRVEC_INIT;
	char *db_abs = submit_absolute(a->db), *line, *list;
	unsigned tpn;

	alloc_hosts(s, x, &hosts, &tpn);
	inner_command(a, x, db_abs, &cmd.argv);
	line = launch_cmd_line(&cmd);
	list = submit_join_hosts(&hosts);
	printf("# outside a Slurm allocation: one batch job (sbatch --wait; --nodelist %s, "
	       "%u tasks per node) runs the pairs inside it:\n%s\n",
	       list, tpn, line);
	free(line);
	free(list);
	free(db_abs);
	strvec_clear(&hosts);
	launch_cmd_clear(&cmd);
}

/* srun outside an allocation: the whole verify as one batch job that
 * runs it inside its allocation, waited for (sbatch --wait) and cancelled
 * when we are interrupted; its answer is ours. The exit status. */
static int through_sbatch(const struct verify_args *a, const struct verify_ctx *x,
			  const struct proof *pf, const struct spec *s)
{
	const char *slash = strrchr(s->path, '/'), *base = slash ? slash + 1 : s->path;
	int stem = (int)strcspn(base, ".");
	char *db_abs = submit_absolute(a->db), *id = NULL, *path,
	     *jobs = xasprintf("%.*s/jobs", (int)(strrchr(db_abs, '/') - db_abs), db_abs),
	     *script = xasprintf("%s/%.*s-verify-%ld.sbatch", jobs, stem, base, (long)time(NULL)),
	     *out = xasprintf("%s/%.*s-verify-%%j.out", jobs, stem, base),
	     *err = xasprintf("%s/%.*s-verify-%%j.err", jobs, stem, base);
	struct sbatch_submit sub = { 0 };
	int status = 1, job_status = -1, rc;

	if (submit_mkdir_one(jobs) || write_job(a, x, pf, s, db_abs, out, err, script))
		goto out;
	sub.script = script;
	sub.wait = 1;
	sub.cancel = 1;
	fprintf(stderr, "sweetspot: verify outside a Slurm allocation: submitting %s\n", script);
	rc = sbatch_submit(&sub, &id, &job_status);
	if (rc == 1)
		status = 130;
	if (rc || !id)
		goto out;
	path = submit_job_output(err, id);
	copy_out(path, stderr);
	free(path);
	path = submit_job_output(out, id);
	if (copy_out(path, stdout))
		error("verify: job %s left no output (%s)", id, path);
	free(path);
	status = job_status == 0 || job_status == 1 || job_status == EXIT_USAGE ||
				 job_status == 130 ?
			 job_status :
			 1;
	if (job_status && job_status != 1 && job_status != EXIT_USAGE)
		error("verify: job %s ended with status %d", id, job_status);
out:
	free(id);
	free(script);
	free(out);
	free(err);
	free(jobs);
	free(db_abs);
	return status;
}

/* The launches and the answer, from an open store: the exit status. */
static int measure(const struct verify_args *a, struct runner *r, struct store *st,
		   const struct runner_job *jobs, const struct verify_ctx *x, struct proof *pf)
{
	const struct spec *s = r->spec;
	struct verify_state v = { .a = a };
	unsigned most = s->max_repetitions > s->repetitions ? s->max_repetitions : s->repetitions;
	int rc, status = 1;

	v.use_metric = a->metric || !a->cmd;
	if (v.use_metric &&
	    verify_metric_compile(&v.metric, a->metric ? a->metric : VERIFY_LOOP_METRIC))
		return EXIT_USAGE;
	if (runner_open(r, st, a->path, a->db, other_commands(r, st, a->path, jobs),
			2LL * most + 2LL * (long long)pf->n, 0, 2, (long)most))
		goto out;
	runner_signals_install(r);
	rc = race(&v, r, jobs);
	if (!rc && (rc = proof_run(pf, r, x, v.reason, sizeof(v.reason))) == 2)
		v.failed = "the proof";
	runner_signals_restore(r);
	/* Settings the runtime did not apply sped nothing up. */
	for (size_t i = 0; !rc && pf->failed && i < v.nfig; i++)
		v.fig[i].verdict = "not applied";
	if (runner_finish(r, NULL, NULL, NULL, NULL))
		rc = -1;
	/* Decided before max_repetitions: the run is done with fewer
	 * launches than planned, which runner_finish cannot know. */
	if (!rc && store_run_end(st, r->run.id, "done"))
		rc = -1;
	if (rc == 1) {
		fprintf(stderr,
			"sweetspot: interrupted; verify run %lld keeps its launches: run "
			"the same command again to continue\n",
			r->run.id);
		status = 130;
	} else if (rc == 2) {
		if (!strcmp(v.failed, "B") && v.nfig && v.fig[0].na > 0)
			error("verify: the program fails with the settings of %s (B) and runs "
			      "without them (A): %s",
			      a->export, v.reason);
		else
			error("verify: %s%s failed: %s",
			      strcmp(v.failed, "the proof") ? "launch " : "", v.failed, v.reason);
	} else if (rc < 0) {
		status = v.bad_metric ? EXIT_USAGE : 1;
	} else {
		if (a->json)
			print_json(&v, r, x, pf);
		else
			print_text(&v, r, x, pf);
		status = 0;
	}
out:
	verify_metric_release(&v.metric);
	verify_figures_free(v.fig, v.nfig);
	return status;
}

int cmd_verify(int argc, char **argv)
{
	struct verify_args a = { NULL, STORE_DEFAULT_PATH, NULL, NULL, NULL, 0, 0,
				 0,    STRVEC_INIT,	   NULL, 0,    0 };
	struct verify_ctx x = {
		STRVEC_INIT, STRVEC_INIT, VERIFY_OMPI_RULES, { NULL, STRVEC_INIT }
	};
	struct vjob main_job = { &x.prog, 0, NULL }, recipe_job = { &x.prog, 0, &x.recipe };
	struct proof pf = { 0 };
	struct spec spec = SPEC_INIT;
	struct runner r = RUNNER_INIT;
	struct runner_job jobs[2];
	struct store *st = NULL;
	enum launcher l;
	int status;

	status = parse_args(argc, argv, &a);
	if (status != CLI_END)
		return cli_status(status);
	status = EXIT_USAGE;
	/* srun outside an allocation goes through sbatch (below). */
	if (spec_load(a.path, &spec) || from_spec(&a, &spec) ||
	    runner_pick_launcher(a.launcher, &spec, a.path, 1, &l) ||
	    make_program(&a, &spec, &x.prog) || verify_settings(a.export, &x.env_b, &x.kind) ||
	    (x.kind == VERIFY_MPMD &&
	     (verify_recipe_load(a.export, &x.recipe) || verify_recipe_check_words(&x.prog))) ||
	    proof_plan(&pf, &spec, l, &x))
		goto out;
	if (a.metric) {
		struct verify_metric m;

		if (verify_metric_compile(&m, a.metric))
			goto out;
		verify_metric_release(&m);
	}
	runner_init(&r, &spec, l);
	r.label = "verify";
	r.build = build_cmd;
	r.retry_failed = 1;
	r.progress_out = stderr;
	for (int i = 0; i < 2; i++)
		jobs[i] = (struct runner_job){
			.row = { i ? "verify-B" : "verify-A", (int)spec.nodes.nr, (int)spec.ppn, 0,
				 0, "host" },
			.points = 0,
			.env = i ? &x.env_b : NULL,
			.data = i && x.recipe.dir ? &recipe_job : &main_job
		};
	if (a.dry) {
		status = runner_dry_run(&r, a.path, a.db, jobs, 2, stdout) ? 1 : 0;
		if (!status && l == LAUNCHER_SRUN && !getenv("SLURM_JOB_ID"))
			dry_sbatch(&a, &x, &spec);
		goto out;
	}
	if (l == LAUNCHER_SRUN && !getenv("SLURM_JOB_ID")) {
		status = through_sbatch(&a, &x, &pf, &spec);
		goto out;
	}
	if (store_open(a.db, STORE_CREATE, &st))
		goto out;
	status = measure(&a, &r, st, jobs, &x, &pf);
out:
	proof_release(&pf);
	runner_release(&r);
	store_close(st);
	strvec_clear(&x.prog);
	strvec_clear(&x.env_b);
	strvec_clear(&a.figures);
	verify_recipe_release(&x.recipe);
	spec_release(&spec);
	return status;
}
