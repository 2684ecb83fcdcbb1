/*
 * tuner/cmd_submit.c: `sweetspot submit SPEC`, a sweep as Slurm batch jobs.
 * The job script runs `sweetspot run SPEC --db DB` inside the allocation,
 * where run launches with srun; the allocation names exactly the hosts the
 * plan places ranks on. A sweep too long for one allocation is cut into
 * chunks, each a job chained after the previous one with afterany and each
 * resuming where the last stopped (run's resume), so a chunk that hits its
 * time limit loses nothing. Every job id is recorded in the database.
 */
#include "cmds.h"
#include "error.h"
#include "parse.h"
#include "plan.h"
#include "sbatch.h"
#include "spec.h"
#include "store.h"
#include "strvec.h"
#include "child.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void submit_usage(FILE *f)
{
	fputs("usage: sweetspot submit SPEC [--wait] [--chunks N] [--hetjob] [--db FILE]\n\n"
	      "Submit the sweep as Slurm batch jobs (sbatch --parsable) that run\n"
	      "'sweetspot run SPEC --db FILE' inside their allocation, launching with srun.\n\n"
	      "  --wait       wait for the (last) job to end; exit 0 when it succeeded\n"
	      "  --chunks N   cut the sweep into N jobs chained with afterany, each\n"
	      "               resuming where the previous one stopped (default 1)\n"
	      "  --hetjob     a heterogeneous job: host nodes and DPUs as two node classes\n"
	      "               (#SBATCH hetjob); launches then use srun --het-group\n"
	      "  --db FILE    the results database (default " STORE_DEFAULT_PATH ");\n"
	      "               job scripts and their output go to jobs/ beside it\n"
	      "  -h, --help   this text\n", f);
}

/* The hosts a plan puts ranks on, in order of first use, and the most
 * ranks any of them holds in one layout: what the allocation must give. */
struct alloc_need {
	struct strvec hosts;
	unsigned tasks_per_node;
	unsigned dpu_hosts;	/* hosts that only ever hold workers */
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
				hosts_role = xrealloc(hosts_role, need->hosts.nr * sizeof(*hosts_role));
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

static char *join_hosts(const struct strvec *v)
{
	char *out = xstrdup(""), *next;

	for (size_t i = 0; i < v->nr; i++) {
		next = xasprintf("%s%s%s", out, i ? "," : "", v->v[i]);
		free(out);
		out = next;
	}
	return out;
}

static char *absolute(const char *path)
{
	char cwd[PATH_MAX];

	if (*path == '/' || !getcwd(cwd, sizeof(cwd)))
		return xstrdup(path);
	return xasprintf("%s/%s", cwd, path);
}

static char *self_path(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (n <= 0)
		return xstrdup("sweetspot");
	buf[n] = '\0';
	return xstrdup(buf);
}

static int mkdir_one(const char *dir)
{
	if (mkdir(dir, 0777) && errno != EEXIST)
		return error("cannot create folder %s: %s", dir, strerror(errno));
	return 0;
}

int cmd_submit(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "wait", no_argument, NULL, 'w' },
		{ "chunks", required_argument, NULL, 'c' },
		{ "db", required_argument, NULL, 'd' },
		{ "hetjob", no_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *db = STORE_DEFAULT_PATH, *spec_path;
	struct spec s = SPEC_INIT;
	struct plan p = PLAN_INIT;
	struct store *st = NULL;
	struct alloc_need need = { STRVEC_INIT, 0, 0, STRVEC_INIT, STRVEC_INIT, 0, 0 };
	struct strvec command = STRVEC_INIT;
	char *sbatch = NULL, *db_abs = NULL, *spec_abs = NULL, *self = NULL, *jobs_dir = NULL;
	char *nodelist = NULL, *prev = NULL, *base, err[256];
	char *host_list = NULL, *dpu_list = NULL;
	uint64_t chunks = 1, v;
	size_t launches, per_chunk;
	int wait = 0, het = 0, c, status = EXIT_USAGE, job_status = 0;
	long stamp = (long)time(NULL);

	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'w': wait = 1; break;
		case 'H': het = 1; break;
		case 'd': db = optarg; break;
		case 'c':
			if (parse_uint(optarg, 1, 10000, &v, err, sizeof(err))) {
				error("submit: --chunks: %s", err);
				return EXIT_USAGE;
			}
			chunks = v;
			break;
		case 'h':
			submit_usage(stdout);
			return 0;
		default:
			error("submit: unknown option '%s'", argv[optind - 1]);
			submit_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		error(optind == argc ? "submit: which spec? (sweetspot submit SPEC)"
				     : "submit: one spec at a time");
		submit_usage(stderr);
		return EXIT_USAGE;
	}
	spec_path = argv[optind];
	if (spec_load(spec_path, &s) || plan_build(&s, &p))
		goto out;
	need_hosts(&s, &p, &need);
	if (het && !need.dpu_class.nr) {
		error("submit --hetjob: %s puts no worker on a DPU of its own (placement dpu), "
		      "so there is no second node class", spec_path);
		goto out;
	}
	sbatch = launch_which("sbatch");
	if (!sbatch) {
		error("sbatch is not installed (not found in PATH)");
		goto out;
	}
	/* The database must be one we can write before any job is queued. */
	if (store_open(db, STORE_CREATE, &st))
		goto out;
	status = 1;
	spec_abs = realpath(spec_path, NULL);
	db_abs = absolute(db);
	self = self_path();
	base = strrchr(db_abs, '/');
	jobs_dir = xasprintf("%.*s/jobs", (int)(base - db_abs), db_abs);
	if (mkdir_one(jobs_dir))
		goto out;
	nodelist = join_hosts(&need.hosts);
	host_list = join_hosts(&need.host_class);
	dpu_list = join_hosts(&need.dpu_class);
	launches = plan_launches(&p);
	if (chunks > launches)
		chunks = launches;
	per_chunk = (launches + chunks - 1) / chunks;
	base = strrchr(spec_abs, '/') + 1;

	for (uint64_t k = 1; k <= chunks; k++) {
		struct sbatch_job job = { 0 };
		struct sbatch_submit sub = { 0 };
		struct store_job rec = { 0 };
		char *script = xasprintf("%s/%.*s-%ld-c%llu.sbatch", jobs_dir,
					 (int)strcspn(base, "."), base, stamp, (unsigned long long)k);
		char *output = xasprintf("%s/%.*s-%%j.out", jobs_dir, (int)strcspn(base, "."), base);
		char *name = xasprintf("sweetspot-%.*s", (int)strcspn(base, "."), base);
		char *id = NULL;
		char cwd[PATH_MAX];
		int rc;

		strvec_clear(&command);
		strvec_push(&command, self);
		strvec_push(&command, "run");
		strvec_push(&command, spec_abs);
		strvec_push(&command, "--db");
		strvec_push(&command, db_abs);
		/* The last chunk takes whatever is left, even after a lost one. */
		if (k < chunks) {
			strvec_push(&command, "--max-launches");
			strvec_pushf(&command, "%zu", per_chunk);
		}
		job.name = name;
		/* Each launch may take its time limit, plus time to start. */
		job.time_limit_s = (unsigned)(per_chunk * (s.time_limit + 30) + 60);
		job.output = output;
		job.chdir = getcwd(cwd, sizeof(cwd)) ? cwd : NULL;
		if (het) {
			job.part[0].nodes = (unsigned)need.host_class.nr;
			job.part[0].tasks_per_node = need.host_tpn;
			job.part[0].nodelist = host_list;
			job.part[1].nodes = (unsigned)need.dpu_class.nr;
			job.part[1].tasks_per_node = need.dpu_tpn;
			job.part[1].nodelist = dpu_list;
			job.nparts = 2;
		} else {
			job.part[0].nodes = (unsigned)need.hosts.nr;
			job.part[0].tasks_per_node = need.tasks_per_node;
			job.part[0].nodelist = nodelist;
			job.nparts = 1;
		}
		job.command = &command;
		rc = sbatch_write(&job, script);
		if (!rc) {
			sub.script = script;
			sub.after = prev;
			sub.wait = wait && k == chunks;
			rc = sbatch_submit(&sub, &id, &job_status);
		}
		if (!rc) {
			rec.spec_path = spec_abs;
			rec.spec_hash = s.hash;
			rec.job_id = id;
			rec.chunk = (int)k;
			rec.chunks = (int)chunks;
			rec.after = prev;
			rec.script = script;
			rec.exit_status = sub.wait ? job_status : -1;
			rc = store_job_record(st, &rec);
			printf("submitted job %s (chunk %llu of %llu%s%s): %s\n", id,
			       (unsigned long long)k, (unsigned long long)chunks,
			       prev ? ", after " : "", prev ? prev : "", script);
			fflush(stdout);
		}
		free(prev);
		prev = id;
		free(script);
		free(output);
		free(name);
		if (rc)
			goto out;
	}
	if (need.dpu_hosts && !het)
		printf("note: hosts and DPUs in one allocation (--nodelist %s); --hetjob makes "
		       "them two node classes\n", nodelist);
	if (wait) {
		struct store_run run = { 0 };
		long long got = 0, failed = 0, points = 0, invalid = 0;

		if (store_latest_run(st, spec_abs, &run) == 1 &&
		    !store_run_counts(st, run.id, &got, &failed, &points, &invalid))
			printf("run %lld: %lld of %lld launches, %lld failed; %lld points stored, "
			       "%lld invalid\n", run.id, got, run.planned_launches, failed, points,
			       invalid);
		store_run_release(&run);
		status = job_status == 0 ? 0 : 1;
		if (job_status)
			error("job %s ended with status %d", prev, job_status);
	} else {
		status = 0;
	}
out:
	free(prev);
	free(nodelist);
	free(host_list);
	free(dpu_list);
	strvec_clear(&need.hosts);
	strvec_clear(&need.host_class);
	strvec_clear(&need.dpu_class);
	strvec_clear(&command);
	free(sbatch);
	free(db_abs);
	free(spec_abs);
	free(self);
	free(jobs_dir);
	store_close(st);
	plan_release(&p);
	spec_release(&s);
	return status;
}
