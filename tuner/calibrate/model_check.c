/*
 * tuner/calibrate/model_check.c: `sweetspot model SPEC --check`. Every point of the
 * latest run of SPEC (its repetitions reduced to their median, as the
 * launch-level samples are) is predicted; per collective the median and
 * max relative error of the offloaded times (total_us: the hosts' compute
 * with the workers' communication, the one OE is made of; and comm_us),
 * the error of oe_measured in points, and whether the predicted sweet spot
 * (best layout per collective and size, ties to fewer workers) is the
 * measured one.
 */
#include "coll.h"
#include "error.h"
#include "model_run.h"
#include "sort.h"
#include "xalloc.h"
#include "recommend.h"
#include "reduce.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct cpoint {
	struct model_obs o; /* medians over repetitions */
	struct model_pred pr;
};

static double median(double *v, size_t n)
{
	sort_doubles(v, n);
	return n ? (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) : NAN;
}

static size_t collect(const struct store_point *pts, size_t n, const struct model_env *env,
		      struct cpoint **out)
{
	struct model_obs *obs = xcalloc(n ? n : 1, sizeof(*obs));
	struct cpoint *cp = xcalloc(n ? n : 1, sizeof(*cp));
	size_t no = 0;

	for (size_t i = 0; i < n; i++)
		if (!model_obs_from_point(&pts[i], env, &obs[no]))
			no++;
	no = model_obs_medians(obs, no);
	for (size_t i = 0; i < no; i++)
		cp[i].o = obs[i];
	free(obs);
	*out = cp;
	return no;
}

/* Per collective (c = COLL_N: all): median and max of the errors. */
static json_t *errors_of(const struct cpoint *cp, size_t n, int c)
{
	double *e = xmalloc(3 * (n ? n : 1) * sizeof(*e));
	size_t k = 0;
	json_t *j = json_object();

	for (size_t i = 0; i < n; i++)
		if (c == COLL_N || (int)cp[i].o.pt.coll == c) {
			e[k] = fabs(cp[i].pr.total_us - cp[i].o.total_us) / cp[i].o.total_us;
			e[n + k] = fabs(cp[i].pr.comm_us - cp[i].o.comm_us) / cp[i].o.comm_us;
			e[2 * n + k] = fabs(cp[i].pr.oe_measured - cp[i].o.oe_measured);
			k++;
		}
	json_object_set_new(j, "collective", json_string(c == COLL_N ? "all" : coll_names[c]));
	json_object_set_new(j, "points", json_integer((json_int_t)k));
	if (k) {
		json_object_set_new(j, "total_rel_err_median", json_real(median(e, k)));
		json_object_set_new(j, "total_rel_err_max", json_real(e[k - 1]));
		json_object_set_new(j, "comm_rel_err_median", json_real(median(e + n, k)));
		json_object_set_new(j, "comm_rel_err_max", json_real(e[n + k - 1]));
		json_object_set_new(j, "oe_err_points_median", json_real(median(e + 2 * n, k)));
		json_object_set_new(j, "oe_err_points_max", json_real(e[2 * n + k - 1]));
	}
	free(e);
	return j;
}

/* Best layout of (coll, bytes) by measured (pred 0) or predicted OE. */
static const struct cpoint *best_of(const struct cpoint *cp, size_t n, int coll, size_t bytes,
				    int pred)
{
	const struct cpoint *b = NULL;

	for (size_t i = 0; i < n; i++) {
		double oe = pred ? cp[i].pr.oe_measured : cp[i].o.oe_measured;

		if ((int)cp[i].o.pt.coll != coll || cp[i].o.pt.m != bytes)
			continue;
		double bo = !b ? -1 : pred ? b->pr.oe_measured : b->o.oe_measured;

		if (!b || oe > bo || (oe == bo && cp[i].o.mc.W < b->o.mc.W))
			b = &cp[i];
	}
	return b;
}

static json_t *sweet_spots(const struct cpoint *cp, size_t n, int *match, int *groups)
{
	json_t *arr = json_array();

	*match = *groups = 0;
	for (size_t i = 0; i < n; i++) {
		const struct cpoint *m, *p;
		int seen = 0;

		for (size_t j = 0; j < i && !seen; j++)
			seen = cp[j].o.pt.coll == cp[i].o.pt.coll && cp[j].o.pt.m == cp[i].o.pt.m;
		if (seen)
			continue;
		m = best_of(cp, n, cp[i].o.pt.coll, cp[i].o.pt.m, 0);
		p = best_of(cp, n, cp[i].o.pt.coll, cp[i].o.pt.m, 1);
		json_t *j = json_object();

		json_object_set_new(j, "collective", json_string(coll_names[cp[i].o.pt.coll]));
		json_object_set_new(j, "bytes", json_integer((json_int_t)cp[i].o.pt.m));
		json_object_set_new(j, "measured_layout", json_string(m->o.layout));
		json_object_set_new(j, "predicted_layout", json_string(p->o.layout));
		json_object_set_new(j, "measured_workers", json_integer(m->o.mc.W));
		json_object_set_new(j, "predicted_workers", json_integer(p->o.mc.W));
		json_object_set_new(j, "match", json_boolean(!strcmp(m->o.layout, p->o.layout)));
		json_array_append_new(arr, j);
		*match += !strcmp(m->o.layout, p->o.layout);
		(*groups)++;
	}
	return arr;
}

/* Every point side by side: what --check compares, for a reader or a plot. */
static json_t *compared(const struct cpoint *cp, size_t n)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < n; i++) {
		const struct model_obs *o = &cp[i].o;
		const struct model_pred *p = &cp[i].pr;
		json_t *j = json_object();

		json_object_set_new(j, "layout", json_string(o->layout));
		json_object_set_new(j, "collective", json_string(coll_names[o->pt.coll]));
		json_object_set_new(j, "algorithm", json_string(alg_names[o->pt.alg]));
		json_object_set_new(j, "assignment", json_string(asg_names[o->pt.asg]));
		json_object_set_new(j, "bytes", json_integer((json_int_t)o->pt.m));
		if (coll_is_reduction(o->pt.coll)) {
			json_object_set_new(j, "dtype", json_string(dtype_names[o->pt.dt]));
			json_object_set_new(j, "op", json_string(redop_names[o->pt.op]));
		}
		if (o->pt.chunk) {
			json_object_set_new(j, "chunk", json_integer((json_int_t)o->pt.chunk));
			json_object_set_new(j, "window", json_integer(o->pt.window));
		}
		if (o->pt.radix)
			json_object_set_new(j, "radix", json_integer(o->pt.radix));
		json_object_set_new(j, "measured_ref_us", json_real(o->ref_us));
		json_object_set_new(j, "predicted_ref_us", json_real(p->ref_us));
		json_object_set_new(j, "measured_comm_us", json_real(o->comm_us));
		json_object_set_new(j, "predicted_comm_us", json_real(p->comm_us));
		json_object_set_new(j, "measured_total_us", json_real(o->total_us));
		json_object_set_new(j, "predicted_total_us", json_real(p->total_us));
		json_object_set_new(j, "measured_oe", json_real(o->oe_measured));
		json_object_set_new(j, "predicted_oe", json_real(p->oe_measured));
		json_array_append_new(arr, j);
	}
	return arr;
}

static void print_text(json_t *res)
{
	size_t i;
	json_t *v;

	printf("# model --check against run %lld: %lld points\n",
	       (long long)json_integer_value(json_object_get(res, "run")),
	       (long long)json_integer_value(json_object_get(res, "points")));
	printf("%-10s %6s %12s %12s %12s %12s %10s %10s\n", "collective", "points", "total_med%",
	       "total_max%", "comm_med%", "comm_max%", "oe_med_pt", "oe_max_pt");
	json_array_foreach(json_object_get(res, "collectives"), i, v)
		printf("%-10s %6lld %12.2f %12.2f %12.2f %12.2f %10.2f %10.2f\n",
		       json_string_value(json_object_get(v, "collective")),
		       (long long)json_integer_value(json_object_get(v, "points")),
		       100 * json_real_value(json_object_get(v, "total_rel_err_median")),
		       100 * json_real_value(json_object_get(v, "total_rel_err_max")),
		       100 * json_real_value(json_object_get(v, "comm_rel_err_median")),
		       100 * json_real_value(json_object_get(v, "comm_rel_err_max")),
		       json_real_value(json_object_get(v, "oe_err_points_median")),
		       json_real_value(json_object_get(v, "oe_err_points_max")));
	printf("# sweet spot: predicted = measured in %lld of %lld (collective, size)\n",
	       (long long)json_integer_value(json_object_get(res, "sweet_spot_matches")),
	       (long long)json_integer_value(json_object_get(res, "sweet_spot_groups")));
	json_array_foreach(json_object_get(res, "sweet_spots"), i, v)
		printf("#   %-10s %9lld B: measured %-28s predicted %-28s%s\n",
		       json_string_value(json_object_get(v, "collective")),
		       (long long)json_integer_value(json_object_get(v, "bytes")),
		       json_string_value(json_object_get(v, "measured_layout")),
		       json_string_value(json_object_get(v, "predicted_layout")),
		       json_is_true(json_object_get(v, "match")) ? "" : "  MISMATCH");
}

/* The run --check compares with: run `against` of key, or key's latest.
 * 1 when found, 0 after error() when not, -1 on a store error. */
static int check_run(struct store *st, const char *key, const char *path, const char *label,
		     long long against, struct store_run *run)
{
	int rc = against ? store_get_run(st, against, run) : store_latest_run(st, key, run);

	if (rc < 0)
		return -1;
	if (!rc && against)
		return error("model --check: the database holds no run %lld", against), 0;
	if (!rc)
		return error("model --check: the database holds no %s run of %s",
			     label ? label : "measured", path),
		       0;
	if (strcmp(run->spec_path, key)) {
		error("model --check: run %lld is a run of %s, not a %s run of %s", run->id,
		      run->spec_path, label ? label : "measured", path);
		store_run_release(run);
		return 0;
	}
	return 1;
}

int model_check(const char *path, struct store *st, const struct spec *s,
		const struct model_params *mp, int json, const char *label, long long against)
{
	struct store_run run;
	struct store_point *pts = NULL;
	struct cpoint *cp = NULL;
	struct model_env env;
	struct model_params sym;
	size_t n = 0, nc;
	char *abs = spec_run_key(path);
	char *key = label ? xasprintf("%s:%s", abs, label) : xstrdup(abs);
	int rc = check_run(st, key, path, label, against, &run), match, groups;
	json_t *res, *cols;

	free(abs);
	free(key);

	if (rc <= 0)
		return 1;
	model_env_of(s, &env);
	/* SMPI gives every rank a simulated host of its own: no core is shared,
	 * no window is shared either (same-node transfers are RMA), and its
	 * links are the platform's (model_params_platform). */
	if (label && !strcmp(label, "smpi")) {
		env.host_cores = env.dpu_cores = 1 << 20;
		env.shm_rma = 1;
		model_params_platform(mp, &sym);
		mp = &sym;
	}
	if (store_load_points(st, run.id, STORE_VALID_ONLY, &pts, &n)) {
		store_run_release(&run);
		return 1;
	}
	nc = collect(pts, n, &env, &cp);
	for (size_t i = 0; i < nc; i++)
		if (model_predict(mp, &cp[i].o.mc, &cp[i].o.pt, &cp[i].pr)) {
			rc = -1;
			break;
		}
	if (rc >= 0 && !nc)
		rc = error("model --check: run %lld holds no offload point", run.id);
	if (rc >= 0) {
		res = json_object();
		cols = json_array();
		json_object_set_new(res, "run", json_integer(run.id));
		json_object_set_new(res, "against", json_string(label ? label : "measured"));
		json_object_set_new(res, "points", json_integer((json_int_t)nc));
		for (int c = 0; c <= COLL_N; c++) {
			json_t *e = errors_of(cp, nc, c);

			if (json_integer_value(json_object_get(e, "points")))
				json_array_append_new(cols, e);
			else
				json_decref(e);
		}
		json_object_set_new(res, "collectives", cols);
		json_object_set_new(res, "sweet_spots", sweet_spots(cp, nc, &match, &groups));
		json_object_set_new(res, "sweet_spot_matches", json_integer(match));
		json_object_set_new(res, "sweet_spot_groups", json_integer(groups));
		json_object_set_new(res, "compared", compared(cp, nc));
		if (json)
			json_dumpf(res, stdout, JSON_INDENT(1)), putchar('\n');
		else
			print_text(res);
		json_decref(res);
	}
	free(cp);
	store_points_free(pts, n);
	store_run_release(&run);
	return rc < 0 ? 1 : 0;
}
