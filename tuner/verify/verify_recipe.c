/*
 * tuner/verify/verify_recipe.c: an MPMD recipe (the folder `export --format
 * mpmd` writes) as `sweetspot verify` uses it. B runs the program under
 * test on the recipe's layout: the recipe's files for the launcher, copied
 * into the launch's folder with the program and its arguments in the place
 * of every context's; and the proof compares where each rank ran (as
 * `sweetspot-loop --where` reports it) with the recipe's slurm.hostfile,
 * the plan's host of every rank ("localhost" there is this machine).
 */
#include "verify.h"

#include "error.h"
#include "files.h"
#include "xalloc.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The file that carries the programs, per launcher (enum launcher), and how
 * many words of a context's line come before its program. */
static const char *const program_file[] = { "multi-prog.conf", "appfile", "config",
					    "configfile.hydra" };
static const char *const plain_files[] = { "hostfile",	       "rankfile",	 "slurm.hostfile",
					   "hostfile.mvapich", "hostfile.hydra", NULL };

int verify_recipe_is(const char *path)
{
	struct stat st;
	char *f;
	int yes;

	if (stat(path, &st) || !S_ISDIR(st.st_mode))
		return 0;
	f = xasprintf("%s/slurm.hostfile", path);
	yes = !access(f, R_OK);
	free(f);
	return yes;
}

int verify_recipe_load(const char *path, struct verify_recipe *r)
{
	char *abs = realpath(path, NULL), *file, *line = NULL;
	size_t cap = 0, lineno = 0;
	FILE *f;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	if (!abs)
		return error("%s: %s", path, strerror(errno));
	r->dir = abs;
	file = xasprintf("%s/slurm.hostfile", abs);
	if (!(f = fopen(file, "r"))) {
		error("%s: %s (an MPMD recipe, as export --format mpmd writes, holds it)", file,
		      strerror(errno));
		goto out;
	}
	while (getline(&line, &cap, f) > 0) {
		char *h = line + strspn(line, " \t");

		lineno++;
		h[strcspn(h, " \t\r\n")] = '\0';
		if (!*h || *h == '#')
			continue;
		if (r->hosts.nr >= LAUNCH_RANKS_MAX) {
			error("%s:%zu: more than %u ranks", file, lineno, LAUNCH_RANKS_MAX);
			goto out;
		}
		strvec_push(&r->hosts, h);
	}
	if (!r->hosts.nr)
		error("%s: no rank in it", file);
	else
		ret = 0;
out:
	if (f)
		fclose(f);
	free(line);
	free(file);
	if (ret)
		verify_recipe_release(r);
	return ret;
}

void verify_recipe_release(struct verify_recipe *r)
{
	free(r->dir);
	strvec_clear(&r->hosts);
	memset(r, 0, sizeof(*r));
}

int verify_recipe_check_words(const struct strvec *prog)
{
	for (size_t i = 0; i < prog->nr; i++)
		if (!*prog->v[i] || strpbrk(prog->v[i], " \t'\"\\%"))
			return error("verify: '%s': an MPMD recipe's files split lines on blanks "
				     "and carry no quoting: the program and its arguments must "
				     "not be empty nor have a blank, quote, backslash or '%%'",
				     prog->v[i]);
	return 0;
}

/* How many words of a context's line come before its program: the
 * launcher's options (a flag and its value each) or, for srun's
 * multi-prog, the ranks; mpirun_rsh's config: up to ':'. */
static size_t program_at(enum launcher l, char **w, size_t n)
{
	size_t i = 0;

	if (l == LAUNCHER_SRUN)
		return n ? 1 : 0;
	if (l == LAUNCHER_MPIRUN_RSH) {
		while (i < n && strcmp(w[i], ":"))
			i++;
		return i < n ? i + 1 : n;
	}
	while (i + 1 < n && w[i][0] == '-')
		i += 2;
	return i;
}

struct rewrite {
	const char *src;
	enum launcher l;
	const struct strvec *prog; /* NULL: copied as it is */
};

/* Writes src to f, each context's program and arguments replaced. */
static int rewrite_fn(void *ctx, FILE *f)
{
	const struct rewrite *rw = ctx;
	FILE *in = fopen(rw->src, "r");
	char *line = NULL;
	size_t cap = 0;
	int ret = 0;

	if (!in)
		return error("%s: %s", rw->src, strerror(errno));
	while (getline(&line, &cap, in) > 0) {
		char *w[64], *save = NULL, *p = line + strspn(line, " \t");
		size_t n = 0, keep;

		if (!rw->prog || !*p || *p == '#' || *p == '\n') {
			fputs(line, f);
			continue;
		}
		for (char *t = strtok_r(line, " \t\r\n", &save); t && n < 64;
		     t = strtok_r(NULL, " \t\r\n", &save))
			w[n++] = t;
		keep = program_at(rw->l, w, n);
		for (size_t i = 0; i < keep; i++)
			fprintf(f, "%s ", w[i]);
		for (size_t i = 0; i < rw->prog->nr; i++)
			fprintf(f, "%s%s", i ? " " : "", rw->prog->v[i]);
		fputc('\n', f);
	}
	if (ferror(in))
		ret = error("%s: %s", rw->src, strerror(errno));
	free(line);
	fclose(in);
	return ret;
}

int verify_recipe_write(const struct verify_recipe *r, enum launcher l, const struct strvec *prog,
			const char *out)
{
	struct rewrite rw = { NULL, l, prog };
	int ret = 0;

	for (int i = -1; !ret && (i < 0 || plain_files[i]); i++) {
		const char *name = i < 0 ? program_file[l] : plain_files[i];
		char *src = xasprintf("%s/%s", r->dir, name), *dst = xasprintf("%s/%s", out, name);

		rw.src = src;
		rw.prog = i < 0 ? prog : NULL;
		if (i < 0 || !access(src, F_OK))
			ret = files_write_atomic(dst, rewrite_fn, &rw);
		free(src);
		free(dst);
	}
	return ret;
}

/* Whether a rank that reports host ran on the recipe's want: the same
 * name, or the same up to a domain ('.'), or "localhost" for this machine
 * (the launcher runs here, and a rank names it as gethostname() does). */
static int same_host(const char *want, const char *host)
{
	size_t a = strcspn(want, "."), b = strcspn(host, ".");
	char me[256] = "";

	if (!strcmp(want, host) || (a == b && !strncmp(want, host, a)))
		return 1;
	if (strcmp(want, "localhost") || gethostname(me, sizeof(me) - 1))
		return 0;
	return !strcmp(me, host) || (strcspn(me, ".") == b && !strncmp(me, host, b));
}

int verify_recipe_where(const struct verify_recipe *r, const char *log, struct strvec *ran,
			char *why, size_t len)
{
	FILE *f = fopen(log, "r");
	char *line = NULL;
	size_t cap = 0, wrong = 0;

	*why = '\0';
	if (!f)
		return error("%s: %s", log, strerror(errno));
	while (getline(&line, &cap, f) > 0) {
		char host[256], cpus[256];
		unsigned rank;

		if (sscanf(line, "where %u %255s %255s", &rank, host, cpus) != 3 || rank != ran->nr)
			continue;
		strvec_pushf(ran, "%s %s", host, cpus);
		if (rank < r->hosts.nr && !same_host(r->hosts.v[rank], host) && !wrong++)
			snprintf(why, len, "rank %u ran on %s, the recipe puts it on %s", rank,
				 host, r->hosts.v[rank]);
	}
	free(line);
	fclose(f);
	if (ran->nr != r->hosts.nr && !*why)
		snprintf(why, len, "%zu ranks ran, the recipe has %zu", ran->nr, r->hosts.nr);
	else if (wrong > 1)
		snprintf(why + strlen(why), len - strlen(why), " (%zu ranks off their host)",
			 wrong);
	return *why ? 1 : 0;
}
