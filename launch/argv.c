/*
 * launch/argv.c: launcher command lines from a layout's generated files.
 * Each builder checks what it can before anything runs (the files exist,
 * the rank count agrees with the Slurm hostfile), because a launcher that
 * meets a bad file fails late and says little.
 */
#include "argv.h"
#include "child.h"
#include "error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const launcher_names[] = {
	[LAUNCHER_SRUN] = "srun",
	[LAUNCHER_MPIRUN] = "mpirun",
	[LAUNCHER_MPIRUN_RSH] = "mpirun_rsh",
};

const char *launcher_name(enum launcher l)
{
	return launcher_names[l];
}

int launcher_parse(const char *name, enum launcher *l)
{
	for (size_t i = 0; i < sizeof(launcher_names) / sizeof(*launcher_names); i++)
		if (!strcmp(name, launcher_names[i])) {
			*l = (enum launcher)i;
			return 0;
		}
	return error("unknown launcher '%s' (use srun, mpirun or mpirun_rsh)", name);
}

void launch_cmd_clear(struct launch_cmd *cmd)
{
	strvec_clear(&cmd->argv);
	strvec_clear(&cmd->env);
}

/* DIR/NAME, checked readable. The caller frees it. */
static char *layout_file(const struct launch_opts *o, const char *name)
{
	char *path = xasprintf("%s/%s", o->dir, name);

	if (access(path, R_OK)) {
		error("cannot read %s: %s", path, strerror(errno));
		free(path);
		return NULL;
	}
	return path;
}

static int check_opts(const struct launch_opts *o)
{
	if (!o->dir || !*o->dir)
		return error("no layout folder given to the launcher");
	if (!o->ranks)
		return error("a launch needs at least one rank");
	return 0;
}

/* Every "NAME=value" entry must have a name a shell and a launcher accept. */
int launch_check_assignments(const struct strvec *sv, const char *what)
{
	for (size_t i = 0; sv && i < sv->nr; i++) {
		const char *s = sv->v[i], *eq = strchr(s, '=');

		if (!eq || eq == s)
			return error("%s '%s' is not NAME=value", what, s);
		for (const char *p = s; p < eq; p++)
			if (!(*p == '_' || (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
			      (p > s && *p >= '0' && *p <= '9')))
				return error("%s '%s': '%.*s' is not a valid name", what, s,
					     (int)(eq - s), s);
	}
	return 0;
}

/* The launcher's name and the site's own options (a spec's launcher_args). */
static void push_program(const struct launch_opts *o, struct launch_cmd *cmd, const char *name)
{
	strvec_push(&cmd->argv, o->program ? o->program : name);
	if (o->extra)
		strvec_pushv(&cmd->argv, (const char *const *)o->extra->v);
}

static int want_root_flag(const struct launch_opts *o)
{
	return o->root < 0 ? geteuid() == 0 : o->root;
}

static int valid_host_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '.' || c == '_';
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int slurm_hostfile_count(const char *path, unsigned *ranks, unsigned *hosts)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t len;
	struct strvec names = STRVEC_INIT;
	int ret = -1;

	if (!f)
		return error("cannot read %s: %s", path, strerror(errno));
	while ((len = getline(&line, &cap, f)) >= 0) {
		char *s = line, *e;

		lineno++;
		while (*s == ' ' || *s == '\t')
			s++;
		e = s + strlen(s);
		while (e > s && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
			*--e = '\0';
		if (!*s || *s == '#')
			continue;
		for (char *p = s; *p; p++)
			if (!valid_host_char(*p)) {
				error("%s:%zu: '%s' is not a host name", path, lineno, s);
				goto out;
			}
		strvec_push(&names, s);
	}
	if (ferror(f)) {
		error("cannot read %s: %s", path, strerror(errno));
		goto out;
	}
	if (!names.nr) {
		error("%s: no hosts in it", path);
		goto out;
	}
	qsort(names.v, names.nr, sizeof(*names.v), cmp_str);
	*hosts = 1;
	for (size_t i = 1; i < names.nr; i++)
		if (strcmp(names.v[i - 1], names.v[i]))
			++*hosts;
	*ranks = (unsigned)names.nr;
	ret = 0;
out:
	strvec_clear(&names);
	free(line);
	fclose(f);
	return ret;
}

unsigned launch_srun_minutes(unsigned time_limit_s)
{
	/* Rounded up, plus one: the step must outlive launch_spawn()'s limit. */
	return (time_limit_s + 59) / 60 + 1;
}

int launch_argv_srun(const struct launch_opts *o, struct launch_cmd *cmd)
{
	char *hostfile = NULL, *conf = NULL;
	unsigned ranks = 0, hosts = 0;
	int ret = -1;

	if (check_opts(o) || launch_check_assignments(o->mca, "MCA parameter") ||
	    launch_check_assignments(o->env, "environment entry"))
		return -1;
	hostfile = layout_file(o, "slurm.hostfile");
	conf = layout_file(o, "multi-prog.conf");
	if (!hostfile || !conf)
		goto out;
	if (slurm_hostfile_count(hostfile, &ranks, &hosts))
		goto out;
	if (ranks != o->ranks) {
		error("%s holds %u ranks, the layout has %u", hostfile, ranks, o->ranks);
		goto out;
	}
	if (o->nodes && o->nodes != hosts) {
		error("%s names %u hosts, the layout has %u nodes", hostfile, hosts, o->nodes);
		goto out;
	}
	push_program(o, cmd, "srun");
	strvec_push(&cmd->argv, "--mpi=pmix");
	strvec_pushf(&cmd->argv, "--ntasks=%u", ranks);
	strvec_pushf(&cmd->argv, "--nodes=%u", hosts);
	/* Exact placement: rank i runs on line i of SLURM_HOSTFILE. */
	strvec_push(&cmd->argv, "--distribution=arbitrary");
	strvec_push(&cmd->argv, "--kill-on-bad-exit=1");
	if (o->time_limit_s)
		strvec_pushf(&cmd->argv, "--time=%u", launch_srun_minutes(o->time_limit_s));
	strvec_push(&cmd->argv, "--multi-prog");
	strvec_push(&cmd->argv, conf);
	strvec_pushf(&cmd->env, "SLURM_HOSTFILE=%s", hostfile);
	for (size_t i = 0; o->mca && i < o->mca->nr; i++)
		strvec_pushf(&cmd->env, "OMPI_MCA_%s", o->mca->v[i]);
	for (size_t i = 0; o->env && i < o->env->nr; i++)
		strvec_push(&cmd->env, o->env->v[i]);
	ret = 0;
out:
	free(hostfile);
	free(conf);
	return ret;
}

int launch_argv_srun_het(const struct launch_opts *o, const struct launch_het_part *hosts,
			 const struct launch_het_part *workers, struct launch_cmd *cmd)
{
	const struct launch_het_part *part[2] = { hosts, workers };

	if (launch_check_assignments(o->mca, "MCA parameter") ||
	    launch_check_assignments(o->env, "environment entry"))
		return -1;
	for (int g = 0; g < 2; g++)
		if (!part[g]->argv || !part[g]->argv->nr || !part[g]->ranks || !part[g]->nodes)
			return error("heterogeneous step: the %s component needs a program, "
				     "ranks and nodes", g ? "worker" : "host");
		else if (part[g]->nodes > part[g]->ranks)
			return error("heterogeneous step: %u %s ranks cannot cover %u nodes",
				     part[g]->ranks, g ? "worker" : "host", part[g]->nodes);
	push_program(o, cmd, "srun");
	/* Options before a ':' belong to that component only: each gets all. */
	for (int g = 0; g < 2; g++) {
		if (g)
			strvec_push(&cmd->argv, ":");
		strvec_pushf(&cmd->argv, "--het-group=%d", g);
		strvec_push(&cmd->argv, "--mpi=pmix");
		strvec_pushf(&cmd->argv, "--ntasks=%u", part[g]->ranks);
		strvec_pushf(&cmd->argv, "--nodes=%u", part[g]->nodes);
		strvec_push(&cmd->argv, "--distribution=block");
		strvec_push(&cmd->argv, "--kill-on-bad-exit=1");
		if (o->time_limit_s)
			strvec_pushf(&cmd->argv, "--time=%u", launch_srun_minutes(o->time_limit_s));
		strvec_pushv(&cmd->argv, (const char *const *)part[g]->argv->v);
	}
	for (size_t i = 0; o->mca && i < o->mca->nr; i++)
		strvec_pushf(&cmd->env, "OMPI_MCA_%s", o->mca->v[i]);
	for (size_t i = 0; o->env && i < o->env->nr; i++)
		strvec_push(&cmd->env, o->env->v[i]);
	return 0;
}

int launch_argv_mpirun(const struct launch_opts *o, struct launch_cmd *cmd)
{
	char *hostfile = NULL, *appfile = NULL;
	int ret = -1;

	if (check_opts(o) || launch_check_assignments(o->mca, "MCA parameter") ||
	    launch_check_assignments(o->env, "environment entry"))
		return -1;
	hostfile = layout_file(o, "hostfile");
	appfile = layout_file(o, "appfile");
	if (!hostfile || !appfile)
		goto out;
	push_program(o, cmd, "mpirun");
	if (want_root_flag(o))
		strvec_push(&cmd->argv, "--allow-run-as-root");
	if (o->oversubscribe)
		strvec_push(&cmd->argv, "--oversubscribe");
	if (o->rsh_agent) {
		strvec_push(&cmd->argv, "--mca");
		strvec_push(&cmd->argv, "plm_rsh_agent");
		strvec_push(&cmd->argv, o->rsh_agent);
	}
	for (size_t i = 0; o->mca && i < o->mca->nr; i++) {
		const char *eq = strchr(o->mca->v[i], '=');

		strvec_push(&cmd->argv, "--mca");
		strvec_pushf(&cmd->argv, "%.*s", (int)(eq - o->mca->v[i]), o->mca->v[i]);
		strvec_push(&cmd->argv, eq + 1);
	}
	/* mpirun passes remote ranks only the variables named with -x. A
	 * global `-x NAME=value` does not reach an --app file's contexts, but
	 * `-x NAME` exporting mpirun's own environment does. */
	for (size_t i = 0; o->env && i < o->env->nr; i++) {
		const char *eq = strchr(o->env->v[i], '=');

		strvec_push(&cmd->argv, "-x");
		strvec_pushf(&cmd->argv, "%.*s", (int)(eq - o->env->v[i]), o->env->v[i]);
		strvec_push(&cmd->env, o->env->v[i]);
	}
	strvec_push(&cmd->argv, "--hostfile");
	strvec_push(&cmd->argv, hostfile);
	strvec_push(&cmd->argv, "--app");
	strvec_push(&cmd->argv, appfile);
	ret = 0;
out:
	free(hostfile);
	free(appfile);
	return ret;
}

int launch_argv_mpirun_rsh(const struct launch_opts *o, struct launch_cmd *cmd)
{
	char *hostfile = NULL, *config = NULL;
	int ret = -1;

	if (check_opts(o) || launch_check_assignments(o->env, "environment entry"))
		return -1;
	if (o->mca && o->mca->nr)
		return error("MCA parameters are Open MPI's; mpirun_rsh (MVAPICH) takes "
			     "NAME=value environment entries instead");
	hostfile = layout_file(o, "hostfile.mvapich");
	config = layout_file(o, "config");
	if (!hostfile || !config)
		goto out;
	push_program(o, cmd, "mpirun_rsh");
	strvec_pushf(&cmd->argv, "-np");
	strvec_pushf(&cmd->argv, "%u", o->ranks);
	strvec_push(&cmd->argv, "-hostfile");
	strvec_push(&cmd->argv, hostfile);
	/* mpirun_rsh takes the ranks' environment as words on its own line. */
	for (size_t i = 0; o->env && i < o->env->nr; i++)
		strvec_push(&cmd->argv, o->env->v[i]);
	strvec_push(&cmd->argv, "-config");
	strvec_push(&cmd->argv, config);
	ret = 0;
out:
	free(hostfile);
	free(config);
	return ret;
}

int launch_argv(enum launcher l, const struct launch_opts *o, struct launch_cmd *cmd)
{
	switch (l) {
	case LAUNCHER_SRUN:
		return launch_argv_srun(o, cmd);
	case LAUNCHER_MPIRUN:
		return launch_argv_mpirun(o, cmd);
	case LAUNCHER_MPIRUN_RSH:
		return launch_argv_mpirun_rsh(o, cmd);
	}
	return error("unknown launcher %d", (int)l);
}

int launch_check_installed(const struct launch_cmd *cmd)
{
	char *path;

	if (!cmd->argv.nr)
		return error("no launcher command built");
	path = launch_which(cmd->argv.v[0]);
	if (!path)
		return error(strchr(cmd->argv.v[0], '/') ? "%s is not an executable file"
							   : "%s is not installed (not found in PATH)",
			     cmd->argv.v[0]);
	free(path);
	return 0;
}
