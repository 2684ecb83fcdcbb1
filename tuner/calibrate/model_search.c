/*
 * tuner/calibrate/model_search.c: the model strategy of `sweetspot search`. The
 * model's parameters come from the database when it holds them for this
 * spec (as `sweetspot model` stores them), else from a calibration (its
 * launches counted here, apart from the search's); then every layout of
 * the plan is predicted and, per decision group (collective, bytes, and
 * for reductions dtype and op, as recommend decides), the
 * predicted best layout and those the prediction's uncertainty cannot
 * tell from it become candidates (model_run.h). Only candidates are
 * launched: the search's statistics, not the model, make the decision.
 */
#include "model_run.h"
#include "coll.h"
#include "error.h"
#include "parse.h"
#include "model_store.h"
#include "recommend.h"
#include "reduce.h"
#include "xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What predicting the grid collects: per (layout, decision group), the
 * best predicted oe_measured over (algorithm, assignment) and its sd. */
struct grid_pred {
	struct model_search *ms;
	size_t layout;
	double *oe, *sd; /* L x ngroups; NAN: no prediction */
};

/* Launches recorded in the latest run of key: its id and count (0, 0
 * when none). 0 or -1. */
static int run_launches(struct store *st, const char *key, long long *id, long long *n)
{
	struct store_run r = { 0 };
	int found = store_latest_run(st, key, &r);

	*id = 0;
	*n = 0;
	if (found < 0)
		return -1;
	if (!found)
		return 0;
	*id = r.id;
	store_run_release(&r);
	return store_run_counts(st, *id, n, NULL, NULL, NULL);
}

/* The stored parameters, else a calibration with its new launches counted. */
static int get_params(const char *path, const char *db, enum launcher l, const struct spec *s,
		      struct model_search *ms)
{
	struct store *st = NULL;
	char *key = spec_run_key(path), *calkey = xasprintf("%s:model", key);
	long long run = 0, id0, n0, id1, n1;
	int ret = -1, have;

	if (store_open(db, STORE_CREATE, &st))
		goto out;
	have = store_model_load(st, key, s->hash, &ms->params, &run);
	if (have < 0)
		goto out;
	ms->reused = have;
	if (!have) {
		if (run_launches(st, calkey, &id0, &n0) ||
		    model_calibrate(path, key, db, l, st, &ms->params) ||
		    run_launches(st, calkey, &id1, &n1))
			goto out;
		ms->calibration_launches = (unsigned)(id1 == id0 ? n1 - n0 : n1);
	}
	ret = 0;
out:
	store_close(st);
	free(calkey);
	free(key);
	return ret;
}

/* The decision group that answers q's question; -1: none yet. */
static long group_of(const struct model_search *ms, const struct point *q)
{
	for (size_t d = 0; d < ms->ngroups; d++)
		if (!point_cmp_question(&ms->groups[d].key, q))
			return (long)d;
	return -1;
}

/* The question (collective, bytes, dtype, op) observation o answers. */
static struct point obs_question(const struct model_obs *o)
{
	int red = coll_is_reduction(o->pt.coll);

	return (struct point){ .collective = coll_names[o->pt.coll],
			       .bytes = o->pt.m,
			       .dtype = red ? dtype_names[o->pt.dt] : NULL,
			       .op = red ? redop_names[o->pt.op] : NULL };
}

static int on_pred(const struct model_obs *o, const struct model_pred *pr, void *data)
{
	struct grid_pred *gp = data;
	struct point q = obs_question(o);
	long d = group_of(gp->ms, &q);
	size_t k;

	if (d < 0 || !isfinite(pr->oe_measured))
		return 0;
	k = gp->layout * gp->ms->ngroups + (size_t)d;
	if (isnan(gp->oe[k]) || pr->oe_measured > gp->oe[k]) {
		gp->oe[k] = pr->oe_measured;
		gp->sd[k] = isfinite(pr->oe_measured_sd) ? pr->oe_measured_sd : 0;
	}
	return 0;
}

/* The decision groups of sp, (collective, bytes, dtype, op) as recommend
 * decides them, in the order of its groups. */
static void build_groups(const struct search_space *sp, struct model_search *ms)
{
	ms->groups = xcalloc(sp->ngroups + 1, sizeof(*ms->groups));
	for (size_t g = 0; g < sp->ngroups; g++) {
		const struct point *gr = &sp->groups[g];

		struct point q = { .collective = gr->collective,
				   .bytes = gr->bytes,
				   .dtype = gr->dtype,
				   .op = gr->op };

		if (group_of(ms, &q) < 0)
			ms->groups[ms->ngroups++] = (struct model_search_group){ q, -1, NAN, NAN,
										 0 };
	}
}

/* Decision group d's candidates into ms->only: the predicted best, then
 * the best of the rest while within the uncertainty, up to the cap. */
static void pick(struct model_search *ms, const struct grid_pred *gp, size_t L, size_t d)
{
	struct model_search_group *g = &ms->groups[d];
	unsigned char *taken = xcalloc(L + 1, 1);
	size_t G = ms->ngroups, l;

	for (l = 0; l < L; l++)
		if (isfinite(gp->oe[l * G + d]) && (g->best < 0 || gp->oe[l * G + d] > g->oe)) {
			g->best = (long)l;
			g->oe = gp->oe[l * G + d];
			g->sd = gp->sd[l * G + d];
		}
	while (g->best >= 0 && g->ncandidates < MODEL_SEARCH_CAP) {
		long next = -1;

		for (l = 0; l < L; l++)
			if (!taken[l] && isfinite(gp->oe[l * G + d]) &&
			    (next < 0 || gp->oe[l * G + d] > gp->oe[(size_t)next * G + d]))
				next = (long)l;
		if (next < 0 ||
		    gp->oe[(size_t)next * G + d] <
			    g->oe - MODEL_SEARCH_Z * hypot(g->sd, gp->sd[(size_t)next * G + d]))
			break;
		taken[next] = 1;
		ms->only[next] = 1;
		g->ncandidates++;
	}
	free(taken);
}

int model_search_prepare(const char *path, const char *db, enum launcher l, const struct spec *s,
			 const struct plan *p, const struct search_space *sp,
			 struct model_search *ms)
{
	struct grid_pred gp = { ms, 0, NULL, NULL };
	struct model_env env;
	size_t L = sp->nlayouts, k;
	int ret = -1;

	memset(ms, 0, sizeof(*ms));
	if (get_params(path, db, l, s, ms))
		return -1;
	build_groups(sp, ms);
	ms->only = xcalloc(L + 1, 1);
	gp.oe = xcalloc(L * ms->ngroups + 1, sizeof(double));
	gp.sd = xcalloc(L * ms->ngroups + 1, sizeof(double));
	for (k = 0; k < L * ms->ngroups; k++)
		gp.oe[k] = gp.sd[k] = NAN;
	model_env_of(s, &env);
	for (gp.layout = 0; gp.layout < L && gp.layout < p->nlayouts; gp.layout++)
		if (model_predict_layout(&ms->params, s, &p->layouts[gp.layout], &env, on_pred,
					 &gp))
			goto out;
	for (k = 0; k < ms->ngroups; k++)
		pick(ms, &gp, L, k);
	for (k = 0; k < L; k++)
		ms->ncandidates += ms->only[k];
	if (!ms->ncandidates)
		error("model: no layout of %s has a prediction", path);
	else
		ret = 0;
out:
	free(gp.oe);
	free(gp.sd);
	if (ret)
		model_search_release(ms);
	return ret;
}

void model_search_release(struct model_search *ms)
{
	free(ms->only);
	free(ms->groups);
	memset(ms, 0, sizeof(*ms));
}

/* What predicting the prior collects: per (layout, search group), the
 * predicted oe_measured of that very point. */
struct prior_pred {
	const struct search_space *sp;
	size_t layout;
	double *oe; /* L x sp->ngroups; NAN: no prediction */
};

/* Whether search group g is the point of observation o (an axis the
 * observation leaves at 0 is the kernel's default and matches any). */
static int is_point_of(const struct point *g, const struct model_obs *o)
{
	struct point q = obs_question(o);

	return !point_cmp_question(g, &q) && g->algorithm &&
	       !strcmp(g->algorithm, alg_names[o->pt.alg]) && g->assignment &&
	       !strcmp(g->assignment, asg_names[o->pt.asg]) &&
	       (!o->pt.chunk || g->chunk == o->pt.chunk) &&
	       (!o->pt.window || g->window == (unsigned)o->pt.window) &&
	       (!o->pt.radix || g->radix == (unsigned)o->pt.radix);
}

static int on_prior(const struct model_obs *o, const struct model_pred *pr, void *data)
{
	struct prior_pred *pp = data;
	size_t G = pp->sp->ngroups;

	for (size_t g = 0; g < G && isfinite(pr->oe_measured); g++)
		if (isnan(pp->oe[pp->layout * G + g]) && is_point_of(&pp->sp->groups[g], o)) {
			pp->oe[pp->layout * G + g] = pr->oe_measured;
			break;
		}
	return 0;
}

int model_search_prior(const char *path, const char *db, const struct spec *s, const struct plan *p,
		       const struct search_space *sp, double **prior)
{
	struct prior_pred pp = { sp, 0, NULL };
	struct model_params params;
	struct model_env env;
	struct store *st = NULL;
	char *key = spec_run_key(path);
	long long run = 0;
	int have = -1;

	*prior = NULL;
	if (store_open(db, STORE_CREATE, &st))
		goto out;
	have = store_model_load(st, key, s->hash, &params, &run);
	if (have <= 0)
		goto out;
	pp.oe = xcalloc(sp->nlayouts * sp->ngroups + 1, sizeof(double));
	for (size_t k = 0; k < sp->nlayouts * sp->ngroups; k++)
		pp.oe[k] = NAN;
	model_env_of(s, &env);
	for (; pp.layout < sp->nlayouts && pp.layout < p->nlayouts; pp.layout++)
		if (model_predict_layout(&params, s, &p->layouts[pp.layout], &env, on_prior, &pp)) {
			have = -1;
			goto out;
		}
	*prior = pp.oe;
	pp.oe = NULL;
out:
	free(pp.oe);
	store_close(st);
	free(key);
	return have;
}
