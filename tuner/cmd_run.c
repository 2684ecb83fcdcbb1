/*
 * tuner/cmd_run.c: `sweetspot run SPEC`, measuring a plan for real. Each
 * layout and repetition is one launch: its files are generated into its own
 * folder under results/runs/<run>/, the launcher is spawned (no shell) with
 * the spec's time limit, the kernel's JSON lines are read back and stored
 * with the launch in one transaction. Running the same command again
 * continues the latest run of that spec, skipping every launch already
 * recorded, so a sweep killed at any moment (kill -9, a lost allocation)
 * resumes where it stopped and never measures a finished launch twice.
 */
#define _XOPEN_SOURCE 700	/* nftw */
#include "cmds.h"
#include "error.h"
#include "parse.h"
#include "generate.h"
#include "plan.h"
#include "progress.h"
#include "spec.h"
#include "store.h"
#include "strvec.h"
#include "argv.h"
#include "child.h"

#include <errno.h>
#include <ftw.h>
#include <jansson.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Set by the signal handler between launches; launch_spawn() itself passes
 * a signal that arrives during a launch on to the launch. */
static volatile sig_atomic_t run_stop;

static void on_signal(int sig)
{
	run_stop = sig;
}

static void run_usage(FILE *f)
{
	fputs("usage: sweetspot run SPEC [--db FILE] [--dry-run] [--fresh] [--launcher L]\n"
	      "                          [--retry-failed] [--max-launches N] [--only ID[:REP]]\n\n"
	      "Measure every layout of the spec's plan, one launch per layout and repetition,\n"
	      "and store every point. Running it again continues the latest run of SPEC,\n"
	      "skipping the launches it already recorded.\n\n"
	      "  --db FILE        the results database (default " STORE_DEFAULT_PATH ");\n"
	      "                   each launch's files go to runs/<run>/<layout>-r<rep>/ beside\n"
	      "                   it (runs/<name>-<run>/ for a database not named sweetspot.db)\n"
	      "  --dry-run        print each launch's command, shell-quoted; touch nothing\n"
	      "  --fresh          start a new run instead of continuing the latest one\n"
	      "  --launcher L     srun, mpirun or mpirun_rsh (default: srun inside a Slurm\n"
	      "                   allocation, else the spec's launcher)\n"
	      "  --retry-failed   also run again the launches that failed or timed out\n"
	      "  --max-launches N stop after running N launches (one allocation's share of a\n"
	      "                   sweep that is submitted in chunks); run again to continue\n"
	      "  --only ID[:REP]  only layout ID (every repetition, or repetition REP); the\n"
	      "                   way 'sweetspot search' measures the layouts it picks\n"
	      "  -h, --help       this text\n\n"
	      "Exit status: 0 every launch ok, 1 a launch failed (recorded, the sweep went on),\n"
	      "2 bad input (nothing written), 130 interrupted by SIGINT or SIGTERM (the launch\n"
	      "under way is stopped and not recorded; run again to continue).\n", f);
}

struct run_opts {
	const char *spec_path;
	const char *db;
	const char *launcher;
	int dry_run, fresh, retry_failed;
	unsigned long long max_launches;	/* 0: no limit */
	const char *only;		/* --only: this layout id only, or NULL */
	unsigned only_rep;		/* --only ID:REP; 0: every repetition */
};

/* Where launches keep their files: runs/<run>/ beside the database, or
 * runs/<name>-<run>/ for a database not called sweetspot.db, so that two
 * databases in one folder never share a launch folder. Returned as the
 * prefix of a run's folder name, absolute: launchers start in the launch's
 * folder, and the paths in their arguments must name the same files there. */
static char *runs_root(const char *db)
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
	if (stem == strlen("sweetspot") && !strncmp(name, "sweetspot", stem))
		out = xasprintf("%s/runs/", dir);
	else
		out = xasprintf("%s/runs/%.*s-", dir, (int)stem, name);
	free(dir);
	return out;
}

static int mkdir_p(const char *path)
{
	char *dir = xstrdup(path), *p;
	int ret = 0;

	for (p = dir + 1;; p++) {
		if (*p && *p != '/')
			continue;
		char c = *p;

		*p = '\0';
		if (mkdir(dir, 0777) && errno != EEXIST) {
			ret = error("cannot create folder %s: %s", dir, strerror(errno));
			break;
		}
		if (!c)
			break;
		*p = c;
	}
	free(dir);
	return ret;
}

static int rm_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	if (type == FTW_DP ? rmdir(path) : unlink(path))
		return error("cannot remove %s: %s", path, strerror(errno));
	return 0;
}

/* rm -rf, for the folder an interrupted attempt left behind. */
static int remove_tree(const char *path)
{
	struct stat sb;

	if (lstat(path, &sb) && errno == ENOENT)
		return 0;
	return nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS) ? -1 : 0;
}

static char *now_iso(void)
{
	char buf[32];
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return xstrdup(buf);
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

/* Which launcher: --launcher, else srun inside an allocation, else the
 * spec's. srun outside an allocation would queue a job of its own for
 * every launch, which is never what a sweep wants. */
static int pick_launcher(const struct run_opts *o, const struct spec *s, enum launcher *l)
{
	if (o->launcher) {
		if (launcher_parse(o->launcher, l))
			return -1;
	} else if (getenv("SLURM_JOB_ID")) {
		*l = LAUNCHER_SRUN;
	} else {
		*l = s->launcher;
	}
	/* A dry run only shows the commands: it may be read anywhere. */
	if (*l == LAUNCHER_SRUN && !getenv("SLURM_JOB_ID") && !o->dry_run)
		return error("the srun launcher runs inside a Slurm allocation (SLURM_JOB_ID is "
			     "not set): use 'sweetspot submit %s', or salloc, or --launcher mpirun",
			     o->spec_path);
	return 0;
}

/* The kernel writes its records to a file of its own, in the launch's
 * folder (every launcher starts the ranks there), so that nothing a rank
 * prints can be taken for a record. */
#define POINTS_FILE "points.jsonl"

/* One launch: the layout's files in dir, and the command that runs them. */
struct one_launch {
	const struct layout *layout;
	int repetition;
	char *dir;
	char *points_path;
	char *log_path;
	struct launch_cmd cmd;
	struct launch_child child;
};

static void one_launch_release(struct one_launch *ol)
{
	free(ol->dir);
	free(ol->points_path);
	free(ol->log_path);
	launch_cmd_clear(&ol->cmd);
	memset(ol, 0, sizeof(*ol));
}

/* Generates the layout's files in dir and builds its command. */
static int prepare_launch(const struct spec *s, enum launcher launcher, const struct layout *l,
			  int repetition, const char *dir, struct one_launch *ol)
{
	struct launch_opts lo = LAUNCH_OPTS_INIT;
	char *parent = xstrdup(dir), *slash = strrchr(parent, '/');
	int ret = -1;

	memset(ol, 0, sizeof(*ol));
	ol->layout = l;
	ol->repetition = repetition;
	ol->dir = xstrdup(dir);
	ol->points_path = xasprintf("%s/" POINTS_FILE, dir);
	ol->log_path = xasprintf("%s/log", dir);
	if (slash)
		*slash = '\0';
	if ((slash && mkdir_p(parent)) || generate_layout(s, l, dir))
		goto out;
	lo.dir = dir;
	lo.ranks = layout_ranks(l);
	lo.nodes = 0;
	lo.time_limit_s = s->time_limit;
	lo.env = &s->env;
	if (launcher == LAUNCHER_SRUN && getenv("SLURM_HET_SIZE")) {
		/* A heterogeneous allocation (submit --hetjob): --multi-prog
		 * cannot span its components, so hosts and workers are one
		 * component each, the hosts block-wise over the host nodes and
		 * the workers over the DPUs, as the plan places them. */
		struct strvec hargs = STRVEC_INIT, wargs = STRVEC_INIT;
		struct launch_het_part hp, wp;
		int rc;

		strvec_push(&hargs, s->host_bin);
		layout_kernel_args(s, l, &hargs);
		strvec_push(&wargs, spec_worker_bin(s, l->placement));
		layout_kernel_args(s, l, &wargs);
		hp = (struct launch_het_part){ &hargs, l->hosts, l->nodes };
		wp = (struct launch_het_part){ &wargs, l->workers, layout_worker_nodes(l) };
		rc = launch_argv_srun_het(&lo, &hp, &wp, &ol->cmd);
		strvec_clear(&hargs);
		strvec_clear(&wargs);
		if (rc)
			goto out;
	} else if (launch_argv(launcher, &lo, &ol->cmd)) {
		goto out;
	}
	/* The spec's extra launcher arguments go right after the program,
	 * when the spec's launcher is the one used. */
	if (s->launcher_args.nr && launcher == s->launcher) {
		struct strvec av = STRVEC_INIT;

		strvec_push(&av, ol->cmd.argv.v[0]);
		for (size_t i = 0; i < s->launcher_args.nr; i++)
			strvec_push(&av, s->launcher_args.v[i]);
		for (size_t i = 1; i < ol->cmd.argv.nr; i++)
			strvec_push(&av, ol->cmd.argv.v[i]);
		strvec_clear(&ol->cmd.argv);
		ol->cmd.argv = av;
	}
	ol->child.argv = &ol->cmd.argv;
	ol->child.env = &ol->cmd.env;
	ol->child.dir = ol->dir;
	ol->child.log = ol->log_path;
	ol->child.timeout_s = s->time_limit;
	ret = 0;
out:
	free(parent);
	return ret;
}

/* The kernel's records of a launch. A last line without its newline was cut
 * by a kill and is dropped; any other bad line is reported in reason. */
static int read_points(const char *path, struct store_point **out, size_t *n,
		       char *reason, size_t rlen)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, err[256];
	size_t cap = 0, alloc = 0, lineno = 0;
	ssize_t len;
	struct store_point *v = NULL;

	*out = NULL;
	*n = 0;
	if (!f) {
		snprintf(reason, rlen, "the kernel wrote no records (%s: %s)", path, strerror(errno));
		return -1;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		lineno++;
		if (line[len - 1] != '\n')
			break;
		line[len - 1] = '\0';
		if (!*line)
			continue;
		if (*n == alloc) {
			alloc = alloc ? 2 * alloc : 32;
			v = xrealloc(v, alloc * sizeof(*v));
		}
		if (store_parse_record(line, &v[*n], err, sizeof(err))) {
			if (!*reason)
				snprintf(reason, rlen, "%s:%zu: bad kernel record: %s", path, lineno, err);
			continue;
		}
		(*n)++;
	}
	free(line);
	fclose(f);
	*out = v;
	return 0;
}

/* Whether every rank ran where the plan put it. Emulated hosts tell their
 * name through SLURMD_NODENAME or the stand-in ssh; a plain gethostname()
 * cannot tell emulated nodes apart, so it is not held against the plan. */
static int check_placement(const struct spec *s, const struct layout *l,
			   const struct store_point *p, char *reason, size_t rlen)
{
	json_t *hosts;
	size_t i;
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
	for (i = 0; i < json_array_size(hosts); i++) {
		const char *got = json_string_value(json_array_get(hosts, i));
		const char *want = layout_rank_host(s, l, (unsigned)i);

		if (!got || strcmp(got, want)) {
			snprintf(reason, rlen, "placement: rank %zu ran on %s, the plan puts it on %s",
				 i, got ? got : "?", want);
			ret = -1;
			break;
		}
	}
out:
	json_decref(hosts);
	return ret;
}

/* How one launch went. */
struct outcome {
	int ok;
	size_t npoints;
	double wall_s;
	char reason[512];	/* "" when ok */
};

/* Runs one launch and records it with its points. Returns 0 when recorded
 * (ok or failed), 1 when interrupted (nothing recorded), -1 when the store
 * refused (the sweep stops). */
static int execute_launch(struct store *st, long long run, const struct spec *s,
			  struct one_launch *ol, struct outcome *oc)
{
	struct launch_result r = { 0 };
	struct store_launch rec = { 0 };
	struct store_point *pts = NULL;
	char *reason = oc->reason, *argv_line = strvec_join_quoted(&ol->cmd.argv);
	char *started = now_iso(), *finished;
	size_t n = 0, invalid = 0;
	int ret;

	memset(oc, 0, sizeof(*oc));
	/* An attempt's leftovers must not pass for this one's records. */
	unlink(ol->points_path);
	launch_spawn(&ol->child, &r);
	finished = now_iso();
	if (r.interrupted) {
		ret = 1;
		goto out;
	}
	if (r.status != -1)
		read_points(ol->points_path, &pts, &n, reason, sizeof(oc->reason));
	for (size_t i = 0; i < n; i++) {
		invalid += !pts[i].valid;
		if (!*reason && pts[i].valid)
			check_placement(s, ol->layout, &pts[i], reason, sizeof(oc->reason));
	}
	if (r.status != 0) {
		/* The launcher's end first: it is what went wrong. */
		char *both = xasprintf("%s%s%s", r.reason, *reason ? "; " : "", reason);

		snprintf(reason, sizeof(oc->reason), "%.*s", (int)sizeof(oc->reason) - 1, both);
		free(both);
	} else if (!*reason && n != ol->layout->points) {
		snprintf(reason, sizeof(oc->reason), "the kernel wrote %zu of the layout's %zu points",
			 n, ol->layout->points);
	}
	if (invalid) {
		size_t len = strlen(reason);

		snprintf(reason + len, sizeof(oc->reason) - len, "%s%zu invalid point%s (validation failed)",
			 len ? "; " : "", invalid, invalid == 1 ? "" : "s");
	}
	rec.run = run;
	rec.layout.id = ol->layout->id;
	rec.layout.nodes = (int)ol->layout->nodes;
	rec.layout.ppn = (int)ol->layout->ppn;
	rec.layout.workers = (int)ol->layout->workers;
	rec.layout.wpn = (int)ol->layout->wpn;
	rec.layout.placement = placement_name(ol->layout->placement);
	rec.repetition = ol->repetition;
	rec.argv = argv_line;
	rec.exit_status = r.status;
	rec.timed_out = r.timed_out;
	rec.reason = *reason ? reason : NULL;
	rec.log_path = ol->log_path;
	rec.wall_s = r.wall_s;
	rec.started = started;
	rec.finished = finished;
	rec.ok = !*reason;
	ret = store_launch_record(st, &rec, pts, n);
	oc->ok = rec.ok;
	oc->npoints = n;
	oc->wall_s = r.wall_s;
out:
	store_points_free(pts, n);
	free(argv_line);
	free(started);
	free(finished);
	return ret;
}

static char *replace_prefix(const char *s, const char *from, const char *to)
{
	char *out = xstrdup(""), *hit;
	size_t flen = strlen(from);

	while ((hit = strstr(s, from))) {
		char *next = xasprintf("%s%.*s%s", out, (int)(hit - s), s, to);

		free(out);
		out = next;
		s = hit + flen;
	}
	hit = xasprintf("%s%s", out, s);
	free(out);
	return hit;
}

/* --dry-run: each launch's command as a real run would start it, built from
 * files generated in a scratch folder that is removed again. */
static int dry_run(const struct run_opts *o, const struct spec *s, const struct plan *p,
		   enum launcher launcher)
{
	char tmpl[] = "/tmp/sweetspot-dry.XXXXXX";
	char *root = runs_root(o->db);
	int ret = 0;

	if (!mkdtemp(tmpl)) {
		free(root);
		return error("cannot create a scratch folder: %s", strerror(errno));
	}
	printf("# %s: %zu layouts x %u repetitions = %zu launches, %zu points each "
	       "repetition; launcher %s\n", s->path, p->nlayouts, p->repetitions,
	       plan_launches(p), plan_points(p), launcher_name(launcher));
	for (size_t i = 0; i < p->nlayouts && !ret; i++) {
		const struct layout *l = &p->layouts[i];
		char *dir = xasprintf("%s/%s-r1", tmpl, l->id);
		char *real = xasprintf("%s<run>/%s-r1", root, l->id);
		struct one_launch ol;
		char *line, *shown;

		if (prepare_launch(s, launcher, l, 1, dir, &ol)) {
			ret = -1;
		} else {
			line = launch_child_line(&ol.child);
			shown = replace_prefix(line, dir, real);
			printf("%s\n", shown);
			free(line);
			free(shown);
		}
		one_launch_release(&ol);
		free(dir);
		free(real);
	}
	remove_tree(tmpl);
	free(root);
	return ret;
}

/* The run to continue, or a new one. Says which on stderr. */
static int open_run(struct store *st, const struct run_opts *o, const struct spec *s,
		    const struct plan *p, enum launcher launcher, struct store_run *run)
{
	struct store_run last = { 0 };
	/* Runs are keyed by the spec's absolute path, so that the same file
	 * given from another folder (or by a batch job) continues the same run. */
	char *key = realpath(o->spec_path, NULL);
	int found;

	if (!key)
		return error("%s: %s", o->spec_path, strerror(errno));
	found = store_latest_run(st, key, &last);
	if (found < 0) {
		free(key);
		return -1;
	}

	if (found && !o->fresh && !strcmp(last.spec_hash, s->hash)) {
		free(key);
		*run = last;
		fprintf(stderr, "sweetspot: continuing run %lld of %s (started %s)\n",
			run->id, o->spec_path, run->started);
		return 0;
	}
	if (found && !o->fresh)
		fprintf(stderr, "sweetspot: %s changed since run %lld (hash %s, now %s): "
			"starting a new run\n", o->spec_path, last.id, last.spec_hash, s->hash);
	store_run_release(&last);
	memset(run, 0, sizeof(*run));
	run->spec_path = key;
	run->spec_hash = xstrdup(s->hash);
	{
		char host[256] = "unknown";

		gethostname(host, sizeof(host) - 1);
		run->host = xstrdup(host);
	}
	run->launcher = xstrdup(launcher_name(launcher));
	run->sweetspot_version = xstrdup(SWEETSPOT_VERSION);
	run->ompi_version = tool_version("ompi_info", "--version");
	if (!run->ompi_version)
		run->ompi_version = tool_version("mpirun", "--version");
	run->slurm_version = tool_version("srun", "--version");
	run->planned_launches = (long long)plan_launches(p);
	run->planned_points = (long long)plan_measurements(p);
	if (store_run_begin(st, run))
		return -1;
	fprintf(stderr, "sweetspot: run %lld of %s: %lld launches, %lld points\n", run->id,
		o->spec_path, run->planned_launches, run->planned_points);
	return 0;
}

static int sweep(struct store *st, struct store_run *run, const struct run_opts *o,
		 const struct spec *s, const struct plan *p, enum launcher launcher)
{
	struct progress prog;
	char *root = runs_root(o->db);
	long long launches = 0, failed = 0, points = 0, invalid = 0;
	unsigned long long ran = 0;
	int ret = 0, interrupted = 0, paused = 0;

	progress_init(&prog, stderr, isatty(STDERR_FILENO), (long)p->nlayouts, (long)p->repetitions);
	for (size_t i = 0; i < p->nlayouts && !interrupted && !paused && !ret; i++) {
		const struct layout *l = &p->layouts[i];

		for (unsigned rep = 1; rep <= p->repetitions && !interrupted && !paused && !ret;
		     rep++) {
			struct one_launch ol;
			char *dir;
			struct outcome oc;
			int done, rc;

			if (o->only && (strcmp(o->only, l->id) || (o->only_rep && o->only_rep != rep)))
				continue;

			if (run_stop) {
				interrupted = 1;
				break;
			}
			done = store_launch_done(st, run->id, l->id, (int)rep, o->retry_failed);
			if (done < 0) {
				ret = -1;
				break;
			}
			if (done) {
				progress_skip(&prog);
				continue;
			}
			if (o->max_launches && ran == o->max_launches) {
				paused = 1;
				break;
			}
			ran++;
			dir = xasprintf("%s%lld/%s-r%u", root, run->id, l->id, rep);
			progress_start(&prog, l->id, (int)rep);
			if (remove_tree(dir) || prepare_launch(s, launcher, l, (int)rep, dir, &ol)) {
				ret = -1;
				free(dir);
				break;
			}
			rc = execute_launch(st, run->id, s, &ol, &oc);
			/* A failed launch gets the spec's retries (transient faults of
			 * launchers and fabrics); the failed attempt's folder is kept
			 * beside, as <folder>.attemptN; the launch log keeps every
			 * attempt, the points only the last one's. */
			for (unsigned a = 1; rc == 0 && !oc.ok && a <= s->retries && !run_stop; a++) {
				char *keep = xasprintf("%s.attempt%u", dir, a);

				fprintf(stderr, "sweetspot: %s r%u failed (%s); attempt %u of %u\n",
					l->id, rep, oc.reason, a + 1, s->retries + 1);
				one_launch_release(&ol);
				if (remove_tree(keep) || rename(dir, keep) ||
				    prepare_launch(s, launcher, l, (int)rep, dir, &ol)) {
					error("cannot prepare another attempt in %s", dir);
					free(keep);
					rc = -1;
					memset(&ol, 0, sizeof(ol));
					break;
				}
				free(keep);
				rc = execute_launch(st, run->id, s, &ol, &oc);
			}
			if (rc == 1)
				interrupted = 1;
			else if (rc < 0)
				ret = -1;
			else
				progress_done(&prog, l->id, (int)rep, (long)oc.npoints, oc.wall_s,
					      oc.ok ? NULL : oc.reason);
			one_launch_release(&ol);
			free(dir);
		}
	}
	progress_finish(&prog);
	free(root);
	if (ret)
		return -1;
	if (store_run_counts(st, run->id, &launches, &failed, &points, &invalid))
		return -1;
	if (interrupted) {
		fprintf(stderr, "sweetspot: interrupted; run %lld keeps %lld launches (%lld points): "
			"run the same command again to continue\n", run->id, launches, points);
		return 130;
	}
	if (paused)
		fprintf(stderr, "sweetspot: stopped after %llu launches (--max-launches); "
			"%lld of %lld recorded: run the same command again to continue\n",
			ran, launches, run->planned_launches);
	if (launches == run->planned_launches &&
	    store_run_end(st, run->id, failed ? "failed" : "done"))
		return -1;
	printf("run %lld: %lld of %lld launches, %lld failed; %lld points stored, %lld invalid\n",
	       run->id, launches, run->planned_launches, failed, points, invalid);
	return failed ? 1 : 0;
}

int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "fresh", no_argument, NULL, 'f' },
		{ "launcher", required_argument, NULL, 'l' },
		{ "retry-failed", no_argument, NULL, 'R' },
		{ "max-launches", required_argument, NULL, 'm' },
		{ "only", required_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct run_opts o = { NULL, STORE_DEFAULT_PATH, NULL, 0, 0, 0, 0, NULL, 0 };
	char *only = NULL;
	uint64_t v;
	char err[256];
	struct spec s = SPEC_INIT;
	struct plan p = PLAN_INIT;
	struct store *st = NULL;
	struct store_run run = { 0 };
	struct sigaction sa = { 0 }, old_int, old_term;
	enum launcher launcher;
	char *prog = NULL;
	int c, status = EXIT_USAGE;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': o.db = optarg; break;
		case 'n': o.dry_run = 1; break;
		case 'f': o.fresh = 1; break;
		case 'l': o.launcher = optarg; break;
		case 'R': o.retry_failed = 1; break;
		case 'm':
			if (parse_uint(optarg, 1, UINT32_MAX, &v, err, sizeof(err))) {
				error("run: --max-launches: %s", err);
				return EXIT_USAGE;
			}
			o.max_launches = v;
			break;
		case 'O': {
			char *colon;

			free(only);
			only = xstrdup(optarg);
			colon = strrchr(only, ':');
			if (colon) {
				*colon = '\0';
				if (parse_uint(colon + 1, 1, UINT32_MAX, &v, err, sizeof(err))) {
					error("run: --only %s: repetition %s", optarg, err);
					free(only);
					return EXIT_USAGE;
				}
				o.only_rep = (unsigned)v;
			}
			o.only = only;
			break;
		}
		case 'h':
			run_usage(stdout);
			return 0;
		default:
			error("run: unknown option '%s'", argv[optind - 1]);
			run_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		error(optind == argc ? "run: which spec? (sweetspot run SPEC)"
				     : "run: one spec at a time");
		run_usage(stderr);
		return EXIT_USAGE;
	}
	o.spec_path = argv[optind];
	if (spec_load(o.spec_path, &s) || plan_build(&s, &p) || pick_launcher(&o, &s, &launcher))
		goto out;
	if (o.only && !plan_find(&p, o.only)) {
		error("run: --only: no layout '%s' in the plan of %s", o.only, o.spec_path);
		goto out;
	}
	if (o.only_rep > p.repetitions) {
		error("run: --only: repetition %u, but the plan has %u", o.only_rep, p.repetitions);
		goto out;
	}
	strvec_push(&s.kernel_args, "-o");
	strvec_push(&s.kernel_args, POINTS_FILE);
	prog = launch_which(launcher_name(launcher));
	if (!prog && !o.dry_run) {
		error("%s is not installed (not found in PATH); choose another with --launcher",
		      launcher_name(launcher));
		goto out;
	}
	if (o.dry_run) {
		status = dry_run(&o, &s, &p, launcher) ? 1 : 0;
		goto out;
	}
	if (store_open(o.db, STORE_CREATE, &st))
		goto out;
	status = 1;
	if (open_run(st, &o, &s, &p, launcher, &run))
		goto out;
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	status = sweep(st, &run, &o, &s, &p, launcher);
	if (status < 0)
		status = 1;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
out:
	free(only);
	free(prog);
	store_run_release(&run);
	store_close(st);
	plan_release(&p);
	spec_release(&s);
	return status;
}
