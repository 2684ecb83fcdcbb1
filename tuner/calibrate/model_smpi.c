/*
 * tuner/calibrate/model_smpi.c: the real kernel on the model's machine, under SimGrid
 * SMPI. Each layout is one launch of the sweep engine (runner.h) whose
 * command the build hook makes: the platform and hostfile of the layout
 * (model_platform.c) written into the launch's folder, then smpirun with
 * the SMPI build of the kernel (bin/smpi/ beside the spec's host_bin,
 * `make smpi`) and the layout's kernel arguments, transport rma. The run is
 * stored as "SPEC:smpi": the records say "rma" like a real rma run, the
 * run's label says they were simulated.
 *
 * Simulated times are deterministic only when the kernel's dummy compute
 * is simulated rather than benchmarked: a kernel built with the SMPI
 * compute hook (its binary names smpi_execute_flops) runs with
 * smpi/simulate-computation off; any other runs benchmarked (the CPU
 * bursts between MPI calls are timed for real and injected), and its
 * times then vary from run to run.
 */
#include "model_run.h"
#include "error.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

struct smpi_job {
	const struct layout *l;
	const struct model_params *p;
	struct model_machine mc;
};

char *model_smpi_kernel(const char *host_bin)
{
	const char *slash = strrchr(host_bin, '/');

	if (!slash)
		return xasprintf("smpi/%s", host_bin);
	return xasprintf("%.*s/smpi%s", (int)(slash - host_bin), host_bin, slash);
}

int model_smpi_deterministic(const char *kernel)
{
	static const char sym[] = "smpi_execute_flops";
	char buf[65536 + sizeof(sym)];
	size_t keep = 0, n;
	int found = 0;
	FILE *f = fopen(kernel, "rb");

	if (!f)
		return 0;
	while (!found && (n = fread(buf + keep, 1, sizeof(buf) - keep, f)) > 0) {
		n += keep;
		for (size_t i = 0; !found && i + sizeof(sym) - 1 <= n; i++)
			found = buf[i] == sym[0] && !memcmp(buf + i, sym, sizeof(sym) - 1);
		/* A name split by the block boundary is found in the next. */
		keep = n < sizeof(sym) ? n : sizeof(sym) - 1;
		memmove(buf, buf + n - keep, keep);
	}
	fclose(f);
	return found;
}

void model_smpi_cfg(int deterministic, struct strvec *cfg)
{
	strvec_push(cfg, "smpi/coll-selector:ompi");
	strvec_push(cfg, "smpi/host-speed:" MODEL_SMPI_SPEED);
	/* The links mean what the model's parameters say: no SMPI piecewise
	 * correction of bandwidth or latency, no simulated TCP acks. */
	strvec_push(cfg, "smpi/bw-factor:0:1");
	strvec_push(cfg, "smpi/lat-factor:0:1");
	strvec_push(cfg, "network/crosstraffic:0");
	/* MPI_Test costs 100 us by default in SMPI, and every failed test
	 * of a run of them sleeps once more than the one before; the kernel
	 * tests its transfers in a loop, which the model does not charge. At
	 * 1e-7 s the tests made a 256-rank bcast's reference 22.3 us where
	 * 1e-8 and 1e-9 give 4.48 (converged); 0 makes the polling loops
	 * spin in zero time. */
	strvec_push(cfg, "smpi/test:1e-9");
	if (deterministic)
		strvec_push(cfg, "smpi/simulate-computation:no");
}

static int smpi_build(const struct runner *r, const struct runner_job *rj, const char *dir,
		      int check_files, struct launch_cmd *cmd)
{
	const struct spec *s = r->spec;
	const struct smpi_job *j = rj->data;
	struct launch_opts lo = LAUNCH_OPTS_INIT;
	struct strvec prog = STRVEC_INIT, cfg = STRVEC_INIT, extra = STRVEC_INIT;
	char *plat = xasprintf("%s/platform.xml", dir), *hf = xasprintf("%s/hostfile.smpi", dir);
	char *kernel = model_smpi_kernel(s->host_bin);
	int rc = 0;

	if (check_files)
		rc = model_platform_write(j->p, &j->mc, plat, hf);
	strvec_push(&prog, kernel);
	layout_kernel_args(s, j->l, &prog);
	/* The last -t wins: rma whatever the spec says (no verbs device is
	 * simulated). */
	strvec_pushv(&prog, (const char *const[]){ "-t", "rma", NULL });
	model_smpi_cfg(model_smpi_deterministic(kernel), &cfg);
	strvec_push(&extra, "--log=root.thresh:error");
	lo.ranks = (unsigned)(j->mc.nodes * j->mc.ppn + j->mc.W);
	lo.env = &s->env;
	lo.extra = &extra;
	lo.time_limit_s = s->time_limit;
	if (!rc)
		rc = launch_argv_smpirun(&lo, plat, hf, &cfg, &prog, cmd);
	strvec_clear(&prog);
	strvec_clear(&cfg);
	strvec_clear(&extra);
	free(kernel);
	free(plat);
	free(hf);
	return rc;
}

static void smpi_jobs(const struct spec *s, const struct layout *ls, size_t nl,
		      const struct model_params *p, struct smpi_job *sj, struct runner_job *rj)
{
	struct model_env env;

	model_env_of(s, &env);
	for (size_t i = 0; i < nl; i++) {
		const struct layout *l = &ls[i];

		sj[i] = (struct smpi_job){ l,
					   p,
					   { (int)l->nodes, (int)l->ppn, (int)l->workers,
					     (int)l->wpn, l->placement == PLACEMENT_DPU,
					     env.host_cores, env.dpu_cores, 1 } };
		rj[i] = (struct runner_job){ NULL,
					     { l->id, (int)l->nodes, (int)l->ppn, (int)l->workers,
					       (int)l->wpn, placement_name(l->placement) },
					     l->points,
					     NULL,
					     &sj[i] };
	}
}

int model_smpi_run(const char *path, const char *db, struct store *st, const struct spec *s,
		   const struct layout *ls, size_t nl, const struct model_params *p, int dry)
{
	struct runner r = RUNNER_INIT;
	struct smpi_job *sj = xcalloc(nl ? nl : 1, sizeof(*sj));
	struct runner_job *rj = xcalloc(nl ? nl : 1, sizeof(*rj));
	long long launches = 0, failed = 0, points = 0, invalid = 0;
	size_t npts = 0;
	int rc;

	smpi_jobs(s, ls, nl, p, sj, rj);
	for (size_t i = 0; i < nl; i++)
		npts += ls[i].points;
	runner_init(&r, s, LAUNCHER_MPIRUN);
	r.label = "smpi";
	r.build = smpi_build;
	r.retry_failed = 1;
	r.progress_out = stderr;
	if (dry)
		rc = runner_dry_run(&r, path, db, rj, nl, stdout) ? -1 : 0;
	else if (!(rc = runner_open(&r, st, path, db, 0, (long long)nl, (long long)npts, (long)nl,
				    1))) {
		runner_signals_install(&r);
		rc = runner_sweep(&r, rj, nl, 1, 0);
		runner_signals_restore(&r);
		if (runner_finish(&r, &launches, &failed, &points, &invalid))
			rc = -1;
		fprintf(stderr,
			"# smpi: run %lld: %lld launches (%lld failed), %lld points (%lld "
			"invalid)\n",
			r.run.id, launches, failed, points, invalid);
		if (!rc && (failed || invalid))
			rc = error("smpi: %lld launches failed, %lld points invalid", failed,
				   invalid);
	}
	runner_release(&r);
	free(sj);
	free(rj);
	return rc;
}
