/*
 * tuner/search_real.c: real launches for the search (see search_real.h).
 */
#include "search_real.h"

#include "child.h"
#include "error.h"
#include "recommend.h"
#include "store.h"
#include "strvec.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Creates the folders above path, as the database's own are created. */
static int mkdir_parents(const char *path)
{
	char *p = xstrdup(path);
	int ret = 0;

	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0777) && errno != EEXIST) {
			ret = error("cannot create %s: %s", p, strerror(errno));
			break;
		}
		*s = '/';
	}
	free(p);
	return ret;
}

int search_real_init(struct search_real *r, const char *spec_path, const char *db,
		     const char *launcher, const struct search_space *sp)
{
	char self[PATH_MAX];
	ssize_t n;

	memset(r, 0, sizeof(*r));
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return error("cannot find this program (/proc/self/exe): %s", strerror(errno));
	self[n] = '\0';
	r->self = xstrdup(self);
	r->spec_path = spec_path;
	r->db = db;
	r->launcher = launcher;
	r->sp = sp;
	r->log = xasprintf("%s.search.log", db);
	return mkdir_parents(r->log);
}

struct collect {
	const struct search_space *sp;
	const char *layout;
	int repetition;
	double *oe;
	size_t found;
};

static int collect_point(const struct store_point *p, void *data)
{
	struct collect *c = data;

	if (p->repetition != c->repetition || strcmp(p->layout, c->layout))
		return 0;
	c->found++;
	for (size_t g = 0; g < c->sp->ngroups; g++) {
		const struct search_group *gr = &c->sp->groups[g];

		if (gr->bytes == p->bytes && !strcmp(gr->collective, p->collective) &&
		    !strcmp(gr->algorithm, p->algorithm) && !strcmp(gr->assignment, p->assignment) &&
		    p->valid && isfinite(p->oe_measured))
			c->oe[g] = p->oe_measured;
	}
	return 0;
}

int search_real_measure(void *ctx, size_t layout, unsigned rep, double *oe)
{
	struct search_real *r = ctx;
	const char *id = r->sp->layouts[layout].id;
	struct strvec av = STRVEC_INIT;
	struct launch_child c = { 0 };
	struct launch_result res;
	struct store *st = NULL;
	struct store_run run = { 0 };
	struct collect col = { r->sp, id, (int)rep + 1, oe, 0 };
	int status, ret = -1, got;
	char *key;

	for (size_t g = 0; g < r->sp->ngroups; g++)
		oe[g] = NAN;
	strvec_pushv(&av, (const char *const[]){ r->self, "run", r->spec_path, "--db", r->db,
						  "--only", NULL });
	strvec_pushf(&av, "%s:%u", id, rep + 1);
	if (r->launcher) {
		strvec_push(&av, "--launcher");
		strvec_push(&av, r->launcher);
	}
	c.argv = &av;
	c.log = r->log;
	/* A real search takes a while: say what it measures, one line per launch. */
	fprintf(stderr, "sweetspot: search: launch %u: %s, repetition %u\n", ++r->launches, id,
		rep + 1);
	status = launch_spawn(&c, &res);
	/* 0: the launch went well; 1: it failed and is recorded as failed. */
	if (status != 0 && status != 1) {
		error("measuring %s (repetition %u) failed: %s; see %s", id, rep + 1,
		      res.reason[0] ? res.reason : "sweetspot run stopped", r->log);
		goto out;
	}
	if (status == 1)
		r->failed++;
	if (store_open(r->db, STORE_RDONLY, &st))
		goto out;
	key = spec_run_key(r->spec_path);
	got = store_latest_run(st, key, &run);
	free(key);
	if (got <= 0) {
		if (!got)
			error("%s: no run of %s after measuring %s", r->db, r->spec_path, id);
		goto out;
	}
	if (store_foreach_point(st, run.id, STORE_ALL_POINTS, collect_point, &col) < 0)
		goto out;
	ret = 0;
out:
	store_run_release(&run);
	store_close(st);
	strvec_clear(&av);
	return ret;
}

void search_real_release(struct search_real *r)
{
	free(r->self);
	free(r->log);
	memset(r, 0, sizeof(*r));
}
