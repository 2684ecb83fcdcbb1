/*
 * tuner/cmd/cmd_submit.c: `sweetspot submit SPEC`, a sweep as Slurm batch jobs.
 * The job script runs the adaptive search, `sweetspot search SPEC --db DB`
 * (or with --strategy grid, `sweetspot run SPEC --db DB`), inside the
 * allocation, where it launches with srun; the allocation names exactly
 * the hosts the plan places ranks on. A sweep too long for one allocation
 * is cut into chunks, each a job chained after the previous one with
 * afterany and each resuming where the last stopped (the search replays
 * the launches the database holds and goes on from the first it lacks;
 * run skips what is recorded), so a chunk that hits its time limit loses
 * nothing. Every job id is recorded in the database. With --wait it
 * follows the jobs in order: their state (squeue, then scontrol once they
 * leave the queue, polled with a back-off) and the progress and decision
 * lines their output file gains (tailed), until the last ends. Slurm's
 * queries, the chain and its follow-up are launch/slurm.c's.
 */
#include "child.h"
#include "cli.h"
#include "cmds.h"
#include "error.h"
#include "files.h"
#include "parse.h"
#include "plan.h"
#include "recommend.h"
#include "runlock.h"
#include "sbatch.h"
#include "search.h"
#include "slurm.h"
#include "spec.h"
#include "store_write.h"
#include "strvec.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { OPT_STRATEGY, OPT_BUDGET, OPT_WAIT, OPT_CHUNKS, OPT_HETJOB, OPT_DB, NOPTS };

static const struct cli_option submit_options[NOPTS + 1] = {
	[OPT_STRATEGY] = { "strategy", 0, "S",
			   "adaptive (default): the jobs run the budgeted search\n"
			   "(sweetspot search); grid: every layout `repetitions` times\n"
			   "(sweetspot run)" },
	[OPT_BUDGET] = { "budget", 0, "N|P%",
			 "the search's launches: N, or P% of the grid's (default:\n"
			 "the spec's budget, else 15%)" },
	[OPT_WAIT] = { "wait", 0, NULL,
		       "follow the jobs to their end: state changes, the [k/N]\n"
		       "launch lines of their output and the decisions as the\n"
		       "search reaches them; exit 0 when the last succeeded" },
	[OPT_CHUNKS] = { "chunks", 0, "N",
			 "cut the search (or sweep) into N jobs chained with\n"
			 "afterany, each resuming where the previous one stopped\n"
			 "(default 1)" },
	[OPT_HETJOB] = { "hetjob", 0, NULL,
			 "a heterogeneous job: host nodes and DPUs as two node\n"
			 "classes (#SBATCH hetjob); launches then use srun --het-group" },
	[OPT_DB] = { "db", 0, "FILE",
		     "the results database (default " STORE_DEFAULT_PATH ");\n"
		     "job scripts and their output go to jobs/ beside it" },
	[NOPTS] = { NULL, 0, NULL, NULL },
};

static const struct cli_command submit_cli = {
	"submit",
	"SPEC [--strategy adaptive|grid] [--budget N|P%] [--wait] [--chunks N]\n"
	"[--hetjob] [--db FILE]",
	"Submit the search as Slurm batch jobs (sbatch --parsable) that run\n"
	"'sweetspot search SPEC --db FILE' ('sweetspot run' with --strategy grid)\n"
	"inside their allocation, launching with srun.",
	submit_options,
	"Exit status: 0 submitted (with --wait: and the last job succeeded), 1 failure,\n"
	"2 bad usage or a bad spec.",
};

/* The hosts a plan puts ranks on, in order of first use, and the most
 * ranks any of them holds in one layout: what the allocation must give. */
struct alloc_need {
	struct strvec hosts;
	unsigned tasks_per_node;
	unsigned dpu_hosts; /* hosts that only ever hold workers */
	/* The same split in two node classes, for a heterogeneous job:
	 * nodes that hold host ranks, and DPUs that only hold workers. */
	struct strvec host_class, dpu_class;
	unsigned host_tpn, dpu_tpn;
};

static void need_hosts(const struct spec *s, const struct plan *p, struct alloc_need *need)
{
	unsigned *count = NULL, *hosts_role = NULL;

	strvec_init(&need->hosts);
	need->tasks_per_node = 1;
	need->dpu_hosts = 0;
	for (size_t i = 0; i < p->nlayouts; i++) {
		const struct layout *l = &p->layouts[i];

		for (size_t h = 0; h < need->hosts.nr; h++)
			count[h] = 0;
		for (unsigned r = 0; r < layout_ranks(l); r++) {
			const char *name = layout_rank_host(s, l, r);
			size_t h;

			for (h = 0; h < need->hosts.nr; h++)
				if (!strcmp(need->hosts.v[h], name))
					break;
			if (h == need->hosts.nr) {
				strvec_push(&need->hosts, name);
				count = xrealloc(count, need->hosts.nr * sizeof(*count));
				hosts_role = xrealloc(hosts_role,
						      need->hosts.nr * sizeof(*hosts_role));
				count[h] = 0;
				hosts_role[h] = 0;
			}
			count[h]++;
			hosts_role[h] |= r < l->hosts ? 1u : 2u;
			if (count[h] > need->tasks_per_node)
				need->tasks_per_node = count[h];
		}
	}
	strvec_init(&need->host_class);
	strvec_init(&need->dpu_class);
	need->host_tpn = need->dpu_tpn = 1;
	for (size_t h = 0; h < need->hosts.nr; h++) {
		need->dpu_hosts += hosts_role[h] == 2u;
		strvec_push(hosts_role[h] == 2u ? &need->dpu_class : &need->host_class,
			    need->hosts.v[h]);
	}
	/* Most ranks of one class on one node, in any layout. */
	for (size_t i = 0; i < p->nlayouts; i++) {
		const struct layout *l = &p->layouts[i];
		unsigned most = 0;

		for (unsigned n = 0; n < l->nodes; n++)
			if (layout_workers_on(l, n) > most)
				most = layout_workers_on(l, n);
		if (l->ppn > need->host_tpn)
			need->host_tpn = l->ppn;
		if (l->placement == PLACEMENT_DPU && most > need->dpu_tpn)
			need->dpu_tpn = most;
	}
	free(count);
	free(hosts_role);
}

struct submit_args {
	const char *db, *spec_path;
	uint64_t chunks;
	int wait, het;
	int grid;	    /* --strategy grid: the jobs run `sweetspot run` */
	const char *budget; /* --budget as given, passed on to the jobs; NULL: none */
	unsigned budget_n;  /* and parsed */
	double budget_frac;
};

/* CLI_END when the command goes on, else CLI_HELP or CLI_BAD. */
static int submit_args(int argc, char **argv, struct submit_args *a)
{
	struct cli c;
	int o;

	cli_begin(&c, &submit_cli, argc, argv);
	while ((o = cli_next(&c)) >= 0) {
		switch (o) {
		case OPT_WAIT:
			a->wait = 1;
			break;
		case OPT_HETJOB:
			a->het = 1;
			break;
		case OPT_DB:
			a->db = c.arg;
			break;
		case OPT_CHUNKS:
			if (cli_uint(&c, 1, 10000, &a->chunks))
				return CLI_BAD;
			break;
		case OPT_STRATEGY:
			if (strcmp(c.arg, "adaptive") && strcmp(c.arg, "grid")) {
				cli_usage_error(&submit_cli,
						"--strategy: unknown strategy '%s' (adaptive or "
						"grid)",
						c.arg);
				return CLI_BAD;
			}
			a->grid = !strcmp(c.arg, "grid");
			break;
		case OPT_BUDGET: {
			char err[160];

			if (parse_budget(c.arg, &a->budget_n, &a->budget_frac, err, sizeof(err))) {
				cli_usage_error(&submit_cli, "--budget: %s", err);
				return CLI_BAD;
			}
			a->budget = c.arg;
			break;
		}
		}
	}
	if (o != CLI_END)
		return o;
	if (cli_operands(&c, 1, 1, "SPEC"))
		return CLI_BAD;
	if (a->grid && a->budget) {
		cli_usage_error(&submit_cli, "--budget is the search's: --strategy grid measures "
					     "every layout (no --budget with it)");
		return CLI_BAD;
	}
	a->spec_path = c.operands[0];
	return CLI_END;
}

/* What every chunk's job shares: the allocation, the paths, the store. */
struct submit {
	const struct submit_args *a;
	struct spec spec;
	struct plan plan;
	struct store *st;
	struct alloc_need need;
	char *db_abs, *spec_abs, *self, *jobs_dir, *base;
	char *nodelist, *host_list, *dpu_list;
	size_t per_chunk;
	size_t launches; /* the search's budget, or the grid's launches */
	uint64_t chunks;
	long stamp;
	int job_status;		  /* of the last job, when waited for */
	struct slurm_chain chain; /* every chunk's job, its id and output file */
	struct runlock lock;	  /* the run's, while jobs are checked and submitted */
};

/* The launches the jobs' search may make: its budget, as the search in
 * the job will take it (the spec's statistics, then --budget). */
static size_t search_launches(const struct submit *sb)
{
	struct search_space sp;
	struct search_opts o = SEARCH_OPTS_INIT;
	struct search_problem prob;
	unsigned b;

	o.budget = sb->a->budget_n;
	o.budget_frac = sb->a->budget_frac;
	search_opts_from_spec(&sb->spec, &o);
	search_space_from_plan(&sb->spec, &sb->plan, &sp);
	prob = (struct search_problem){ sp.layouts,	sp.nlayouts, sp.groups, sp.ngroups,
					sp.repetitions, NULL,	     NULL };
	b = search_budget(&prob, &o);
	search_space_release(&sp);
	return b ? b : plan_launches(&sb->plan);
}

/* Reads the spec and works out the allocation. Returns the exit status:
 * 0 to go on, EXIT_USAGE for bad input, 1 when a folder cannot be made. */
static int submit_prepare(struct submit *sb)
{
	char *sbatch;
	size_t launches;

	if (spec_load(sb->a->spec_path, &sb->spec) || plan_build(&sb->spec, &sb->plan))
		return EXIT_USAGE;
	need_hosts(&sb->spec, &sb->plan, &sb->need);
	if (sb->a->het && !sb->need.dpu_class.nr) {
		error("submit --hetjob: %s puts no worker on a DPU of its own (placement dpu), "
		      "so there is no second node class",
		      sb->a->spec_path);
		return EXIT_USAGE;
	}
	sbatch = launch_which("sbatch");
	if (!sbatch) {
		error("sbatch is not installed (not found in PATH)");
		return EXIT_USAGE;
	}
	free(sbatch);
	/* The database must be one we can write before any job is queued. */
	if (store_open(sb->a->db, STORE_CREATE, &sb->st))
		return EXIT_USAGE;
	sb->spec_abs = spec_run_key(sb->a->spec_path);
	/* No jobs queued while a run of the spec writes (the jobs' runs
	 * wait for the lock, so a submit never races its own jobs). */
	if (runlock_take(&sb->lock, sb->a->db, sb->spec_abs, 0))
		return 1;
	sb->db_abs = files_absolute(sb->a->db);
	sb->self = files_self_path("sweetspot");
	sb->jobs_dir = xasprintf("%.*s/jobs", (int)(strrchr(sb->db_abs, '/') - sb->db_abs),
				 sb->db_abs);
	if (files_mkdir(sb->jobs_dir))
		return 1;
	sb->nodelist = strvec_join(&sb->need.hosts, ",");
	sb->host_list = strvec_join(&sb->need.host_class, ",");
	sb->dpu_list = strvec_join(&sb->need.dpu_class, ",");
	launches = sb->a->grid ? plan_launches(&sb->plan) : search_launches(sb);
	sb->launches = launches;
	sb->chunks = sb->a->chunks > launches ? launches : sb->a->chunks;
	sb->per_chunk = (launches + sb->chunks - 1) / sb->chunks;
	sb->base = strrchr(sb->spec_abs, '/') + 1;
	return 0;
}

/* Chunk k's `sweetspot search` (or `run`) command line. */
static void chunk_command(const struct submit *sb, uint64_t k, struct strvec *command)
{
	strvec_clear(command);
	strvec_push(command, sb->self);
	strvec_push(command, sb->a->grid ? "run" : "search");
	strvec_push(command, sb->spec_abs);
	strvec_push(command, "--db");
	strvec_push(command, sb->db_abs);
	if (sb->a->budget) {
		strvec_push(command, "--budget");
		strvec_push(command, sb->a->budget);
	}
	/* A job may start while this submit still holds the run's lock. */
	strvec_push(command, "--wait-lock");
	/* The last chunk takes whatever is left, even after a lost one. */
	if (k < sb->chunks) {
		strvec_push(command, "--max-launches");
		strvec_pushf(command, "%zu", sb->per_chunk);
	}
}

/* The nodes of the allocation: one class, or hosts and DPUs apart. */
static void job_parts(const struct submit *sb, struct sbatch_job *job)
{
	if (sb->a->het) {
		job->part[0].nodes = (unsigned)sb->need.host_class.nr;
		job->part[0].tasks_per_node = sb->need.host_tpn;
		job->part[0].nodelist = sb->host_list;
		job->part[1].nodes = (unsigned)sb->need.dpu_class.nr;
		job->part[1].tasks_per_node = sb->need.dpu_tpn;
		job->part[1].nodelist = sb->dpu_list;
		job->nparts = 2;
	} else {
		job->part[0].nodes = (unsigned)sb->need.hosts.nr;
		job->part[0].tasks_per_node = sb->need.tasks_per_node;
		job->part[0].nodelist = sb->nodelist;
		job->nparts = 1;
	}
}

/* Records the intent to submit chunk k's script, before sbatch is asked:
 * a submit killed between sbatch's accepting the job and our recording
 * its id leaves this row, and the next submit asks Slurm about it. */
static int record_intent(struct submit *sb, uint64_t k, const char *script, long long *row)
{
	struct store_job rec = { 0 };

	rec.spec_path = sb->spec_abs;
	rec.spec_hash = sb->spec.hash;
	rec.job_id = NULL;
	rec.chunk = (int)k;
	rec.chunks = (int)sb->chunks;
	rec.after = slurm_chain_last(&sb->chain);
	rec.script = script;
	rec.exit_status = -1;
	return store_job_record(sb->st, &rec, row);
}

/* Records chunk k's job id on its intent row and says so. */
static int record_job(struct submit *sb, uint64_t k, long long row, const char *id,
		      const char *prev, const char *script)
{
	int rc = store_job_set_id(sb->st, row, id);

	printf("submitted job %s (chunk %llu of %llu%s%s): %s\n", id, (unsigned long long)k,
	       (unsigned long long)sb->chunks, prev ? ", after " : "", prev ? prev : "", script);
	fflush(stdout);
	return rc;
}

/* The name every job of the spec gets: how Slurm finds them again. */
static char *job_name(const struct submit *sb)
{
	return xasprintf("sweetspot-%.*s", (int)strcspn(sb->base, "."), sb->base);
}

static int in_list(const struct strvec *v, const char *s)
{
	for (size_t i = 0; i < v->nr; i++)
		if (!strcmp(v->v[i], s))
			return 1;
	return 0;
}

/* Says what became of the jobs of one intent row left without an id:
 * the unknown job Slurm has under our name is it (recorded now), or
 * nothing was queued (the row goes). Returns whether it is still queued. */
static int settle_intent(struct submit *sb, struct store_job_row *row, const struct strvec *queued,
			 const struct store_job_row *rows, size_t n, const char *name)
{
	for (size_t q = 0; q < queued->nr; q++) {
		int known = 0;

		for (size_t i = 0; i < n; i++)
			known |= !strcmp(rows[i].job_id, queued->v[q]);
		if (known)
			continue;
		printf("job %s (%s) is queued or running but was never recorded: the job of %s, "
		       "whose submit stopped before sbatch's answer was recorded; recorded now\n",
		       queued->v[q], name, row->script);
		store_job_set_id(sb->st, row->id, queued->v[q]);
		free(row->job_id);
		row->job_id = xstrdup(queued->v[q]); /* not another intent's too */
		return 1;
	}
	printf("the job of %s was never recorded and Slurm has no unknown job named %s: "
	       "it ended or was never queued\n",
	       row->script, name);
	store_job_set_id(sb->st, row->id, NULL);
	return 0;
}

/* Before submitting more: the jobs of this run the database holds as not
 * ended, asked about to Slurm. Returns 0 to go on, 1 when some are still
 * queued or running (reported), -1 after error(). */
static int check_earlier(struct submit *sb)
{
	struct store_job_row *rows = NULL;
	struct strvec queued = STRVEC_INIT, still = STRVEC_INIT;
	char *name = job_name(sb);
	size_t n = 0;
	int ret = -1;

	if (store_jobs_open(sb->st, sb->spec_abs, &rows, &n))
		goto out;
	ret = 0;
	if (!n || slurm_jobs_named(name, sb->jobs_dir, &queued))
		goto out; /* none recorded, or Slurm cannot say: the run's lock still guards */
	for (size_t i = 0; i < n; i++) {
		if (!*rows[i].job_id) {
			if (settle_intent(sb, &rows[i], &queued, rows, n, name))
				strvec_push(&still, rows[i].job_id);
		} else if (in_list(&queued, rows[i].job_id)) {
			strvec_push(&still, rows[i].job_id);
		}
	}
	if (still.nr) {
		char *list = strvec_join(&still, ",");

		error("jobs of this run are still queued or running (%s: %s): wait for them "
		      "(squeue --name=%s) or cancel them (scancel), then submit again",
		      name, list, name);
		free(list);
		ret = 1;
	} else {
		printf("earlier jobs of this run: none queued or running (squeue --name=%s)\n",
		       name);
	}
out:
	store_job_rows_free(rows, n);
	strvec_clear(&queued);
	strvec_clear(&still);
	free(name);
	return ret;
}

/* Writes chunk k's script, submits it after the previous chunk, records
 * the job. 0, or -1 after error(). */
static int submit_chunk(struct submit *sb, uint64_t k)
{
	int stem = (int)strcspn(sb->base, ".");
	struct sbatch_job job = { 0 };
	struct strvec command = STRVEC_INIT;
	char *script = xasprintf("%s/%.*s-%ld-c%llu.sbatch", sb->jobs_dir, stem, sb->base,
				 sb->stamp, (unsigned long long)k);
	char *output = xasprintf("%s/%.*s-%%j.out", sb->jobs_dir, stem, sb->base);
	char *name = job_name(sb);
	char *id = NULL, *prev = NULL, cwd[PATH_MAX];
	long long row = 0;
	int rc;

	chunk_command(sb, k, &command);
	job.name = name;
	/* Each launch may take its time limit, plus time to start. */
	job.time_limit_s = (unsigned)(sb->per_chunk * (sb->spec.time_limit + 30) + 60);
	job.output = output;
	job.chdir = getcwd(cwd, sizeof(cwd)) ? cwd : NULL;
	job_parts(sb, &job);
	job.command = &command;
	rc = sbatch_write(&job, script);
	if (!rc)
		rc = record_intent(sb, k, script, &row);
	if (!rc) {
		if (slurm_chain_last(&sb->chain))
			prev = xstrdup(slurm_chain_last(&sb->chain));
		rc = slurm_chain_submit(&sb->chain, script, output, &id);
		if (rc)
			store_job_set_id(sb->st, row, NULL); /* nothing was submitted */
	}
	if (!rc)
		rc = record_job(sb, k, row, id, prev, script);
	if (!rc) {
		const char *out = sb->chain.outputs.v[sb->chain.outputs.nr - 1];

		printf("  output: %s\n", out);
		if (!sb->a->wait)
			printf("  follow it: tail -f %s\n", out);
		fflush(stdout);
	}
	free(id);
	free(prev);
	free(script);
	free(output);
	free(name);
	strvec_clear(&command);
	return rc;
}

/* After --wait: what the run holds, and the last job's status as ours. */
static int report_wait(struct submit *sb)
{
	struct store_run run = { 0 };
	long long got = 0, failed = 0, points = 0, invalid = 0;

	if (store_latest_run(sb->st, sb->spec_abs, &run) == 1 &&
	    !store_run_counts(sb->st, run.id, &got, &failed, &points, &invalid)) {
		if (sb->a->grid)
			printf("run %lld: %lld of %lld launches, %lld failed; %lld points stored, "
			       "%lld invalid\n",
			       run.id, got, run.planned_launches, failed, points, invalid);
		else
			printf("run %lld: the search made %lld launches of its budget of %zu (the "
			       "grid: %lld), %lld failed; %lld points stored, %lld invalid; "
			       "'sweetspot recommend %s --db %s' shows its decisions\n",
			       run.id, got, sb->launches, run.planned_launches, failed, points,
			       invalid, sb->a->spec_path, sb->a->db);
	}
	store_run_release(&run);
	if (sb->job_status < 0)
		error("job %s: Slurm no longer knows how it ended", slurm_chain_last(&sb->chain));
	else if (sb->job_status)
		error("job %s ended with status %d", slurm_chain_last(&sb->chain), sb->job_status);
	return sb->job_status == 0 ? 0 : 1;
}

static void submit_release(struct submit *sb)
{
	slurm_chain_release(&sb->chain);
	free(sb->nodelist);
	free(sb->host_list);
	free(sb->dpu_list);
	strvec_clear(&sb->need.hosts);
	strvec_clear(&sb->need.host_class);
	strvec_clear(&sb->need.dpu_class);
	free(sb->db_abs);
	free(sb->spec_abs);
	free(sb->self);
	free(sb->jobs_dir);
	runlock_release(&sb->lock);
	store_close(sb->st);
	plan_release(&sb->plan);
	spec_release(&sb->spec);
}

/* Set by the signal handler while --wait follows the jobs. */
static volatile sig_atomic_t submit_stop;

static void on_signal(int sig)
{
	submit_stop = sig;
}

/* Interrupted while following: the jobs not yet ended are cancelled, so
 * that nothing runs on that nobody follows. The exit status. */
static int cancel_rest(struct submit *sb, size_t k)
{
	struct strvec done = STRVEC_INIT;
	char *list;

	slurm_chain_cancel(&sb->chain, k, sb->jobs_dir, &done);
	list = strvec_join(&done, ", ");
	error("interrupted: job%s %s cancelled (scancel); what they measured is stored, and "
	      "submitting again resumes it",
	      done.nr == 1 ? "" : "s", done.nr ? list : "(none)");
	free(list);
	strvec_clear(&done);
	return 130;
}

/* --wait: each job of the chain to its end, in order; Ctrl-C or SIGTERM
 * cancels those left. The exit status so far (0 to report). */
static int follow(struct submit *sb)
{
	struct sigaction sa = { 0 }, old_int, old_term;
	int status = 0;

	submit_stop = 0;
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sb->chain.stop = &submit_stop;
	for (size_t k = 0; k < sb->chain.ids.nr; k++) {
		sb->job_status = slurm_chain_follow(&sb->chain, k, sb->jobs_dir, stdout);
		if (sb->job_status == SLURM_FOLLOW_STOPPED || submit_stop) {
			status = cancel_rest(sb, k);
			break;
		}
		if (sb->job_status >= 0)
			store_job_finished(sb->st, sb->chain.ids.v[k], sb->job_status);
	}
	sb->chain.stop = NULL;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return status;
}

int cmd_submit(int argc, char **argv)
{
	struct submit_args a = { .db = STORE_DEFAULT_PATH, .chunks = 1 };
	struct submit sb = { .a = &a,
			     .spec = SPEC_INIT,
			     .plan = PLAN_INIT,
			     .chain = SLURM_CHAIN_INIT,
			     .lock = RUNLOCK_INIT,
			     .need = { STRVEC_INIT, 0, 0, STRVEC_INIT, STRVEC_INIT, 0, 0 } };
	int status;

	status = submit_args(argc, argv, &a);
	if (status != CLI_END)
		return cli_status(status);
	sb.stamp = (long)time(NULL);
	status = submit_prepare(&sb);
	if (!status && check_earlier(&sb))
		status = 1;
	for (uint64_t k = 1; !status && k <= sb.chunks; k++)
		if (submit_chunk(&sb, k))
			status = 1;
	/* The jobs' runs take the lock; following them needs none. */
	runlock_release(&sb.lock);
	if (!status && sb.need.dpu_hosts && !a.het)
		printf("note: hosts and DPUs in one allocation (--nodelist %s); --hetjob makes "
		       "them two node classes\n",
		       sb.nodelist);
	if (!status && a.wait)
		status = follow(&sb);
	if (!status && a.wait)
		status = report_wait(&sb);
	submit_release(&sb);
	return status;
}
