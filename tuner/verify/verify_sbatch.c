/*
 * tuner/verify/verify_sbatch.c: verify with srun outside a Slurm
 * allocation: the whole verify (every pair and the proof) as one batch job
 * that runs this verify again inside its allocation, where it launches
 * with srun; the job's output is the answer.
 */
#include "verify_sbatch.h"

#include "argv.h"
#include "error.h"
#include "files.h"
#include "recommend.h"
#include "sbatch.h"
#include "strvec.h"
#include "xalloc.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
	char *self = files_self_path("sweetspot"), *spec = spec_run_key(a->path),
	     *exp = realpath(a->export, NULL);

	strvec_pushv(cmd,
		     (const char *const[]){ self, "verify", spec, "--db", db_abs, "--export",
					    exp ? exp : a->export, "--launcher", "srun", NULL });
	if (a->metric)
		strvec_pushv(cmd, (const char *const[]){ "--metric", a->metric, NULL });
	if (a->figures.nr) {
		char *list = strvec_join(&a->figures, ",");

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
		     const struct verify_proof *pf, const struct spec *s, const char *db_abs,
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
	list = strvec_join(&hosts, ",");
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

void verify_dry_sbatch(const struct verify_args *a, const struct verify_ctx *x,
		       const struct spec *s, FILE *out)
{
	struct launch_cmd cmd = LAUNCH_CMD_INIT;
	struct strvec hosts = STRVEC_INIT;
	char *db_abs = files_absolute(a->db), *line, *list;
	unsigned tpn;

	alloc_hosts(s, x, &hosts, &tpn);
	inner_command(a, x, db_abs, &cmd.argv);
	line = launch_cmd_line(&cmd);
	list = strvec_join(&hosts, ",");
	fprintf(out,
		"# outside a Slurm allocation: one batch job (sbatch --wait; --nodelist %s, "
		"%u tasks per node) runs the pairs inside it:\n%s\n",
		list, tpn, line);
	free(line);
	free(list);
	free(db_abs);
	strvec_clear(&hosts);
	launch_cmd_clear(&cmd);
}

int verify_through_sbatch(const struct verify_args *a, const struct verify_ctx *x,
			  const struct verify_proof *pf, const struct spec *s, FILE *to)
{
	const char *slash = strrchr(s->path, '/'), *base = slash ? slash + 1 : s->path;
	int stem = (int)strcspn(base, ".");
	char *db_abs = files_absolute(a->db), *id = NULL, *path,
	     *jobs = xasprintf("%.*s/jobs", (int)(strrchr(db_abs, '/') - db_abs), db_abs),
	     *script = xasprintf("%s/%.*s-verify-%ld.sbatch", jobs, stem, base, (long)time(NULL)),
	     *out = xasprintf("%s/%.*s-verify-%%j.out", jobs, stem, base),
	     *err = xasprintf("%s/%.*s-verify-%%j.err", jobs, stem, base);
	struct sbatch_submit sub = { 0 };
	int status = 1, job_status = -1, rc;

	if (files_mkdir(jobs) || write_job(a, x, pf, s, db_abs, out, err, script))
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
	path = sbatch_job_output(err, id);
	copy_out(path, stderr);
	free(path);
	path = sbatch_job_output(out, id);
	if (copy_out(path, to))
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
