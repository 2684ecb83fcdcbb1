/*
 * tuner/decide/recommend.c: decisions of recommend.h, computed from stored points
 * through verdict.c: launch-level samples, medians with their CIs, the
 * decision of decide.h (Gupta's subset on the pooled noise, or the rank
 * rule), the indifference set and its cheapest member, so that one lucky
 * repetition does not decide.
 */
#include "recommend.h"

#include "colls.h"
#include "error.h"
#include "record.h"
#include "spec.h"
#include "verdict.h"
#include "store.h"
#include "strvec.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TIE_EPS 1e-9

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

/* Collectives in the order people expect them, then by name. */
static int coll_rank(const char *c)
{
	static const char *const order[] = { "bcast", "gather", "allgather", NULL };

	for (int i = 0; order[i]; i++)
		if (!strcmp(c, order[i]))
			return i;
	return 100;
}

static int cmp_coll(const char *a, const char *b)
{
	int ra = coll_rank(a), rb = coll_rank(b);

	return ra != rb ? (ra < rb ? -1 : 1) : strcmp(a, b);
}

static int cmp_off(const void *x, const void *y)
{
	const struct offload_choice *a = x, *b = y;
	int c = cmp_coll(a->key.collective, b->key.collective);

	if (c)
		return c;
	/* A reduction's dtype and op are separate questions: their own bands. */
	c = cmp_str(a->key.dtype, b->key.dtype);
	if (c)
		return c;
	c = cmp_str(a->key.op, b->key.op);
	if (c)
		return c;
	if (a->key.bytes != b->key.bytes)
		return a->key.bytes < b->key.bytes ? -1 : 1;
	c = strcmp(a->key.algorithm, b->key.algorithm);
	return c ? c : strcmp(a->key.assignment, b->key.assignment);
}

static int cmp_mpi(const void *x, const void *y)
{
	const struct mpi_choice *a = x, *b = y;
	int c = cmp_coll(a->collective, b->collective);

	if (c)
		return c;
	if (a->ranks != b->ranks)
		return a->ranks < b->ranks ? -1 : 1;
	return a->bytes < b->bytes ? -1 : a->bytes > b->bytes;
}

int mpi_algorithm_id(const char *s)
{
	char *end;
	long v;

	if (!strcmp(s, "default"))
		return 0;
	if (strncmp(s, "tuned:", 6) || !s[6])
		return -1;
	v = strtol(s + 6, &end, 10);
	if (*end || v < 0 || v > 64)
		return -1;
	return (int)v;
}

const char *mpi_algorithm_name(const char *collective, int alg)
{
	/* The reductions until colls.c has their rows: Open MPI 4.1's names,
	 * as ompi_info lists them. */
	static const char *const reduce[] = { "default",	 "linear",	 "chain",
					      "pipeline",	 "binary",	 "binomial",
					      "in-order_binary", "rabenseifner", NULL };
	static const char *const allreduce[] = { "default",	   "basic_linear",
						 "nonoverlapping", "recursive_doubling",
						 "ring",	   "segmented_ring",
						 "rabenseifner",   NULL };
	const struct colls_desc *c = colls_find(collective);
	const char *const *names = c				    ? c->ompi_algorithms :
				   !strcmp(collective, "reduce")    ? reduce :
				   !strcmp(collective, "allreduce") ? allreduce :
								      NULL;

	if (alg < 0)
		return "?";
	for (int i = 0; names && names[i]; i++)
		if (i == alg)
			return names[i];
	return alg ? "?" : "default";
}

static char *describe(const struct verdict_config *c)
{
	return xasprintf("%s %s %s", c->layout, c->key.algorithm, c->key.assignment);
}

/* The set, cheapest first, as "LAYOUT ALG ASSIGNMENT; ..." for people. */
static char *describe_set(const struct offload_verdict *v)
{
	char *s = xstrdup("");

	for (size_t i = 0; i < v->nindifferent; i++) {
		char *d = describe(&v->indifferent[i]);
		char *t = xasprintf("%s%s%s", s, i ? "; " : "", d);

		free(d);
		free(s);
		s = t;
	}
	return s;
}

static void offload_from_verdict(const struct offload_verdict *v, struct offload_choice *c)
{
	const struct verdict_config *x = &v->choice;

	struct point key = x->key;

	key.collective = v->collective;
	key.bytes = v->bytes;
	key.dtype = v->dtype;
	key.op = v->op;
	point_copy(&c->key, &key);
	c->layout = xstrdup(x->layout);
	c->placement = xstrdup(x->placement);
	c->nodes = x->nodes;
	c->ppn = x->ppn;
	c->workers = x->workers;
	c->wpn = x->wpn;
	c->oe = x->median;
	c->reps = (unsigned)x->launches;
	c->runner_up = v->runner_up.layout ? describe(&v->runner_up) : NULL;
	c->runner_up_oe = v->runner_up.layout ? v->runner_up.median : NAN;
	c->total_us = v->total_us;
	c->ref_us = v->ref_us;
	c->compute_us = v->compute_us;
	c->verdict = decide_verdict_name(v->verdict);
	c->leader = describe(&v->leader);
	c->leader_oe = v->leader.median;
	c->p_value = v->p_value;
	c->ci_lo = v->ci_lo;
	c->ci_hi = v->ci_hi;
	c->ci_exact = v->ci_exact;
	c->spread = isfinite(v->ci_hi - v->ci_lo) ? (v->ci_hi - v->ci_lo) / 2 : NAN;
	c->launches = (unsigned)v->launches;
	c->indifferent = describe_set(v);
	c->nindifferent = (unsigned)v->nindifferent;
	c->pays = verdict_pays_name(v->pays);
	c->outliers = (unsigned)v->outliers;
	c->unstable = v->unstable;
	c->model = v->model;
	c->gain = v->gain;
	c->gain_lo = v->gain_lo;
	c->gain_hi = v->gain_hi;
	c->placement_cmp = v->placement;
	c->excluded = (unsigned)v->excluded;
	c->twins = (unsigned)v->twins;
	c->twins_separated = (unsigned)v->twins_separated;
	c->twin_of_choice = v->twin_of_choice ? xstrdup(v->twin_of_choice) : NULL;
	c->excluded_first = v->excluded ? describe(&v->excluded_first) : NULL;
	if (v->placement.have) {
		c->placement_cmp.dpu.layout = c->placement_cmp.onload.layout = NULL;
		c->dpu_best = describe(&v->placement.dpu);
		c->onload_best = describe(&v->placement.onload);
	}
}

static void mpi_from_verdict(const struct mpi_verdict *v, const struct verdicts *all,
			     struct mpi_choice *c)
{
	c->collective = xstrdup(v->collective);
	c->ranks = v->ranks;
	c->bytes = v->bytes;
	c->alg = v->alg;
	c->avg_us = v->median_us;
	c->default_us = NAN;
	c->algorithms = (unsigned)v->algorithms;
	c->verdict = decide_verdict_name(v->verdict);
	c->p_value = v->p_value;
	c->ci_lo = v->ci_lo;
	c->ci_hi = v->ci_hi;
	c->runner_up = v->runner_up;
	c->runner_up_us = v->runner_up_us;
	c->launches = (unsigned)v->launches;
	c->nindifferent = (unsigned)v->nindifferent;
	(void)all;
}

/* Open MPI's own decision's median, for the comparison people ask for. */
static double default_median(const struct store_point *pts, size_t n, const struct mpi_choice *c)
{
	double *t = xcalloc(n + 1, sizeof(*t)), m = NAN;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		const struct store_point *p = &pts[i];
		unsigned ranks = p->ranks > 0 ? (unsigned)p->ranks :
						(unsigned)(p->hosts > 0 ? p->hosts : 0);

		if (p->valid && p->mode && !strcmp(p->mode, "mpi") &&
		    !strcmp(p->key.algorithm, "default") && p->key.bytes == c->bytes &&
		    ranks == c->ranks && !strcmp(p->key.collective, c->collective))
			t[k++] = p->total_us_median > 0 ? p->total_us_median : p->total_us;
	}
	if (k)
		stats_median(t, k, &m);
	free(t);
	return m;
}

int decisions_from_points(const struct store_point *pts, size_t n, struct decisions *d)
{
	struct verdicts v;

	if (verdicts_from_points(pts, n, &d->params, &v))
		return error("cannot decide: a measurement is not a number");
	d->off = xcalloc(v.noff + 1, sizeof(*d->off));
	d->mpi = xcalloc(v.nmpi + 1, sizeof(*d->mpi));
	for (size_t i = 0; i < v.noff; i++)
		offload_from_verdict(&v.off[i], &d->off[d->noff++]);
	for (size_t i = 0; i < v.nmpi; i++) {
		mpi_from_verdict(&v.mpi[i], &v, &d->mpi[d->nmpi]);
		d->mpi[d->nmpi].default_us = default_median(pts, n, &d->mpi[d->nmpi]);
		d->nmpi++;
	}
	qsort(d->off, d->noff, sizeof(*d->off), cmp_off);
	qsort(d->mpi, d->nmpi, sizeof(*d->mpi), cmp_mpi);
	verdicts_release(&v);
	return 0;
}

char *spec_run_key(const char *spec_path)
{
	char *k = realpath(spec_path, NULL);

	return k ? k : xstrdup(spec_path);
}

static int is_baseline(const struct store_run *r)
{
	size_t n = r->spec_path ? strlen(r->spec_path) : 0;

	return n >= 9 && !strcmp(r->spec_path + n - 9, ":baseline");
}

/* The latest run of spec_path (any spec when NULL) that is, or is not, an
 * Open MPI baseline (`sweetspot baseline` records SPEC:baseline). 1 and *r,
 * 0 none, -1 error. */
int recommend_find_run(struct store *st, const char *spec_path, int baseline, struct store_run *r)
{
	struct store_run last = { 0 };
	long long id;
	int got;

	if (spec_path) {
		char *abs = spec_run_key(spec_path);
		char *key = baseline ? xasprintf("%s:baseline", abs) : xstrdup(abs);

		got = store_latest_run(st, key, r);
		free(key);
		free(abs);
		return got;
	}
	got = store_latest_run(st, NULL, &last);
	if (got <= 0)
		return got;
	for (id = last.id; id > 0; id--) {
		got = id == last.id ? 1 : store_get_run(st, id, r);
		if (id == last.id) {
			*r = last;
			memset(&last, 0, sizeof(last));
		}
		if (got < 0)
			break;
		if (got && is_baseline(r) == baseline)
			return 1;
		if (got)
			store_run_release(r);
		memset(r, 0, sizeof(*r));
	}
	store_run_release(&last);
	return got < 0 ? -1 : 0;
}

int decisions_from_db(const char *db, long long run_id, const char *spec_path, struct decisions *d)
{
	struct store *st = NULL;
	struct store_run run = { 0 }, base = { 0 };
	struct store_point *pts = NULL, *bpts = NULL, *all = NULL;
	size_t n = 0, bn = 0;
	int r = 0, rb = 0, ret = -1;

	{
		struct verdict_params vp = d->params;

		memset(d, 0, sizeof(*d));
		d->params = vp;
	}
	if (store_open(db, STORE_RDONLY, &st))
		return -1;
	if (run_id > 0) {
		r = store_get_run(st, run_id, &run);
		if (!r)
			error("%s: no run %lld", db, run_id);
	} else {
		/* The sweep's run, and the Open MPI baseline's run beside it. */
		r = recommend_find_run(st, spec_path, 0, &run);
		if (!r && spec_path)
			r = recommend_find_run(st, NULL, 0, &run);
		rb = recommend_find_run(st, spec_path, 1, &base);
		if (!rb && spec_path)
			rb = recommend_find_run(st, NULL, 1, &base);
		if (!r && rb > 0) {
			run = base;
			memset(&base, 0, sizeof(base));
			r = 1;
			rb = 0;
		}
		if (!r)
			error("%s: the database holds no run yet (measure with 'sweetspot run')",
			      db);
	}
	if (r <= 0 || rb < 0)
		goto out;
	if (store_load_points(st, run.id, STORE_VALID_ONLY, &pts, &n))
		goto out;
	if (rb > 0 && store_load_points(st, base.id, STORE_VALID_ONLY, &bpts, &bn))
		goto out;
	if (!n && !bn) {
		error("%s: run %lld holds no valid measurement", db, run.id);
		goto out;
	}
	d->source = xstrdup(db);
	d->run = run.id;
	d->mpi_run = rb > 0 ? base.id : run.id;
	d->spec_path = run.spec_path ? xstrdup(run.spec_path) : NULL;
	d->spec_hash = run.spec_hash ? xstrdup(run.spec_hash) : NULL;
	/* One array for both: the structs are copied, the strings stay theirs. */
	all = xcalloc(n + bn + 1, sizeof(*all));
	if (n)
		memcpy(all, pts, n * sizeof(*all));
	if (bn)
		memcpy(all + n, bpts, bn * sizeof(*all));
	ret = decisions_from_points(all, n + bn, d);
out:
	free(all);
	if (pts)
		store_points_free(pts, n);
	if (bpts)
		store_points_free(bpts, bn);
	store_run_release(&run);
	store_run_release(&base);
	store_close(st);
	return ret;
}

int decisions_from_records(const char *path, struct decisions *d)
{
	FILE *f = fopen(path, "r");
	struct store_point *pts = NULL;
	size_t n = 0, alloc = 0, cap = 0;
	char *line = NULL;
	ssize_t len;
	unsigned lineno = 0;
	int ret = -1;

	{
		struct verdict_params vp = d->params;

		memset(d, 0, sizeof(*d));
		d->params = vp;
	}
	if (!f)
		return error("cannot open %s: %s", path, strerror(errno));
	while ((len = getline(&line, &cap, f)) >= 0) {
		char err[256];

		lineno++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		/* Kernels print a table for people too; only JSON objects count. */
		if (!len || line[0] != '{')
			continue;
		if (n == alloc) {
			alloc = alloc ? 2 * alloc : 64;
			pts = xrealloc(pts, alloc * sizeof(*pts));
		}
		if (record_parse(line, &pts[n], err, sizeof(err))) {
			error("%s:%u: not a kernel record: %s", path, lineno, err);
			goto out;
		}
		n++;
	}
	if (!n) {
		error("%s: no kernel record in it", path);
		goto out;
	}
	d->source = xstrdup(path);
	ret = decisions_from_points(pts, n, d);
out:
	free(line);
	fclose(f);
	store_points_free(pts, n);
	return ret;
}

void decisions_release(struct decisions *d)
{
	size_t i;

	for (i = 0; i < d->noff; i++) {
		struct offload_choice *c = &d->off[i];

		point_release(&c->key);
		free(c->layout);
		free(c->placement);
		free(c->runner_up);
		free(c->leader);
		free(c->indifferent);
		free(c->excluded_first);
		free(c->twin_of_choice);
		free(c->dpu_best);
		free(c->onload_best);
	}
	for (i = 0; i < d->nmpi; i++)
		free(d->mpi[i].collective);
	free(d->off);
	free(d->mpi);
	free(d->source);
	free(d->spec_path);
	free(d->spec_hash);
	memset(d, 0, sizeof(*d));
}

static int same_config(const struct offload_choice *a, const struct offload_choice *b)
{
	return !point_cmp_config(&a->key, &b->key) && !cmp_str(a->layout, b->layout);
}

/* Whether two choices answer the same question: collective, dtype, op. */
static int same_question(const struct offload_choice *a, const struct offload_choice *b)
{
	struct point x = a->key, y = b->key;

	x.bytes = y.bytes = 0;
	return !point_cmp_question(&x, &y);
}

size_t decisions_bands(const struct decisions *d, const char *collective, struct band **out)
{
	struct band *b = xcalloc(d->noff + 1, sizeof(*b));
	size_t nb = 0;

	/* One choice per (collective, dtype, op, size), sorted so: a band is
	 * a run of consecutive sizes of one question with the same choice. */
	for (size_t i = 0; i < d->noff; i++) {
		const struct offload_choice *c = &d->off[i];

		if (collective && strcmp(c->key.collective, collective))
			continue;
		if (nb && same_question(b[nb - 1].best, c) && same_config(b[nb - 1].best, c)) {
			b[nb - 1].hi = c->key.bytes;
			b[nb - 1].best = c;
			b[nb - 1].nsizes++;
		} else {
			b[nb++] = (struct band){ c->key.collective, c->key.bytes, c->key.bytes, c,
						 1 };
		}
	}
	*out = b;
	return nb;
}

int decisions_has_offload(const struct decisions *d, const char *collective)
{
	for (size_t i = 0; i < d->noff; i++)
		if (!collective || !strcmp(d->off[i].key.collective, collective))
			return 1;
	return 0;
}

int decisions_has_mpi(const struct decisions *d, const char *collective)
{
	for (size_t i = 0; i < d->nmpi; i++)
		if (!collective || !strcmp(d->mpi[i].collective, collective))
			return 1;
	return 0;
}

struct verdict_params recommend_spec_params(const struct spec *s)
{
	struct verdict_params vp = VERDICT_PARAMS_INIT;

	vp.alpha = s->alpha;
	vp.delta_oe = s->delta_oe;
	vp.delta_rel = s->delta_rel;
	vp.delta_time = s->delta_time;
	vp.dpu_first = s->dpu_first;
	vp.cores = s->onload_cores ? s->ppn + s->onload_cores : 0;
	return vp;
}
