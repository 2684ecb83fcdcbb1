/*
 * launch/argv.c: launcher command lines from a layout's generated files,
 * one builder per launcher for every line we run or show. Each builder
 * checks what it can before anything runs (the files exist, the rank count
 * agrees with the Slurm hostfile), because a launcher that meets a bad file
 * fails late and says little; for a folder not written yet (check_files
 * 0) it builds the same line from the counts it is given.
 */
#include "argv.h"
#include "child.h"
#include "error.h"
#include "files.h"
#include "hostlist.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const launcher_names[] = {
	[LAUNCHER_SRUN] = "srun",
	[LAUNCHER_MPIRUN] = "mpirun",
	[LAUNCHER_MPIRUN_RSH] = "mpirun_rsh",
	[LAUNCHER_HYDRA] = "hydra",
};

static const char *const launcher_programs[] = {
	[LAUNCHER_SRUN] = "srun",
	[LAUNCHER_MPIRUN] = "mpirun",
	[LAUNCHER_MPIRUN_RSH] = "mpirun_rsh",
	[LAUNCHER_HYDRA] = "mpiexec.hydra",
};

const char *launcher_name(enum launcher l)
{
	return launcher_names[l];
}

const char *launcher_program(enum launcher l)
{
	return launcher_programs[l];
}

int launcher_parse(const char *name, enum launcher *l)
{
	for (size_t i = 0; i < sizeof(launcher_names) / sizeof(*launcher_names); i++)
		if (!strcmp(name, launcher_names[i])) {
			*l = (enum launcher)i;
			return 0;
		}
	return error("unknown launcher '%s' (use srun, mpirun, mpirun_rsh or hydra)", name);
}

void launch_cmd_clear(struct launch_cmd *cmd)
{
	strvec_clear(&cmd->argv);
	strvec_clear(&cmd->env);
}

char *launch_cmd_line(const struct launch_cmd *cmd)
{
	char *line = NULL, *args;

	for (size_t i = 0; i < cmd->env.nr; i++) {
		const char *e = cmd->env.v[i], *eq = strchr(e, '=');
		int name = eq ? (int)(eq - e + 1) : (int)strlen(e);
		char *w = xasprintf("%s%s%.*s", line ? line : "", line ? " " : "", name, e);

		/* NAME=value with only the value quoted: still an assignment. */
		if (eq)
			shell_quote_append(&w, eq + 1);
		free(line);
		line = w;
	}
	args = strvec_join_quoted(&cmd->argv);
	if (!line)
		return args;
	line = xrealloc(line, strlen(line) + strlen(args) + 2);
	strcat(strcat(line, " "), args);
	free(args);
	return line;
}

/* DIR/NAME, checked readable when o->check_files. The caller frees it. */
static char *layout_file(const struct launch_opts *o, const char *name)
{
	char *path = xasprintf("%s/%s", o->dir, name);

	if (o->check_files && access(path, R_OK)) {
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

/* The launcher's program and the site's own options (a spec's launcher_args). */
static void push_program(const struct launch_opts *o, struct launch_cmd *cmd, enum launcher l)
{
	strvec_push(&cmd->argv, o->program ? o->program : launcher_program(l));
	if (o->extra && o->extra->nr)
		strvec_pushv(&cmd->argv, (const char *const *)o->extra->v);
}

/* srun's ranks get Open MPI's parameters as OMPI_MCA_ variables, then the
 * spec's environment. */
static void push_srun_env(const struct launch_opts *o, struct launch_cmd *cmd)
{
	for (size_t i = 0; o->mca && i < o->mca->nr; i++)
		strvec_pushf(&cmd->env, "OMPI_MCA_%s", o->mca->v[i]);
	for (size_t i = 0; o->env && i < o->env->nr; i++)
		strvec_push(&cmd->env, o->env->v[i]);
}

static int want_root_flag(const struct launch_opts *o)
{
	return o->root < 0 ? geteuid() == 0 : o->root;
}

/* A letter, digit, '-', '.' or '_', by a bit of two 64-bit masks (bytes
 * 0-63 and 64-127): one test per byte of 320,000 names on Fugaku. */
static int valid_host_char(char c)
{
	static const uint64_t low = 1ull << '-' | 1ull << '.' | 0x3ffull << '0';
	static const uint64_t high = 0x3ffffffull << ('A' - 64) | 1ull << ('_' - 64) |
				     0x3ffffffull << ('a' - 64);
	unsigned char u = (unsigned char)c;

	return u < 64 ? (int)(low >> u & 1) : u < 128 && (high >> (u - 64) & 1);
}

/* Slurm's order of host names (src/common/hostlist.c, hostrange_cmp() via
 * hostlist_sort(), the order `scontrol show hostlistsorted` prints): a name
 * splits into a prefix and the decimal number it ends with, if any;
 * prefixes compare in natural order (strnatcmp), a name without a number
 * before a numbered one of the same prefix, then numbers of one width by
 * value, else the narrower first. Slurm's hostrange_cmp() also widens a
 * range as it compares ("n1" and "n01"); names that compare equal here
 * (only such mixed zero padding) keep strcmp order. */
struct slurm_name {
	const char *name;
	size_t plen;	   /* the prefix: name[0..plen) */
	unsigned long num; /* the number after it, when !single */
	int width;	   /* its digits, zeros included */
	int single;	   /* no number at the end */
};

static void slurm_name_split(const char *name, struct slurm_name *n)
{
	size_t len = strlen(name), i = len;

	while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
		i--;
	n->name = name;
	n->plen = i == len ? len : i;
	n->single = i == len;
	n->width = (int)(len - i);
	/* strtoul()'s value, ULONG_MAX past it, without its cost per name */
	n->num = 0;
	for (; i < len; i++) {
		unsigned long d = (unsigned long)(name[i] - '0');

		if (n->num > ULONG_MAX / 10 || (n->num == ULONG_MAX / 10 && d > ULONG_MAX % 10))
			n->num = ULONG_MAX;
		else
			n->num = n->num * 10 + d;
	}
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Slurm's strnatcmp() (src/common/strnatcmp.c) on the first la and lb
 * bytes: runs of digits compare by value, or left-aligned when either
 * starts with '0' (as a fraction would). */
static int natcmp(const char *a, size_t la, const char *b, size_t lb)
{
	size_t i = 0, j = 0;

	for (;;) {
		char ca = i < la ? a[i] : '\0', cb = j < lb ? b[j] : '\0';

		if (is_digit(ca) && is_digit(cb)) {
			int frac = ca == '0' || cb == '0', bias = 0;
			size_t x = i, y = j;

			for (;; x++, y++) {
				int da = x < la && is_digit(a[x]), db = y < lb && is_digit(b[y]);

				if (!da && !db)
					break;
				if (!da || !db)
					return da ? 1 : -1;
				if (a[x] != b[y] && (frac || !bias)) {
					bias = a[x] < b[y] ? -1 : 1;
					if (frac)
						return bias;
				}
			}
			if (bias)
				return bias;
			/* equal runs: go on after them, as Slurm does */
			i = x;
			j = y;
			continue;
		}
		if (!ca && !cb)
			return 0;
		if (ca != cb)
			return (unsigned char)ca < (unsigned char)cb ? -1 : 1;
		i++;
		j++;
	}
}

/* Slurm's _zero_padded(): how many leading zeros num gets at width. */
static int zero_padded(unsigned long num, int width)
{
	int n = 1;

	while (num /= 10)
		n++;
	return width > n ? width - n : 0;
}

static int slurm_name_cmp(const struct slurm_name *a, const struct slurm_name *b)
{
	int c = natcmp(a->name, a->plen, b->name, b->plen);

	if (c)
		return c;
	if (a->single != b->single)
		return b->single - a->single;
	if (!a->single) {
		/* Slurm's _width_equiv(): one width fits both numbers. */
		int equiv = a->width == b->width ||
			    zero_padded(a->num, a->width) == zero_padded(a->num, b->width) ||
			    zero_padded(b->num, b->width) == zero_padded(b->num, a->width);

		if (equiv && a->num != b->num)
			return a->num < b->num ? -1 : 1;
		if (!equiv)
			return a->width < b->width ? -1 : 1;
	}
	return strcmp(a->name, b->name);
}

int slurm_host_cmp(const char *a, const char *b)
{
	struct slurm_name na, nb;

	slurm_name_split(a, &na);
	slurm_name_split(b, &nb);
	return slurm_name_cmp(&na, &nb);
}

/* Whether a and b may be the same name: their parts agree. */
static int same_split(const struct slurm_name *a, const struct slurm_name *b)
{
	return a->plen == b->plen && a->single == b->single && a->num == b->num &&
	       a->width == b->width;
}

static int cmp_slurm_name(const void *a, const void *b)
{
	return slurm_name_cmp(a, b);
}

/* The distinct names of hosts in order, into out, while they are in
 * Slurm's order (a node's run of ranks given once or more, nodes then
 * DPUs: the usual case, one pass and no copy of the names' parts).
 * Returns how many, or 0 with *unsorted set at the first name out of order. */
static size_t step_nodes_sorted(const struct strvec *hosts, const char **out, int *unsorted)
{
	struct slurm_name prev, cur;
	size_t k = 0;

	*unsorted = 0;
	for (size_t i = 0; i < hosts->nr; i++) {
		if (i && (hosts->v[i] == hosts->v[i - 1] || !strcmp(hosts->v[i], hosts->v[i - 1])))
			continue;
		slurm_name_split(hosts->v[i], &cur);
		if (k) {
			int c = slurm_name_cmp(&prev, &cur);

			if (c > 0) {
				*unsorted = 1;
				return 0;
			}
			/* equal only when the names are (it ends in strcmp) */
			if (!c)
				continue;
		}
		out[k++] = hosts->v[i];
		prev = cur;
	}
	return k;
}

/* The distinct names of hosts in Slurm's order, in *names (their count in
 * *count). A node's ranks are usually neighbours: those runs collapse
 * first, so that a sort sees nodes, not ranks; a list already in order is
 * not sorted. The caller frees *names. */
static void step_nodes(const struct strvec *hosts, const char ***names, size_t *count)
{
	struct slurm_name *n;
	size_t m = 0, k = 0, i;
	int unsorted;

	*names = xcalloc(hosts->nr ? hosts->nr : 1, sizeof(**names));
	*count = step_nodes_sorted(hosts, *names, &unsorted);
	if (!unsorted)
		return;
	n = xcalloc(hosts->nr, sizeof(*n));
	for (i = 0; i < hosts->nr; i++)
		if (!i || strcmp(hosts->v[i], hosts->v[i - 1]))
			slurm_name_split(hosts->v[i], &n[m++]);
	qsort(n, m, sizeof(*n), cmp_slurm_name);
	/* equal names are neighbours: the order is total on them */
	for (i = 0; i < m; i++)
		if (!i || !same_split(&n[i - 1], &n[i]) || strcmp(n[i - 1].name, n[i].name))
			(*names)[k++] = n[i].name;
	*count = k;
	free(n);
}

/* The Slurm hostlist of names (distinct, in Slurm's order). */
static char *step_hostlist(const char **names, size_t n)
{
	size_t whole = 0;
	char *list = NULL;

	/* The form every Slurm reads when it fits in one variable; a list
	 * that does not is of DPUs ("n1-bf"), which only Slurm 23.11 on can
	 * read in ranges, "n[1-100000]-bf". Names that do not end in a digit
	 * stand whole in the first form: when they alone are too long, it is
	 * not made at all (Fugaku's 160,000 DPUs). */
	for (size_t i = 0; i < n && whole < LAUNCH_ARG_MAX; i++) {
		size_t len = strlen(names[i]);

		if (len && !is_digit(names[i][len - 1]))
			whole += len + 1;
	}
	if (whole < LAUNCH_ARG_MAX) {
		list = hostlist_compress(names, n, 0);
		if (strlen(list) + sizeof("SLURM_JOB_NODELIST=") <= LAUNCH_ARG_MAX)
			return list;
		free(list);
	}
	return hostlist_compress(names, n, HOSTLIST_SUFFIX);
}

char *slurm_step_nodelist(const struct strvec *hosts)
{
	const char **names;
	size_t n;
	char *list;

	step_nodes(hosts, &names, &n);
	list = step_hostlist(names, n);
	free(names);
	return list;
}

/* How many distinct names hosts holds. */
static unsigned count_distinct(const struct strvec *hosts)
{
	const char **names;
	size_t n;

	step_nodes(hosts, &names, &n);
	free(names);
	return (unsigned)n;
}

int slurm_hostfile_hosts(const char *path, struct strvec *hosts, unsigned *ranks)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, lineno = 0, first = hosts->nr;
	unsigned long n = 0;
	int ret = -1;

	if (!f)
		return error("cannot read %s: %s", path, strerror(errno));
	while (getline(&line, &cap, f) >= 0) {
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
		if (++n > LAUNCH_RANKS_MAX) {
			error("%s:%zu: more than %u ranks", path, lineno, LAUNCH_RANKS_MAX);
			goto out;
		}
		/* 8.3M ranks on 320,000 hosts: one string per host, not rank. */
		if (hosts->nr == first || strcmp(hosts->v[hosts->nr - 1], s))
			strvec_push(hosts, s);
	}
	if (ferror(f)) {
		error("cannot read %s: %s", path, strerror(errno));
		goto out;
	}
	if (!n) {
		error("%s: no hosts in it", path);
		goto out;
	}
	*ranks = (unsigned)n;
	ret = 0;
out:
	free(line);
	fclose(f);
	return ret;
}

int slurm_hostfile_count(const char *path, unsigned *ranks, unsigned *hosts)
{
	struct strvec names = STRVEC_INIT;
	int ret = slurm_hostfile_hosts(path, &names, ranks);

	if (!ret)
		*hosts = count_distinct(&names);
	strvec_clear(&names);
	return ret;
}

unsigned launch_srun_minutes(unsigned time_limit_s)
{
	/* Rounded up, plus one: the step must outlive launch_spawn()'s limit. */
	return (time_limit_s + 59) / 60 + 1;
}

/* Each rank's host, in rank order, a run of ranks on one host given once:
 * slurm.hostfile's lines when the files are there to read (they must then
 * agree with o), else o->hosts. Sets *nodes, the distinct hosts, and
 * *list, their Slurm hostlist (the caller frees it). */
static int srun_hosts(const struct launch_opts *o, const char *hostfile, unsigned *nodes,
		      char **list)
{
	struct strvec hosts = STRVEC_INIT;
	const char **names = NULL;
	unsigned ranks = o->ranks;
	size_t n;
	int ret = -1;

	if (o->check_files) {
		if (slurm_hostfile_hosts(hostfile, &hosts, &ranks))
			goto out;
	} else if (!o->hosts || !o->hosts->nr) {
		error("srun for %s: each rank's host is needed when slurm.hostfile is not read",
		      o->dir);
		goto out;
	} else {
		for (size_t i = 0; i < o->hosts->nr; i++)
			for (const char *p = o->hosts->v[i]; *p; p++)
				if (!valid_host_char(*p)) {
					error("srun for %s: '%s' is not a host name", o->dir,
					      o->hosts->v[i]);
					goto out;
				}
		hostfile = "the layout";
		if (o->hosts->nr > o->ranks)
			ranks = (unsigned)o->hosts->nr;
	}
	step_nodes(o->check_files ? &hosts : o->hosts, &names, &n);
	*nodes = (unsigned)n;
	if (ranks != o->ranks) {
		error("%s holds %u ranks, the layout has %u", hostfile, ranks, o->ranks);
		goto out;
	}
	if (o->nodes && o->nodes != *nodes) {
		error("%s names %u hosts, the layout has %u nodes", hostfile, *nodes, o->nodes);
		goto out;
	}
	*list = step_hostlist(names, n);
	ret = 0;
out:
	free(names);
	strvec_clear(&hosts);
	return ret;
}

/* Slurm 22.05's mpi/pmix plugin numbers its slurmstepds by their place in
 * SLURM_JOB_NODELIST (the allocation's nodes, inherited from srun's
 * environment) but sends a direct-modex request for a rank to the node of
 * that index in the step: when the step's nodes are not the allocation's
 * first nodes in Slurm's sorted order, a request goes to the wrong
 * slurmstepd and a rank waits in MPI_Init for ever (see
 * tests/testbed/slurm-pmix-bug.md). Given the step's own nodes, sorted as
 * the step lists them, the two numberings agree. */
static int push_srun_nodelist(struct launch_cmd *cmd, const char *list)
{
	size_t len = strlen(list);

	/* Linux refuses to start a program given a longer variable (E2BIG):
	 * only a list of names without numbers to range can be that long. */
	if (len + sizeof("SLURM_JOB_NODELIST=") > LAUNCH_ARG_MAX) {
		error("the step's node list is %zu bytes even in Slurm's ranged form "
		      "(%.40s...): Linux starts no program with a variable over %d bytes; "
		      "name the nodes with numbers (node[0001-9999]) so that it ranges",
		      len, list, LAUNCH_ARG_MAX);
		return -1;
	}
	strvec_pushf(&cmd->env, "SLURM_JOB_NODELIST=%s", list);
	strvec_pushf(&cmd->env, "SLURM_NODELIST=%s", list);
	return 0;
}

int launch_argv_srun(const struct launch_opts *o, struct launch_cmd *cmd)
{
	char *hostfile = NULL, *conf = NULL, *list = NULL;
	unsigned nodes = 0;
	int ret = -1;

	if (check_opts(o) || launch_check_assignments(o->mca, "MCA parameter") ||
	    launch_check_assignments(o->env, "environment entry"))
		return -1;
	hostfile = layout_file(o, "slurm.hostfile");
	conf = layout_file(o, "multi-prog.conf");
	if (!hostfile || !conf || srun_hosts(o, hostfile, &nodes, &list))
		goto out;
	push_program(o, cmd, LAUNCHER_SRUN);
	strvec_push(&cmd->argv, "--mpi=pmix");
	strvec_pushf(&cmd->argv, "--ntasks=%u", o->ranks);
	strvec_pushf(&cmd->argv, "--nodes=%u", nodes);
	/* Exact placement: rank i runs on line i of SLURM_HOSTFILE. */
	strvec_push(&cmd->argv, "--distribution=arbitrary");
	strvec_push(&cmd->argv, "--kill-on-bad-exit=1");
	/* Under launch_spawn() the step limit is a backstop past its own;
	 * on a line run by hand it is the limit itself, in whole minutes. */
	if (o->time_limit_s)
		strvec_pushf(&cmd->argv, "--time=%u",
			     o->own_limit ? (o->time_limit_s + 59) / 60 :
					    launch_srun_minutes(o->time_limit_s));
	strvec_push(&cmd->argv, "--multi-prog");
	strvec_push(&cmd->argv, conf);
	strvec_pushf(&cmd->env, "SLURM_HOSTFILE=%s", hostfile);
	if (push_srun_nodelist(cmd, list))
		goto out;
	push_srun_env(o, cmd);
	ret = 0;
out:
	free(list);
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
				     "ranks and nodes",
				     g ? "worker" : "host");
		else if (part[g]->nodes > part[g]->ranks)
			return error("heterogeneous step: %u %s ranks cannot cover %u nodes",
				     part[g]->ranks, g ? "worker" : "host", part[g]->nodes);
	/* No SLURM_JOB_NODELIST here: for a heterogeneous step srun itself
	 * sets it to the step's own node list, the same as
	 * SLURM_STEP_NODELIST (env_array_for_step(), het_job_node_list), so
	 * the two numberings already agree. */
	push_program(o, cmd, LAUNCHER_SRUN);
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
	push_srun_env(o, cmd);
	return 0;
}

/* mpirun's options before its files: root, oversubscription, its own
 * time limit, the MCA parameters, and the names of the exported variables. */
static void push_mpirun_options(const struct launch_opts *o, struct launch_cmd *cmd)
{
	if (want_root_flag(o))
		strvec_push(&cmd->argv, "--allow-run-as-root");
	if (o->oversubscribe)
		strvec_push(&cmd->argv, "--oversubscribe");
	if (o->own_limit && o->time_limit_s) {
		strvec_push(&cmd->argv, "--timeout");
		strvec_pushf(&cmd->argv, "%u", o->time_limit_s);
	}
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
	/* mpirun passes remote ranks only the variables named with -x. With
	 * --app, Open MPI drops the values of a global `-x NAME=value` (seen
	 * with 4.1.4), but `-x NAME` exporting mpirun's own environment works:
	 * the values go in front of the command as assignments. */
	for (size_t i = 0; o->env && i < o->env->nr; i++) {
		const char *eq = strchr(o->env->v[i], '=');

		strvec_push(&cmd->argv, "-x");
		strvec_pushf(&cmd->argv, "%.*s", (int)(eq - o->env->v[i]), o->env->v[i]);
		strvec_push(&cmd->env, o->env->v[i]);
	}
}

int launch_argv_mpirun(const struct launch_opts *o, struct launch_cmd *cmd)
{
	char *hostfile = NULL, *appfile = NULL, *rankfile = NULL;
	int ret = -1;

	if (check_opts(o) || launch_check_assignments(o->mca, "MCA parameter") ||
	    launch_check_assignments(o->env, "environment entry"))
		return -1;
	hostfile = layout_file(o, "hostfile");
	appfile = layout_file(o, "appfile");
	if (o->rankfile && !(rankfile = layout_file(o, "rankfile")))
		goto out;
	if (!hostfile || !appfile)
		goto out;
	push_program(o, cmd, LAUNCHER_MPIRUN);
	push_mpirun_options(o, cmd);
	strvec_push(&cmd->argv, "--hostfile");
	strvec_push(&cmd->argv, hostfile);
	if (rankfile) {
		strvec_push(&cmd->argv, "--rankfile");
		strvec_push(&cmd->argv, rankfile);
	}
	strvec_push(&cmd->argv, "--app");
	strvec_push(&cmd->argv, appfile);
	ret = 0;
out:
	free(hostfile);
	free(appfile);
	free(rankfile);
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
	push_program(o, cmd, LAUNCHER_MPIRUN_RSH);
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

int hydra_configfile_ranks(const char *path, unsigned *ranks)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	unsigned long total = 0;
	int ret = -1;

	if (!f)
		return error("cannot read %s: %s", path, strerror(errno));
	while (getline(&line, &cap, f) >= 0) {
		char *s = line + strspn(line, " \t"), *end;
		unsigned long n;

		lineno++;
		if (!s[strspn(s, " \t\r\n")] || *s == '#')
			continue;
		/* hydra takes -n and -np alike */
		if (strncmp(s, "-n ", 3) && strncmp(s, "-np ", 4)) {
			error("%s:%zu: a line must start with -n N", path, lineno);
			goto out;
		}
		s += strcspn(s, " ");
		s += strspn(s, " ");
		errno = 0;
		n = strtoul(s, &end, 10);
		if (end == s || errno || (*end != ' ' && *end != '\t') || !n ||
		    n > LAUNCH_RANKS_MAX) {
			error("%s:%zu: -n takes a rank count from 1", path, lineno);
			goto out;
		}
		total += n;
	}
	if (ferror(f)) {
		error("cannot read %s: %s", path, strerror(errno));
		goto out;
	}
	if (!total || total > LAUNCH_RANKS_MAX) {
		error("%s: %s", path, total ? "too many ranks" : "no ranks in it");
		goto out;
	}
	*ranks = (unsigned)total;
	ret = 0;
out:
	free(line);
	fclose(f);
	return ret;
}

/* hydra's -genv NAME VALUE for each of the spec's environment entries. */
static void push_hydra_env(const struct launch_opts *o, struct launch_cmd *cmd)
{
	for (size_t i = 0; o->env && i < o->env->nr; i++) {
		const char *eq = strchr(o->env->v[i], '=');

		strvec_push(&cmd->argv, "-genv");
		strvec_pushf(&cmd->argv, "%.*s", (int)(eq - o->env->v[i]), o->env->v[i]);
		strvec_push(&cmd->argv, eq + 1);
	}
}

/* MPICH's hydra: the hostfile and the MPMD configfile (one line per node
 * and role, "-n N -host H PROG ARGS", ranks in line order). Hydra passes
 * its whole environment to every rank by default; -genv names the spec's
 * entries on the line so that people see them and no site default that
 * narrows the propagation (-genvnone in a site's launcher_args) loses them. */
int launch_argv_hydra(const struct launch_opts *o, struct launch_cmd *cmd)
{
	char *hostfile = NULL, *config = NULL;
	unsigned ranks;
	int ret = -1;

	if (check_opts(o) || launch_check_assignments(o->env, "environment entry"))
		return -1;
	if (o->mca && o->mca->nr)
		return error("MCA parameters are Open MPI's; hydra (MPICH) takes NAME=value "
			     "environment entries instead (MPIR_CVAR_...)");
	hostfile = layout_file(o, "hostfile.hydra");
	config = layout_file(o, "configfile.hydra");
	if (!hostfile || !config)
		goto out;
	if (o->check_files && hydra_configfile_ranks(config, &ranks))
		goto out;
	if (o->check_files && ranks != o->ranks) {
		error("%s starts %u ranks, the layout has %u", config, ranks, o->ranks);
		goto out;
	}
	push_program(o, cmd, LAUNCHER_HYDRA);
	push_hydra_env(o, cmd);
	/* hydra's own limit is the MPIEXEC_TIMEOUT variable, in seconds. */
	if (o->own_limit && o->time_limit_s)
		strvec_pushf(&cmd->env, "MPIEXEC_TIMEOUT=%u", o->time_limit_s);
	strvec_push(&cmd->argv, "-f");
	strvec_push(&cmd->argv, hostfile);
	strvec_push(&cmd->argv, "-configfile");
	strvec_push(&cmd->argv, config);
	ret = 0;
out:
	free(hostfile);
	free(config);
	return ret;
}

/* Every host rank of a machine running one program, no layout files: the
 * host-only launches of `sweetspot baseline`. hosts: the node names, ppn
 * ranks on each, in rank order. */
/* The hosts file of a host-only launch: Open MPI's "host slots=N" or
 * hydra's "host:N", one line per host. */
struct hosts_file {
	enum launcher l;
	const struct strvec *hosts;
	unsigned ppn;
};

static int write_hosts_file(void *ctx, FILE *f)
{
	const struct hosts_file *h = ctx;

	for (size_t i = 0; i < h->hosts->nr; i++)
		fprintf(f, h->l == LAUNCHER_HYDRA ? "%s:%u\n" : "%s slots=%u\n", h->hosts->v[i],
			h->ppn);
	return 0;
}

/* mpirun's --host and hydra's -hosts: "h:ppn,..." on the line, or, when
 * that is over what Linux passes in one argument (neither reads Slurm's
 * ranges), the hosts file o->dir/hosts (written when o->check_files: the
 * launch folder exists then) given with --hostfile / -f. */
static int push_host_list(enum launcher l, const struct launch_opts *o, const struct strvec *hosts,
			  unsigned ppn, struct launch_cmd *cmd)
{
	struct hosts_file h = { l, hosts, ppn };
	size_t len = 0, cap = 64;
	char *list = xmalloc(cap), *path;
	int ret = 0;

	list[0] = '\0';
	for (size_t i = 0; i < hosts->nr && len < LAUNCH_ARG_MAX; i++) {
		size_t need = strlen(hosts->v[i]) + 16;

		if (len + need > cap) {
			cap = 2 * (len + need);
			list = xrealloc(list, cap);
		}
		len += (size_t)sprintf(list + len, "%s%s:%u", i ? "," : "", hosts->v[i], ppn);
	}
	if (len < LAUNCH_ARG_MAX) {
		strvec_push(&cmd->argv, l == LAUNCHER_HYDRA ? "-hosts" : "--host");
		strvec_push(&cmd->argv, list);
		free(list);
		return 0;
	}
	free(list);
	if (!o->dir || !*o->dir)
		return error("%zu hosts do not fit on %s's line and no folder was given for "
			     "their file",
			     hosts->nr, launcher_name(l));
	path = xasprintf("%s/hosts", o->dir);
	if (o->check_files)
		ret = files_write_atomic(path, write_hosts_file, &h);
	strvec_push(&cmd->argv, l == LAUNCHER_HYDRA ? "-f" : "--hostfile");
	strvec_push(&cmd->argv, path);
	free(path);
	return ret;
}

/* Every host rank of a machine running one program, no layout files: the
 * host-only launches of `sweetspot baseline`. hosts: the node names, ppn
 * ranks on each, in rank order. */
int launch_argv_hosts(enum launcher l, const struct launch_opts *o, const struct strvec *hosts,
		      unsigned ppn, const struct strvec *program, struct launch_cmd *cmd)
{
	char *nodelist;
	unsigned n = (unsigned)hosts->nr * ppn;

	if (!hosts->nr || !ppn || !program || !program->nr)
		return error("a host-only launch needs hosts, ranks per host and a program");
	if (launch_check_assignments(o->env, "environment entry"))
		return -1;
	push_program(o, cmd, l);
	switch (l) {
	case LAUNCHER_SRUN:
		strvec_push(&cmd->argv, "--mpi=pmix");
		strvec_pushf(&cmd->argv, "--nodes=%zu", hosts->nr);
		strvec_pushf(&cmd->argv, "--ntasks=%u", n);
		strvec_pushf(&cmd->argv, "--ntasks-per-node=%u", ppn);
		/* The step on exactly these nodes, and told so (the PMIx fix). */
		nodelist = slurm_step_nodelist(hosts);
		strvec_pushf(&cmd->argv, "--nodelist=%s", nodelist);
		if (push_srun_nodelist(cmd, nodelist)) {
			free(nodelist);
			return -1;
		}
		free(nodelist);
		push_srun_env(o, cmd);
		break;
	case LAUNCHER_HYDRA:
		push_hydra_env(o, cmd);
		if (push_host_list(l, o, hosts, ppn, cmd))
			return -1;
		strvec_push(&cmd->argv, "-n");
		strvec_pushf(&cmd->argv, "%u", n);
		break;
	default:
		push_mpirun_options(o, cmd);
		if (push_host_list(l, o, hosts, ppn, cmd))
			return -1;
		strvec_push(&cmd->argv, "-np");
		strvec_pushf(&cmd->argv, "%u", n);
		break;
	}
	strvec_pushv(&cmd->argv, (const char *const *)program->v);
	return 0;
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
	case LAUNCHER_HYDRA:
		return launch_argv_hydra(o, cmd);
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
		return error(strchr(cmd->argv.v[0], '/') ?
				     "%s is not an executable file" :
				     "%s is not installed (not found in PATH)",
			     cmd->argv.v[0]);
	free(path);
	return 0;
}

int launch_argv_smpirun(const struct launch_opts *o, const char *platform, const char *hostfile,
			const struct strvec *cfg, const struct strvec *program,
			struct launch_cmd *cmd)
{
	if (!platform || !hostfile || !o->ranks || !program || !program->nr)
		return error("smpirun needs a platform, a hostfile, ranks and a program");
	if (launch_check_assignments(o->env, "environment entry"))
		return -1;
	strvec_push(&cmd->argv, o->program ? o->program : "smpirun");
	for (size_t i = 0; o->extra && i < o->extra->nr; i++)
		strvec_push(&cmd->argv, o->extra->v[i]);
	strvec_pushv(&cmd->argv, (const char *const[]){ "-platform", platform, "-hostfile",
							hostfile, "-np", NULL });
	strvec_pushf(&cmd->argv, "%u", o->ranks);
	for (size_t i = 0; cfg && i < cfg->nr; i++)
		strvec_pushf(&cmd->argv, "--cfg=%s", cfg->v[i]);
	/* Every rank is a thread of smpirun's one process: the environment
	 * is that process's. */
	for (size_t i = 0; o->env && i < o->env->nr; i++)
		strvec_push(&cmd->env, o->env->v[i]);
	for (size_t i = 0; i < program->nr; i++)
		strvec_push(&cmd->argv, program->v[i]);
	return 0;
}
