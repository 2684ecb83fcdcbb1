/*
 * tuner/cmd/cmd_baseline.c: `sweetspot baseline SPEC [--db FILE]`: the
 * host-only Open MPI baseline that the ompi-rules, ompi-json, ucc and
 * mca-params exports are made of. As ompi-collectives-tuning does it, each
 * coll/tuned algorithm of each collective of the spec is forced in its own
 * launch (OMPI_MCA_coll_tuned_use_dynamic_rules=1 and
 * OMPI_MCA_coll_tuned_<coll>_algorithm=N, plus one launch with Open MPI's
 * own choice), the kernel runs in --mode mpi on the spec's host ranks, at
 * the spec's sizes, iterations and repetitions. The launches go through the
 * sweep engine (runner.h) like a sweep's, into a run of their own
 * ("SPEC:baseline"), resumable like a sweep, every algorithm's repetitions
 * interleaved with the others' in a seeded random order; this file only says what each
 * launch is; its command line comes from launch/argv.c like every other.
 * With the hydra launcher it measures MPICH instead: each algorithm the
 * installed MPICH lists (tuner/export/mpich.h) forced through
 * MPIR_CVAR_<COLL>_INTRA_ALGORITHM, the spec's kernel being the MPICH build.
 */
#include "argv.h"
#include "child.h"
#include "cli.h"
#include "cmds.h"
#include "error.h"
#include "export.h"
#include "mpich.h"
#include "parse.h"
#include "runner.h"
#include "spec.h"
#include "stats.h"
#include "store.h"
#include "strvec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { OPT_DB, OPT_LAUNCHER, OPT_ALGORITHMS, OPT_DRY_RUN, NOPTS };

static const struct cli_option baseline_options[NOPTS + 1] = {
	[OPT_DB] = CLI_OPTION_DB,
	[OPT_LAUNCHER] = { "launcher", 0, "L",
			   "mpirun, srun or hydra (default: srun inside a Slurm\n"
			   "allocation, else the spec's launcher, mpirun for mpirun_rsh);\n"
			   "hydra measures MPICH's own algorithms" },
	[OPT_ALGORITHMS] = { "algorithms", 0, "LIST",
			     "Open MPI algorithm ids to force, e.g. 1,6,8\n"
			     "(default: all that ompi_info lists; 0 is Open MPI's own);\n"
			     "with hydra, MPICH algorithm names (default: all mpivars lists)" },
	[OPT_DRY_RUN] = { "dry-run", 0, NULL, "print each launch's command; touch nothing" },
	[NOPTS] = { NULL, 0, NULL, NULL },
};

static const struct cli_command baseline_cli = {
	"baseline",
	"SPEC [--db FILE] [--launcher L] [--algorithms LIST] [--dry-run]",
	"Measures the MPI library's own collectives on the spec's host ranks (no\n"
	"workers): every coll/tuned algorithm of each collective forced in its own\n"
	"launch, and Open MPI's own choice, at the spec's sizes and repetitions, as\n"
	"ompi-collectives-tuning does (with --launcher hydra, MPICH's algorithms\n"
	"forced through MPIR_CVAR_<COLL>_INTRA_ALGORITHM). The records go into the\n"
	"database as the run SPEC:baseline; 'sweetspot export --format ompi-rules'\n"
	"(or mpich) makes rules of them. Running it again skips what is measured.",
	baseline_options,
	"Exit status: 0 every launch ok, 1 a launch failed (recorded), 2 bad input,\n"
	"130 interrupted (the launch under way is not recorded; run again to continue).",
};

/* One launch's job: a collective with an algorithm forced (0: Open MPI's
 * own choice), and the environment that forces it. */
struct job {
	const char *coll;
	int alg; /* Open MPI: the coll/tuned id; MPICH: 1 + its index */
	char id[96];
	struct strvec env;
};

struct baseline_args {
	const char *path, *db, *launcher, *algs;
	int dry;
};

/* The value the spec's environment gives NAME, or NULL. */
static const char *spec_env(const struct spec *s, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < s->env.nr; i++)
		if (!strncmp(s->env.v[i], name, n) && s->env.v[i][n] == '=')
			return s->env.v[i] + n + 1;
	return NULL;
}

/* A job forcing alg of coll (0: Open MPI's own choice). A forced algorithm
 * runs with the collective's MCA parameters: each is set explicitly (the
 * spec's value, else the installed Open MPI's), so that the launch's
 * recorded command says what it ran with and export writes that. */
static void add_job(struct job **jobs, size_t *n, const char *coll, int alg,
		    const struct ompi_info *oi, const struct spec *s)
{
	struct job *j;

	*jobs = xrealloc(*jobs, (*n + 1) * sizeof(**jobs));
	j = &(*jobs)[(*n)++];
	memset(j, 0, sizeof(*j));
	j->coll = coll;
	j->alg = alg;
	if (!alg) {
		snprintf(j->id, sizeof(j->id), "mpi-%s-default", coll);
		return;
	}
	snprintf(j->id, sizeof(j->id), "mpi-%s-alg%d", coll, alg);
	strvec_push(&j->env, "OMPI_MCA_coll_tuned_use_dynamic_rules=1");
	strvec_pushf(&j->env, "OMPI_MCA_coll_tuned_%s_algorithm=%d", coll, alg);
	for (int k = 0; k < OMPI_NPARAMS; k++) {
		char name[128], var[160];
		const char *v;
		long val;

		snprintf(name, sizeof(name), "%s_algorithm_%s", coll, ompi_param_name(k));
		snprintf(var, sizeof(var), "OMPI_MCA_coll_tuned_%s", name);
		if ((v = spec_env(s, var)))
			strvec_pushf(&j->env, "%s=%s", var, v);
		else if (!ompi_info_int(oi, name, &val))
			strvec_pushf(&j->env, "%s=%ld", var, val);
	}
}

/* The algorithms of one collective: --algorithms, else all that ompi_info
 * lists (ids and names are the installed Open MPI's). 0, or -1 after
 * error(). */
static int add_algorithms(const struct baseline_args *a, const struct spec *s, const char *coll,
			  const struct ompi_info *oi, struct job **jobs, size_t *n)
{
	int count = ompi_info_algorithms(oi, coll);
	char *copy, *save = NULL, name[64];

	if (count <= 1)
		return error("baseline: ompi_info lists no coll/tuned algorithm of %s", coll);
	add_job(jobs, n, coll, 0, oi, s);
	if (!a->algs) {
		/* allgather's two_proc works on 2 ranks only. */
		for (int alg = 1; alg < count; alg++)
			if (!ompi_info_algorithm_name(oi, coll, alg, name, sizeof(name)) ||
			    strcmp(name, "two_proc") || s->nodes.nr * s->ppn == 2)
				add_job(jobs, n, coll, alg, oi, s);
		return 0;
	}
	copy = xstrdup(a->algs);
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		uint64_t v;
		char err[128];

		if (parse_uint(t, 0, 64, &v, err, sizeof(err))) {
			free(copy);
			return error("baseline: --algorithms: %s", err);
		}
		if ((int)v >= count) {
			free(copy);
			return error("baseline: --algorithms: %s is not an algorithm of %s in this "
				     "Open MPI (0 to %d)",
				     t, coll, count - 1);
		}
		if (v)
			add_job(jobs, n, coll, (int)v, oi, s);
	}
	free(copy);
	return 0;
}

static void free_jobs(struct job *jobs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		strvec_clear(&jobs[i].env);
	free(jobs);
}

/* The launch of one job: the spec's host ranks, nothing else, built by
 * launch/argv.c like every launch. A hydra spec names the MPICH build of
 * the kernel (bin/mpich/sweetspot-kernel) as its host_bin, as its sweeps do. */
static int build_cmd(const struct runner *r, const struct runner_job *rj, const char *dir,
		     int check_files, struct launch_cmd *cmd)
{
	const struct spec *s = r->spec;
	const struct job *j = rj->data;
	struct launch_opts lo = LAUNCH_OPTS_INIT;
	struct strvec env = STRVEC_INIT, prog = STRVEC_INIT;
	char sizes[1024] = "";
	int rc;

	(void)dir;
	(void)check_files;
	for (size_t i = 0; i < s->nsizes; i++)
		snprintf(sizes + strlen(sizes), sizeof(sizes) - strlen(sizes), "%s%llu",
			 i ? "," : "", (unsigned long long)s->sizes[i]);
	/* The spec's environment first, the forcing last: it wins. */
	for (size_t i = 0; i < s->env.nr; i++)
		strvec_push(&env, s->env.v[i]);
	for (size_t i = 0; i < j->env.nr; i++)
		strvec_push(&env, j->env.v[i]);
	lo.env = &env;
	lo.time_limit_s = s->time_limit;
	if (r->launcher == s->launcher && s->launcher_args.nr)
		lo.extra = &s->launcher_args;
	strvec_push(&prog, s->host_bin);
	strvec_pushv(&prog, (const char *const[]){ "--mode", "mpi", "-c", j->coll, "-m", sizes,
						   "-i", NULL });
	strvec_pushf(&prog, "%u", s->iterations);
	strvec_push(&prog, "-x");
	strvec_pushf(&prog, "%u", s->warmup);
	strvec_pushv(&prog, (const char *const[]){ "-o", RUNNER_POINTS_FILE, NULL });
	rc = launch_argv_hosts(r->launcher, &lo, &s->nodes, s->ppn, &prog, cmd);
	strvec_clear(&prog);
	strvec_clear(&env);
	return rc;
}

/* CLI_END when the command goes on, else CLI_HELP or CLI_BAD. */
static int parse_args(int argc, char **argv, struct baseline_args *a)
{
	struct cli c;
	int o;

	cli_begin(&c, &baseline_cli, argc, argv);
	while ((o = cli_next(&c)) >= 0)
		switch (o) {
		case OPT_DB:
			a->db = c.arg;
			break;
		case OPT_LAUNCHER:
			a->launcher = c.arg;
			break;
		case OPT_ALGORITHMS:
			a->algs = c.arg;
			break;
		case OPT_DRY_RUN:
			a->dry = 1;
			break;
		}
	if (o != CLI_END)
		return o;
	if (cli_operands(&c, 1, 1, "SPEC"))
		return CLI_BAD;
	a->path = c.operands[0];
	return CLI_END;
}

/* Which launcher: as a sweep's, but mpirun where the spec says mpirun_rsh
 * unless asked for by name, which is refused. */
static int pick_launcher(const struct baseline_args *a, const struct spec *s, enum launcher *l)
{
	if (runner_pick_launcher(a->launcher, s, a->path, a->dry, l))
		return -1;
	if (*l == LAUNCHER_MPIRUN_RSH && !a->launcher)
		*l = LAUNCHER_MPIRUN;
	if (*l == LAUNCHER_MPIRUN_RSH)
		return error(
			"baseline: the MPI library's algorithms are measured with mpirun, srun "
			"or hydra, not mpirun_rsh");
	return 0;
}

/* Whether name is in the comma list (NULL: every name is). */
static int listed(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p && *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
		if (strcspn(p, ",") == n && !strncmp(p, name, n))
			return 1;
	}
	return !list;
}

/* MPICH's jobs of one collective: its own choice, then each algorithm the
 * installed MPICH lists (or those --algorithms names). 0 or -1. */
static int add_mpich(const struct baseline_args *a, const char *coll, struct job **jobs, size_t *n)
{
	struct strvec algs = STRVEC_INIT;
	size_t before = *n;

	if (mpich_algorithms(coll, &algs) < 0)
		return -1;
	*jobs = xrealloc(*jobs, (*n + algs.nr + 1) * sizeof(**jobs));
	memset(&(*jobs)[*n], 0, sizeof(**jobs));
	(*jobs)[*n].coll = coll;
	snprintf((*jobs)[*n].id, sizeof((*jobs)[*n].id), "mpi-%s-default", coll);
	(*n)++;
	for (size_t i = 0; i < algs.nr; i++) {
		struct job *j = &(*jobs)[*n];
		char *e;

		if (!listed(a->algs, algs.v[i]))
			continue;
		memset(j, 0, sizeof(*j));
		j->coll = coll;
		j->alg = (int)i + 1;
		snprintf(j->id, sizeof(j->id), "mpi-%s-mpich-%s", coll, algs.v[i]);
		e = mpich_force_env(coll, algs.v[i]);
		strvec_push(&j->env, e);
		free(e);
		(*n)++;
	}
	(void)before;
	strvec_clear(&algs);
	return 0;
}

/* Every job of the spec's collectives that Open MPI's coll/tuned (or, with
 * hydra, MPICH) has algorithms of (bcast, gather, allgather, reduce,
 * allreduce). */
static int make_jobs(const struct baseline_args *a, const struct spec *s, enum launcher l,
		     struct job **jobs, size_t *n)
{
	struct ompi_info oi;
	int ret = 0;

	if (l == LAUNCHER_HYDRA) {
		size_t forced = 0;

		for (size_t c = 0; c < s->collectives.nr && !ret; c++)
			if (export_coll_id(s->collectives.v[c]) >= 0)
				ret = add_mpich(a, s->collectives.v[c], jobs, n);
		for (size_t i = 0; i < *n; i++)
			forced += (*jobs)[i].alg != 0;
		if (!ret && a->algs && !forced)
			ret = error("baseline: --algorithms %s names none of the installed MPICH's "
				    "algorithms of %s's collectives (see mpivars)",
				    a->algs, a->path);
		return ret;
	}
	if (ompi_info_load(&oi))
		return -1;
	for (size_t c = 0; c < s->collectives.nr && !ret; c++)
		if (export_coll_id(s->collectives.v[c]) >= 0)
			ret = add_algorithms(a, s, s->collectives.v[c], &oi, jobs, n);
	ompi_info_release(&oi);
	if (!ret && !*n)
		ret = error("baseline: %s lists no collective Open MPI's coll/tuned measures "
			    "(bcast, gather, allgather, reduce, allreduce)",
			    a->path);
	return ret;
}

/* The engine's jobs, pointing into jobs (an array the caller frees). */
static struct runner_job *runner_jobs(const struct spec *s, const struct job *jobs, size_t n)
{
	struct runner_job *rj = xcalloc(n, sizeof(*rj));

	for (size_t i = 0; i < n; i++) {
		rj[i].row = (struct store_layout){ jobs[i].id, (int)s->nodes.nr, (int)s->ppn, 0, 0,
						   "host" };
		rj[i].points = s->nsizes;
		rj[i].env = &jobs[i].env;
		rj[i].data = &jobs[i];
	}
	return rj;
}

/* Every job at every repetition, round by round: each round launches every
 * job once, in an order drawn from a seed (the spec's hash and the round),
 * so that a drift of the machine during the run spreads over every
 * algorithm instead of becoming a difference between them, and a resumed
 * run goes the same way. Returns as runner_sweep(). */
static int interleaved(struct runner *r, const struct runner_job *rj, size_t n)
{
	size_t *order = xcalloc(n ? n : 1, sizeof(*order));
	uint64_t seed = strtoull(r->spec->hash, NULL, 16);
	int rc = 0;

	for (unsigned rep = 1; rep <= r->spec->repetitions && !rc; rep++) {
		stats_shuffle(order, n, seed + rep);
		for (size_t i = 0; i < n && !rc; i++) {
			struct runner_outcome oc;

			rc = runner_launch(r, &rj[order[i]], rep, &oc);
			store_points_free(oc.pts, oc.npoints);
		}
	}
	free(order);
	return rc;
}

/* The launches, from an open store: the exit status. */
static int measure(const struct baseline_args *a, struct runner *r, struct store *st,
		   const struct runner_job *rj, size_t n)
{
	const struct spec *s = r->spec;
	long long launches = 0, failed = 0;
	int rc;

	if (runner_open(r, st, a->path, a->db, 0, (long long)(n * s->repetitions),
			(long long)(n * s->repetitions * s->nsizes), (long)n, (long)s->repetitions))
		return 1;
	runner_signals_install(r);
	rc = interleaved(r, rj, n);
	runner_signals_restore(r);
	if (rc < 0 || runner_finish(r, &launches, &failed, NULL, NULL))
		return 1;
	if (rc == 1) {
		fprintf(stderr,
			"sweetspot: interrupted; baseline run %lld keeps %lld launches: "
			"run the same command again to continue\n",
			r->run.id, launches);
		return 130;
	}
	printf("baseline run %lld: %lld launches, %lld failed\n", r->run.id, launches, failed);
	return failed ? 1 : 0;
}

int cmd_baseline(int argc, char **argv)
{
	struct baseline_args a = { NULL, STORE_DEFAULT_PATH, NULL, NULL, 0 };
	struct spec spec = SPEC_INIT;
	struct runner r = RUNNER_INIT;
	struct store *st = NULL;
	struct job *jobs = NULL;
	struct runner_job *rj = NULL;
	size_t njobs = 0;
	enum launcher l;
	int status = EXIT_USAGE;

	status = parse_args(argc, argv, &a);
	if (status != CLI_END)
		return cli_status(status);
	status = EXIT_USAGE;
	if (spec_load(a.path, &spec) || pick_launcher(&a, &spec, &l) ||
	    make_jobs(&a, &spec, l, &jobs, &njobs))
		goto out;
	runner_init(&r, &spec, l);
	r.label = "baseline";
	r.build = build_cmd;
	r.progress_out = stderr;
	rj = runner_jobs(&spec, jobs, njobs);
	if (a.dry) {
		status = runner_dry_run(&r, a.path, a.db, rj, njobs, stdout) ? 1 : 0;
		goto out;
	}
	if (store_open(a.db, STORE_CREATE, &st))
		goto out;
	status = measure(&a, &r, st, rj, njobs);
out:
	free(rj);
	free_jobs(jobs, njobs);
	runner_release(&r);
	store_close(st);
	spec_release(&spec);
	return status;
}
