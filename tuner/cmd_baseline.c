/*
 * tuner/cmd_baseline.c: `sweetspot baseline SPEC [--db FILE]`: the
 * host-only Open MPI baseline that the ompi-rules, ompi-json, ucc and
 * mca-params exports are made of. As ompi-collectives-tuning does it, each
 * coll/tuned algorithm of each collective of the spec is forced in its own
 * launch (OMPI_MCA_coll_tuned_use_dynamic_rules=1 and
 * OMPI_MCA_coll_tuned_<coll>_algorithm=N, plus one launch with Open MPI's
 * own choice), the kernel runs in --mode mpi on the spec's host ranks, at
 * the spec's sizes, iterations and repetitions, and every record is stored
 * in the database as a run of its own ("SPEC:baseline"), resumable like a
 * sweep.
 */
#include "argv.h"
#include "child.h"
#include "cmds.h"
#include "error.h"
#include "parse.h"
#include "recommend.h"
#include "spec.h"
#include "store.h"
#include "strvec.h"

#include <errno.h>
#include <jansson.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void baseline_usage(FILE *f)
{
	fputs("usage: sweetspot baseline SPEC [--db FILE] [--launcher mpirun|srun]\n"
	      "                          [--algorithms LIST] [--dry-run]\n\n"
	      "Measures Open MPI's own collectives on the spec's host ranks (no workers):\n"
	      "every coll/tuned algorithm of each collective forced in its own launch, and\n"
	      "Open MPI's own choice, at the spec's sizes and repetitions, as\n"
	      "ompi-collectives-tuning does. The records go into the database as the run\n"
	      "SPEC:baseline; 'sweetspot export --format ompi-rules' makes rules of them.\n"
	      "Running it again skips what is already measured.\n\n"
	      "  --db FILE         results database (default " STORE_DEFAULT_PATH ")\n"
	      "  --launcher L      mpirun or srun (default: srun inside a Slurm allocation,\n"
	      "                    else the spec's launcher, mpirun for mpirun_rsh)\n"
	      "  --algorithms LIST algorithm ids to force, e.g. 1,6,8 (default: all that\n"
	      "                    ompi_info lists for each collective; 0 is Open MPI's own)\n"
	      "  --dry-run         print each launch's command; touch nothing\n\n"
	      "Exit status: 0 every launch ok, 1 a launch failed (recorded), 2 bad input.\n", f);
}

/* Number of coll/tuned algorithms of a collective (ids 0..count-1, 0 being
 * "ignore"), from ompi_info; 0 when it cannot tell. */
static int algorithm_count(const char *coll, const char *tmpdir)
{
	struct strvec av = STRVEC_INIT;
	struct launch_child c = { 0 };
	struct launch_result r;
	char *log = xasprintf("%s/ompi_info.log", tmpdir), *want, line[512];
	FILE *f;
	int n = 0;

	strvec_pushv(&av, (const char *const[]){ "ompi_info", "--param", "coll", "tuned",
						  "--level", "9", "--parsable", NULL });
	c.argv = &av;
	c.log = log;
	c.timeout_s = 60;
	unlink(log);
	want = xasprintf("mca:coll:tuned:param:coll_tuned_%s_algorithm_count:value:", coll);
	if (launch_spawn(&c, &r) == 0 && (f = fopen(log, "r"))) {
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, want, strlen(want)))
				n = atoi(line + strlen(want));
		fclose(f);
	}
	unlink(log);
	free(want);
	free(log);
	strvec_clear(&av);
	return n;
}

static int mkdir_p(const char *path)
{
	char *p = xstrdup(path);
	int ret = 0;

	for (char *s = p + 1;; s++) {
		char c;

		if (*s && *s != '/')
			continue;
		c = *s;
		*s = '\0';
		if (mkdir(p, 0777) && errno != EEXIST) {
			ret = error("cannot create %s: %s", p, strerror(errno));
			break;
		}
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return ret;
}

/* The kernel's mpi records as points ("assignment" none: no workers). */
static int read_records(const char *path, struct store_point **out, size_t *n)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, err[256];
	size_t cap = 0, alloc = 0;
	ssize_t len;
	struct store_point *v = NULL;

	*out = NULL;
	*n = 0;
	if (!f)
		return -1;
	while ((len = getline(&line, &cap, f)) > 0) {
		json_t *o;
		char *fixed;

		if (line[len - 1] != '\n')
			break;	/* cut by a kill */
		line[len - 1] = '\0';
		o = json_loads(line, 0, NULL);
		if (!o)
			continue;
		if (!json_object_get(o, "assignment"))
			json_object_set_new(o, "assignment", json_string("none"));
		fixed = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
		json_decref(o);
		if (*n == alloc) {
			alloc = alloc ? 2 * alloc : 16;
			v = xrealloc(v, alloc * sizeof(*v));
		}
		if (!store_parse_record(fixed, &v[*n], err, sizeof(err)))
			(*n)++;
		free(fixed);
	}
	free(line);
	fclose(f);
	*out = v;
	return 0;
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

struct job {
	const char *coll;
	int alg;		/* 0: Open MPI's own choice */
};

/* The launch command of one job. */
static void build_cmd(const struct spec *s, enum launcher l, const struct job *j,
		      const char *out, struct strvec *av, struct strvec *env)
{
	unsigned H = (unsigned)s->nodes.nr * s->ppn;
	char sizes[1024] = "", var[96];

	for (size_t i = 0; i < s->nsizes; i++)
		snprintf(sizes + strlen(sizes), sizeof(sizes) - strlen(sizes), "%s%llu",
			 i ? "," : "", (unsigned long long)s->sizes[i]);
	snprintf(var, sizeof(var), "OMPI_MCA_coll_tuned_%s_algorithm", j->coll);
	if (j->alg) {
		strvec_push(env, "OMPI_MCA_coll_tuned_use_dynamic_rules=1");
		strvec_pushf(env, "%s=%d", var, j->alg);
	}
	for (size_t i = 0; i < s->env.nr; i++)
		strvec_push(env, s->env.v[i]);
	if (l == LAUNCHER_SRUN) {
		strvec_pushv(av, (const char *const[]){ "srun", "--mpi=pmix", "--export=ALL", NULL });
		strvec_pushf(av, "-N%zu", s->nodes.nr);
		strvec_pushf(av, "-n%u", H);
		strvec_pushf(av, "--ntasks-per-node=%u", s->ppn);
	} else {
		char *hosts = xstrdup("");

		strvec_push(av, "mpirun");
		if (!geteuid())
			strvec_push(av, "--allow-run-as-root");
		for (size_t i = 0; i < s->launcher_args.nr; i++)
			strvec_push(av, s->launcher_args.v[i]);
		for (size_t i = 0; i < s->nodes.nr; i++) {
			char *h = xasprintf("%s%s%s:%u", hosts, i ? "," : "", s->nodes.v[i], s->ppn);

			free(hosts);
			hosts = h;
		}
		strvec_pushv(av, (const char *const[]){ "--host", hosts, NULL });
		strvec_pushf(av, "-np");
		strvec_pushf(av, "%u", H);
		if (j->alg)
			strvec_pushv(av, (const char *const[]){ "-x", "OMPI_MCA_coll_tuned_use_dynamic_rules",
								  "-x", var, NULL });
		free(hosts);
	}
	strvec_pushv(av, (const char *const[]){ s->host_bin, "--mode", "mpi", "-c", j->coll,
						 "-m", sizes, NULL });
	strvec_pushf(av, "-i");
	strvec_pushf(av, "%u", s->iterations);
	strvec_pushf(av, "-x");
	strvec_pushf(av, "%u", s->warmup);
	strvec_pushv(av, (const char *const[]){ "-o", out, NULL });
}

int cmd_baseline(int argc, char **argv)
{
	struct spec spec = SPEC_INIT;
	struct store *st = NULL;
	struct store_run run = { 0 };
	const char *path = NULL, *db = STORE_DEFAULT_PATH, *lname = NULL, *algs = NULL;
	char *key = NULL, *root = NULL, *dbcopy = NULL, host[256] = "localhost";
	char cwd[4096];
	struct job *jobs = NULL;
	size_t njobs = 0, failed = 0;
	enum launcher l;
	int dry = 0, status = EXIT_USAGE, i, got;
	static const char *const colls[] = { "bcast", "gather", "allgather" };

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			baseline_usage(stdout);
			return 0;
		} else if (!strcmp(a, "--dry-run")) {
			dry = 1;
		} else if (!strcmp(a, "--db") || !strcmp(a, "--launcher") || !strcmp(a, "--algorithms")) {
			if (i + 1 >= argc) {
				error("baseline: %s needs a value", a);
				return EXIT_USAGE;
			}
			i++;
			if (!strcmp(a, "--db"))
				db = argv[i];
			else if (!strcmp(a, "--launcher"))
				lname = argv[i];
			else
				algs = argv[i];
		} else if (a[0] == '-' && a[1]) {
			error("baseline: unknown option '%s'", a);
			baseline_usage(stderr);
			return EXIT_USAGE;
		} else if (path) {
			error("baseline: one spec only ('%s' and '%s')", path, a);
			return EXIT_USAGE;
		} else {
			path = a;
		}
	}
	if (!path) {
		baseline_usage(stderr);
		return EXIT_USAGE;
	}
	if (spec_load(path, &spec))
		goto out;
	if (lname) {
		if (launcher_parse(lname, &l))
			goto out;
	} else if (getenv("SLURM_JOB_ID")) {
		l = LAUNCHER_SRUN;
	} else {
		l = spec.launcher == LAUNCHER_SRUN ? LAUNCHER_SRUN : LAUNCHER_MPIRUN;
	}
	if (l == LAUNCHER_MPIRUN_RSH) {
		error("baseline: Open MPI's algorithms are measured with mpirun or srun, not mpirun_rsh");
		goto out;
	}
	/* Absolute: launches start in their own folder, and the -o path given
	 * to the kernel must name the same file there. */
	if (*db == '/' || !getcwd(cwd, sizeof(cwd)))
		dbcopy = xstrdup(db);
	else
		dbcopy = xasprintf("%s/%s", cwd, db);
	root = xasprintf("%s/runs", dirname(dbcopy));
	if (!dry && mkdir_p(root))
		goto out;
	/* The jobs: Open MPI's own choice, then each algorithm forced. */
	jobs = xcalloc(3 * 65 + 1, sizeof(*jobs));
	for (size_t c = 0; c < spec.collectives.nr; c++) {
		const char *coll = NULL;

		for (int k = 0; k < 3; k++)
			if (!strcmp(spec.collectives.v[c], colls[k]))
				coll = colls[k];
		if (!coll)
			continue;
		jobs[njobs++] = (struct job){ coll, 0 };
		if (algs) {
			char *copy = xstrdup(algs), *save = NULL;

			for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
				uint64_t v;
				char err[128];

				if (parse_uint(t, 0, 64, &v, err, sizeof(err))) {
					error("baseline: --algorithms: %s", err);
					free(copy);
					goto out;
				}
				if (v)
					jobs[njobs++] = (struct job){ coll, (int)v };
			}
			free(copy);
		} else {
			int n = algorithm_count(coll, dry ? "/tmp" : root);

			if (n <= 1) {
				error("baseline: ompi_info lists no coll/tuned algorithm of %s", coll);
				goto out;
			}
			/* allgather's two_proc works on 2 ranks only. */
			for (int a = 1; a < n && a <= 64; a++)
				if (strcmp(coll, "allgather") || a != 6 || spec.nodes.nr * spec.ppn == 2)
					jobs[njobs++] = (struct job){ coll, a };
		}
	}
	if (!njobs) {
		error("baseline: %s lists no collective the mpi mode measures (bcast, gather, allgather)", path);
		goto out;
	}
	{
		char *abs = spec_run_key(path);

		key = xasprintf("%s:baseline", abs);
		free(abs);
	}
	if (!dry) {
		if (store_open(db, STORE_CREATE, &st))
			goto out;
		got = store_latest_run(st, key, &run);
		if (got < 0)
			goto out;
		if (!got || (run.spec_hash && strcmp(run.spec_hash, spec.hash))) {
			store_run_release(&run);
			memset(&run, 0, sizeof(run));
			gethostname(host, sizeof(host) - 1);
			run.spec_path = key;
			run.spec_hash = spec.hash;
			run.host = host;
			run.launcher = (char *)launcher_name(l);
			run.sweetspot_version = SWEETSPOT_VERSION;
			run.planned_launches = (long long)(njobs * spec.repetitions);
			run.planned_points = (long long)(njobs * spec.repetitions * spec.nsizes);
			if (store_run_begin(st, &run))
				goto out;
			/* These point at our strings: copies that the release can free
			 * (started and status are the store's own already). */
			run.spec_path = xstrdup(key);
			run.spec_hash = xstrdup(spec.hash);
			run.host = xstrdup(host);
			run.launcher = xstrdup(launcher_name(l));
			run.sweetspot_version = xstrdup(SWEETSPOT_VERSION);
		}
	}
	status = 1;
	for (size_t k = 0; k < njobs; k++)
		for (unsigned rep = 1; rep <= spec.repetitions; rep++) {
			struct strvec av = STRVEC_INIT, env = STRVEC_INIT;
			struct launch_child c = { 0 };
			struct launch_result r;
			struct store_launch sl = { 0 };
			struct store_point *pts = NULL;
			size_t np = 0;
			char id[64], *dir, *out, *log, *line, *start;
			int done;

			if (jobs[k].alg)
				snprintf(id, sizeof(id), "mpi-%s-alg%d", jobs[k].coll, jobs[k].alg);
			else
				snprintf(id, sizeof(id), "mpi-%s-default", jobs[k].coll);
			dir = xasprintf("%s/%lld/%s-r%u", root, run.id, id, rep);
			out = xasprintf("%s/points.jsonl", dir);
			log = xasprintf("%s/log", dir);
			build_cmd(&spec, l, &jobs[k], out, &av, &env);
			c.argv = &av;
			c.env = &env;
			c.log = log;
			c.dir = dir;
			c.timeout_s = spec.time_limit;
			if (dry) {
				line = launch_child_line(&c);
				printf("%s\n", line);
				free(line);
				goto next;
			}
			done = store_launch_done(st, run.id, id, (int)rep, 0);
			if (done < 0)
				goto fail;
			if (done)
				goto next;
			if (mkdir_p(dir))
				goto fail;
			unlink(out);
			start = now_iso();
			launch_spawn(&c, &r);
			if (!r.status)
				read_records(out, &pts, &np);
			sl.run = run.id;
			sl.layout = (struct store_layout){ id, (int)spec.nodes.nr, (int)spec.ppn, 0, 0, "host" };
			sl.repetition = (int)rep;
			sl.argv = line = strvec_join_quoted(&av);
			sl.exit_status = r.status;
			sl.timed_out = r.timed_out;
			sl.reason = r.status ? r.reason : (np ? NULL : "the kernel wrote no records");
			sl.log_path = log;
			sl.wall_s = r.wall_s;
			sl.started = start;
			sl.finished = start;
			sl.ok = !r.status && np > 0;
			failed += !sl.ok;
			fprintf(stderr, "[%zu/%zu] %s r%u: %s\n", k * spec.repetitions + rep,
				njobs * spec.repetitions, id, rep, sl.ok ? "ok" : sl.reason);
			if (store_launch_record(st, &sl, pts, np)) {
				free(line);
				free(start);
				if (pts)
					store_points_free(pts, np);
				goto fail;
			}
			free(line);
			free(start);
			if (pts)
				store_points_free(pts, np);
next:
			free(dir);
			free(out);
			free(log);
			strvec_clear(&av);
			strvec_clear(&env);
			continue;
fail:
			free(dir);
			free(out);
			free(log);
			strvec_clear(&av);
			strvec_clear(&env);
			goto out;
		}
	if (!dry) {
		if (store_run_end(st, run.id, failed ? "failed" : "done"))
			goto out;
		printf("baseline run %lld: %zu launches, %zu failed\n", run.id, njobs * spec.repetitions, failed);
	}
	status = failed ? 1 : 0;
out:
	free(jobs);
	free(key);
	free(root);
	free(dbcopy);
	store_run_release(&run);
	store_close(st);
	spec_release(&spec);
	return status;
}
