/*
 * tests/unit/argv-t.c: the launcher command lines built from a layout's
 * files: exact argv for srun, mpirun and mpirun_rsh, the checks made before
 * anything runs, and one real mpirun of the built argv through
 * launch_spawn() on made-up host names (the stand-in ssh), checking that
 * every rank ran where the hostfile and appfile put it. The layout folder's
 * name has a space and a quote in it, so a shell anywhere would show.
 */
#include "tap.h"
#include "argv.h"
#include "child.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void write_file(const char *dir, const char *name, const char *text, int mode)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
	chmod(path, (mode_t)mode);
	free(path);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = xmalloc(1 << 16);
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, (1 << 16) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

/* Sorted lines, so that ranks printing in any order compare equal. */
static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *sorted_lines(char *text)
{
	struct strvec lines = STRVEC_INIT;
	char *out = xstrdup(""), *save = NULL;

	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (!strncmp(l, "rank ", 5))
			strvec_push(&lines, l);
	qsort(lines.v, lines.nr, sizeof(*lines.v), cmp_line);
	for (size_t i = 0; i < lines.nr; i++) {
		char *t = xasprintf("%s%s\n", out, lines.v[i]);

		free(out);
		out = t;
	}
	strvec_clear(&lines);
	return out;
}

/* DIR/NAME as a shell would need it quoted. The caller frees it. */
static char *q(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name), *out = NULL;

	shell_quote_append(&out, path);
	free(path);
	return out;
}

int main(void)
{
	char base[] = "/tmp/argv-t.XXXXXX";
	const char *root = getenv("SWEETSPOT_ROOT");
	struct launch_opts o = LAUNCH_OPTS_INIT;
	struct launch_cmd cmd = LAUNCH_CMD_INIT;
	struct strvec mca = STRVEC_INIT, env = STRVEC_INIT;
	char *dir, *line, *want, *fake_ssh, *log, *report, *qa, *qb;
	enum launcher l;

	if (!mkdtemp(base)) {
		perror("mkdtemp");
		return 1;
	}
	dir = xasprintf("%s/n2 it's", base);
	mkdir(dir, 0755);
	report = xasprintf("%s/report", dir);
	write_file(dir, "slurm.hostfile", "# rank per line\nn1\nn1\n\nn2\n", 0644);
	write_file(dir, "multi-prog.conf", "0-1 /bin/true\n2 /bin/true\n", 0644);
	write_file(dir, "hostfile", "nodeA slots=2\nnodeB slots=1\n", 0644);
	/* An appfile cannot quote, so the program path it names has no space. */
	write_file(base, "report",
		   "#!/bin/sh\necho \"rank $OMPI_COMM_WORLD_RANK $1 on $SWEETSPOT_HOSTNAME $SWEETSPOT_T\"\n",
		   0755);
	{
		char *app = xasprintf("-np 2 --host nodeA:2 %s/report host\n"
				      "-np 1 --host nodeB:1 %s/report worker\n", base, base);

		write_file(dir, "appfile", app, 0644);
		free(app);
	}
	write_file(dir, "hostfile.mvapich", "nodeA:2\nnodeB:1\n", 0644);
	write_file(dir, "config", "-n 2 : /bin/true\n-n 1 : /bin/true\n", 0644);

	plan(31);

	/* srun */
	o.dir = dir;
	o.ranks = 3;
	o.time_limit_s = 90;
	strvec_push(&mca, "btl=self,tcp");
	o.mca = &mca;
	is_int(launch_argv_srun(&o, &cmd), 0, "srun argv builds");
	line = strvec_join_quoted(&cmd.argv);
	qa = q(dir, "multi-prog.conf");
	want = xasprintf("srun --mpi=pmix --ntasks=3 --nodes=2 --distribution=arbitrary "
			 "--kill-on-bad-exit=1 --time=3 --multi-prog %s", qa);
	free(qa);
	is_str(line, want, "... with exact placement, multi-prog and a step limit");
	free(want);
	free(line);
	is_int(cmd.env.nr, 2, "... and two environment entries");
	want = xasprintf("SLURM_HOSTFILE=%s/slurm.hostfile", dir);
	is_str(cmd.env.v[0], want, "... SLURM_HOSTFILE names the layout's file");
	free(want);
	is_str(cmd.env.v[1], "OMPI_MCA_btl=self,tcp", "... MCA parameters go in the environment");
	launch_cmd_clear(&cmd);

	is_int(launch_srun_minutes(1), 2, "a 1 s limit is a 2 minute step limit (Slurm counts minutes)");
	is_int(launch_srun_minutes(120), 3, "a 120 s limit is a 3 minute step limit");

	o.ranks = 4;
	is_int(launch_argv_srun(&o, &cmd), -1, "srun: a rank count the hostfile disagrees with fails");
	is_int(cmd.argv.nr, 0, "... building nothing");
	o.ranks = 3;
	o.nodes = 3;
	is_int(launch_argv_srun(&o, &cmd), -1, "srun: a node count the hostfile disagrees with fails");
	o.nodes = 0;
	write_file(dir, "slurm.hostfile", "n1\nn1;rm\nn2\n", 0644);
	is_int(launch_argv_srun(&o, &cmd), -1, "srun: a hostfile line that is no host name fails");
	{
		unsigned ranks = 0, hosts = 0;
		char *p = xasprintf("%s/slurm.hostfile", dir);

		write_file(dir, "slurm.hostfile", "n2\nn1\nn2\nn1-bf\n", 0644);
		is_int(slurm_hostfile_count(p, &ranks, &hosts), 0, "a Slurm hostfile in any order counts");
		ok(ranks == 4 && hosts == 3, "... 4 ranks on 3 hosts (got %u on %u)", ranks, hosts);
		free(p);
	}
	o.dir = base;
	is_int(launch_argv_srun(&o, &cmd), -1, "srun: a folder without the files fails");

	/* mpirun, then for real */
	fake_ssh = xasprintf("%s/tests/testbed/fake-ssh", root ? root : ".");
	strvec_clear(&mca);
	strvec_push(&mca, "oob_tcp_if_include=lo");
	/* Open MPI 4.1's orted can crash sharing its hwloc topology through a
	 * hole in its address space; not sharing it avoids that. */
	strvec_push(&mca, "rtc_hwloc_vmhole=none");
	strvec_push(&env, "SWEETSPOT_T=a b;c");
	o.dir = dir;
	o.env = &env;
	o.root = 1;
	o.oversubscribe = 1;
	o.rsh_agent = fake_ssh;
	is_int(launch_argv_mpirun(&o, &cmd), 0, "mpirun argv builds");
	line = strvec_join_quoted(&cmd.argv);
	qa = q(dir, "hostfile");
	qb = q(dir, "appfile");
	want = xasprintf("mpirun --allow-run-as-root --oversubscribe --mca plm_rsh_agent %s "
			 "--mca oob_tcp_if_include lo --mca rtc_hwloc_vmhole none -x SWEETSPOT_T "
			 "--hostfile %s --app %s", fake_ssh, qa, qb);
	is_str(line, want, "... with root, oversubscription, the agent, MCA and -x");
	free(want);
	free(line);
	is_str(cmd.env.nr ? cmd.env.v[0] : NULL, "SWEETSPOT_T=a b;c", "... the -x value in its environment");
	is_int(launch_check_installed(&cmd), 0, "... and mpirun is installed");
	{
		struct launch_child c = { &cmd.argv, &cmd.env, NULL, NULL, 60, 2 };
		struct launch_result r;
		char *text, *sorted;

		log = xasprintf("%s/mpirun.log", base);
		c.log = log;
		is_int(launch_spawn(&c, &r), 0, "the built mpirun runs 3 ranks on fake hosts (%s)",
		       r.reason);
		text = slurp(log);
		sorted = sorted_lines(text);
		is_str(sorted, "rank 0 host on nodeA a b;c\nrank 1 host on nodeA a b;c\n"
			       "rank 2 worker on nodeB a b;c\n",
		       "... each rank where the hostfile and appfile put it, with -x values intact");
		free(sorted);
		free(text);
	}
	launch_cmd_clear(&cmd);
	o.root = 0;
	o.oversubscribe = 0;
	o.rsh_agent = NULL;
	o.env = NULL;
	o.mca = NULL;
	launch_argv_mpirun(&o, &cmd);
	line = strvec_join_quoted(&cmd.argv);
	want = xasprintf("mpirun --hostfile %s --app %s", qa, qb);
	free(qa);
	free(qb);
	is_str(line, want, "mpirun without root or options: the plain form");
	free(want);
	free(line);
	launch_cmd_clear(&cmd);

	/* mpirun_rsh: built and shown */
	strvec_clear(&env);
	strvec_push(&env, "MV2_ENABLE_AFFINITY=0");
	o.env = &env;
	{
		struct strvec extra = STRVEC_INIT;

		strvec_push(&extra, "-rsh");
		o.extra = &extra;
		is_int(launch_argv_mpirun_rsh(&o, &cmd), 0, "mpirun_rsh argv builds");
		o.extra = NULL;
		strvec_clear(&extra);
	}
	line = strvec_join_quoted(&cmd.argv);
	qa = q(dir, "hostfile.mvapich");
	qb = q(dir, "config");
	want = xasprintf("mpirun_rsh -rsh -np 3 -hostfile %s MV2_ENABLE_AFFINITY=0 -config %s", qa, qb);
	free(qa);
	free(qb);
	is_str(line, want, "... in MVAPICH's form, site options first, its environment on the line");
	free(want);
	free(line);
	launch_cmd_clear(&cmd);
	o.mca = &mca;
	is_int(launch_argv_mpirun_rsh(&o, &cmd), -1, "mpirun_rsh refuses Open MPI MCA parameters");
	o.mca = NULL;
	strvec_push(&env, "1BAD=x");
	is_int(launch_argv_mpirun(&o, &cmd), -1, "an environment entry with a bad name is refused");
	launch_cmd_clear(&cmd);

	/* A heterogeneous step: hosts and workers as two components. */
	{
		struct strvec hp = STRVEC_INIT, wp = STRVEC_INIT;
		struct launch_het_part h = { &hp, 4, 2 }, w = { &wp, 2, 2 };
		struct launch_opts ho = LAUNCH_OPTS_INIT;

		strvec_pushv(&hp, (const char *const[]){ "/bin/kernel x86", "-w", "2", NULL });
		strvec_pushv(&wp, (const char *const[]){ "/bin/kernel-arm", "-w", "2", NULL });
		ho.time_limit_s = 30;
		is_int(launch_argv_srun_het(&ho, &h, &w, &cmd), 0, "a heterogeneous srun builds");
		line = strvec_join_quoted(&cmd.argv);
		is_str(line, "srun --het-group=0 --mpi=pmix --ntasks=4 --nodes=2 --distribution=block "
			     "--kill-on-bad-exit=1 --time=2 '/bin/kernel x86' -w 2 : --het-group=1 "
			     "--mpi=pmix --ntasks=2 --nodes=2 --distribution=block --kill-on-bad-exit=1 "
			     "--time=2 /bin/kernel-arm -w 2",
		       "... one component per node class, each with every option");
		free(line);
		launch_cmd_clear(&cmd);
		w.nodes = 3;
		is_int(launch_argv_srun_het(&ho, &h, &w, &cmd), -1, "... and refuses more nodes than ranks");
		strvec_clear(&hp);
		strvec_clear(&wp);
	}

	o.program = "sweetspot-no-such-launcher";
	strvec_clear(&env);
	launch_argv_mpirun(&o, &cmd);
	is_int(launch_check_installed(&cmd), -1, "a launcher that is not installed is caught");
	launch_cmd_clear(&cmd);

	is_int(launcher_parse("mpirun_rsh", &l) == 0 && l == LAUNCHER_MPIRUN_RSH, 1,
	       "launcher names parse");
	is_int(launcher_parse("ssh", &l), -1, "... and an unknown one is refused");

	strvec_clear(&mca);
	strvec_clear(&env);
	{
		struct strvec rm = STRVEC_INIT;
		struct launch_child c = { &rm, NULL, NULL, NULL, 30, 0 };
		struct launch_result r;

		strvec_pushv(&rm, (const char *const[]){ "rm", "-rf", base, NULL });
		if (launch_spawn(&c, &r))
			diag("could not remove %s: %s", base, r.reason);
		strvec_clear(&rm);
	}
	free(dir);
	free(report);
	free(fake_ssh);
	free(log);
	return done_testing();
}
