/*
 * tuner/cmd/cmd_run.c: `sweetspot run SPEC`, measuring a plan for real through
 * the sweep engine (runner.h): one launch per layout and repetition, its
 * files generated into runs/<run>/<layout>-r<rep>/, the launcher spawned
 * (no shell) under the spec's time limit, the kernel's records stored with
 * the launch in one transaction. Running the same command again continues
 * the latest run of that spec, skipping every launch already recorded, so
 * a sweep killed at any moment (kill -9, a lost allocation) resumes where
 * it stopped and never measures a finished launch twice.
 */
#include "cli.h"
#include "cmds.h"
#include "error.h"
#include "parse.h"
#include "plan.h"
#include "runner.h"
#include "search.h"
#include "spec.h"
#include "store.h"
#include "strvec.h"
#include "argv.h"
#include "child.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
	OPT_DB,
	OPT_DRY_RUN,
	OPT_FRESH,
	OPT_LAUNCHER,
	OPT_RETRY_FAILED,
	OPT_MAX_LAUNCHES,
	OPT_ONLY,
	OPT_WAIT_LOCK,
	NOPTS
};

static const struct cli_option run_options[NOPTS + 1] = {
	[OPT_DB] = { "db", 0, "FILE",
		     "the results database (default " STORE_DEFAULT_PATH ");\n"
		     "each launch's files go to runs/<run>/<layout>-r<rep>/ beside\n"
		     "it (runs/<name>-<run>/ for a database not named sweetspot.db)" },
	[OPT_DRY_RUN] = { "dry-run", 0, NULL,
			  "print each launch's command, shell-quoted, and check\n"
			  "the kernel binaries; touch nothing" },
	[OPT_FRESH] = { "fresh", 0, NULL, "start a new run instead of continuing the latest one" },
	[OPT_LAUNCHER] = { "launcher", 0, "L",
			   "srun, mpirun or mpirun_rsh (default: srun inside a Slurm\n"
			   "allocation, else the spec's launcher)" },
	[OPT_RETRY_FAILED] = { "retry-failed", 0, NULL,
			       "also run again the launches that failed or timed out" },
	[OPT_MAX_LAUNCHES] = { "max-launches", 0, "N",
			       "stop after running N launches (one allocation's\n"
			       "share of a sweep that is submitted in chunks); run again\n"
			       "to continue" },
	[OPT_ONLY] = { "only", 0, "ID[:REP]",
		       "only layout ID (every repetition, or repetition REP);\n"
		       "the way 'sweetspot search' measures the layouts it picks" },
	[OPT_WAIT_LOCK] = { "wait-lock", 0, NULL,
			    "when another run, search or submit of this spec\n"
			    "writes to the database, wait for it to end (default:\n"
			    "refuse, naming it, exit status 1)" },
	[NOPTS] = { NULL, 0, NULL, NULL },
};

static const struct cli_command run_cli = {
	"run",
	"SPEC [--db FILE] [--dry-run] [--fresh] [--launcher L] [--retry-failed]\n"
	"[--max-launches N] [--only ID[:REP]] [--wait-lock]",
	"Measure every layout of the spec's plan, one launch per layout and repetition,\n"
	"and store every point. Running it again continues the latest run of SPEC,\n"
	"skipping the launches it already recorded. One writer per run: another\n"
	"run, search or submit of the same spec and database is refused (or waited for).",
	run_options,
	"Exit status: 0 every launch ok, 1 a launch failed (recorded, the sweep went on)\n"
	"or another process writes this run, 2 bad input (nothing written), 130\n"
	"interrupted by SIGINT or SIGTERM (the launch under way is stopped and not\n"
	"recorded; run again to continue).",
};

struct run_opts {
	const char *spec_path;
	const char *db;
	const char *launcher;
	int dry_run, fresh, retry_failed, wait_lock;
	unsigned long long max_launches; /* 0: no limit */
	char *only;			 /* --only: this layout id only, or NULL (owned) */
	unsigned only_rep;		 /* --only ID:REP; 0: every repetition */
};

/* --only ID[:REP]. 0, or -1 after a report. */
static int parse_only(const char *arg, struct run_opts *o)
{
	char *colon, err[256];
	uint64_t v;

	free(o->only);
	o->only = xstrdup(arg);
	colon = strrchr(o->only, ':');
	if (!colon)
		return 0;
	*colon = '\0';
	if (parse_uint(colon + 1, 1, UINT32_MAX, &v, err, sizeof(err)))
		return cli_usage_error(&run_cli, "--only %s: repetition %s", arg, err);
	o->only_rep = (unsigned)v;
	return 0;
}

/* Options and the one spec: CLI_END when the command goes on, else
 * CLI_HELP (printed) or CLI_BAD (reported). */
static int parse_args(int argc, char **argv, struct run_opts *o)
{
	struct cli c;
	uint64_t v;
	int opt;

	cli_begin(&c, &run_cli, argc, argv);
	while ((opt = cli_next(&c)) >= 0) {
		switch (opt) {
		case OPT_DB:
			o->db = c.arg;
			break;
		case OPT_DRY_RUN:
			o->dry_run = 1;
			break;
		case OPT_FRESH:
			o->fresh = 1;
			break;
		case OPT_LAUNCHER:
			o->launcher = c.arg;
			break;
		case OPT_RETRY_FAILED:
			o->retry_failed = 1;
			break;
		case OPT_WAIT_LOCK:
			o->wait_lock = 1;
			break;
		case OPT_MAX_LAUNCHES:
			if (cli_uint(&c, 1, UINT32_MAX, &v))
				return CLI_BAD;
			o->max_launches = v;
			break;
		case OPT_ONLY:
			if (parse_only(c.arg, o))
				return CLI_BAD;
			break;
		}
	}
	if (opt != CLI_END)
		return opt;
	if (cli_operands(&c, 1, 1, "SPEC"))
		return CLI_BAD;
	o->spec_path = c.operands[0];
	return CLI_END;
}

/* What the options ask of the plan, checked before anything runs. */
static int check_only(const struct run_opts *o, const struct plan *p)
{
	if (o->only && !plan_find(p, o->only))
		return error("run: --only: no layout '%s' in the plan of %s", o->only,
			     o->spec_path);
	if (o->only_rep > p->repetitions)
		return error("run: --only: repetition %u, but the plan has %u", o->only_rep,
			     p->repetitions);
	return 0;
}

/* The jobs to run: every layout of the plan, or --only's. */
static struct runner_job *select_jobs(const struct run_opts *o, const struct plan *p, size_t *n)
{
	struct runner_job *jobs = runner_plan_jobs(p);

	*n = p->nlayouts;
	if (!o->only)
		return jobs;
	for (size_t i = 0; i < p->nlayouts; i++)
		if (!strcmp(jobs[i].row.id, o->only)) {
			jobs[0] = jobs[i];
			*n = 1;
			return jobs;
		}
	*n = 0;
	return jobs;
}

/* Whether host names this machine. */
static int host_is_local(const char *host)
{
	char self[256] = "";
	size_t n;

	if (!strcmp(host, "localhost") || !strcmp(host, "127.0.0.1") || !strcmp(host, "::1"))
		return 1;
	if (gethostname(self, sizeof(self) - 1))
		return 0;
	if (!strcmp(host, self))
		return 1;
	/* "node1" and "node1.cluster": one machine. */
	n = strcspn(self, ".");
	return strcspn(host, ".") == n && !strncmp(host, self, n);
}

/* Where the kernel binary of a role runs: on hosts of this machine, on
 * others, or both. */
struct bin_use {
	const char *what, *bin; /* "host_bin", its path */
	int local, remote;
	const char *remote_host; /* one of the others, for the message */
};

static void bin_hosts(struct bin_use *u, const struct strvec *hosts, size_t n)
{
	for (size_t i = 0; i < n && i < hosts->nr; i++) {
		if (host_is_local(hosts->v[i]))
			u->local = 1;
		else if (!u->remote++)
			u->remote_host = hosts->v[i];
	}
}

/* Checks one binary where it can; says what it found on out. 0, or -1
 * after error() when it runs here and is missing or not executable. */
static int check_bin(const struct bin_use *u, FILE *out)
{
	char *found = strchr(u->bin, '/') ? NULL : launch_which(u->bin);
	const char *path = found ? found : u->bin;
	struct stat sb;
	int here = (strchr(u->bin, '/') || found) && !stat(path, &sb) && S_ISREG(sb.st_mode) &&
		   !access(path, X_OK);
	int ret = 0;

	if (u->local && !here)
		ret = error("%s %s: %s on this machine, where the plan runs it", u->what, u->bin,
			    !strchr(u->bin, '/') ? "not found in PATH" :
			    !stat(path, &sb)	 ? "not an executable file" :
						   "no such file");
	else if (u->local)
		fprintf(out, "# %s %s: executable here%s\n", u->what, path,
			u->remote ? "; cannot check on remote hosts" : "");
	else
		fprintf(out, "# %s %s: cannot check on remote hosts (%s%s)%s\n", u->what, u->bin,
			u->remote_host, u->remote > 1 ? ", ..." : "",
			here ? "" : "; it is not on this machine either");
	free(found);
	return ret;
}

/* The kernel binaries of the plan's layouts (host_bin on the nodes, the
 * workers' on DPUs or nodes), checked where they can be. 0 or -1. */
static int check_bins(const struct spec *s, const struct plan *p, FILE *out)
{
	struct bin_use host = { "host_bin", s->host_bin, 0, 0, NULL };
	struct bin_use dpu = { "dpu_bin", s->dpu_bin, 0, 0, NULL };
	int ret = 0;

	for (size_t i = 0; i < p->nlayouts; i++) {
		const struct layout *l = &p->layouts[i];

		bin_hosts(&host, &s->nodes, l->nodes);
		if (l->placement == PLACEMENT_DPU && s->dpu_bin)
			bin_hosts(&dpu, &s->dpus, l->nodes);
	}
	if (host.local || host.remote)
		ret |= check_bin(&host, out);
	if (dpu.local || dpu.remote)
		ret |= check_bin(&dpu, out);
	return ret ? -1 : 0;
}

static int dry_run(const struct run_opts *o, struct runner *r, const struct plan *p,
		   const struct runner_job *jobs, size_t n)
{
	if (check_bins(r->spec, p, stdout))
		return EXIT_USAGE;
	printf("# %s: %zu layouts x %u repetitions = %zu launches, %zu points each "
	       "repetition; launcher %s\n",
	       r->spec->path, p->nlayouts, p->repetitions, plan_launches(p), plan_points(p),
	       launcher_name(r->launcher));
	return runner_dry_run(r, o->spec_path, o->db, jobs, n, stdout) ? 1 : 0;
}

/* The measuring, from an open store: the exit status. */
static int sweep(const struct run_opts *o, struct runner *r, struct store *st, const struct plan *p,
		 const struct runner_job *jobs, size_t n)
{
	long long launches = 0, failed = 0, points = 0, invalid = 0;
	int rc;

	if (runner_open(r, st, o->spec_path, o->db, o->fresh, (long long)plan_launches(p),
			(long long)plan_measurements(p), (long)p->nlayouts, (long)p->repetitions))
		return 1;
	runner_signals_install(r);
	rc = runner_sweep(r, jobs, n, p->repetitions, o->only_rep);
	runner_signals_restore(r);
	if (rc < 0 || runner_finish(r, &launches, &failed, &points, &invalid)) {
		/* A full disk or a lost file system: what was stored stays. */
		fprintf(stderr,
			"sweetspot: stopped: the run's files or database could not be "
			"written; every launch reported done is stored: fix the cause and run the "
			"same command again to continue\n");
		return 1;
	}
	if (rc == 1) {
		fprintf(stderr,
			"sweetspot: interrupted; run %lld keeps %lld launches (%lld points): "
			"run the same command again to continue\n",
			r->run.id, launches, points);
		return 130;
	}
	if (rc == 2)
		fprintf(stderr,
			"sweetspot: stopped after %llu launches (--max-launches); "
			"%lld of %lld recorded: run the same command again to continue\n",
			r->ran, launches, r->run.planned_launches);
	printf("run %lld: %lld of %lld launches, %lld failed; %lld points stored, %lld invalid\n",
	       r->run.id, launches, r->run.planned_launches, failed, points, invalid);
	return failed ? 1 : 0;
}

/* Adaptive repetitions (docs/decisions.md, "Statistics"): when the spec
 * names a max_repetitions above repetitions, the sweep's launches are
 * followed by racing: the grid strategy of the search resumes from what is
 * stored and adds launches only to the layouts of undecided decision
 * groups, never past max_repetitions, dropping those shown worse than the
 * leader. The exit status. */
static int race(const struct run_opts *o, const struct spec *s, const struct plan *p,
		enum launcher l)
{
	struct search_opts so = SEARCH_OPTS_INIT;
	struct search_result res;
	unsigned failed = 0, v[3] = { 0, 0, 0 };
	int rc;

	so.strategy = SEARCH_GRID;
	search_opts_from_spec(s, &so);
	fprintf(stderr,
		"sweetspot: racing: more launches where a decision is undecided, up to "
		"%u per layout\n",
		s->max_repetitions);
	rc = runner_search_run(s, p, o->spec_path, o->db, l, &so, NULL, &res, &failed);
	if (rc)
		return rc == 1 ? 130 : 1;
	for (size_t i = 0; i < res.ndecisions; i++)
		v[res.decisions[i].verdict]++;
	printf("racing: %u launches in all (the grid's %u), %u failed; verdicts: %u best, %u tie, "
	       "%u undecided\n",
	       res.launches, res.grid_launches, failed, v[DECIDE_BEST], v[DECIDE_TIE],
	       v[DECIDE_UNDECIDED]);
	search_result_release(&res);
	return failed ? 1 : 0;
}

static int wants_race(const struct run_opts *o, const struct spec *s)
{
	return s->max_repetitions_set && s->max_repetitions > s->repetitions && !o->only &&
	       !o->max_launches && !o->dry_run;
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o = { .db = STORE_DEFAULT_PATH };
	struct spec s = SPEC_INIT;
	struct plan p = PLAN_INIT;
	struct store *st = NULL;
	struct runner r = RUNNER_INIT;
	struct runner_job *jobs = NULL;
	enum launcher launcher;
	size_t njobs = 0;
	char *prog = NULL;
	int status = EXIT_USAGE;

	status = parse_args(argc, argv, &o);
	if (status != CLI_END) {
		status = cli_status(status);
		goto out;
	}
	status = EXIT_USAGE;
	if (spec_load(o.spec_path, &s) || plan_build(&s, &p) || check_only(&o, &p) ||
	    runner_pick_launcher(o.launcher, &s, o.spec_path, o.dry_run, &launcher))
		goto out;
	runner_init(&r, &s, launcher);
	r.retry_failed = o.retry_failed;
	r.max_launches = o.max_launches;
	r.wait_lock = o.wait_lock;
	r.progress_out = stderr;
	jobs = select_jobs(&o, &p, &njobs);
	prog = launch_which(launcher_program(r.launcher));
	if (o.dry_run) {
		status = dry_run(&o, &r, &p, jobs, njobs);
		goto out;
	}
	if (!prog) {
		error("%s is not installed (not found in PATH); choose another with --launcher",
		      launcher_program(r.launcher));
		goto out;
	}
	if (store_open(o.db, STORE_CREATE, &st))
		goto out;
	status = sweep(&o, &r, st, &p, jobs, njobs);
	if ((status == 0 || status == 1) && wants_race(&o, &s)) {
		/* The racing engine takes the run's lock and store itself. */
		runner_release(&r);
		r = (struct runner)RUNNER_INIT;
		store_close(st);
		st = NULL;
		int raced = race(&o, &s, &p, launcher);

		status = raced ? raced : status;
	}
out:
	free(o.only);
	free(prog);
	free(jobs);
	runner_release(&r);
	store_close(st);
	plan_release(&p);
	spec_release(&s);
	return status;
}
