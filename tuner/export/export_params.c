/*
 * tuner/export/export_params.c: what Open MPI's coll/tuned algorithms ran with.
 * A rule that names only an algorithm is not enough: Open MPI runs a
 * forced algorithm with the collective's MCA parameters (segment size,
 * chain or tree fan-out, reduce's max requests, bcast's knomial radix),
 * while a rules file gives every rule its own fan-out and segment size.
 * So `baseline` sets each parameter explicitly in every launch's
 * environment (the value the installed Open MPI reports through ompi_info,
 * or the spec's own setting), the engine records that environment with the
 * launch's command line, and export reads it back from there. Input
 * without launches (kernel records, an old database) gets the installed
 * Open MPI's values, and the rules file says so. Here also the one reader
 * of `ompi_info --param coll tuned --level 9 --parsable` (algorithm ids,
 * names and parameters), which baseline uses as well.
 */
#include "export_priv.h"

#include "child.h"
#include "colls.h"
#include "error.h"
#include "recommend.h"
#include "store.h"
#include "strvec.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const param_names[OMPI_NPARAMS] = {
	[OMPI_SEGSIZE] = "segmentsize",		[OMPI_TREE_FANOUT] = "tree_fanout",
	[OMPI_CHAIN_FANOUT] = "chain_fanout",	[OMPI_MAX_REQUESTS] = "max_requests",
	[OMPI_KNOMIAL_RADIX] = "knomial_radix",
};

const char *ompi_param_name(enum ompi_param p)
{
	return param_names[p];
}

/* ---- ompi_info ------------------------------------------------------------ */

int ompi_info_load(struct ompi_info *oi)
{
	struct strvec av = STRVEC_INIT;
	struct launch_child c = { 0 };
	struct launch_result r;
	char log[] = "/tmp/sweetspot-ompi_info.XXXXXX", *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *f;
	int fd = mkstemp(log), ret = -1;

	memset(oi, 0, sizeof(*oi));
	if (fd < 0)
		return error("ompi_info: cannot make a temporary file");
	close(fd);
	strvec_pushv(&av, (const char *const[]){ "ompi_info", "--param", "coll", "tuned", "--level",
						 "9", "--parsable", NULL });
	c.argv = &av;
	c.log = log;
	c.timeout_s = 60;
	if (launch_spawn(&c, &r) == 0 && (f = fopen(log, "r"))) {
		while ((len = getline(&line, &cap, f)) > 0) {
			while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
				line[--len] = '\0';
			if (!strncmp(line, "mca:coll:tuned:param:coll_tuned_", 32))
				strvec_push(&oi->lines, line + 32);
		}
		fclose(f);
	}
	if (oi->lines.nr)
		ret = 0;
	else
		error("cannot read Open MPI's coll/tuned parameters ('ompi_info --param coll "
		      "tuned --level 9 --parsable' gave none)");
	free(line);
	unlink(log);
	strvec_clear(&av);
	return ret;
}

void ompi_info_release(struct ompi_info *oi)
{
	strvec_clear(&oi->lines);
}

/* The text after "<name>:value:" of a parameter line; NULL: none. */
static const char *info_value(const struct ompi_info *oi, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < oi->lines.nr; i++)
		if (!strncmp(oi->lines.v[i], name, n) && !strncmp(oi->lines.v[i] + n, ":value:", 7))
			return oi->lines.v[i] + n + 7;
	return NULL;
}

int ompi_info_int(const struct ompi_info *oi, const char *name, long *out)
{
	const char *v = info_value(oi, name);
	char *end;

	if (!v || !*v)
		return -1;
	*out = strtol(v, &end, 10);
	return *end ? -1 : 0;
}

int ompi_info_algorithms(const struct ompi_info *oi, const char *coll)
{
	char name[96];
	long n;

	snprintf(name, sizeof(name), "%s_algorithm_count", coll);
	return ompi_info_int(oi, name, &n) || n < 0 || n > 64 ? 0 : (int)n;
}

const char *ompi_info_algorithm_name(const struct ompi_info *oi, const char *coll, int alg,
				     char *buf, size_t len)
{
	char want[128];
	size_t n;

	n = (size_t)snprintf(want, sizeof(want), "%s_algorithm:enumerator:value:%d:", coll, alg);
	for (size_t i = 0; i < oi->lines.nr; i++)
		if (!strncmp(oi->lines.v[i], want, n)) {
			snprintf(buf, len, "%s", oi->lines.v[i] + n);
			return buf;
		}
	return NULL;
}

/* ---- the parameters --------------------------------------------------------- */

void ompi_params_release(struct ompi_params *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i].coll);
	free(p->v);
	free(p->origin);
	memset(p, 0, sizeof(*p));
}

/* The entry of (coll, alg), added with every value unknown when missing. */
static struct ompi_alg_params *params_get(struct ompi_params *p, const char *coll, int alg)
{
	struct ompi_alg_params *e;

	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].alg == alg && !strcmp(p->v[i].coll, coll))
			return &p->v[i];
	p->v = xrealloc(p->v, (p->n + 1) * sizeof(*p->v));
	e = &p->v[p->n++];
	memset(e, 0, sizeof(*e));
	e->coll = xstrdup(coll);
	e->alg = alg;
	for (int k = 0; k < OMPI_NPARAMS; k++)
		e->val[k] = -1;
	return e;
}

const struct ompi_alg_params *ompi_params_find(const struct ompi_params *p, const char *coll,
					       int alg)
{
	const struct ompi_alg_params *any = NULL;

	for (size_t i = 0; p && i < p->n; i++)
		if (!strcmp(p->v[i].coll, coll)) {
			if (p->v[i].alg == alg)
				return &p->v[i];
			if (p->v[i].alg == OMPI_ANY_ALG)
				any = &p->v[i];
		}
	return any;
}

void ompi_params_from_info(const struct ompi_info *oi, const char *coll, struct ompi_params *p)
{
	struct ompi_alg_params *e = params_get(p, coll, OMPI_ANY_ALG);

	for (int k = 0; k < OMPI_NPARAMS; k++) {
		char name[128];
		long v;

		snprintf(name, sizeof(name), "%s_algorithm_%s", coll, param_names[k]);
		if (!ompi_info_int(oi, name, &v))
			e->val[k] = v;
	}
}

/* Every collective exported, from the installed Open MPI. */
static int params_installed(const struct decisions *d, struct ompi_params *p)
{
	struct ompi_info oi;
	const char *colls[OMPI_MAX_COLLS];
	size_t nc = export_mpi_collectives(d, colls);

	if (ompi_info_load(&oi))
		return -1;
	for (size_t c = 0; c < nc; c++)
		ompi_params_from_info(&oi, colls[c], p);
	ompi_info_release(&oi);
	return 0;
}

/* NAME=value words at the start of a stored command line, into e. */
static void params_from_line(const char *line, const char *coll, struct ompi_alg_params *e)
{
	char *copy = xstrdup(line), *save = NULL;

	for (char *w = strtok_r(copy, " ", &save); w && strchr(w, '=');
	     w = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(w, '='), prefix[96];
		size_t n = (size_t)snprintf(prefix, sizeof(prefix),
					    "OMPI_MCA_coll_tuned_%s_algorithm_", coll);

		if (strncmp(w, prefix, n))
			continue;
		for (int k = 0; k < OMPI_NPARAMS; k++) {
			const char *val = eq + 1;
			char *end;
			long v;

			if ((size_t)(eq - w) != n + strlen(param_names[k]) ||
			    strncmp(w + n, param_names[k], strlen(param_names[k])))
				continue;
			if (*val == '\'')
				val++;
			v = strtol(val, &end, 10);
			if (end != val && (!*end || *end == '\''))
				e->val[k] = v;
		}
	}
	free(copy);
}

/* The launches of one baseline run: 1 when some launch said its
 * parameters, 0 none, -1 error. */
static int params_of_run(struct store *st, long long run, const struct decisions *d,
			 struct ompi_params *p)
{
	const char *colls[OMPI_MAX_COLLS];
	size_t nc = export_mpi_collectives(d, colls);
	int found = 0;

	for (size_t c = 0; c < nc; c++)
		for (int alg = 1; alg <= 64; alg++) {
			char layout[96], *line = NULL;
			int got;

			snprintf(layout, sizeof(layout), "mpi-%s-alg%d", colls[c], alg);
			got = store_launch_command(st, run, layout, &line);
			if (got < 0)
				return -1;
			if (got && strstr(line, "_algorithm_")) {
				struct ompi_alg_params *e = params_get(p, colls[c], alg);

				params_from_line(line, colls[c], e);
				found = 1;
			}
			free(line);
		}
	return found;
}

int ompi_params_load(const struct decisions *d, const char *db, long long run_id,
		     const char *spec_path, struct ompi_params *p)
{
	struct store *st = NULL;
	struct store_run r = { 0 };
	int got = 0;

	memset(p, 0, sizeof(*p));
	if (!decisions_has_mpi(d, NULL))
		return 0;
	if (db && !store_open(db, STORE_RDONLY, &st)) {
		long long run = run_id;

		if (run <= 0) {
			got = recommend_find_run(st, spec_path, 1, &r);
			if (!got && spec_path)
				got = recommend_find_run(st, NULL, 1, &r);
			run = got > 0 ? r.id : 0;
		}
		got = run > 0 ? params_of_run(st, run, d, p) : 0;
		store_run_release(&r);
		store_close(st);
		if (got < 0)
			return -1;
	}
	/* What a launch did not say is what the installed Open MPI uses. */
	if (params_installed(d, p))
		return -1;
	p->origin = xstrdup(
		got > 0 ? "the baseline launches' environment (recorded with each\n"
			  "# launch's command), the rest from ompi_info" :
			  "the installed Open MPI's values (ompi_info), as the input does\n"
			  "# not record the launches' environment");
	return 0;
}

/* The value k of (coll, alg): its launch's, else the collective's. */
static long param_value(const struct ompi_params *p, const char *coll, int alg, int k)
{
	const struct ompi_alg_params *e = ompi_params_find(p, coll, alg), *any;

	if (e && e->val[k] >= 0)
		return e->val[k];
	any = ompi_params_find(p, coll, OMPI_ANY_ALG);
	return any && any->val[k] >= 0 ? any->val[k] : 0;
}

void ompi_rule_params(const struct ompi_params *p, const char *coll, int alg, long *faninout,
		      long *segsize, long *reqs)
{
	/* Open MPI 4.1's forced path (coll_tuned_decision_dynamic.c) passes
	 * the chain fan-out to bcast, reduce, reduce_scatter(_block) and
	 * scatter, the tree fan-out to the others. */
	static const char *const chain[] = { "bcast",	       "reduce",
					     "reduce_scatter", "reduce_scatter_block",
					     "scatter",	       NULL };
	int k = OMPI_TREE_FANOUT;

	if (!alg) {
		*faninout = *segsize = *reqs = 0;
		return;
	}
	for (int i = 0; chain[i]; i++)
		if (!strcmp(coll, chain[i]))
			k = OMPI_CHAIN_FANOUT;
	*faninout = param_value(p, coll, alg, k);
	*segsize = param_value(p, coll, alg, OMPI_SEGSIZE);
	*reqs = param_value(p, coll, alg, OMPI_MAX_REQUESTS);
}

long ompi_global_param(const struct ompi_params *p, const char *coll, int alg, enum ompi_param k)
{
	return param_value(p, coll, alg, k);
}

long export_knomial_radix(const struct decisions *d, const struct ompi_params *p)
{
	for (size_t k = 0; k < d->nmpi; k++)
		if (d->mpi[k].alg == 7 && !strcmp(d->mpi[k].collective, "bcast"))
			return param_value(p, "bcast", 7, OMPI_KNOMIAL_RADIX);
	return 0;
}
