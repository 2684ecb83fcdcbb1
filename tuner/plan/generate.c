/*
 * tuner/plan/generate.c: writing hostfiles and MPMD files. Every rank's host and
 * binary come from plan.h's arithmetic, so each format is a loop over nodes
 * or ranks; files are written into a temporary folder next to the target
 * and renamed into place last, so that a failure (a full disk, a target in
 * the way) leaves nothing half-written. No file is ever handed to a shell;
 * only `commands` is shell-quoted, because people paste it.
 */
#include "generate.h"

#include "error.h"
#include "hostlist.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The files a layout folder may hold: what generate_layout() may replace. */
static const char *const layout_files[] = { "hostfile",
					    "appfile",
					    "rankfile",
					    "hostfile.mvapich",
					    "config",
					    "hostfile.hydra",
					    "configfile.hydra",
					    "slurm.hostfile",
					    "multi-prog.conf",
					    "commands",
					    NULL };

/* What every writer needs about one layout. */
struct gen {
	const struct spec *s;
	const struct layout *l;
	const char *dir;   /* where the files go now (a temporary folder) */
	const char *final; /* where they will be: the paths in `commands` */
	char *args;	   /* the kernel arguments, space-separated */
};

/* Every file is made in a 1 MiB buffer written in blocks: the per-rank
 * files of Fugaku have 8.3M lines, and one fprintf() per line cost several
 * times the copy of the file; their names and numbers are made once per
 * node, or counted up in place. */
struct obuf {
	FILE *f;
	size_t len;
	char buf[1 << 20];
};

static void ob_flush(struct obuf *o)
{
	fwrite(o->buf, 1, o->len, o->f);
	o->len = 0;
}

static void ob_put(struct obuf *o, const char *s, size_t n)
{
	if (o->len + n > sizeof(o->buf))
		ob_flush(o);
	if (n > sizeof(o->buf)) {
		fwrite(s, 1, n, o->f);
		return;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

/* ob_printf() for the lines made once per node (320,000 on Fugaku): only
 * %s and %u, copied without vsnprintf()'s cost. */
static void ob_line(struct obuf *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	for (const char *p = fmt; *p;) {
		const char *pct = strchr(p, '%');
		size_t lit = pct ? (size_t)(pct - p) : strlen(p);
		char num[16];
		int k = (int)sizeof(num);
		unsigned v;

		ob_put(o, p, lit);
		if (!pct)
			break;
		if (pct[1] == 's') {
			const char *str = va_arg(ap, const char *);

			ob_put(o, str, strlen(str));
		} else {
			v = va_arg(ap, unsigned);
			do
				num[--k] = (char)('0' + v % 10);
			while (v /= 10);
			ob_put(o, num + k, sizeof(num) - (size_t)k);
		}
		p = pct + 2;
	}
	va_end(ap);
}

/* A room of n bytes at the end of the buffer (n at most its size). */
static char *ob_room(struct obuf *o, size_t n)
{
	if (o->len + n > sizeof(o->buf))
		ob_flush(o);
	return o->buf + o->len;
}

static void ob_printf(struct obuf *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void ob_printf(struct obuf *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, sizeof(o->buf) - o->len, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < sizeof(o->buf) - o->len) {
		o->len += (size_t)n;
		return;
	}
	/* It did not fit: flush, then once more into the empty buffer, or
	 * straight to the file when it is longer than that. */
	ob_flush(o);
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < sizeof(o->buf))
		o->len = (size_t)vsnprintf(o->buf, sizeof(o->buf), fmt, ap);
	else
		vfprintf(o->f, fmt, ap);
	va_end(ap);
}

static char *abs_path(const char *p)
{
	char cwd[PATH_MAX], *r;
	size_t n;

	if (p[0] == '/')
		r = xstrdup(p);
	else if (!getcwd(cwd, sizeof(cwd)))
		r = xstrdup(p);
	else
		r = xasprintf("%s/%s", cwd, p);
	n = strlen(r);
	while (n > 1 && r[n - 1] == '/')
		r[--n] = '\0';
	return r;
}

/* Removes a folder this module wrote (files and folders only, no links
 * followed). Best effort: used on failure paths and on replaced output. */
static void rm_tree(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;

	if (d) {
		while ((e = readdir(d))) {
			char *child;
			struct stat st;

			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			child = xasprintf("%s/%s", path, e->d_name);
			if (!lstat(child, &st) && S_ISDIR(st.st_mode))
				rm_tree(child);
			else
				unlink(child);
			free(child);
		}
		closedir(d);
	}
	rmdir(path);
}

static FILE *gen_open(const struct gen *g, const char *name, char **path)
{
	FILE *f;

	*path = xasprintf("%s/%s", g->dir, name);
	f = fopen(*path, "w");
	if (!f) {
		error("cannot write %s: %s", *path, strerror(errno));
		free(*path);
		*path = NULL;
	}
	return f;
}

static int gen_close(FILE *f, char *path)
{
	int bad = ferror(f);

	if (fclose(f) || bad) {
		error("cannot write %s: %s", path, strerror(errno ? errno : EIO));
		free(path);
		return -1;
	}
	free(path);
	return 0;
}

/* Host name of node i's workers: its DPU, or the node itself (onload). */
static const char *worker_host(const struct gen *g, unsigned node)
{
	return g->l->placement == PLACEMENT_DPU ? g->s->dpus.v[node] : g->s->nodes.v[node];
}

/* Slots of a host in the Open MPI hostfile: onload nodes hold their
 * workers too. */
static unsigned node_slots(const struct gen *g, unsigned node)
{
	return g->l->ppn +
	       (g->l->placement == PLACEMENT_ONLOAD ? layout_workers_on(g->l, node) : 0);
}

static void write_hostfile(const struct gen *g, struct obuf *o)
{
	const struct layout *l = g->l;
	unsigned wn = layout_worker_nodes(l);

	ob_printf(o, "# Open MPI hostfile of layout %s: %u host ranks, %u workers\n", l->id,
		  l->hosts, l->workers);
	for (unsigned i = 0; i < l->nodes; i++)
		ob_line(o, "%s slots=%u\n", g->s->nodes.v[i], node_slots(g, i));
	for (unsigned i = 0; l->placement == PLACEMENT_DPU && i < wn; i++)
		ob_line(o, "%s slots=%u\n", g->s->dpus.v[i], layout_workers_on(l, i));
}

static void write_appfile(const struct gen *g, struct obuf *o)
{
	const struct layout *l = g->l;
	unsigned wn = layout_worker_nodes(l);

	ob_printf(o,
		  "# Open MPI appfile of layout %s: %u host ranks, %u workers, %u ranks.\n"
		  "# mpirun --hostfile hostfile --app appfile\n"
		  "# One context per node: a single context with a host list would let\n"
		  "# mpirun fill a node's free slots with ranks the plan puts elsewhere.\n",
		  l->id, l->hosts, l->workers, layout_ranks(l));
	for (unsigned i = 0; i < l->nodes; i++)
		ob_line(o, "-np %u --host %s:%u %s %s\n", l->ppn, g->s->nodes.v[i],
			node_slots(g, i), g->s->host_bin, g->args);
	for (unsigned i = 0; i < wn; i++)
		ob_line(o, "-np %u --host %s:%u %s %s\n", layout_workers_on(l, i),
			worker_host(g, i),
			l->placement == PLACEMENT_DPU ? layout_workers_on(l, i) : node_slots(g, i),
			spec_worker_bin(g->s, l->placement), g->args);
}

/* v in decimal at w (no NUL); returns its digits. */
static size_t put_uint(char *w, unsigned v)
{
	char t[16];
	size_t k = sizeof(t);

	do
		t[--k] = (char)('0' + v % 10);
	while (v /= 10);
	memcpy(w, t + k, sizeof(t) - k);
	return sizeof(t) - k;
}

/* Counts the decimal number d[0..len) up by one in place; 1 when it
 * needs another digit (all nines), and is then left as it was. Nine
 * times in ten only its last digit changes. */
static inline int digits_inc(char *d, size_t len)
{
	size_t i = len;

	if (len && d[len - 1] != '9') {
		d[len - 1]++;
		return 0;
	}
	while (i > 0 && d[i - 1] == '9')
		i--;
	if (!i)
		return 1;
	d[i - 1]++;
	for (; i < len; i++)
		d[i] = '0';
	return 0;
}

/* "rank R=host slot=S\n" for n ranks from *rank on host, slots from slot
 * on. The first line, and one whose number gains a digit, is made whole;
 * the others are the line before with its two numbers counted up. */
static void rank_lines(struct obuf *o, unsigned *rank, const char *host, unsigned n, unsigned slot)
{
	char line[HOSTNAME_MAX + 64];
	size_t len = 0, rl = 0, s0 = 0, sl = 0, hl = strlen(host);

	for (unsigned i = 0; i < n; i++, ++*rank, slot++) {
		if (!i || digits_inc(line + 5, rl) || digits_inc(line + s0, sl)) {
			memcpy(line, "rank ", 5);
			rl = put_uint(line + 5, *rank);
			line[5 + rl] = '=';
			memcpy(line + 6 + rl, host, hl);
			memcpy(line + 6 + rl + hl, " slot=", 6);
			s0 = 12 + rl + hl;
			sl = put_uint(line + s0, slot);
			line[s0 + sl] = '\n';
			len = s0 + sl + 1;
		}
		memcpy(ob_room(o, len), line, len);
		o->len += len;
	}
}

static void write_rankfile(const struct gen *g, struct obuf *o)
{
	const struct layout *l = g->l;
	unsigned r = 0;

	for (unsigned i = 0; i < l->nodes; i++)
		rank_lines(o, &r, g->s->nodes.v[i], l->ppn, 0);
	for (unsigned i = 0; i < layout_worker_nodes(l); i++)
		rank_lines(o, &r, worker_host(g, i), layout_workers_on(l, i),
			   l->placement == PLACEMENT_ONLOAD ? l->ppn : 0);
}

static void write_hostfile_mvapich(const struct gen *g, struct obuf *o)
{
	const struct layout *l = g->l;
	unsigned wn = layout_worker_nodes(l);

	for (unsigned i = 0; i < l->nodes; i++)
		ob_line(o, "%s:%u\n", g->s->nodes.v[i], l->ppn);
	for (unsigned i = 0; i < wn; i++)
		ob_line(o, "%s:%u\n", worker_host(g, i), layout_workers_on(l, i));
}

static void write_config(const struct gen *g, struct obuf *o)
{
	ob_printf(o, "-n %u : %s %s\n", g->l->hosts, g->s->host_bin, g->args);
	ob_printf(o, "-n %u : %s %s\n", g->l->workers, spec_worker_bin(g->s, g->l->placement),
		  g->args);
}

/* Each host once, with the ranks it holds: onload nodes hold their
 * workers too, as in the Open MPI hostfile. */
static void write_hostfile_hydra(const struct gen *g, struct obuf *o)
{
	const struct layout *l = g->l;
	unsigned wn = layout_worker_nodes(l);

	ob_printf(o, "# MPICH hydra hostfile (mpiexec.hydra -f) of layout %s\n", l->id);
	for (unsigned i = 0; i < l->nodes; i++)
		ob_line(o, "%s:%u\n", g->s->nodes.v[i], node_slots(g, i));
	for (unsigned i = 0; l->placement == PLACEMENT_DPU && i < wn; i++)
		ob_line(o, "%s:%u\n", g->s->dpus.v[i], layout_workers_on(l, i));
}

/* hydra numbers ranks in the order of the lines, and -host keeps a line's
 * ranks on that host: the host ranks node by node, then the workers. */
static void write_configfile_hydra(const struct gen *g, struct obuf *o)
{
	const struct layout *l = g->l;
	unsigned wn = layout_worker_nodes(l);

	ob_printf(o,
		  "# MPICH hydra configfile of layout %s: %u host ranks, %u workers, %u ranks.\n"
		  "# mpiexec.hydra -f hostfile.hydra -configfile configfile.hydra\n",
		  l->id, l->hosts, l->workers, layout_ranks(l));
	for (unsigned i = 0; i < l->nodes; i++)
		ob_line(o, "-n %u -host %s %s %s\n", l->ppn, g->s->nodes.v[i], g->s->host_bin,
			g->args);
	for (unsigned i = 0; i < wn; i++)
		ob_line(o, "-n %u -host %s %s %s\n", layout_workers_on(l, i), worker_host(g, i),
			spec_worker_bin(g->s, l->placement), g->args);
}

/* n lines "host\n", made in place: one line written, then the lines
 * already there copied after themselves, doubling, until the buffer is
 * full or n are there. */
static void host_lines(struct obuf *o, const char *host, unsigned n)
{
	size_t len = strlen(host) + 1, per = sizeof(o->buf) / len;

	while (n) {
		size_t k = n < per ? n : per, have = 1;
		char *w;

		if (o->len + k * len > sizeof(o->buf))
			ob_flush(o);
		w = o->buf + o->len;
		memcpy(w, host, len - 1);
		w[len - 1] = '\n';
		for (; have < k; have *= 2)
			memcpy(w + have * len, w, (have * 2 <= k ? have : k - have) * len);
		o->len += k * len;
		n -= (unsigned)k;
	}
}

static void write_slurm_hostfile(const struct gen *g, struct obuf *o)
{
	const struct layout *l = g->l;

	for (unsigned i = 0; i < l->nodes; i++)
		host_lines(o, g->s->nodes.v[i], l->ppn);
	for (unsigned i = 0; i < layout_worker_nodes(l); i++)
		host_lines(o, worker_host(g, i), layout_workers_on(l, i));
}

static void task_range(struct obuf *o, unsigned lo, unsigned hi)
{
	if (lo == hi)
		ob_printf(o, "%u", lo);
	else
		ob_printf(o, "%u-%u", lo, hi);
}

static void write_multiprog(const struct gen *g, struct obuf *o)
{
	const struct layout *l = g->l;

	ob_printf(o,
		  "# srun --multi-prog of layout %s, with SLURM_HOSTFILE=slurm.hostfile and\n"
		  "# --distribution=arbitrary. The kernel knows its role from its rank, so no\n"
		  "# worker index (%%o) is passed.\n",
		  l->id);
	task_range(o, 0, l->hosts - 1);
	ob_printf(o, " %s %s\n", g->s->host_bin, g->args);
	task_range(o, l->hosts, layout_ranks(l) - 1);
	ob_printf(o, " %s %s\n", spec_worker_bin(g->s, l->placement), g->args);
}

void generate_launch_opts(const struct spec *s, const struct layout *l, const char *dir,
			  enum launcher which, struct launch_opts *o)
{
	*o = (struct launch_opts)LAUNCH_OPTS_INIT;
	o->dir = dir;
	o->ranks = layout_ranks(l);
	o->nodes = layout_host_count(s, l);
	o->time_limit_s = s->time_limit;
	o->env = &s->env;
	/* The spec's launcher_args are for its own launcher only. */
	o->extra = s->launcher == which ? &s->launcher_args : NULL;
	/* People add --allow-run-as-root themselves if they must; nothing
	 * wraps their line in a time limit, so mpirun keeps its own. */
	o->root = 0;
	o->own_limit = 1;
	o->check_files = 0;
}

/* The lines of `commands`, in the order people meet them. */
static const struct command_kind {
	enum launcher launcher;
	int rankfile;
	const char *title;
} command_kinds[] = {
	{ LAUNCHER_MPIRUN, 0, "Open MPI" },
	{ LAUNCHER_MPIRUN, 1, "Open MPI, each rank pinned by the rankfile" },
	{ LAUNCHER_MPIRUN_RSH, 0, "MVAPICH2 mpirun_rsh" },
	{ LAUNCHER_HYDRA, 0, "MPICH hydra (the kernel built with MPICH: make mpich)" },
	{ LAUNCHER_SRUN, 0, "Slurm (PMIx)" },
};

/* Every line comes from launch/argv.c's builders, on the folder's final
 * path, so that it is the line `sweetspot run` would build there. */
static int write_commands(const struct gen *g, FILE *f, unsigned launchers)
{
	fprintf(f,
		"# Launch commands of layout %s (%u ranks), for people to read:\n"
		"# sweetspot run starts them itself, without a shell.\n",
		g->l->id, layout_ranks(g->l));
	for (size_t i = 0; i < sizeof(command_kinds) / sizeof(*command_kinds); i++) {
		const struct command_kind *k = &command_kinds[i];
		struct launch_opts o;
		struct launch_cmd cmd = LAUNCH_CMD_INIT;
		struct strvec hosts = STRVEC_INIT;
		unsigned wn = layout_worker_nodes(g->l);
		char *line;
		int rc;

		if (!(launchers & GEN_LAUNCHER(k->launcher)))
			continue;
		generate_launch_opts(g->s, g->l, g->final, k->launcher, &o);
		o.rankfile = k->rankfile;
		/* srun's line names the step's nodes (slurm.hostfile's, to be):
		 * each node's run of ranks once. The vector borrows the spec's
		 * names (320,000 on Fugaku): only its array is freed. */
		if (k->launcher == LAUNCHER_SRUN) {
			hosts.alloc = g->l->nodes + wn + 1;
			hosts.v = xcalloc(hosts.alloc, sizeof(*hosts.v));
			for (unsigned i = 0; i < g->l->nodes; i++)
				hosts.v[hosts.nr++] = g->s->nodes.v[i];
			for (unsigned i = 0; i < wn; i++)
				hosts.v[hosts.nr++] = (char *)worker_host(g, i);
			o.hosts = &hosts;
		}
		rc = launch_argv(k->launcher, &o, &cmd);
		free(hosts.v);
		if (rc) {
			launch_cmd_clear(&cmd);
			return -1;
		}
		line = launch_cmd_line(&cmd);
		fprintf(f, "\n# %s\n%s\n", k->title, line);
		free(line);
		launch_cmd_clear(&cmd);
	}
	return 0;
}

struct writer {
	const char *name;
	unsigned launchers; /* written when one of these is chosen */
	void (*fn)(const struct gen *g, struct obuf *o);
};

static const struct writer writers[] = {
	{ "hostfile", GEN_LAUNCHER(LAUNCHER_MPIRUN), write_hostfile },
	{ "appfile", GEN_LAUNCHER(LAUNCHER_MPIRUN), write_appfile },
	{ "rankfile", GEN_LAUNCHER(LAUNCHER_MPIRUN), write_rankfile },
	{ "hostfile.mvapich", GEN_LAUNCHER(LAUNCHER_MPIRUN_RSH), write_hostfile_mvapich },
	{ "config", GEN_LAUNCHER(LAUNCHER_MPIRUN_RSH), write_config },
	{ "hostfile.hydra", GEN_LAUNCHER(LAUNCHER_HYDRA), write_hostfile_hydra },
	{ "configfile.hydra", GEN_LAUNCHER(LAUNCHER_HYDRA), write_configfile_hydra },
	{ "slurm.hostfile", GEN_LAUNCHER(LAUNCHER_SRUN), write_slurm_hostfile },
	{ "multi-prog.conf", GEN_LAUNCHER(LAUNCHER_SRUN), write_multiprog },
	{ NULL, 0, NULL },
};

/* Writes one layout's files into dir (which exists), naming final in
 * `commands`. */
static int write_layout(const struct spec *s, const struct layout *l, const char *dir,
			const char *final, unsigned launchers)
{
	struct strvec args = STRVEC_INIT;
	struct gen g = { s, l, dir, final, NULL };
	struct obuf *o = NULL;
	char *path;
	FILE *f;
	int ret = -1;

	layout_kernel_args(s, l, &args);
	/* The MPMD formats split on blanks and quote nothing (see spec.c's
	 * check_bin); an argument that would need quoting cannot go in. */
	for (size_t i = 0; i < args.nr; i++)
		if (!args.v[i][0] || strpbrk(args.v[i], " \t\n'\"\\%")) {
			error("kernel argument '%s' has a character the appfile, config, "
			      "configfile and multi-prog formats cannot carry",
			      args.v[i]);
			goto out;
		}
	for (size_t i = 0, len = 0; i < args.nr; i++) {
		size_t n = strlen(args.v[i]);

		g.args = xrealloc(g.args, len + n + 2);
		if (i)
			g.args[len++] = ' ';
		memcpy(g.args + len, args.v[i], n + 1);
		len += n;
	}
	if (!g.args)
		g.args = xstrdup("");
	for (const struct writer *w = writers; w->name; w++) {
		if (!(w->launchers & launchers))
			continue;
		if (!(f = gen_open(&g, w->name, &path)))
			goto out;
		if (!o)
			o = xmalloc(sizeof(*o));
		o->f = f;
		o->len = 0;
		w->fn(&g, o);
		ob_flush(o);
		if (gen_close(f, path))
			goto out;
	}
	if (!(f = gen_open(&g, "commands", &path)))
		goto out;
	if (write_commands(&g, f, launchers)) {
		fclose(f);
		free(path);
		goto out;
	}
	if (gen_close(f, path))
		goto out;
	ret = 0;
out:
	free(o);
	free(g.args);
	strvec_clear(&args);
	return ret;
}

/* A temporary folder next to path ("path.tmp.XXXXXX"), or NULL. */
static char *make_temp(const char *path)
{
	char *t = xasprintf("%s.tmp.XXXXXX", path);

	if (!mkdtemp(t)) {
		error("cannot create a folder next to %s: %s", path, strerror(errno));
		free(t);
		return NULL;
	}
	return t;
}

/* 1 if dir holds nothing, 2 if only files of one layout, 0 otherwise
 * (including when it cannot be read). */
static int dir_kind(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int any = 0, ours = 1;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		int known = 0;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		any = 1;
		for (size_t i = 0; layout_files[i]; i++)
			known |= !strcmp(layout_files[i], e->d_name);
		ours &= known;
	}
	closedir(d);
	return !any ? 1 : ours ? 2 : 0;
}

/* Moves tmp to final; an existing final is first moved aside and removed
 * once the new one is in place. */
static int put_in_place(const char *tmp, const char *final)
{
	struct stat st;
	char *old = NULL;
	int ret = -1;

	if (!lstat(final, &st)) {
		old = xasprintf("%s.old.XXXXXX", final);
		if (!mkdtemp(old) || rename(final, old)) {
			error("cannot move %s aside: %s", final, strerror(errno));
			rmdir(old);
			goto out;
		}
	}
	if (rename(tmp, final)) {
		error("cannot rename %s to %s: %s", tmp, final, strerror(errno));
		if (old && rename(old, final))
			error("the earlier %s is now %s", final, old);
		goto out;
	}
	if (old)
		rm_tree(old);
	ret = 0;
out:
	free(old);
	return ret;
}

int generate_layout_for(const struct spec *s, const struct layout *l, const char *dir,
			unsigned launchers)
{
	char *final = abs_path(dir), *tmp = NULL;
	struct stat st;
	int ret = -1;

	if (!lstat(final, &st) && (!S_ISDIR(st.st_mode) || !dir_kind(final))) {
		error("%s is in the way: it is not a folder of generated layout files", final);
		goto out;
	}
	if (!(tmp = make_temp(final)))
		goto out;
	if (chmod(tmp, 0755) || write_layout(s, l, tmp, final, launchers) ||
	    put_in_place(tmp, final))
		goto out;
	ret = 0;
out:
	if (ret && tmp)
		rm_tree(tmp);
	free(tmp);
	free(final);
	return ret;
}

int generate_layout(const struct spec *s, const struct layout *l, const char *dir)
{
	return generate_layout_for(s, l, dir, GEN_ALL);
}

/* The first entry of a layout folder that is not a layout file; NULL if
 * none. The caller frees it. */
static char *foreign_in_layout(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char *found = NULL;

	while (d && !found && (e = readdir(d))) {
		int known = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");

		for (size_t i = 0; layout_files[i]; i++)
			known |= !strcmp(layout_files[i], e->d_name);
		if (!known)
			found = xasprintf("%s/%s", dir, e->d_name);
	}
	if (d)
		closedir(d);
	return found;
}

/* The first entry of an earlier output of generate (dir) that generate
 * did not write: anything but layouts.tsv and folders holding only layout
 * files. NULL if none. The caller frees it. */
static char *foreign_entry(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char *found = NULL;

	if (!d)
		return xstrdup(dir);
	while (!found && (e = readdir(d))) {
		char *path;
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    !strcmp(e->d_name, "layouts.tsv"))
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		if (lstat(path, &st) || !S_ISDIR(st.st_mode))
			found = path;
		else if (!dir_kind(path) && !(found = foreign_in_layout(path)))
			found = xstrdup(path);
		if (found != path)
			free(path);
	}
	closedir(d);
	return found;
}

static int write_tsv(const struct plan *p, const char *tmp, const char *final)
{
	char *path = xasprintf("%s/layouts.tsv", tmp);
	FILE *f = fopen(path, "w");

	if (!f) {
		error("cannot write %s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	fputs("id\tnodes\tppn\thosts\tworkers\twpn\tplacement\tranks\tpoints\tdir\n", f);
	for (size_t i = 0; i < p->nlayouts; i++) {
		const struct layout *l = &p->layouts[i];

		fprintf(f, "%s\t%u\t%u\t%u\t%u\t%u\t%s\t%u\t%zu\t%s/%s\n", l->id, l->nodes, l->ppn,
			l->hosts, l->workers, l->wpn, placement_name(l->placement), layout_ranks(l),
			l->points, final, l->id);
	}
	return gen_close(f, path);
}

int generate_plan(const struct spec *s, const struct plan *p, const char *dir, unsigned launchers,
		  int force)
{
	char *final = abs_path(dir), *tmp = NULL, *tsv = xasprintf("%s/layouts.tsv", final);
	struct stat st;
	int ret = -1;

	if (!lstat(final, &st)) {
		if (!S_ISDIR(st.st_mode) ||
		    (dir_kind(final) != 1 && !(force && !access(tsv, F_OK)))) {
			error("%s exists%s", final,
			      !S_ISDIR(st.st_mode) ? " and is not a folder" :
			      access(tsv, F_OK)	   ? " and is not an earlier output of generate; "
						     "choose another folder" :
						     "; give --force to replace it");
			ret = -2;
			goto out;
		}
		/* --force replaces what generate wrote, never a file of the
		 * user's: an earlier output someone added to is left alone. */
		if (dir_kind(final) != 1) {
			char *user = foreign_entry(final);

			if (user) {
				error("%s holds %s, which generate did not write; not replacing "
				      "the folder even with --force (move that away first)",
				      final, user);
				free(user);
				ret = -2;
				goto out;
			}
		}
	}
	if (!(tmp = make_temp(final)))
		goto out;
	if (chmod(tmp, 0755))
		goto out;
	for (size_t i = 0; i < p->nlayouts; i++) {
		char *sub = xasprintf("%s/%s", tmp, p->layouts[i].id);
		char *fsub = xasprintf("%s/%s", final, p->layouts[i].id);
		int bad = mkdir(sub, 0755) ? error("cannot create %s: %s", sub, strerror(errno)) :
					     write_layout(s, &p->layouts[i], sub, fsub, launchers);

		free(sub);
		free(fsub);
		if (bad)
			goto out;
	}
	if (write_tsv(p, tmp, final) || put_in_place(tmp, final))
		goto out;
	ret = 0;
out:
	if (ret && tmp)
		rm_tree(tmp);
	free(tmp);
	free(tsv);
	free(final);
	return ret;
}
