/*
 * tuner/calibrate/model_fit.c: calibration. The parameters that the calibration
 * launches determine are fitted by a multiplicative coordinate search
 * (each parameter times or over a factor that shrinks when no move helps)
 * on the sum of squared log ratios of predicted to measured times: log
 * ratios weigh a 4K point and a 4M one alike, and keep every parameter
 * positive. Every prediction is a full simulation of the schedules, so
 * the fit sees contention, dependencies and flags as the predictions do.
 */
#include "model.h"
#include "coll.h"
#include "reduce.h"
#include "error.h"
#include "parse.h"
#include "sort.h"
#include "store.h"
#include "xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int model_obs_from_point(const struct store_point *p, const struct model_env *env,
			 struct model_obs *o)
{
	int c = parse_name(p->key.collective, coll_names, COLL_N);
	int a = parse_name(p->key.algorithm, alg_names, ALG_N);
	int s = parse_name(p->key.assignment, asg_names, ASG_N);

	memset(o, 0, sizeof(*o));
	if (c < 0 || a < 0 || s < 0 || !alg_applies(c, a) || p->ppn < 1 || p->hosts < p->ppn ||
	    p->workers < 1 || p->wpn < 1 || !(p->ref_us > 0) || !(p->comm_us > 0) ||
	    !(p->total_us > 0))
		return -1;
	o->mc = (struct model_machine){ p->hosts / p->ppn,
					p->ppn,
					p->workers,
					p->wpn,
					!strcmp(p->placement, "dpu"),
					env->host_cores,
					env->dpu_cores,
					env->shm_rma };
	o->pt = (struct model_point){ c,
				      a,
				      s,
				      p->key.bytes,
				      env->mmax,
				      env->has_reduction,
				      p->key.chunk > 0 ? (size_t)p->key.chunk : 0,
				      p->key.window > 0 ? p->key.window : 0,
				      p->key.radix > 0 ? p->key.radix : 0,
				      DT_INT32,
				      RO_SUM };
	if (point_has(p->key.dtype)) {
		int d = parse_name(p->key.dtype, dtype_names, DT_N);

		if (d < 0)
			return -1;
		o->pt.dt = (enum dtype)d;
	}
	if (point_has(p->key.op)) {
		int r = parse_name(p->key.op, redop_names, RO_N);

		if (r < 0)
			return -1;
		o->pt.op = (enum redop)r;
	}
	o->ref_us = p->ref_us;
	o->comm_us = p->comm_us;
	o->total_us = p->total_us;
	o->oe_paper = p->oe_paper;
	o->oe_measured = p->oe_measured;
	o->layout = p->layout;
	o->repetition = p->repetition;
	return 0;
}

int model_point_same(const struct model_point *a, const struct model_point *b)
{
	return a->coll == b->coll && a->alg == b->alg && a->asg == b->asg && a->m == b->m &&
	       a->mmax == b->mmax && a->has_reduction == b->has_reduction && a->chunk == b->chunk &&
	       a->window == b->window && a->radix == b->radix && a->dt == b->dt && a->op == b->op;
}

static double sq_log(double pred, double meas)
{
	double d = log(pred / meas);

	return d * d;
}

/* Sum of squared log ratios over every observation's three times; *n
 * counts the terms. HUGE_VAL when a prediction fails. */
static double cost(struct model_params *p, const struct model_obs *obs, size_t n, size_t *terms)
{
	double sum = 0;

	/* One link for every path kind: the fit moves the shm one. */
	for (int kd = 0; kd < PATH_N; kd++)
		p->path[kd] = p->path[PATH_SHM];

	for (size_t i = 0; i < n; i++) {
		struct model_pred pr;

		if (model_predict(p, &obs[i].mc, &obs[i].pt, &pr))
			return HUGE_VAL;
		sum += sq_log(pr.ref_us, obs[i].ref_us) + sq_log(pr.comm_us, obs[i].comm_us) +
		       sq_log(pr.total_us, obs[i].total_us);
	}
	if (terms)
		*terms = 3 * n;
	return sum;
}

static double r2_of(const struct model_obs *obs, size_t n, double ss_res)
{
	double mean = 0, ss = 0;

	for (size_t i = 0; i < n; i++)
		mean += log(obs[i].ref_us) + log(obs[i].comm_us) + log(obs[i].total_us);
	mean /= 3.0 * (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (log(obs[i].ref_us) - mean) * (log(obs[i].ref_us) - mean) +
		      (log(obs[i].comm_us) - mean) * (log(obs[i].comm_us) - mean) +
		      (log(obs[i].total_us) - mean) * (log(obs[i].total_us) - mean);
	return ss > 0 ? 1 - ss_res / ss : 0;
}

int model_fit(const struct model_obs *obs, size_t n, struct model_params *p)
{
	struct model_link *shm = &p->path[PATH_SHM];
	double *v[] = { &shm->L,      &shm->g_read, &shm->g_write, &shm->g_share, &p->o,
			&p->g_reduce, &p->g_copy,   &p->poll,	   &p->t0 };
	/* No cost per byte below MODEL_G_MIN (1 TB/s): small sizes cannot
	 * tell such a cost from zero, and a fit left free drove one to 1e-16. */
	static const int per_byte[] = { 0, 1, 1, 1, 0, 1, 1, 0, 0 };
	const int nv = (int)(sizeof(v) / sizeof(*v));
	double best, k = 4;
	unsigned used = 1u << PATH_SHM;
	size_t terms = 0;

	if (!n)
		return error("model: no measured point to calibrate from");
	for (int j = 0; j < nv; j++)
		if (per_byte[j] && *v[j] < MODEL_G_MIN)
			*v[j] = MODEL_G_MIN;
	best = cost(p, obs, n, &terms);
	if (!isfinite(best))
		return error(
			"model: the starting parameters cannot predict the calibration points");
	for (int sweep = 0; sweep < 200 && k > 1.01; sweep++) {
		int moved = 0;

		for (int j = 0; j < nv; j++)
			for (int dir = 0; dir < 2; dir++) {
				double old = *v[j], c;

				*v[j] = dir ? old / k : old * k;
				if (per_byte[j] && *v[j] < MODEL_G_MIN) {
					*v[j] = old;
					continue;
				}
				c = cost(p, obs, n, NULL);
				if (c < best - 1e-12) {
					best = c;
					moved = 1;
				} else {
					*v[j] = old;
				}
			}
		if (!moved)
			k = sqrt(k);
	}
	for (size_t i = 0; i < n; i++)
		used |= (obs[i].mc.nodes > 1) << PATH_NET | obs[i].mc.dpu << PATH_PCIE;
	/* A path the launches did not use is assumed as fast as the ones
	 * they did, and left out of calibrated so that outputs say so. */
	for (int kd = 0; kd < PATH_N; kd++)
		p->path[kd] = *shm;
	p->calibrated = used;
	p->resid = sqrt(best / (double)terms);
	p->r2 = r2_of(obs, n, best);
	p->npoints = (int)n;
	return 0;
}

static double median_of(double *v, size_t n)
{
	sort_doubles(v, n);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

size_t model_obs_medians(struct model_obs *obs, size_t n)
{
	double *v = xmalloc(5 * (n ? n : 1) * sizeof(*v));
	char *taken = xcalloc(n ? n : 1, 1);
	size_t out = 0;

	for (size_t i = 0; i < n; i++) {
		struct model_obs o = obs[i];
		size_t k = 0;

		if (taken[i])
			continue;
		for (size_t j = i; j < n; j++)
			if (!taken[j] && !strcmp(o.layout, obs[j].layout) &&
			    model_point_same(&o.pt, &obs[j].pt)) {
				taken[j] = 1;
				v[k] = obs[j].ref_us;
				v[n + k] = obs[j].comm_us;
				v[2 * n + k] = obs[j].total_us;
				v[3 * n + k] = obs[j].oe_measured;
				v[4 * n + k] = obs[j].oe_paper;
				k++;
			}
		o.ref_us = median_of(v, k);
		o.comm_us = median_of(v + n, k);
		o.total_us = median_of(v + 2 * n, k);
		o.oe_measured = median_of(v + 3 * n, k);
		o.oe_paper = median_of(v + 4 * n, k);
		obs[out++] = o;
	}
	free(taken);
	free(v);
	return out;
}

double model_noise(const struct model_obs *obs, size_t n)
{
	double ss = 0;
	size_t df = 0;

	/* Groups: the same layout and point in different launches. */
	for (size_t i = 0; i < n; i++) {
		double sum = 0, m;
		size_t k = 0, first = 1;

		for (size_t j = 0; j < n; j++)
			if (!strcmp(obs[i].layout, obs[j].layout) &&
			    model_point_same(&obs[i].pt, &obs[j].pt)) {
				first &= j >= i;
				sum += log(obs[j].total_us);
				k++;
			}
		if (!first || k < 2)
			continue;
		m = sum / (double)k;
		for (size_t j = 0; j < n; j++)
			if (!strcmp(obs[i].layout, obs[j].layout) &&
			    model_point_same(&obs[i].pt, &obs[j].pt))
				ss += (log(obs[j].total_us) - m) * (log(obs[j].total_us) - m);
		df += k - 1;
	}
	return df ? sqrt(ss / (double)df) : NAN;
}
