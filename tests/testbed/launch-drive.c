/*
 * tests/testbed/launch-drive.c: a test-only front end to the launch/
 * module, so that the testbed scripts can drive the real builders and
 * launch_spawn() against a real Slurm cluster before (and independently
 * of) the sweetspot commands that use them. Built by the test with cc
 * against build/libsweetspot.a; not installed.
 *
 *   launch-drive srun DIR TIMEOUT LOG [--no-nodelist] [NAME=VALUE]...
 *       srun for the layout folder DIR (ranks from its slurm.hostfile),
 *       the ranks given NAME=VALUE; --no-nodelist drops the builder's
 *       SLURM_JOB_NODELIST and SLURM_NODELIST (to show the hang they cure)
 *   launch-drive het TIMEOUT LOG H HNODES W WNODES PROG
 *       a heterogeneous step: H ranks of `PROG host` over HNODES nodes,
 *       W ranks of `PROG worker` over WNODES
 *   launch-drive sbatch SCRIPT OUT [--wait] [--after ID] [--nodelist L]
 *       [--nodes N] [--tpn N] [--het] [--constraint C] -- COMMAND...
 *       write the job script and submit it
 *
 * srun and het print `argv: <line>` then `status=S timed_out=T wall=W`;
 * sbatch prints `job=ID status=S`. Exit status 2 when nothing could be
 * built or submitted.
 */
#include "argv.h"
#include "child.h"
#include "error.h"
#include "sbatch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int run(struct launch_cmd *cmd, double timeout, const char *log)
{
	struct launch_child c = {
		.argv = &cmd->argv, .env = &cmd->env, .log = log, .timeout_s = timeout, .grace_s = 3
	};
	struct launch_result r;
	char *line = launch_child_line(&c);

	printf("argv: %s\n", line);
	free(line);
	if (launch_check_installed(cmd))
		return 2;
	fflush(stdout);
	launch_spawn(&c, &r);
	printf("status=%d timed_out=%d wall=%.2f reason=%s\n", r.status, r.timed_out, r.wall_s,
	       r.reason);
	return 0;
}

/* Drops NAME=... from env (the variant without the builder's fix). */
static void drop_env(struct strvec *env, const char *name)
{
	struct strvec kept = STRVEC_INIT;
	size_t len = strlen(name);

	for (size_t i = 0; i < env->nr; i++)
		if (strncmp(env->v[i], name, len) || env->v[i][len] != '=')
			strvec_push(&kept, env->v[i]);
	strvec_clear(env);
	*env = kept;
}

static int drive_srun(int argc, char **argv)
{
	struct launch_opts o = LAUNCH_OPTS_INIT;
	struct launch_cmd cmd = LAUNCH_CMD_INIT;
	struct strvec env = STRVEC_INIT;
	unsigned hosts;
	char *hf;
	int ret, fix = 1;

	if (argc < 5)
		return 2;
	for (int i = 5; i < argc; i++)
		if (!strcmp(argv[i], "--no-nodelist"))
			fix = 0;
		else
			strvec_push(&env, argv[i]);
	o.dir = argv[2];
	o.time_limit_s = (unsigned)atoi(argv[3]);
	o.env = &env;
	hf = xasprintf("%s/slurm.hostfile", o.dir);
	if (slurm_hostfile_count(hf, &o.ranks, &hosts) || launch_argv_srun(&o, &cmd))
		return 2;
	free(hf);
	if (!fix) {
		drop_env(&cmd.env, "SLURM_JOB_NODELIST");
		drop_env(&cmd.env, "SLURM_NODELIST");
	}
	ret = run(&cmd, atof(argv[3]), argv[4]);
	launch_cmd_clear(&cmd);
	strvec_clear(&env);
	return ret;
}

static int drive_het(int argc, char **argv)
{
	struct launch_opts o = LAUNCH_OPTS_INIT;
	struct launch_cmd cmd = LAUNCH_CMD_INIT;
	struct strvec hprog = STRVEC_INIT, wprog = STRVEC_INIT;
	struct launch_het_part h, w;
	int ret;

	if (argc != 9)
		return 2;
	o.time_limit_s = (unsigned)atoi(argv[2]);
	strvec_pushv(&hprog, (const char *const[]){ argv[8], "host", NULL });
	strvec_pushv(&wprog, (const char *const[]){ argv[8], "worker", NULL });
	h = (struct launch_het_part){ &hprog, (unsigned)atoi(argv[4]), (unsigned)atoi(argv[5]) };
	w = (struct launch_het_part){ &wprog, (unsigned)atoi(argv[6]), (unsigned)atoi(argv[7]) };
	if (launch_argv_srun_het(&o, &h, &w, &cmd))
		return 2;
	ret = run(&cmd, atof(argv[2]), argv[3]);
	launch_cmd_clear(&cmd);
	strvec_clear(&hprog);
	strvec_clear(&wprog);
	return ret;
}

static int drive_sbatch(int argc, char **argv)
{
	struct sbatch_job j = { 0 };
	struct sbatch_submit s = { 0 };
	struct strvec command = STRVEC_INIT;
	char *id = NULL;
	int i, status = -1;

	if (argc < 5)
		return 2;
	j.name = "sweetspot-test";
	j.time_limit_s = 120;
	j.output = argv[3];
	j.nparts = 1;
	j.part[0].nodes = 1;
	j.part[0].tasks_per_node = 1;
	j.command = &command;
	s.script = argv[2];
	s.timeout_s = 90;
	for (i = 4; i < argc && strcmp(argv[i], "--"); i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : "";
		struct sbatch_part *p = &j.part[j.nparts - 1];

		if (!strcmp(argv[i], "--wait"))
			s.wait = 1;
		else if (!strcmp(argv[i], "--het")) {
			j.nparts = 2;
			j.part[1] = (struct sbatch_part){ 1, 1, NULL, NULL };
		} else if (!strcmp(argv[i], "--after"))
			s.after = argv[++i];
		else if (!strcmp(argv[i], "--nodelist"))
			p->nodelist = argv[++i];
		else if (!strcmp(argv[i], "--constraint"))
			p->constraint = argv[++i];
		else if (!strcmp(argv[i], "--nodes"))
			p->nodes = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--tpn"))
			p->tasks_per_node = (unsigned)atoi(argv[++i]);
		else
			return error("launch-drive sbatch: unknown option %s %s", argv[i], v) ? 2 :
												2;
	}
	for (i++; i < argc; i++)
		strvec_push(&command, argv[i]);
	if (sbatch_write(&j, s.script) || sbatch_submit(&s, &id, &status))
		return 2;
	printf("job=%s status=%d\n", id, status);
	free(id);
	strvec_clear(&command);
	return 0;
}

int main(int argc, char **argv)
{
	error_set_prog("launch-drive");
	if (argc > 1 && !strcmp(argv[1], "srun"))
		return drive_srun(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "het"))
		return drive_het(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "sbatch"))
		return drive_sbatch(argc, argv);
	fputs("usage: launch-drive srun|het|sbatch ...\n", stderr);
	return 2;
}
