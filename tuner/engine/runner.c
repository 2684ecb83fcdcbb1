/*
 * tuner/engine/runner.c: the one sweep engine (see runner.h): the run a sweep
 * continues or begins, each launch's folder, command, spawn, records,
 * checks and stored transaction, retries, resume, progress and signals.
 */
#include "runner.h"
#include "store_write.h"
#include "child.h"
#include "error.h"
#include "files.h"
#include "generate.h"
#include "recommend.h"
#include "record.h"
#include "timestamp.h"
#include "xalloc.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Set by the signal handler; checked between launches. */
static volatile sig_atomic_t runner_stop;

static void on_signal(int sig)
{
	runner_stop = sig;
}

void runner_signals_install(struct runner *r)
{
	struct sigaction sa = { 0 };

	runner_stop = 0;
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &r->old_int);
	sigaction(SIGTERM, &sa, &r->old_term);
	r->signals = 1;
}

void runner_signals_restore(struct runner *r)
{
	if (!r->signals)
		return;
	sigaction(SIGINT, &r->old_int, NULL);
	sigaction(SIGTERM, &r->old_term, NULL);
	r->signals = 0;
}

void runner_init(struct runner *r, const struct spec *s, enum launcher l)
{
	struct strvec args = STRVEC_INIT;

	for (size_t i = 0; i < s->kernel_args.nr; i++)
		strvec_push(&args, s->kernel_args.v[i]);
	strvec_push(&args, "-o");
	strvec_push(&args, RUNNER_POINTS_FILE);
	r->own = *s;
	r->own.kernel_args = args;
	r->spec = &r->own;
	r->launcher = l;
}

int runner_pick_launcher(const char *name, const struct spec *s, const char *spec_path, int dry_run,
			 enum launcher *l)
{
	if (name) {
		if (launcher_parse(name, l))
			return -1;
	} else if (getenv("SLURM_JOB_ID")) {
		*l = LAUNCHER_SRUN;
	} else {
		*l = s->launcher;
	}
	/* srun outside an allocation would queue a job of its own for every
	 * launch; a dry run only shows the commands, so it may be read anywhere. */
	if (*l == LAUNCHER_SRUN && !getenv("SLURM_JOB_ID") && !dry_run)
		return error("the srun launcher runs inside a Slurm allocation (SLURM_JOB_ID is "
			     "not set): use 'sweetspot submit %s', or salloc, or --launcher mpirun",
			     spec_path);
	return 0;
}

/* Absolute, because launchers start in the launch's folder and the paths in
 * their arguments must name the same files there. */
char *runner_runs_root(const char *db)
{
	const char *slash = strrchr(db, '/'), *name = slash ? slash + 1 : db;
	size_t stem = strcspn(name, ".");
	char cwd[4096], *dir, *out;

	if (*db == '/')
		dir = xasprintf("%.*s", (int)(slash - db), db);
	else if (!getcwd(cwd, sizeof(cwd)))
		dir = xasprintf("%.*s", slash ? (int)(slash - db) : 1, slash ? db : ".");
	else if (!slash)
		dir = xstrdup(cwd);
	else
		dir = xasprintf("%s/%.*s", cwd, (int)(slash - db), db);
	/* Two databases in one folder never share a launch folder. */
	if (stem == strlen("sweetspot") && !strncmp(name, "sweetspot", stem))
		out = xasprintf("%s/runs/", dir);
	else
		out = xasprintf("%s/runs/%.*s-", dir, (int)stem, name);
	free(dir);
	return out;
}

/* The first line a program prints for --version, or NULL when it is not
 * installed or says nothing: an argv child with a log, like every launch. */
static char *tool_version(const char *prog, const char *arg)
{
	char tmpl[] = "/tmp/sweetspot-version.XXXXXX", line[256] = "";
	struct strvec av = STRVEC_INIT;
	struct launch_child c = { 0 };
	struct launch_result r;
	char *path = launch_which(prog), *out = NULL;
	FILE *f;
	int fd;

	if (!path)
		return NULL;
	fd = mkstemp(tmpl);
	if (fd < 0)
		goto done;
	close(fd);
	strvec_push(&av, path);
	strvec_push(&av, arg);
	c.argv = &av;
	c.log = tmpl;
	c.timeout_s = 20;
	if (launch_spawn(&c, &r) == 0 && (f = fopen(tmpl, "r"))) {
		while (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\r\n")] = '\0';
			if (*line) {
				out = xstrdup(line);
				break;
			}
		}
		fclose(f);
	}
	unlink(tmpl);
done:
	strvec_clear(&av);
	free(path);
	return out;
}

/* The key runs are found by: the spec's absolute path (the same file given
 * from another folder, or by a batch job, continues the same run), with
 * ":label" for runs that are not sweeps. */
static char *run_key(const struct runner *r, const char *spec_path)
{
	char *abs = spec_run_key(spec_path), *key;

	if (!r->label)
		return abs;
	key = xasprintf("%s:%s", abs, r->label);
	free(abs);
	return key;
}

static int begin_run(struct runner *r, char *key, long long launches, long long points)
{
	struct store_run *run = &r->run;
	char host[256] = "unknown";

	memset(run, 0, sizeof(*run));
	run->spec_path = key;
	run->spec_hash = xstrdup(r->spec->hash);
	gethostname(host, sizeof(host) - 1);
	run->host = xstrdup(host);
	run->launcher = xstrdup(launcher_name(r->launcher));
	run->sweetspot_version = xstrdup(SWEETSPOT_VERSION);
	run->ompi_version = tool_version("ompi_info", "--version");
	if (!run->ompi_version)
		run->ompi_version = tool_version("mpirun", "--version");
	run->slurm_version = tool_version("srun", "--version");
	run->planned_launches = launches;
	run->planned_points = points;
	return store_run_begin(r->store, run);
}

int runner_open(struct runner *r, struct store *st, const char *spec_path, const char *db,
		int fresh, long long launches, long long points, long nlayouts, long reps)
{
	struct store_run last = { 0 };
	char *key = run_key(r, spec_path);
	int found;

	r->store = st;
	r->root = runner_runs_root(db);
	/* Before the run is looked up: a second writer must not begin one
	 * beside the first, nor continue one it is still measuring. */
	if (runlock_take(&r->lock, db, key, r->wait_lock)) {
		free(key);
		return -1;
	}
	progress_init(&r->prog, r->progress_out ? r->progress_out : stderr,
		      r->progress_out && isatty(fileno(r->progress_out)), nlayouts, reps);
	found = store_latest_run(st, key, &last);
	if (found < 0) {
		free(key);
		return -1;
	}
	if (found && !fresh && !strcmp(last.spec_hash, r->spec->hash)) {
		free(key);
		r->run = last;
		fprintf(stderr, "sweetspot: continuing run %lld of %s (started %s)\n", r->run.id,
			spec_path, r->run.started);
		return 0;
	}
	if (found && !fresh)
		fprintf(stderr,
			"sweetspot: %s changed since run %lld (hash %s, now %s): "
			"starting a new run\n",
			spec_path, last.id, last.spec_hash, r->spec->hash);
	store_run_release(&last);
	if (begin_run(r, key, launches, points))
		return -1;
	fprintf(stderr, "sweetspot: run %lld of %s: %lld launches, %lld points\n", r->run.id,
		spec_path, launches, points);
	return 0;
}

/* srun inside a heterogeneous allocation (submit --hetjob): --multi-prog
 * cannot span its components, so hosts and workers are one component
 * each, the hosts block-wise over the host nodes and the workers over
 * the DPUs, as the plan places them. */
static int build_het(const struct spec *s, const struct layout *l, const struct launch_opts *lo,
		     struct launch_cmd *cmd)
{
	struct strvec hargs = STRVEC_INIT, wargs = STRVEC_INIT;
	struct launch_het_part hp, wp;
	int rc;

	strvec_push(&hargs, s->host_bin);
	layout_kernel_args(s, l, &hargs);
	strvec_push(&wargs, spec_worker_bin(s, l->placement));
	layout_kernel_args(s, l, &wargs);
	hp = (struct launch_het_part){ &hargs, l->hosts, l->nodes };
	wp = (struct launch_het_part){ &wargs, l->workers, layout_worker_nodes(l) };
	rc = launch_argv_srun_het(lo, &hp, &wp, cmd);
	strvec_clear(&hargs);
	strvec_clear(&wargs);
	return rc;
}

/* The command of a plan layout whose files are (or, in a dry run, would
 * be) in dir: the spec's environment and the job's, and the spec's
 * launcher arguments when its launcher is the one used. */
static int build_layout(const struct runner *r, const struct runner_job *job, const char *dir,
			int check_files, struct launch_cmd *cmd)
{
	const struct spec *s = r->spec;
	struct launch_opts lo = LAUNCH_OPTS_INIT;
	struct strvec env = STRVEC_INIT, hosts = STRVEC_INIT;
	int rc;

	for (size_t i = 0; i < s->env.nr; i++)
		strvec_push(&env, s->env.v[i]);
	for (size_t i = 0; job->env && i < job->env->nr; i++)
		strvec_push(&env, job->env->v[i]);
	lo.dir = dir;
	lo.ranks = layout_ranks(job->layout);
	lo.time_limit_s = s->time_limit;
	lo.env = &env;
	lo.check_files = check_files;
	if (!check_files) {
		/* Files not written yet: srun takes the step's nodes from the
		 * plan, a node's run of ranks once (8.3M ranks, 320,000 runs). */
		lo.nodes = layout_host_count(s, job->layout);
		for (unsigned rk = 0; rk < layout_ranks(job->layout); rk++) {
			const char *h = layout_rank_host(s, job->layout, rk);

			if (!hosts.nr || strcmp(hosts.v[hosts.nr - 1], h))
				strvec_push(&hosts, h);
		}
		lo.hosts = &hosts;
	}
	if (s->launcher_args.nr && r->launcher == s->launcher)
		lo.extra = &s->launcher_args;
	if (r->launcher == LAUNCHER_SRUN && getenv("SLURM_HET_SIZE"))
		rc = build_het(s, job->layout, &lo, cmd);
	else
		rc = launch_argv(r->launcher, &lo, cmd);
	strvec_clear(&env);
	strvec_clear(&hosts);
	return rc;
}

static int build_cmd(const struct runner *r, const struct runner_job *job, const char *dir,
		     int check_files, struct launch_cmd *cmd)
{
	if (job->layout)
		return build_layout(r, job, dir, check_files, cmd);
	if (!r->build)
		return error("%s: a job without a layout needs a command builder", job->row.id);
	return r->build(r, job, dir, check_files, cmd);
}

/* One launch's folder and command, ready to spawn. */
struct prepared {
	char *dir, *points_path, *log_path, *line;
	struct launch_cmd cmd;
	struct launch_child child;
	size_t points; /* the launch's records, for points_written() */
	/* points_landing()'s: where to report, what, since when, how many
	 * points were reported last. */
	struct progress *prog;
	const char *layout;
	unsigned rep;
	double start;
	size_t seen;
};

/* launch_child's work_done: the kernel has written every record of the
 * launch (whole lines; it closes its output before MPI_Finalize). */
static size_t points_lines(const char *path, size_t most);

static int points_written(void *arg)
{
	const struct prepared *pp = arg;

	return points_lines(pp->points_path, pp->points) >= pp->points;
}

/* Whole lines of a points file, up to most. */
static size_t points_lines(const char *path, size_t most)
{
	FILE *f = fopen(path, "r");
	size_t lines = 0;
	int ch;

	if (!f)
		return 0;
	while (lines < most && (ch = getc(f)) != EOF)
		lines += ch == '\n';
	fclose(f);
	return lines;
}

/* launch_child's tick: a launch running longer than PROGRESS_LANDING_S
 * reports its points as they land, so a long one is seen to progress. */
static void points_landing(void *arg)
{
	struct prepared *pp = arg;
	double t = progress_now() - pp->start;
	size_t got;

	if (t < PROGRESS_LANDING_S)
		return;
	got = points_lines(pp->points_path, pp->points);
	if (got > pp->seen) {
		pp->seen = got;
		progress_landing(pp->prog, pp->layout, (int)pp->rep, (long)got, (long)pp->points,
				 t);
	}
}

static void prepared_release(struct prepared *pp)
{
	free(pp->dir);
	free(pp->points_path);
	free(pp->log_path);
	free(pp->line);
	launch_cmd_clear(&pp->cmd);
	memset(pp, 0, sizeof(*pp));
}

/* The log opens with the command, so that it says what it is the log of;
 * the child appends to it. */
static int write_log_head(const char *path, const char *line)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return error("cannot write %s: %s", path, strerror(errno));
	fprintf(f, "# command: %s\n", line);
	if (fclose(f))
		return error("cannot write %s: %s", path, strerror(errno));
	return 0;
}

/* Generates the job's files in dir (created afresh) and builds its command. */
static int prepare(const struct runner *r, const struct runner_job *job, const char *dir,
		   struct prepared *pp)
{
	struct launch_cmd empty = LAUNCH_CMD_INIT;

	memset(pp, 0, sizeof(*pp));
	pp->cmd = empty;
	pp->dir = xstrdup(dir);
	pp->points_path = xasprintf("%s/" RUNNER_POINTS_FILE, dir);
	pp->log_path = xasprintf("%s/log", dir);
	if (files_remove_tree(dir) || files_mkdir_parents(dir))
		return -1;
	if (job->layout ?
		    generate_layout_for(r->spec, job->layout, dir, GEN_LAUNCHER(r->launcher)) :
		    files_mkdir_p(dir))
		return -1;
	if (build_cmd(r, job, dir, 1, &pp->cmd))
		return -1;
	pp->line = launch_cmd_line(&pp->cmd);
	if (write_log_head(pp->log_path, pp->line))
		return -1;
	pp->child.argv = &pp->cmd.argv;
	pp->child.env = &pp->cmd.env;
	pp->child.dir = pp->dir;
	pp->child.log = pp->log_path;
	pp->child.timeout_s = r->spec->time_limit;
	/* An srun that outlives its step, every point written, is ended
	 * (launch_child.work_done: a Slurm bug, not the kernel's). */
	pp->points = job->points;
	pp->child.work_arg = pp;
	if (r->launcher == LAUNCHER_SRUN && job->points)
		pp->child.work_done = points_written;
	return 0;
}

/* The kernel's records of a launch. A last line without its newline was cut
 * by a kill and is dropped; any other bad line is reported in reason. */
static void read_points(const char *path, struct runner_outcome *oc)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, err[256];
	size_t cap = 0, alloc = 0, lineno = 0;
	ssize_t len;

	if (!f) {
		snprintf(oc->reason, sizeof(oc->reason), "the kernel wrote no records (%s: %s)",
			 path, strerror(errno));
		return;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		lineno++;
		if (line[len - 1] != '\n')
			break;
		line[len - 1] = '\0';
		if (!*line)
			continue;
		if (oc->npoints == alloc) {
			alloc = alloc ? 2 * alloc : 32;
			oc->pts = xrealloc(oc->pts, alloc * sizeof(*oc->pts));
		}
		if (record_parse(line, &oc->pts[oc->npoints], err, sizeof(err))) {
			if (!*oc->reason)
				snprintf(oc->reason, sizeof(oc->reason),
					 "%s:%zu: bad kernel record: %s", path, lineno, err);
			continue;
		}
		oc->npoints++;
	}
	free(line);
	fclose(f);
}

/* Whether every rank ran where the plan put it. Emulated hosts tell their
 * name through SLURMD_NODENAME or the stand-in ssh; a plain gethostname()
 * cannot tell emulated nodes apart, so it is not held against the plan. */
static int check_placement(const struct spec *s, const struct layout *l,
			   const struct store_point *p, char *reason, size_t rlen)
{
	json_t *hosts;
	int ret = 0;

	if (!strcmp(p->host_source, "gethostname") || !*p->rank_hosts)
		return 0;
	hosts = json_loads(p->rank_hosts, 0, NULL);
	if (!json_is_array(hosts) || json_array_size(hosts) != layout_ranks(l)) {
		snprintf(reason, rlen, "rank_hosts has %zu names for %u ranks",
			 json_is_array(hosts) ? json_array_size(hosts) : 0, layout_ranks(l));
		ret = -1;
		goto out;
	}
	for (size_t i = 0; i < json_array_size(hosts); i++) {
		const char *got = json_string_value(json_array_get(hosts, i));
		const char *want = layout_rank_host(s, l, (unsigned)i);

		if (!got || strcmp(got, want)) {
			snprintf(reason, rlen,
				 "placement: rank %zu ran on %s, the plan puts it on %s", i,
				 got ? got : "?", want);
			ret = -1;
			break;
		}
	}
out:
	json_decref(hosts);
	return ret;
}

/* Lines of a log that say nothing: empty, our command line, rules. */
static int log_line_empty(const char *line)
{
	const char *s = line + strspn(line, " \t");

	return !*s || !strncmp(s, "# command:", 10) || strspn(s, "-=*") == strlen(s);
}

/* The launcher's own words: the last few lines of the log (mpirun's
 * "could not access or execute an executable", srun's "error: ..."),
 * joined with " / " into out; "" when it said nothing. */
#define LOG_TAIL_LINES 6
#define LOG_TAIL_BYTES 4096

static void log_tail(const char *path, char *out, size_t len)
{
	char buf[LOG_TAIL_BYTES + 1], *lines[LOG_TAIL_LINES], *save = NULL;
	FILE *f = fopen(path, "r");
	size_t n, k = 0, used = 0;
	long size;

	*out = '\0';
	if (!f)
		return;
	if (!fseek(f, 0, SEEK_END) && (size = ftell(f)) > LOG_TAIL_BYTES)
		fseek(f, size - LOG_TAIL_BYTES, SEEK_SET);
	else
		rewind(f);
	n = fread(buf, 1, LOG_TAIL_BYTES, f);
	fclose(f);
	buf[n] = '\0';
	for (char *line = strtok_r(buf, "\r\n", &save); line;
	     line = strtok_r(NULL, "\r\n", &save)) {
		if (log_line_empty(line))
			continue;
		if (k == LOG_TAIL_LINES)
			memmove(lines, lines + 1, --k * sizeof(*lines));
		lines[k++] = line + strspn(line, " \t");
	}
	for (size_t i = 0; i < k && used + 1 < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%s", i ? " / " : "", lines[i]);
}

/* The reason a launch failed, from the launcher's end (with the last
 * lines of its log), its records and their checks; "" when it went well. */
static void judge(const struct runner *r, const struct runner_job *job, const char *log,
		  const struct launch_result *res, struct runner_outcome *oc)
{
	char *reason = oc->reason, tail[600] = "";
	size_t rlen = sizeof(oc->reason), invalid = 0, len;

	for (size_t i = 0; i < oc->npoints; i++) {
		invalid += !oc->pts[i].valid;
		if (!*reason && oc->pts[i].valid && job->layout)
			check_placement(r->spec, job->layout, &oc->pts[i], reason, rlen);
	}
	if (res->status != 0 && !res->lingered) {
		/* The launcher's end first: it is what went wrong. */
		char *both;

		/* A launcher killed at its time limit was stopped by us: its
		 * last words are the kernel's progress, not a reason. */
		if (!res->timed_out && res->status != -1)
			log_tail(log, tail, sizeof(tail));
		both = xasprintf("%s%s%s%s%s", res->reason, *tail ? ": " : "", tail,
				 *reason ? "; " : "", reason);

		snprintf(reason, rlen, "%.*s", (int)rlen - 1, both);
		free(both);
	} else if (!*reason && oc->npoints != job->points) {
		snprintf(reason, rlen, "the kernel wrote %zu of the launch's %zu points",
			 oc->npoints, job->points);
	}
	if (invalid) {
		len = strlen(reason);
		snprintf(reason + len, rlen - len, "%s%zu invalid point%s (validation failed)",
			 len ? "; " : "", invalid, invalid == 1 ? "" : "s");
	}
}

/* An srun ended after its step had (launch_child.work_done), in the
 * launch's log and on stderr: the launch stands on its records alone. */
static void say_lingered(const struct runner_job *job, unsigned rep, const char *log,
			 const struct launch_result *res)
{
	const char *why = "; Slurm before 24.11 can leave srun waiting after a heterogeneous "
			  "step has ended (SchedMD bug 16817)";
	FILE *f = fopen(log, "a");

	if (f) {
		fprintf(f, "sweetspot: %s%s\n", res->reason, why);
		fclose(f);
	}
	fprintf(stderr, "sweetspot: warning: %s r%u: %s%s; the launch is judged by its points\n",
		job->row.id, rep, res->reason, why);
}

/* Spawns a prepared launch and records it with its points. Returns 0 when
 * recorded (ok or failed), 1 when interrupted (nothing recorded), -1 when
 * the store refused. */
static int execute(struct runner *r, const struct runner_job *job, unsigned rep,
		   struct prepared *pp, struct runner_outcome *oc)
{
	struct launch_result res = { 0 };
	struct store_launch rec = { 0 };
	char *started = timestamp_now_iso(), *finished;
	int ret = 1;

	store_points_free(oc->pts, oc->npoints);
	memset(oc, 0, sizeof(*oc));
	/* An attempt's leftovers must not pass for this one's records. */
	unlink(pp->points_path);
	if (r->progress_out && pp->points) {
		pp->prog = &r->prog;
		pp->layout = job->row.id;
		pp->rep = rep;
		pp->start = progress_now();
		pp->seen = 0;
		pp->child.tick = points_landing;
	}
	launch_spawn(&pp->child, &res);
	finished = timestamp_now_iso();
	if (res.interrupted)
		goto out;
	if (res.status != -1 && job->points)
		read_points(pp->points_path, oc);
	judge(r, job, pp->log_path, &res, oc);
	if (res.lingered)
		say_lingered(job, rep, pp->log_path, &res);
	rec.run = r->run.id;
	rec.layout = job->row;
	rec.repetition = (int)rep;
	rec.argv = pp->line;
	rec.exit_status = res.status;
	rec.timed_out = res.timed_out;
	rec.reason = *oc->reason ? oc->reason : NULL;
	rec.log_path = pp->log_path;
	rec.wall_s = res.wall_s;
	rec.started = started;
	rec.finished = finished;
	rec.ok = !*oc->reason;
	ret = store_launch_record(r->store, &rec, oc->pts, oc->npoints);
	oc->ok = rec.ok;
	oc->timed_out = res.timed_out;
	oc->wall_s = res.wall_s;
out:
	free(started);
	free(finished);
	return ret;
}

/* A failed launch gets the spec's retries (transient faults of launchers
 * and fabrics: a crash in MPI_Init); the failed attempt's folder is kept
 * beside, as <folder>.attemptN; the launch log keeps every attempt, the
 * points only the last one's. A launch killed at its time limit is never
 * retried: a hang is a fault to see, not to hide at the cost of another
 * whole time limit. */
static int attempts(struct runner *r, const struct runner_job *job, unsigned rep, const char *dir,
		    struct runner_outcome *oc)
{
	struct prepared pp;
	int rc = -1;

	if (prepare(r, job, dir, &pp))
		goto out;
	rc = execute(r, job, rep, &pp, oc);
	for (unsigned a = 1;
	     rc == 0 && !oc->ok && !oc->timed_out && a <= r->spec->retries && !runner_stop; a++) {
		char *keep = xasprintf("%s.attempt%u", dir, a);

		fprintf(stderr, "sweetspot: %s r%u failed (%s); attempt %u of %u\n", job->row.id,
			rep, oc->reason, a + 1, r->spec->retries + 1);
		prepared_release(&pp);
		if (files_remove_tree(keep) || rename(dir, keep) || prepare(r, job, dir, &pp)) {
			error("cannot prepare another attempt in %s", dir);
			free(keep);
			rc = -1;
			break;
		}
		free(keep);
		rc = execute(r, job, rep, &pp, oc);
	}
out:
	prepared_release(&pp);
	return rc;
}

struct launch_filter {
	const char *layout;
	int repetition;
	struct runner_outcome *oc;
	size_t alloc;
};

static int keep_point(const struct store_point *p, void *data)
{
	struct launch_filter *lf = data;
	struct store_point *q;

	if (p->repetition != lf->repetition || strcmp(p->layout, lf->layout))
		return 0;
	if (lf->oc->npoints == lf->alloc) {
		lf->alloc = lf->alloc ? 2 * lf->alloc : 32;
		lf->oc->pts = xrealloc(lf->oc->pts, lf->alloc * sizeof(*q));
	}
	q = &lf->oc->pts[lf->oc->npoints++];
	store_point_copy(q, p);
	return 0;
}

/* A launch an earlier invocation recorded: its points, for a caller that
 * was not there when they were stored (a search resumed). */
static int read_back(struct runner *r, const struct runner_job *job, unsigned rep,
		     struct runner_outcome *oc)
{
	struct launch_filter lf = { job->row.id, (int)rep, oc, 0 };

	return store_foreach_point(r->store, r->run.id, STORE_ALL_POINTS, keep_point, &lf) < 0 ?
		       -1 :
		       0;
}

int runner_launch(struct runner *r, const struct runner_job *job, unsigned rep,
		  struct runner_outcome *oc)
{
	char *dir;
	int done, rc;

	memset(oc, 0, sizeof(*oc));
	if (runner_stop) {
		r->interrupted = 1;
		return 1;
	}
	done = store_launch_done(r->store, r->run.id, job->row.id, (int)rep, r->retry_failed);
	if (done < 0)
		return -1;
	if (done) {
		progress_skip(&r->prog);
		oc->skipped = 1;
		oc->ok = 1;
		return r->read_back ? read_back(r, job, rep, oc) : 0;
	}
	if (r->max_launches && r->ran == r->max_launches) {
		r->paused = 1;
		return 2;
	}
	r->ran++;
	dir = xasprintf("%s%lld/%s-r%u", r->root, r->run.id, job->row.id, rep);
	if (r->progress_out)
		progress_start(&r->prog, job->row.id, (int)rep);
	rc = attempts(r, job, rep, dir, oc);
	free(dir);
	if (rc == 1)
		r->interrupted = 1;
	else if (rc == 0 && r->progress_out)
		progress_done(&r->prog, job->row.id, (int)rep, (long)oc->npoints, oc->wall_s,
			      oc->ok ? NULL : oc->reason);
	return rc;
}

int runner_sweep(struct runner *r, const struct runner_job *jobs, size_t njobs, unsigned reps,
		 unsigned only_rep)
{
	for (size_t i = 0; i < njobs; i++)
		for (unsigned rep = 1; rep <= reps; rep++) {
			struct runner_outcome oc;
			int rc;

			if (only_rep && rep != only_rep)
				continue;
			rc = runner_launch(r, &jobs[i], rep, &oc);
			store_points_free(oc.pts, oc.npoints);
			if (rc)
				return rc;
		}
	return 0;
}

int runner_finish(struct runner *r, long long *launches, long long *failed, long long *points,
		  long long *invalid)
{
	long long l = 0, f = 0;

	progress_finish(&r->prog);
	if (store_run_counts(r->store, r->run.id, &l, &f, points, invalid))
		return -1;
	if (!r->interrupted && l == r->run.planned_launches &&
	    store_run_end(r->store, r->run.id, f ? "failed" : "done"))
		return -1;
	if (launches)
		*launches = l;
	if (failed)
		*failed = f;
	return 0;
}

void runner_release(struct runner *r)
{
	if (r->spec == &r->own)
		strvec_clear(&r->own.kernel_args);
	r->spec = NULL;
	store_run_release(&r->run);
	runlock_release(&r->lock);
	free(r->root);
	r->root = NULL;
}

/* The run a real run would continue: its number as text, else "<run>"
 * (a new run's number is given when it begins). Reads, never creates. */
static char *dry_run_id(struct runner *r, const char *spec_path, const char *db)
{
	struct store *st = NULL;
	struct store_run last = { 0 };
	char *key, *id = NULL;

	if (access(db, F_OK) || store_open(db, STORE_RDONLY, &st))
		return xstrdup("<run>");
	key = run_key(r, spec_path);
	if (store_latest_run(st, key, &last) > 0 && !strcmp(last.spec_hash, r->spec->hash))
		id = xasprintf("%lld", last.id);
	store_run_release(&last);
	store_close(st);
	free(key);
	return id ? id : xstrdup("<run>");
}

int runner_dry_run(struct runner *r, const char *spec_path, const char *db,
		   const struct runner_job *jobs, size_t njobs, FILE *out)
{
	char *root = runner_runs_root(db), *id = dry_run_id(r, spec_path, db);
	int ret = 0;

	for (size_t i = 0; i < njobs && !ret; i++) {
		struct launch_cmd cmd = LAUNCH_CMD_INIT;
		struct launch_child c = { 0 };
		char *dir = xasprintf("%s%s/%s-r1", root, id, jobs[i].row.id), *line;

		if (build_cmd(r, &jobs[i], dir, 0, &cmd)) {
			ret = -1;
		} else {
			c.argv = &cmd.argv;
			c.env = &cmd.env;
			c.dir = dir;
			line = launch_child_line(&c);
			fprintf(out, "%s\n", line);
			free(line);
		}
		launch_cmd_clear(&cmd);
		free(dir);
	}
	free(id);
	free(root);
	return ret;
}

struct runner_job *runner_plan_jobs(const struct plan *p)
{
	struct runner_job *jobs = xcalloc(p->nlayouts ? p->nlayouts : 1, sizeof(*jobs));

	for (size_t i = 0; i < p->nlayouts; i++) {
		const struct layout *l = &p->layouts[i];

		jobs[i].layout = l;
		jobs[i].row = (struct store_layout){ l->id,	  (int)l->nodes,
						     (int)l->ppn, (int)l->workers,
						     (int)l->wpn, placement_name(l->placement) };
		jobs[i].points = l->points;
	}
	return jobs;
}

/* Whether a record is the group's point on the axes beyond (collective,
 * algorithm, assignment, bytes): where an axis does not apply, the group
 * says NULL or 0 and the record says nothing (or, for chunk and window,
 * what a kernel that pipelines it by default ran with). */
static int same_axes(const struct point *gr, const struct store_point *p)
{
	return (!gr->dtype || (p->key.dtype && !strcmp(gr->dtype, p->key.dtype))) &&
	       (!gr->op || (p->key.op && !strcmp(gr->op, p->key.op))) &&
	       (!gr->chunk || gr->chunk == (uint64_t)p->key.chunk) &&
	       (!gr->window || gr->window == (unsigned)p->key.window) &&
	       (!gr->radix || gr->radix == (unsigned)p->key.radix);
}

int runner_search_measure(void *ctx, size_t layout, unsigned rep, double *oe)
{
	struct runner_search *rs = ctx;
	const struct search_space *sp = rs->sp;
	struct runner_outcome oc;
	int rc;

	for (size_t g = 0; g < sp->ngroups; g++)
		oe[g] = NAN;
	rc = runner_launch(rs->runner, &rs->jobs[layout], rep + 1, &oc);
	if (rc == 1) {
		store_points_free(oc.pts, oc.npoints);
		return error("interrupted: the launches finished so far are stored");
	}
	if (rc == 2) {
		rs->paused = 1; /* not an error: the next invocation resumes */
		return -1;
	}
	if (rc < 0)
		return -1;
	rs->failed += !oc.ok;
	for (size_t i = 0; i < oc.npoints; i++) {
		const struct store_point *p = &oc.pts[i];

		for (size_t g = 0; g < sp->ngroups; g++) {
			const struct point *gr = &sp->groups[g];

			if (gr->bytes == p->key.bytes &&
			    !strcmp(gr->collective, p->key.collective) &&
			    !strcmp(gr->algorithm, p->key.algorithm) &&
			    !strcmp(gr->assignment, p->key.assignment) && same_axes(gr, p) &&
			    p->valid && p->calibrated >= 0 && isfinite(store_point_oe(p)))
				oe[g] = store_point_oe(p);
			else if (gr->bytes == p->key.bytes &&
				 !strcmp(gr->collective, p->key.collective) &&
				 !strcmp(gr->algorithm, p->key.algorithm) &&
				 !strcmp(gr->assignment, p->key.assignment) && same_axes(gr, p) &&
				 p->valid && p->calibrated < 0 && isnan(oe[g]))
				oe[g] = SEARCH_LEFT_OUT;
		}
	}
	store_points_free(oc.pts, oc.npoints);
	return oc.skipped;
}

/* search_opts.reached: the decision, in a line on the progress's stream. */
static void tell_reached(void *ctx, const struct search_decision *d)
{
	struct runner_search *rs = ctx;
	char words[512], *line;

	search_decision_words(rs->sp->layouts, rs->sp->groups, d, words, sizeof(words));
	line = xasprintf("search: reached after %ld launches: %s", rs->runner->prog.done, words);
	progress_note(&rs->runner->prog, line);
	free(line);
}

int runner_search_run(const struct spec *s, const struct plan *p, const char *spec_path,
		      const char *db, enum launcher l, const struct search_opts *o,
		      const struct runner_search_how *how, struct search_result *res,
		      unsigned *failed)
{
	struct runner r = RUNNER_INIT;
	struct search_space sp;
	struct runner_search rs = { &r, &sp, NULL, 0, 0 };
	struct search_problem prob;
	struct search_opts so = *o;
	struct store *st = NULL;
	int ret = -1;

	search_space_from_plan(s, p, &sp);
	rs.jobs = runner_plan_jobs(p);
	prob = (struct search_problem){ sp.layouts, sp.nlayouts,    sp.groups,
					sp.ngroups, sp.repetitions, runner_search_measure,
					&rs };
	runner_init(&r, s, l);
	r.progress_out = stderr;
	r.read_back = 1;
	if (how) {
		r.max_launches = how->max_launches;
		r.wait_lock = how->wait_lock;
		if (how->tell) {
			so.reached = tell_reached;
			so.reached_ctx = &rs;
		}
	}
	if (store_open(db, STORE_CREATE, &st) ||
	    runner_open(&r, st, spec_path, db, 0, (long long)plan_launches(p),
			(long long)plan_measurements(p), (long)p->nlayouts, (long)p->repetitions))
		goto out;
	/* The progress counts the launches the search may make, not the grid. */
	if (search_budget(&prob, &so)) {
		unsigned b = search_budget(&prob, &so);

		progress_budget(&r.prog, (long)b);
		fprintf(stderr, "search: a budget of %u launches, %.0f%% of the grid's %lld\n", b,
			plan_launches(p) ? 100.0 * b / (double)plan_launches(p) : 0.0,
			(long long)plan_launches(p));
	}
	runner_signals_install(&r);
	ret = search_run(&prob, &so, res);
	runner_signals_restore(&r);
	if (runner_finish(&r, NULL, NULL, NULL, NULL) && !ret) {
		search_result_release(res);
		ret = -1;
	}
	if (ret && r.interrupted)
		ret = 1;
	else if (ret && rs.paused)
		ret = 2;
	*failed = rs.failed;
out:
	runner_release(&r);
	store_close(st);
	free((void *)rs.jobs);
	search_space_release(&sp);
	return ret;
}
