/*
 * tuner/calibrate/model_run.c: the model against a spec: calibration launches
 * through the sweep engine (runner.h), and predictions of a layout's
 * points. Calibration measures two small layouts of the spec's machine
 * that the spec's own grid does not hold when it can (fewer host ranks
 * per node: ppn_cal = max(3, ppn / 2) where ppn > 3), so that --check
 * compares with points the fit never saw: layout A (1 worker) twice, for
 * the launch-to-launch noise, and layout B (2 workers on one node) once,
 * for the sharing of the node's bus or NIC by concurrent workers; each at
 * the spec's smallest and largest sizes, with every collective of the spec
 * plus allreduce `slice` (the per-byte cost of the reduction arithmetic).
 * Three launches, stored as the run "SPEC:model" like any sweep's.
 */
#include "model_run.h"
#include "coll.h"
#include "colls.h"
#include "error.h"
#include "model_store.h"
#include "parse.h"
#include "plan.h"
#include "recommend.h"
#include "reduce.h"
#include "xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int model_host_cores(const struct spec *s)
{
	char name[256] = "";

	/* Measuring on this very machine: its cores are what ranks share. */
	gethostname(name, sizeof(name) - 1);
	if (s->nodes.nr == 1 &&
	    (!strcmp(s->nodes.v[0], "localhost") || !strcmp(s->nodes.v[0], name)))
		return (int)sysconf(_SC_NPROCESSORS_ONLN);
	return (int)(s->ppn + s->onload_cores);
}

void model_env_of(const struct spec *s, struct model_env *env)
{
	env->host_cores = model_host_cores(s);
	env->dpu_cores = (int)s->dpu_cores;
	env->mmax = s->nsizes ? s->sizes[s->nsizes - 1] : 0;
	env->has_reduction = 0;
	env->shm_rma = 0;
	env->sim = MODEL_SIM_AUTO;
	for (size_t i = 0; i < s->collectives.nr; i++)
		env->has_reduction |= colls_is_reduction(s->collectives.v[i]);
}

/* The calibration spec: the spec's machine at ppn_cal, every collective
 * of the spec plus allreduce slice, smallest and largest size. */
static int cal_spec(const char *path, struct spec *cal)
{
	if (spec_load(path, cal))
		return -1;
	if (cal->ppn > 3)
		cal->ppn = cal->ppn / 2 > 3 ? cal->ppn / 2 : 3;
	if (cal->nsizes > 2) {
		cal->sizes[1] = cal->sizes[cal->nsizes - 1];
		cal->nsizes = 2;
	}
	if (!colls_find("allreduce"))
		return 0;
	int have = 0;

	for (size_t i = 0; i < cal->collectives.nr; i++)
		have |= !strcmp(cal->collectives.v[i], "allreduce");
	if (!have)
		strvec_push(&cal->collectives, "allreduce");
	have = 0;
	for (size_t i = 0; i < cal->algorithms.nr; i++)
		have |= !strcmp(cal->algorithms.v[i], "slice");
	if (!have)
		strvec_push(&cal->algorithms, "slice");
	return 0;
}

/* Layouts A and B (B only where two workers fit one node's cores or DPU). */
static size_t cal_layouts(const struct spec *cal, struct layout *l)
{
	enum placement pl = cal->placements[0];
	unsigned cores = pl == PLACEMENT_DPU ? cal->dpu_cores : cal->onload_cores;
	size_t n = 0;

	for (unsigned w = 1; w <= 2; w++) {
		char err[256];

		memset(&l[n], 0, sizeof(l[n]));
		l[n].nodes = 1;
		l[n].ppn = cal->ppn;
		l[n].hosts = cal->ppn;
		l[n].workers = w;
		l[n].wpn = w <= cores ? w : 1;
		l[n].placement = pl;
		l[n].points = spec_pairs(cal) * cal->assignments.nr * cal->nsizes;
		layout_set_id(&l[n]);
		if (!layout_check(cal, &l[n], err, sizeof(err)))
			n++;
	}
	return n;
}

/* Runs the calibration launches; their observations into *obs. */
static int cal_measure(struct runner *r, const struct layout *l, size_t nl,
		       const struct model_env *env, struct model_obs **obs, size_t *nobs,
		       struct store_point **keep, size_t *nkeep)
{
	static const unsigned reps[] = { 2, 1 };

	for (size_t i = 0; i < nl; i++)
		for (unsigned rep = 1; rep <= reps[i]; rep++) {
			struct runner_job job = { &l[i],
						  { l[i].id, (int)l[i].nodes, (int)l[i].ppn,
						    (int)l[i].workers, (int)l[i].wpn,
						    placement_name(l[i].placement) },
						  l[i].points,
						  NULL,
						  NULL };
			struct runner_outcome oc;
			int rc = runner_launch(r, &job, rep, &oc);

			if (rc)
				return error("model: calibration launch %s #%u %s", l[i].id, rep,
					     rc == 1 ? "interrupted" : "not run");
			if (!oc.ok)
				error("model: calibration launch %s #%u failed: %s", l[i].id, rep,
				      oc.reason);
			*obs = xrealloc(*obs, (*nobs + oc.npoints) * sizeof(**obs));
			for (size_t k = 0; k < oc.npoints; k++) {
				/* A launch's points carry the layout's fields only once
				 * stored: a shallow copy gets them here. */
				struct store_point pt = oc.pts[k];

				pt.layout = l[i].id;
				pt.wpn = (int)l[i].wpn;
				pt.ppn = (int)l[i].ppn;
				pt.placement = placement_name(l[i].placement);
				pt.repetition = (int)rep;
				if (pt.valid && !model_obs_from_point(&pt, env, &(*obs)[*nobs]))
					(*nobs)++;
			}
			/* Observations borrow the points' strings: kept until the end. */
			*keep = xrealloc(*keep, (*nkeep + oc.npoints) * sizeof(**keep));
			memcpy(*keep + *nkeep, oc.pts, oc.npoints * sizeof(**keep));
			*nkeep += oc.npoints;
			free(oc.pts);
		}
	return 0;
}

/* The fit of obs[0 .. n), its launch noise, and the parameters stored
 * under key as calibrated from run. 0 or -1. */
static int fit_save(struct store *st, const char *key, const struct spec *cal, long long run,
		    struct model_obs *obs, size_t n, struct model_params *p)
{
	double noise = model_noise(obs, n);

	/* The fit sees each point's median over its launches, as --check. */
	n = model_obs_medians(obs, n);
	model_params_default(p);
	if (model_fit(obs, n, p))
		return -1;
	p->noise = isnan(noise) ? p->resid : noise;
	return store_model_save(st, key, cal->hash, run, cal->transport ? cal->transport : "auto",
				p);
}

int model_refit(const char *path, const char *key, struct store *st, long long run,
		struct model_params *p)
{
	struct spec fit = SPEC_INIT;
	struct store_run r = { 0 };
	struct store_point *pts = NULL;
	struct model_obs *obs = NULL;
	size_t n = 0, nobs = 0, len = strlen(key);
	struct model_env env;
	int ret = -1, cal;

	if (store_get_run(st, run, &r) <= 0) {
		error("model: the database holds no run %lld", run);
		goto out;
	}
	/* The spec's calibration run (KEY:model) or one of its sweeps (KEY). */
	cal = !strncmp(r.spec_path, key, len) && !strcmp(r.spec_path + len, ":model");
	if (!cal && strcmp(r.spec_path, key)) {
		error("model: run %lld is a run of %s, not of %s", run, r.spec_path, path);
		goto out;
	}
	if ((cal ? cal_spec(path, &fit) : spec_load(path, &fit)) ||
	    store_load_points(st, run, STORE_VALID_ONLY, &pts, &n))
		goto out;
	model_env_of(&fit, &env);
	obs = xcalloc(n ? n : 1, sizeof(*obs));
	for (size_t i = 0; i < n; i++)
		if (!model_obs_from_point(&pts[i], &env, &obs[nobs]))
			nobs++;
	if (!nobs)
		error("model: run %lld holds no valid offload point to fit", run);
	else
		ret = fit_save(st, key, &fit, run, obs, nobs, p);
out:
	free(obs);
	store_points_free(pts, n);
	store_run_release(&r);
	spec_release(&fit);
	return ret;
}

int model_calibrate(const char *path, const char *key, const char *db, enum launcher launcher,
		    struct store *st, struct model_params *p)
{
	struct spec cal = SPEC_INIT;
	struct runner r = RUNNER_INIT;
	struct layout l[2];
	struct model_obs *obs = NULL;
	struct store_point *keep = NULL;
	size_t nl, nobs = 0, nkeep = 0;
	struct model_env env;
	int ret = -1;

	if (cal_spec(path, &cal))
		goto out;
	model_env_of(&cal, &env);
	nl = cal_layouts(&cal, l);
	if (!nl) {
		error("model: no calibration layout fits %s", path);
		goto out;
	}
	runner_init(&r, &cal, launcher);
	r.label = "model";
	r.progress_out = stderr;
	r.read_back = 1;
	if (runner_open(&r, st, path, db, 0, (long long)(nl == 2 ? 3 : 2), 0, (long)nl, 2))
		goto out;
	runner_signals_install(&r);
	ret = cal_measure(&r, l, nl, &env, &obs, &nobs, &keep, &nkeep);
	runner_signals_restore(&r);
	runner_finish(&r, NULL, NULL, NULL, NULL);
	if (!ret)
		ret = fit_save(st, key, &cal, r.run.id, obs, nobs, p);
out:
	free(obs);
	store_points_free(keep, nkeep);
	runner_release(&r);
	spec_release(&cal);
	return ret;
}

struct predict_ctx {
	const struct model_params *p;
	const struct model_env *env;
	struct model_obs o;
	int (*fn)(const struct model_obs *o, const struct model_pred *pr, void *data);
	void *data;
	int failed;
};

/* One point of the plan, with every axis it has (plan_foreach_point). */
static int predict_point(const struct point *pp, void *data)
{
	struct predict_ctx *x = data;
	int c = parse_name(pp->collective, coll_names, COLL_N);
	int a = parse_name(pp->algorithm, alg_names, ALG_N);
	int g = parse_name(pp->assignment, asg_names, ASG_N);
	int d = pp->dtype ? parse_name(pp->dtype, dtype_names, DT_N) : DT_INT32;
	int r = pp->op ? parse_name(pp->op, redop_names, RO_N) : RO_SUM;
	struct model_pred pr;

	if (c < 0 || a < 0 || g < 0 || d < 0 || r < 0)
		return x->failed = error("model: %s %s %s is not a schedule the builders know",
					 pp->collective, pp->algorithm, pp->assignment);
	x->o.pt = (struct model_point){ (enum coll)c,  (enum alg)a,	(enum asg)g,
					pp->bytes,     x->env->mmax,	x->env->has_reduction,
					pp->chunk,     (int)pp->window, (int)pp->radix,
					(enum dtype)d, (enum redop)r };
	if (model_predict_mode(x->p, &x->o.mc, &x->o.pt, x->env->sim, &pr) ||
	    x->fn(&x->o, &pr, x->data))
		return x->failed = -1;
	return 0;
}

int model_predict_layout(const struct model_params *p, const struct spec *s, const struct layout *l,
			 const struct model_env *env,
			 int (*fn)(const struct model_obs *o, const struct model_pred *pr,
				   void *data),
			 void *data)
{
	struct predict_ctx x = { p, env, { .layout = l->id, .repetition = 0 }, fn, data, 0 };

	x.o.mc = (struct model_machine){ (int)l->nodes,
					 (int)l->ppn,
					 (int)l->workers,
					 (int)l->wpn,
					 l->placement == PLACEMENT_DPU,
					 env->host_cores,
					 env->dpu_cores,
					 env->shm_rma };
	plan_foreach_point(s, predict_point, &x);
	return x.failed ? -1 : 0;
}

struct collect_ctx {
	struct store_point *pts;
	size_t n, cap;
	const struct layout *l;
};

static int collect_point(const struct model_obs *o, const struct model_pred *pr, void *data)
{
	struct collect_ctx *x = data;
	int red = coll_is_reduction(o->pt.coll);
	struct store_point p = { 0 };

	if (x->n == x->cap) {
		x->cap = x->cap ? 2 * x->cap : 64;
		x->pts = xrealloc(x->pts, x->cap * sizeof(*x->pts));
	}
	/* Borrowed strings here; store_point_copy() duplicates them. */
	p.layout = o->layout;
	p.repetition = 1;
	p.wpn = o->mc.wpn;
	p.placement = placement_name(x->l->placement);
	p.mode = "offload";
	p.key.collective = coll_names[o->pt.coll];
	p.key.algorithm = alg_names[o->pt.alg];
	p.key.assignment = asg_names[o->pt.asg];
	p.key.bytes = o->pt.m;
	p.hosts = o->mc.nodes * o->mc.ppn;
	p.workers = o->mc.W;
	p.nodes = o->mc.nodes;
	p.ppn = o->mc.ppn;
	p.transport = "model";
	p.ref_us = pr->ref_us;
	p.comm_us = pr->comm_us;
	p.compute_us = pr->compute_us;
	p.total_us = pr->total_us;
	p.oe_measured = pr->oe_measured;
	p.oe_paper = pr->oe_paper;
	p.valid = 1;
	p.ranks = p.hosts + p.workers;
	p.key.dtype = red ? dtype_names[o->pt.dt] : "";
	p.key.op = red ? redop_names[o->pt.op] : "";
	p.key.chunk = (long long)o->pt.chunk;
	p.key.window = o->pt.window;
	p.key.radix = o->pt.radix;
	store_point_copy(&x->pts[x->n++], &p);
	return 0;
}

int model_predicted_points(const char *path, const struct spec *s, const struct plan *p,
			   struct store *st, struct store_point **pts, size_t *n)
{
	struct model_params mp;
	struct model_env env;
	struct collect_ctx x = { NULL, 0, 0, NULL };
	char *key = spec_run_key(path);
	long long run;
	int have = store_model_load(st, key, s->hash, &mp, &run);

	free(key);
	if (have <= 0)
		return have;
	model_env_of(s, &env);
	for (size_t i = 0; i < p->nlayouts; i++) {
		x.l = &p->layouts[i];
		if (model_predict_layout(&mp, s, &p->layouts[i], &env, collect_point, &x)) {
			store_points_free(x.pts, x.n);
			return -1;
		}
	}
	*pts = x.pts;
	*n = x.n;
	return 1;
}
