/*
 * tuner/verify/verify_run.c: verify's paired race (verify_run.h): the
 * choices completed from the spec's verify group, the program resolved
 * (COMMAND, or the project's collective loop, sweetspot-loop, over the
 * spec's collectives and sizes), A and B launched through the sweep engine
 * in pairs of seeded order until every figure is decided or
 * max_repetitions, then the proof (verify_proof.c). A figure is the
 * launch's wall time, or each number --metric finds in its output.
 */
#include "verify_run.h"
#include "verify_sbatch.h"

#include "argv.h"
#include "child.h"
#include "error.h"
#include "export.h"
#include "recommend.h"
#include "runner.h"
#include "stats.h"
#include "store_write.h"
#include "strvec.h"
#include "xalloc.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	if (!(path = verify_loop_path(s)))
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
static int build_recipe(enum launcher l, const struct verify_job *j, const char *dir,
			int check_files, struct launch_opts *lo, struct launch_cmd *cmd)
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
	const struct verify_job *j = rj->data;
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
		for (size_t i = 0; i < n; i++) {
			v->fig[i].name = xstrdup(names.v[i]);
			v->fig[i].pairs = 1; /* race(): A and B of a pair back to back */
		}
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

/* The practical threshold of a figure's B/A: the spec's delta_rel (the
 * least difference a site acts on, 5%), or delta_time where larger. */
static double verify_zone(const struct spec *s)
{
	return s->delta_rel > s->delta_time ? s->delta_rel : s->delta_time;
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
		undecided = verify_decide(v->fig, v->nfig, v->a->higher, s->alpha, verify_zone(s));
		if (undecided < 0)
			return -1;
		if (!undecided)
			break;
	}
	return verify_decide(v->fig, v->nfig, v->a->higher, s->alpha, verify_zone(s)) < 0 ? -1 : 0;
}

/* The launches and the answer, from an open store, into vf: the exit
 * status (0: vf->answered). */
static int measure(struct verify *vf, struct runner *r, struct store *st,
		   const struct runner_job *jobs)
{
	const struct verify_args *a = &vf->a;
	const struct spec *s = r->spec;
	struct verify_state *v = &vf->v;
	struct verify_proof *pf = &vf->proof;
	unsigned most = s->max_repetitions > s->repetitions ? s->max_repetitions : s->repetitions;
	int rc, status = 1;

	v->a = a;
	v->use_metric = a->metric || !a->cmd;
	if (v->use_metric &&
	    verify_metric_compile(&v->metric, a->metric ? a->metric : VERIFY_LOOP_METRIC))
		return EXIT_USAGE;
	if (runner_open(r, st, a->path, a->db, other_commands(r, st, a->path, jobs),
			2LL * most + 2LL * (long long)pf->n, 0, 2, (long)most))
		return status;
	vf->run = r->run.id;
	runner_signals_install(r);
	rc = race(v, r, jobs);
	if (!rc && (rc = verify_proof_run(pf, r, &vf->x, v->reason, sizeof(v->reason))) == 2)
		v->failed = "the proof";
	runner_signals_restore(r);
	/* Settings the runtime did not apply sped nothing up. */
	for (size_t i = 0; !rc && pf->failed && i < v->nfig; i++)
		v->fig[i].verdict = "not applied";
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
		if (!strcmp(v->failed, "B") && v->nfig && v->fig[0].na > 0)
			error("verify: the program fails with the settings of %s (B) and runs "
			      "without them (A): %s",
			      a->export, v->reason);
		else
			error("verify: %s%s failed: %s",
			      strcmp(v->failed, "the proof") ? "launch " : "", v->failed,
			      v->reason);
	} else if (rc < 0) {
		status = v->bad_metric ? EXIT_USAGE : 1;
	} else {
		vf->answered = 1;
		status = 0;
	}
	return status;
}

void verify_init(struct verify *vf, const char *db)
{
	memset(vf, 0, sizeof(*vf)); /* every vector and the spec empty */
	vf->a.db = db;
	vf->x.kind = VERIFY_OMPI_RULES;
}

void verify_release(struct verify *vf)
{
	verify_metric_release(&vf->v.metric);
	verify_figures_free(vf->v.fig, vf->v.nfig);
	verify_proof_release(&vf->proof);
	strvec_clear(&vf->x.prog);
	strvec_clear(&vf->x.env_b);
	strvec_clear(&vf->a.figures);
	verify_recipe_release(&vf->x.recipe);
	spec_release(&vf->spec);
	memset(vf, 0, sizeof(*vf));
}

int verify_run(struct verify *vf, FILE *out)
{
	struct verify_args *a = &vf->a;
	struct verify_ctx *x = &vf->x;
	struct spec *spec = &vf->spec;
	struct verify_job main_job = { &x->prog, 0, NULL },
			  recipe_job = { &x->prog, 0, &x->recipe };
	struct runner r = RUNNER_INIT;
	struct runner_job jobs[2];
	struct store *st = NULL;
	enum launcher l;
	int status = EXIT_USAGE;

	/* srun outside an allocation goes through sbatch (below). */
	if (spec_load(a->path, spec) || from_spec(a, spec) ||
	    runner_pick_launcher(a->launcher, spec, a->path, 1, &l) ||
	    make_program(a, spec, &x->prog) || verify_settings(a->export, &x->env_b, &x->kind) ||
	    (x->kind == VERIFY_MPMD &&
	     (verify_recipe_load(a->export, &x->recipe) || verify_recipe_check_words(&x->prog))) ||
	    verify_proof_plan(&vf->proof, spec, l, x))
		goto out;
	if (a->metric) {
		struct verify_metric m;

		if (verify_metric_compile(&m, a->metric))
			goto out;
		verify_metric_release(&m);
	}
	runner_init(&r, spec, l);
	r.label = "verify";
	r.build = build_cmd;
	r.retry_failed = 1;
	r.progress_out = stderr;
	for (int i = 0; i < 2; i++)
		jobs[i] = (struct runner_job){
			.row = { i ? "verify-B" : "verify-A", (int)spec->nodes.nr, (int)spec->ppn,
				 0, 0, "host" },
			.points = 0,
			.env = i ? &x->env_b : NULL,
			.data = i && x->recipe.dir ? &recipe_job : &main_job
		};
	if (a->dry) {
		status = runner_dry_run(&r, a->path, a->db, jobs, 2, out) ? 1 : 0;
		if (!status && l == LAUNCHER_SRUN && !getenv("SLURM_JOB_ID"))
			verify_dry_sbatch(a, x, spec, out);
		goto out;
	}
	if (l == LAUNCHER_SRUN && !getenv("SLURM_JOB_ID")) {
		status = verify_through_sbatch(a, x, &vf->proof, spec, out);
		goto out;
	}
	if (store_open(a->db, STORE_CREATE, &st))
		goto out;
	status = measure(vf, &r, st, jobs);
out:
	runner_release(&r);
	store_close(st);
	return status;
}
