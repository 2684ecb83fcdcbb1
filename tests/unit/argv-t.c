/*
 * tests/unit/argv-t.c: the launcher command lines built from a layout's
 * files: exact argv for srun, mpirun and mpirun_rsh, the checks made before
 * anything runs, and one real mpirun of the built argv through
 * launch_spawn() on made-up host names (the stand-in ssh), checking that
 * every rank ran where the hostfile and appfile put it. The layout folder's
 * name has a space and a quote in it, so a shell anywhere would show.
 * Lines for a folder not written yet (check_files 0), and generate's
 * `commands` checked to be exactly these builders' lines.
 */
#include "tap.h"
#include "argv.h"
#include "child.h"
#include "generate.h"
#include "hostlist.h"

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

/* The line after "# title" in a `commands` text; NULL if none. The
 * caller frees it. */
static char *command_after(const char *text, const char *title)
{
	char *head = xasprintf("\n# %s\n", title);
	const char *p = strstr(text, head), *e;
	char *line = NULL;

	if (p) {
		p += strlen(head);
		e = strchr(p, '\n');
		line = xasprintf("%.*s", (int)(e ? e - p : (long)strlen(p)), p);
	}
	free(head);
	return line;
}

/* Builds launcher l's line for opts o and compares it with the line under
 * "# title" in the commands text. */
static void same_line(const char *commands, const char *title, enum launcher l,
		      const struct launch_opts *o)
{
	struct launch_cmd cmd = LAUNCH_CMD_INIT;
	char *want = NULL, *got = command_after(commands, title);

	if (!launch_argv(l, o, &cmd))
		want = launch_cmd_line(&cmd);
	is_str(got, want, "commands: '%s' is launch/argv.c's line", title);
	free(got);
	free(want);
	launch_cmd_clear(&cmd);
}

/* A layout's folder not written yet: srun takes its counts from the
 * options, and needs the node count; mpirun's people variant. */
static void unwritten_folder(const char *base)
{
	struct launch_opts o = LAUNCH_OPTS_INIT;
	struct launch_cmd cmd = LAUNCH_CMD_INIT;
	struct strvec env = STRVEC_INIT, hosts = STRVEC_INIT;
	char *dir = xasprintf("%s/not yet", base), *line, *want;

	strvec_push(&env, "SWEETSPOT_T=a b");
	strvec_pushv(&hosts,
		     (const char *const[]){ "n2", "n2", "n1", "n1", "n2-bf", "n1-bf", NULL });
	o.hosts = &hosts;
	o.dir = dir;
	o.ranks = 6;
	o.nodes = 4;
	o.time_limit_s = 90;
	o.env = &env;
	o.check_files = 0;
	is_int(launch_argv_srun(&o, &cmd), 0,
	       "srun for a folder without files builds (check_files 0)");
	line = launch_cmd_line(&cmd);
	want = xasprintf(
		"SLURM_HOSTFILE='%s/slurm.hostfile' SLURM_JOB_NODELIST='n[1-2],n1-bf,n2-bf' "
		"SLURM_NODELIST='n[1-2],n1-bf,n2-bf' SWEETSPOT_T='a b' srun --mpi=pmix "
		"--ntasks=6 --nodes=4 --distribution=arbitrary --kill-on-bad-exit=1 "
		"--time=3 --multi-prog '%s/multi-prog.conf'",
		dir, dir);
	is_str(line, want, "... from the given ranks and nodes, the files named, none read");
	free(line);
	free(want);
	launch_cmd_clear(&cmd);
	o.own_limit = 1;
	launch_argv_srun(&o, &cmd);
	line = strvec_join_quoted(&cmd.argv);
	ok(line && strstr(line, " --time=2 "), "... run by hand, --time is the limit itself (%s)",
	   line);
	free(line);
	launch_cmd_clear(&cmd);
	o.nodes = 3;
	is_int(launch_argv_srun(&o, &cmd), -1,
	       "... and with a node count the hosts disagree with it fails");
	o.nodes = 0;
	o.hosts = NULL;
	is_int(launch_argv_srun(&o, &cmd), -1, "... and without the ranks' hosts it fails");
	is_int(cmd.argv.nr, 0, "... building nothing");
	o.hosts = &hosts;
	o.check_files = 1;
	o.nodes = 4;
	is_int(launch_argv_srun(&o, &cmd), -1,
	       "the same with check_files 1 fails: no slurm.hostfile");
	launch_cmd_clear(&cmd);
	o.check_files = 0;
	o.root = 0;
	o.rankfile = 1;
	is_int(launch_argv_mpirun(&o, &cmd), 0, "mpirun for a folder without files builds");
	line = launch_cmd_line(&cmd);
	want = xasprintf("SWEETSPOT_T='a b' mpirun --timeout 90 -x SWEETSPOT_T --hostfile "
			 "'%s/hostfile' --rankfile '%s/rankfile' --app '%s/appfile'",
			 dir, dir, dir);
	is_str(line, want, "... with its own --timeout, --rankfile, values set, names after -x");
	free(line);
	free(want);
	launch_cmd_clear(&cmd);
	strvec_clear(&env);
	strvec_clear(&hosts);
	free(dir);
}

static const char gen_spec[] =
	"system = { name = \"t\"; nodes = \"node[1-2]\"; ppn = 2;\n"
	"  dpu = { suffix = \"-bf\"; cores = 2; };\n"
	"  host_bin = \"/opt/x86/k\"; dpu_bin = \"/opt/arm/k\"; launcher = \"mpirun\";\n"
	"  launcher_args = [ \"--mca\", \"btl\", \"self,tcp\" ];\n"
	"  env = [ \"SWEETSPOT_T=a b;c\" ]; };\n"
	"sweep = { collectives = [ \"bcast\" ]; assignments = [ \"block\" ]; sizes = \"4K\";\n"
	"  wpn = [ 1 ]; workers = [ 2 ]; placement = [ \"dpu\" ]; time_limit = 90; };\n";

/* generate's `commands`: each line is the builders' own for the layout,
 * with the options a person's line takes, built here independently. */
static void generated_commands(const char *base)
{
	struct spec s = SPEC_INIT;
	struct plan p = PLAN_INIT;
	struct launch_opts o = LAUNCH_OPTS_INIT;
	struct strvec hosts = STRVEC_INIT;
	char *dir = xasprintf("%s/gen it's", base), *path, *text = NULL, *line;

	write_file(base, "gen.cfg", gen_spec, 0644);
	path = xasprintf("%s/gen.cfg", base);
	/* On failure the comparisons below fail too: nothing to compare. */
	ok(!spec_load(path, &s) && !plan_build(&s, &p) && p.nlayouts == 1 &&
		   !generate_layout(&s, &p.layouts[0], dir),
	   "generate the spec's one layout");
	free(path);
	path = xasprintf("%s/commands", dir);
	text = slurp(path);
	o.dir = dir;
	o.ranks = 6; /* 2 x 2 hosts, 2 workers */
	o.nodes = 4; /* node1, node2, node1-bf, node2-bf */
	o.time_limit_s = 90;
	o.env = &s.env;
	o.root = 0;
	o.own_limit = 1;
	o.check_files = 0;
	o.extra = &s.launcher_args; /* the spec's launcher is mpirun */
	strvec_pushv(&hosts, (const char *const[]){ "node1", "node1", "node2", "node2", "node1-bf",
						    "node2-bf", NULL });
	o.hosts = &hosts;
	same_line(text, "Open MPI", LAUNCHER_MPIRUN, &o);
	o.rankfile = 1;
	same_line(text, "Open MPI, each rank pinned by the rankfile", LAUNCHER_MPIRUN, &o);
	o.rankfile = 0;
	o.extra = NULL;
	same_line(text, "MVAPICH2 mpirun_rsh", LAUNCHER_MPIRUN_RSH, &o);
	same_line(text, "Slurm (PMIx)", LAUNCHER_SRUN, &o);
	/* What generate needed of the builder is there (the folder's name
	 * needs quoting, so the files are left out of the comparison). */
	line = command_after(text, "Open MPI, each rank pinned by the rankfile");
	ok(line &&
		   !strncmp(line,
			    "SWEETSPOT_T='a b;c' mpirun --mca btl self,tcp --timeout 90 "
			    "-x SWEETSPOT_T --hostfile ",
			    76) &&
		   strstr(line, " --rankfile "),
	   "... launcher_args, --timeout, values before and names after -x, --rankfile (%s)", line);
	free(line);
	free(text);
	free(path);
	free(dir);
	strvec_clear(&hosts);
	plan_release(&p);
	spec_release(&s);
}

/* Host sets and the order `scontrol show hostlistsorted` (Slurm 22.05.8)
 * gave them, expanded and de-duplicated: the allocation of the testbed's
 * hang, numbers of several widths, prefixes with digits inside, mixed zero
 * padding, upper case and punctuation. */
static const struct {
	const char *set, *sorted;
} slurm_sets[] = {
	{ "n2,n1-bf,n1,n2-bf,n1", "n1,n2,n1-bf,n2-bf" },
	{ "node10,node9,node1,node10-bf,node9-bf,node1-bf",
	  "node1,node9,node10,node1-bf,node9-bf,node10-bf" },
	{ "a9,a10,b,5,x01y3,x01y10,x1y3,rack2n01,rack10n01,rack2n1",
	  "5,a9,a10,b,rack2n1,rack2n01,rack10n01,x01y3,x01y10,x1y3" },
	{ "c0,c00,c1,c01,c10,c010,c2,c02", "c0,c1,c2,c00,c01,c02,c10,c010" },
	{ "dpu-3,dpu-12,gpu2,GPU1,n_1,bf1-n2,bf10-n1,bf9-n3",
	  "GPU1,bf1-n2,bf9-n3,bf10-n1,dpu-3,dpu-12,gpu2,n_1" },
};

/* slurm_step_nodelist() of a comma-separated set, in Slurm's ranged form.
 * The caller frees it. */
static char *our_list(const char *set)
{
	struct strvec hosts = STRVEC_INIT;
	char *copy = xstrdup(set), *save = NULL, *list;

	for (char *h = strtok_r(copy, ",", &save); h; h = strtok_r(NULL, ",", &save))
		strvec_push(&hosts, h);
	list = slurm_step_nodelist(&hosts);
	strvec_clear(&hosts);
	free(copy);
	return list;
}

/* The same list's names, comma-separated: each bracketed item as
 * hostlist_expand() reads it, the others as they are (Slurm takes '_' in
 * a name, a spec does not). The caller frees it. */
static char *our_order(const char *set)
{
	char *list = our_list(set), *out = xstrdup(""), *item = list, err[256];

	while (item && *item) {
		char *end = item, *t;
		struct strvec names = STRVEC_INIT;
		int depth = 0;

		for (; *end && (*end != ',' || depth); end++)
			depth += *end == '[' ? 1 : *end == ']' ? -1 : 0;
		if (*end)
			*end++ = '\0';
		if (!strchr(item, '['))
			strvec_push(&names, item);
		else if (hostlist_expand(item, &names, err, sizeof(err)))
			strvec_pushf(&names, "(%s: %s)", item, err);
		for (size_t i = 0; i < names.nr; i++) {
			t = xasprintf("%s%s%s", out, *out ? "," : "", names.v[i]);
			free(out);
			out = t;
		}
		strvec_clear(&names);
		item = end;
	}
	free(list);
	return out;
}

/* Runs `scontrol show WHAT ARG` with a minimal slurm.conf (no daemon is
 * asked) and returns its output lines, de-duplicated, joined by commas;
 * NULL if it fails. The caller frees it. */
static char *scontrol_show(const char *base, const char *what, const char *arg)
{
	struct strvec av = STRVEC_INIT, env = STRVEC_INIT, seen = STRVEC_INIT;
	char *log = xasprintf("%s/scontrol.out", base), *text, *save = NULL, *out = NULL;
	struct launch_child c = { .argv = &av, .env = &env, .log = log, .timeout_s = 30 };
	struct launch_result r;

	write_file(base, "slurm.conf", "ClusterName=t\nSlurmctldHost=localhost\n", 0644);
	strvec_pushf(&env, "SLURM_CONF=%s/slurm.conf", base);
	strvec_pushv(&av, (const char *const[]){ "scontrol", "show", what, arg, NULL });
	unlink(log);
	if (launch_spawn(&c, &r) == 0) {
		text = slurp(log);
		for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			int dup = 0;

			for (size_t i = 0; i < seen.nr; i++)
				dup |= !strcmp(seen.v[i], l);
			if (!dup)
				strvec_push(&seen, l);
		}
		free(text);
		out = xstrdup("");
		for (size_t i = 0; i < seen.nr; i++) {
			char *t = xasprintf("%s%s%s", out, i ? "," : "", seen.v[i]);

			free(out);
			out = t;
		}
	} else {
		diag("scontrol: %s (Slurm's client is a test dependency: tests/deps.sh)", r.reason);
	}
	strvec_clear(&av);
	strvec_clear(&env);
	strvec_clear(&seen);
	free(log);
	return out;
}

/* Slurm's own sort of a set, through scontrol. The caller frees it. */
static char *slurm_order_live(const char *base, const char *set)
{
	char *ranged = scontrol_show(base, "hostlistsorted", set), *names = NULL;

	if (ranged)
		names = scontrol_show(base, "hostnames", ranged);
	free(ranged);
	return names;
}

/* The step's node list in Slurm's sorted order: against the orders
 * recorded above, and against this machine's scontrol for those sets and
 * a larger made-up one. */
static void slurm_order(const char *base)
{
	const char *pre[] = { "n", "node", "dpu", "n1-bf", "rack3n", "gpu-a", "x" };
	char *set = xstrdup(""), *ours, *theirs, *read;
	unsigned seed = 12345;

	for (size_t i = 0; i < sizeof(slurm_sets) / sizeof(*slurm_sets); i++) {
		ours = our_order(slurm_sets[i].set);
		is_str(ours, slurm_sets[i].sorted, "Slurm's order of %s", slurm_sets[i].set);
		free(ours);
	}
	for (size_t i = 0; i < sizeof(slurm_sets) / sizeof(*slurm_sets); i++) {
		char *list = our_list(slurm_sets[i].set), *read;

		/* Slurm itself reads our ranged list, in our order. */
		read = scontrol_show(base, "hostnames", list);
		theirs = slurm_order_live(base, slurm_sets[i].set);
		is_str(read ? read : "(scontrol failed)", theirs ? theirs : "(scontrol failed)",
		       "... scontrol reads %s as this machine's scontrol sorts set %zu", list,
		       i + 1);
		free(list);
		free(read);
		free(theirs);
	}
	for (int i = 0; i < 60; i++) {
		char *t;

		seed = seed * 1103515245 + 12345;
		t = xasprintf("%s%s%s%u%s", set, i ? "," : "", pre[(seed >> 16) % 7],
			      (seed >> 8) % 130, (seed >> 4) % 3 ? "" : "-bf");
		free(set);
		set = t;
	}
	ours = our_list(set);
	read = scontrol_show(base, "hostnames", ours);
	theirs = slurm_order_live(base, set);
	is_str(read ? read : "(scontrol failed)", theirs ? theirs : "(scontrol failed)",
	       "... and for 60 made-up names (%s)", ours);
	free(read);
	free(ours);
	free(theirs);
	free(set);
}

/* The whole of a file, however long. The caller frees it. */
static char *slurp_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0;

	if (!f || getdelim(&buf, &cap, '\0', f) < 0) {
		free(buf);
		buf = xstrdup("");
	}
	if (f)
		fclose(f);
	return buf;
}

/* Runs `scontrol show WHAT ARG` (slurm.conf in base) and returns its lines
 * in *out, as they come; -1 if it fails. */
static int scontrol_lines(const char *base, const char *what, const char *arg, struct strvec *out)
{
	struct strvec av = STRVEC_INIT, env = STRVEC_INIT;
	char *log = xasprintf("%s/scontrol-big.out", base), *line = NULL;
	struct launch_child c = { .argv = &av, .env = &env, .log = log, .timeout_s = 60 };
	struct launch_result r;
	size_t cap = 0;
	ssize_t n;
	FILE *f;
	int ret = -1;

	strvec_pushf(&env, "SLURM_CONF=%s/slurm.conf", base);
	strvec_pushv(&av, (const char *const[]){ "scontrol", "show", what, arg, NULL });
	unlink(log);
	if (launch_spawn(&c, &r) == 0 && r.status == 0 && (f = fopen(log, "r"))) {
		while ((n = getline(&line, &cap, f)) > 0) {
			line[n - 1] = line[n - 1] == '\n' ? '\0' : line[n - 1];
			strvec_push(out, line);
		}
		fclose(f);
		ret = 0;
	}
	free(line);
	strvec_clear(&av);
	strvec_clear(&env);
	free(log);
	return ret;
}

/* 1 when a and b hold the same strings in the same order; else a diag. */
static int same_strvec(const struct strvec *a, const struct strvec *b)
{
	for (size_t i = 0; i < a->nr && i < b->nr; i++)
		if (strcmp(a->v[i], b->v[i])) {
			diag("name %zu: '%s', not '%s'", i, a->v[i], b->v[i]);
			return 0;
		}
	if (a->nr != b->nr)
		diag("%zu names, not %zu", a->nr, b->nr);
	return a->nr == b->nr;
}

/* The srun of a layout of `nodes` nodes x 8 ranks named fmt (and, with
 * dpu_fmt, as many DPUs with 8 workers each), built for a folder not yet
 * written, executed for real: the "srun" is this test program itself
 * (fake_srun() below), so an argument or variable over Linux's 128 KiB
 * would fail the exec with E2BIG. Then Slurm's scontrol reads the step's
 * node list: the step's nodes, once each, in Slurm's sorted order. */
static void large_step(const char *base, unsigned nodes, const char *fmt, const char *dpu_fmt,
		       int slurm_reads_suffixes)
{
	struct launch_opts o = LAUNCH_OPTS_INIT;
	struct launch_cmd cmd = LAUNCH_CMD_INIT;
	struct strvec hosts = STRVEC_INIT, want = STRVEC_INIT, got = STRVEC_INIT,
		      sorted = STRVEC_INIT;
	char self[4096], *dir = xasprintf("%s/large", base),
			 *log = xasprintf("%s/fake-srun.log", base);
	char *text, *list = NULL, *want_line;
	struct launch_child c = {
		.argv = &cmd.argv, .env = &cmd.env, .log = log, .timeout_s = 120
	};
	struct launch_result r;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	size_t longest = 0;
	int suffixed;

	self[n > 0 ? n : 0] = '\0';
	for (unsigned i = 1; i <= nodes; i++)
		strvec_pushf(&hosts, fmt, i);
	for (unsigned i = 1; dpu_fmt && i <= nodes; i++)
		strvec_pushf(&hosts, dpu_fmt, i);
	for (size_t i = 0; i < hosts.nr; i++)
		strvec_push(&want, hosts.v[i]);
	o.dir = dir;
	o.ranks = (unsigned)hosts.nr * 8;
	o.nodes = (unsigned)hosts.nr;
	o.check_files = 0;
	o.hosts = &hosts;
	o.program = self;
	is_int(launch_argv_srun(&o, &cmd), 0, "srun of %u nodes%s builds", nodes,
	       dpu_fmt ? " and DPUs" : "");
	for (size_t i = 0; i < cmd.env.nr; i++) {
		longest = strlen(cmd.env.v[i]) > longest ? strlen(cmd.env.v[i]) : longest;
		if (!strncmp(cmd.env.v[i], "SLURM_JOB_NODELIST=", 19))
			list = cmd.env.v[i] + 19;
	}
	for (size_t i = 0; i < cmd.argv.nr; i++)
		longest = strlen(cmd.argv.v[i]) > longest ? strlen(cmd.argv.v[i]) : longest;
	suffixed = list && strstr(list, "]-");
	diag("SLURM_JOB_NODELIST=%.200s (%zu bytes)", list ? list : "(none)",
	     list ? strlen(list) : 0);
	unlink(log);
	ok(launch_spawn(&c, &r) == 0 && r.status == 0,
	   "... and executes: its longest string is %zu bytes (Linux takes %d) (%s)", longest,
	   LAUNCH_ARG_MAX, r.reason);
	text = slurp_all(log);
	want_line = xasprintf("fake srun: --ntasks=%u SLURM_JOB_NODELIST=%s\n", o.ranks,
			      list ? list : "");
	ok(strstr(text, want_line),
	   "... and the program got its arguments and the step's node list");
	free(want_line);
	free(text);
	if (suffixed && !slurm_reads_suffixes) {
		skip("this Slurm reads no 'n[1-9]-bf' (Slurm 22.05; 23.11 on does): "
		     "hostlist-t checks the form with sweetspot's reader");
		skip("(the same)");
	} else {
		ok(list && !scontrol_lines(base, "hostnames", list, &got) &&
			   same_strvec(&got, &want),
		   "... scontrol expands it to the step's %zu nodes, in order", want.nr);
		/* Slurm's sort changes nothing in it: its ranged string is the
		 * one Slurm writes for it unsorted. (Slurm writes n[1-100000]
		 * for either, which it cannot read back.) */
		strvec_clear(&got);
		ok(list && !scontrol_lines(base, "hostlistsorted", list, &sorted) &&
			   !scontrol_lines(base, "hostlist", list, &got) && sorted.nr == 1 &&
			   same_strvec(&got, &sorted),
		   "... which is Slurm's own sorted order");
	}
	launch_cmd_clear(&cmd);
	strvec_clear(&hosts);
	strvec_clear(&want);
	strvec_clear(&got);
	strvec_clear(&sorted);
	free(dir);
	free(log);
}

/* The index of word w in av, or -1. */
static int word_at(const struct strvec *av, const char *w)
{
	for (size_t i = 0; i < av->nr; i++)
		if (!strcmp(av->v[i], w))
			return (int)i;
	return -1;
}

/* Host-only launches (baseline's): a short host list on the line, a long
 * one in a file for mpirun and hydra (neither reads Slurm's ranges), and
 * srun's lists ranged. */
static void host_only(const char *base)
{
	struct launch_opts o = LAUNCH_OPTS_INIT;
	struct launch_cmd cmd = LAUNCH_CMD_INIT;
	struct strvec hosts = STRVEC_INIT, prog = STRVEC_INIT;
	char *path = xasprintf("%s/hosts", base), *text;
	int i;

	strvec_push(&prog, "/bin/true");
	strvec_pushv(&hosts, (const char *const[]){ "a1", "a2", "b", NULL });
	o.root = 0;
	is_int(launch_argv_hosts(LAUNCHER_MPIRUN, &o, &hosts, 2, &prog, &cmd), 0,
	       "mpirun of 3 hosts builds");
	i = word_at(&cmd.argv, "--host");
	is_str(i >= 0 ? cmd.argv.v[i + 1] : "", "a1:2,a2:2,b:2", "... with --host on the line");
	launch_cmd_clear(&cmd);
	strvec_clear(&hosts);
	for (unsigned k = 1; k <= 100000; k++)
		strvec_pushf(&hosts, "node%06u", k);
	o.dir = base;
	o.check_files = 1;
	is_int(launch_argv_hosts(LAUNCHER_MPIRUN, &o, &hosts, 8, &prog, &cmd), 0,
	       "mpirun of 100,000 hosts builds");
	i = word_at(&cmd.argv, "--hostfile");
	is_str(i >= 0 ? cmd.argv.v[i + 1] : "", path,
	       "... naming a hosts file, not 1.5 MB of --host");
	text = slurp(path);
	ok(!strncmp(text, "node000001 slots=8\nnode000002 slots=8\n", 38),
	   "... written in Open MPI's form");
	free(text);
	launch_cmd_clear(&cmd);
	is_int(launch_argv_hosts(LAUNCHER_HYDRA, &o, &hosts, 8, &prog, &cmd), 0,
	       "hydra of 100,000 hosts builds");
	i = word_at(&cmd.argv, "-f");
	text = slurp(path);
	ok(i >= 0 && !strcmp(cmd.argv.v[i + 1], path) &&
		   !strncmp(text, "node000001:8\nnode000002:8\nnode000003:8\n", 39),
	   "... with -f and hydra's form");
	free(text);
	launch_cmd_clear(&cmd);
	is_int(launch_argv_hosts(LAUNCHER_SRUN, &o, &hosts, 8, &prog, &cmd), 0,
	       "srun of 100,000 hosts builds");
	ok(word_at(&cmd.argv, "--nodelist=node[000001-065536,065537-100000]") >= 0 &&
		   word_at(&cmd.env, "SLURM_JOB_NODELIST=node[000001-065536,065537-100000]") >= 0,
	   "... its --nodelist and SLURM_JOB_NODELIST ranged");
	launch_cmd_clear(&cmd);
	strvec_clear(&hosts);
	strvec_clear(&prog);
	free(path);
}

/* 1 when this machine's scontrol reads a range followed by a suffix. */
static int slurm_suffixes(const char *base)
{
	struct strvec got = STRVEC_INIT;
	int yes = !scontrol_lines(base, "hostnames", "n[1-2]-bf", &got) && got.nr == 2;

	strvec_clear(&got);
	diag("this scontrol %s 'n[1-2]-bf'", yes ? "reads" : "refuses");
	return yes;
}

/* This program as the "srun" of large_step(): says what it was given. */
static int fake_srun(int argc, char **argv)
{
	const char *list = getenv("SLURM_JOB_NODELIST");

	for (int i = 1; i < argc; i++)
		if (!strncmp(argv[i], "--ntasks=", 9))
			printf("fake srun: %s SLURM_JOB_NODELIST=%s\n", argv[i], list ? list : "");
	return 0;
}

int main(int argc, char **argv)
{
	char base[] = "/tmp/argv-t.XXXXXX";
	const char *root = getenv("SWEETSPOT_ROOT");
	struct launch_opts o = LAUNCH_OPTS_INIT;
	struct launch_cmd cmd = LAUNCH_CMD_INIT;
	struct strvec mca = STRVEC_INIT, env = STRVEC_INIT;
	char *dir, *line, *want, *fake_ssh, *log, *report, *qa, *qb;
	enum launcher l;

	if (argc > 1 && !strcmp(argv[1], "--mpi=pmix"))
		return fake_srun(argc, argv);
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
		   "#!/bin/sh\necho \"rank $OMPI_COMM_WORLD_RANK $1 on $SWEETSPOT_HOSTNAME "
		   "$SWEETSPOT_T\"\n",
		   0755);
	{
		char *app = xasprintf("-np 2 --host nodeA:2 %s/report host\n"
				      "-np 1 --host nodeB:1 %s/report worker\n",
				      base, base);

		write_file(dir, "appfile", app, 0644);
		free(app);
	}
	write_file(dir, "hostfile.mvapich", "nodeA:2\nnodeB:1\n", 0644);
	write_file(dir, "config", "-n 2 : /bin/true\n-n 1 : /bin/true\n", 0644);

	plan(31 + 8 + 6 + 3 + 11 + 4 * 5 + 9);

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
			 "--kill-on-bad-exit=1 --time=3 --multi-prog %s",
			 qa);
	free(qa);
	is_str(line, want, "... with exact placement, multi-prog and a step limit");
	free(want);
	free(line);
	is_int(cmd.env.nr, 4, "... and four environment entries");
	want = xasprintf("SLURM_HOSTFILE=%s/slurm.hostfile", dir);
	is_str(cmd.env.v[0], want, "... SLURM_HOSTFILE names the layout's file");
	free(want);
	is_str(cmd.env.v[1], "SLURM_JOB_NODELIST=n[1-2]",
	       "... SLURM_JOB_NODELIST is the step's nodes");
	is_str(cmd.env.v[2], "SLURM_NODELIST=n[1-2]", "... and so is SLURM_NODELIST");
	is_str(cmd.env.v[3], "OMPI_MCA_btl=self,tcp", "... MCA parameters go in the environment");
	launch_cmd_clear(&cmd);

	is_int(launch_srun_minutes(1), 2,
	       "a 1 s limit is a 2 minute step limit (Slurm counts minutes)");
	is_int(launch_srun_minutes(120), 3, "a 120 s limit is a 3 minute step limit");

	o.ranks = 4;
	is_int(launch_argv_srun(&o, &cmd), -1,
	       "srun: a rank count the hostfile disagrees with fails");
	is_int(cmd.argv.nr, 0, "... building nothing");
	o.ranks = 3;
	o.nodes = 3;
	is_int(launch_argv_srun(&o, &cmd), -1,
	       "srun: a node count the hostfile disagrees with fails");
	o.nodes = 0;
	write_file(dir, "slurm.hostfile", "n1\nn1;rm\nn2\n", 0644);
	is_int(launch_argv_srun(&o, &cmd), -1, "srun: a hostfile line that is no host name fails");
	{
		unsigned ranks = 0, hosts = 0;
		char *p = xasprintf("%s/slurm.hostfile", dir);

		write_file(dir, "slurm.hostfile", "n2\nn1\nn2\nn1-bf\n", 0644);
		is_int(slurm_hostfile_count(p, &ranks, &hosts), 0,
		       "a Slurm hostfile in any order counts");
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
			 "--hostfile %s --app %s",
			 fake_ssh, qa, qb);
	is_str(line, want, "... with root, oversubscription, the agent, MCA and -x");
	free(want);
	free(line);
	is_str(cmd.env.nr ? cmd.env.v[0] : NULL, "SWEETSPOT_T=a b;c",
	       "... the -x value in its environment");
	is_int(launch_check_installed(&cmd), 0, "... and mpirun is installed");
	{
		struct launch_child c = {
			.argv = &cmd.argv, .env = &cmd.env, .timeout_s = 60, .grace_s = 2
		};
		struct launch_result r;
		char *text, *sorted;

		log = xasprintf("%s/mpirun.log", base);
		c.log = log;
		is_int(launch_spawn(&c, &r), 0, "the built mpirun runs 3 ranks on fake hosts (%s)",
		       r.reason);
		text = slurp(log);
		sorted = sorted_lines(text);
		is_str(sorted,
		       "rank 0 host on nodeA a b;c\nrank 1 host on nodeA a b;c\n"
		       "rank 2 worker on nodeB a b;c\n",
		       "... each rank where the hostfile and appfile put it, with -x values "
		       "intact");
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
	want = xasprintf("mpirun_rsh -rsh -np 3 -hostfile %s MV2_ENABLE_AFFINITY=0 -config %s", qa,
			 qb);
	free(qa);
	free(qb);
	is_str(line, want,
	       "... in MVAPICH's form, site options first, its environment on the line");
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
		is_str(line,
		       "srun --het-group=0 --mpi=pmix --ntasks=4 --nodes=2 --distribution=block "
		       "--kill-on-bad-exit=1 --time=2 '/bin/kernel x86' -w 2 : --het-group=1 "
		       "--mpi=pmix --ntasks=2 --nodes=2 --distribution=block --kill-on-bad-exit=1 "
		       "--time=2 /bin/kernel-arm -w 2",
		       "... one component per node class, each with every option");
		free(line);
		launch_cmd_clear(&cmd);
		w.nodes = 3;
		is_int(launch_argv_srun_het(&ho, &h, &w, &cmd), -1,
		       "... and refuses more nodes than ranks");
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

	unwritten_folder(base);
	generated_commands(base);
	slurm_order(base);
	host_only(base);
	{
		int suffixes = slurm_suffixes(base);

		/* The 10,000 nodes and DPUs; DPU names short enough to
		 * fit one by one (what Slurm 22.05 can read); 100,000 nodes;
		 * 100,000 nodes and DPUs. */
		large_step(base, 10000, "node%05u", "node%05u-bf", suffixes);
		large_step(base, 10000, "n%05u", "n%05u-bf", suffixes);
		large_step(base, 100000, "node%06u", NULL, suffixes);
		large_step(base, 100000, "node%06u", "node%06u-bf", suffixes);
	}

	strvec_clear(&mca);
	strvec_clear(&env);
	{
		struct strvec rm = STRVEC_INIT;
		struct launch_child c = { .argv = &rm, .timeout_s = 30 };
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
