/*
 * tuner/recommend.c: decisions of recommend.h, computed from stored points.
 * Repetitions are averaged first (per layout and group, or per algorithm),
 * then compared, so that one lucky repetition does not decide.
 */
#include "recommend.h"

#include "error.h"
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

/* Accumulated repetitions of one offloaded (layout, group). */
struct acc {
	const struct store_point *p;	/* the first point seen */
	unsigned n;
	double oe, min, max, total, ref, compute;
};

/* Accumulated repetitions of one Open MPI (collective, ranks, size, alg). */
struct macc {
	const char *collective;
	unsigned ranks;
	uint64_t bytes;
	int alg;
	unsigned n;
	double us;
};

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
	int c = cmp_coll(a->collective, b->collective);

	if (c)
		return c;
	if (a->bytes != b->bytes)
		return a->bytes < b->bytes ? -1 : 1;
	c = strcmp(a->algorithm, b->algorithm);
	return c ? c : strcmp(a->assignment, b->assignment);
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
	static const char *const bcast[] = { "default", "basic_linear", "chain", "pipeline",
		"split_binary_tree", "binary_tree", "binomial", "knomial", "scatter_allgather",
		"scatter_allgather_ring" };
	static const char *const gather[] = { "default", "basic_linear", "binomial", "linear_sync" };
	static const char *const allgather[] = { "default", "linear", "bruck",
		"recursive_doubling", "ring", "neighbor", "two_proc" };

	if (alg < 0)
		return "?";
	if (!strcmp(collective, "bcast") && alg < 10)
		return bcast[alg];
	if (!strcmp(collective, "gather") && alg < 4)
		return gather[alg];
	if (!strcmp(collective, "allgather") && alg < 7)
		return allgather[alg];
	return alg ? "?" : "default";
}

/* Whether a is better than b: higher mean, exact ties to fewer workers,
 * then fewer WPN, then the layout id. */
static int acc_better(const struct acc *a, const struct acc *b)
{
	double ma = a->oe / a->n, mb = b->oe / b->n;

	if (ma > mb + TIE_EPS)
		return 1;
	if (mb > ma + TIE_EPS)
		return 0;
	if (a->p->workers != b->p->workers)
		return a->p->workers < b->p->workers;
	if (a->p->wpn != b->p->wpn)
		return a->p->wpn < b->p->wpn;
	return strcmp(a->p->layout, b->p->layout) < 0;
}

static int same_group(const struct store_point *a, const struct store_point *b)
{
	return a->bytes == b->bytes && !strcmp(a->collective, b->collective) &&
	       !strcmp(a->algorithm, b->algorithm) && !strcmp(a->assignment, b->assignment);
}

static int is_mpi(const struct store_point *p)
{
	return p->mode && !strcmp(p->mode, "mpi");
}

/* Fields of the kernel's mpi records that the store keeps only in raw. */
static void mpi_fields(const struct store_point *p, unsigned *ranks, double *us)
{
	json_t *o = p->raw ? json_loads(p->raw, 0, NULL) : NULL;
	json_t *v;

	*ranks = p->hosts > 0 ? (unsigned)(p->hosts + (p->workers > 0 ? p->workers : 0)) : 0;
	*us = p->total_us;
	if (o) {
		v = json_object_get(o, "ranks");
		if (json_is_integer(v) && json_integer_value(v) > 0)
			*ranks = (unsigned)json_integer_value(v);
		v = json_object_get(o, "avg_us");
		if (json_is_number(v))
			*us = json_number_value(v);
		json_decref(o);
	}
}

static void build_offload(const struct store_point *pts, size_t n, struct decisions *d)
{
	struct acc *acc = xcalloc(n + 1, sizeof(*acc));
	size_t na = 0, i, j;

	for (i = 0; i < n; i++) {
		const struct store_point *p = &pts[i];

		if (is_mpi(p) || !p->valid || !isfinite(p->oe_measured) || !p->layout || !*p->layout)
			continue;
		for (j = 0; j < na; j++)
			if (same_group(acc[j].p, p) && !strcmp(acc[j].p->layout, p->layout))
				break;
		if (j == na) {
			acc[na].p = p;
			acc[na].min = acc[na].max = p->oe_measured;
			na++;
		}
		acc[j].n++;
		acc[j].oe += p->oe_measured;
		acc[j].min = fmin(acc[j].min, p->oe_measured);
		acc[j].max = fmax(acc[j].max, p->oe_measured);
		acc[j].total += p->total_us;
		acc[j].ref += p->ref_us;
		acc[j].compute += p->compute_us;
	}
	d->off = xcalloc(na + 1, sizeof(*d->off));
	d->noff = 0;
	for (i = 0; i < na; i++) {
		struct acc *best = NULL, *second = NULL;
		struct offload_choice *c;
		int seen = 0;

		/* Each group once: skip it if an earlier accumulator had it. */
		for (j = 0; j < i; j++)
			if (same_group(acc[j].p, acc[i].p))
				seen = 1;
		if (seen)
			continue;
		for (j = i; j < na; j++) {
			if (!same_group(acc[j].p, acc[i].p))
				continue;
			if (!best || acc_better(&acc[j], best)) {
				second = best;
				best = &acc[j];
			} else if (!second || acc_better(&acc[j], second)) {
				second = &acc[j];
			}
		}
		c = &d->off[d->noff++];
		c->collective = xstrdup(best->p->collective);
		c->algorithm = xstrdup(best->p->algorithm);
		c->assignment = xstrdup(best->p->assignment);
		c->bytes = best->p->bytes;
		c->layout = xstrdup(best->p->layout);
		c->placement = xstrdup(best->p->placement ? best->p->placement : "");
		c->nodes = best->p->nodes > 0 ? (unsigned)best->p->nodes : 0;
		c->ppn = best->p->ppn > 0 ? (unsigned)best->p->ppn : 0;
		c->workers = best->p->workers > 0 ? (unsigned)best->p->workers : 0;
		c->wpn = best->p->wpn > 0 ? (unsigned)best->p->wpn : 0;
		c->oe = best->oe / best->n;
		c->spread = (best->max - best->min) / 2;
		c->reps = best->n;
		c->runner_up = second ? xstrdup(second->p->layout) : NULL;
		c->runner_up_oe = second ? second->oe / second->n : NAN;
		c->total_us = best->total / best->n;
		c->ref_us = best->ref / best->n;
		c->compute_us = best->compute / best->n;
	}
	qsort(d->off, d->noff, sizeof(*d->off), cmp_off);
	free(acc);
}

static void build_mpi(const struct store_point *pts, size_t n, struct decisions *d)
{
	struct macc *acc = xcalloc(n + 1, sizeof(*acc));
	size_t na = 0, i, j;

	for (i = 0; i < n; i++) {
		const struct store_point *p = &pts[i];
		unsigned ranks;
		double us;
		int alg;

		if (!is_mpi(p) || !p->valid)
			continue;
		alg = mpi_algorithm_id(p->algorithm);
		mpi_fields(p, &ranks, &us);
		if (alg < 0 || !ranks || !isfinite(us))
			continue;
		for (j = 0; j < na; j++)
			if (acc[j].ranks == ranks && acc[j].bytes == p->bytes && acc[j].alg == alg &&
			    !strcmp(acc[j].collective, p->collective))
				break;
		if (j == na)
			acc[na++] = (struct macc){ p->collective, ranks, p->bytes, alg, 0, 0 };
		acc[j].n++;
		acc[j].us += us;
	}
	d->mpi = xcalloc(na + 1, sizeof(*d->mpi));
	d->nmpi = 0;
	for (i = 0; i < na; i++) {
		struct mpi_choice *c = NULL;

		for (j = 0; j < d->nmpi; j++)
			if (d->mpi[j].ranks == acc[i].ranks && d->mpi[j].bytes == acc[i].bytes &&
			    !strcmp(d->mpi[j].collective, acc[i].collective))
				c = &d->mpi[j];
		if (!c) {
			c = &d->mpi[d->nmpi++];
			c->collective = xstrdup(acc[i].collective);
			c->ranks = acc[i].ranks;
			c->bytes = acc[i].bytes;
			c->alg = -1;
			c->avg_us = INFINITY;
			c->default_us = NAN;
		}
		c->algorithms++;
		if (!acc[i].alg)
			c->default_us = acc[i].us / acc[i].n;
		/* Strictly faster only: a tie keeps the earlier (or Open MPI's own) choice. */
		if (acc[i].us / acc[i].n < c->avg_us ||
		    (acc[i].us / acc[i].n == c->avg_us && acc[i].alg == 0)) {
			c->avg_us = acc[i].us / acc[i].n;
			c->alg = acc[i].alg;
		}
	}
	qsort(d->mpi, d->nmpi, sizeof(*d->mpi), cmp_mpi);
	free(acc);
}

void decisions_from_points(const struct store_point *pts, size_t n, struct decisions *d)
{
	build_offload(pts, n, d);
	build_mpi(pts, n, d);
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

int decisions_from_db(const char *db, long long run_id, const char *spec_path,
		      struct decisions *d)
{
	struct store *st = NULL;
	struct store_run run = { 0 }, base = { 0 };
	struct store_point *pts = NULL, *bpts = NULL, *all = NULL;
	size_t n = 0, bn = 0;
	int r = 0, rb = 0, ret = -1;

	memset(d, 0, sizeof(*d));
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
			error("%s: the database holds no run yet (measure with 'sweetspot run')", db);
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
	d->spec_path = run.spec_path ? xstrdup(run.spec_path) : NULL;
	d->spec_hash = run.spec_hash ? xstrdup(run.spec_hash) : NULL;
	/* One array for both: the structs are copied, the strings stay theirs. */
	all = xcalloc(n + bn + 1, sizeof(*all));
	if (n)
		memcpy(all, pts, n * sizeof(*all));
	if (bn)
		memcpy(all + n, bpts, bn * sizeof(*all));
	decisions_from_points(all, n + bn, d);
	ret = 0;
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

static char *jstr(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return xstrdup(json_is_string(v) ? json_string_value(v) : "");
}

static double jnum(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static void free_points(struct store_point *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free((char *)p[i].mode);
		free((char *)p[i].collective);
		free((char *)p[i].algorithm);
		free((char *)p[i].assignment);
		free((char *)p[i].layout);
		free((char *)p[i].placement);
		free((char *)p[i].raw);
	}
	free(p);
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

	memset(d, 0, sizeof(*d));
	if (!f)
		return error("cannot open %s: %s", path, strerror(errno));
	while ((len = getline(&line, &cap, f)) >= 0) {
		json_error_t jerr;
		json_t *o, *v;
		struct store_point *p;

		lineno++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		/* Kernels print a table for people too; only JSON objects count. */
		if (!len || line[0] != '{')
			continue;
		o = json_loads(line, 0, &jerr);
		if (!o || !json_is_object(o)) {
			error("%s:%u: not a JSON object (%s)", path, lineno, o ? "" : jerr.text);
			json_decref(o);
			goto out;
		}
		v = json_object_get(o, "bytes");
		if (!json_is_integer(v) || json_integer_value(v) <= 0 ||
		    !json_is_string(json_object_get(o, "collective")) ||
		    !json_is_string(json_object_get(o, "algorithm")) ||
		    !json_is_boolean(json_object_get(o, "valid"))) {
			error("%s:%u: not a kernel record (collective, algorithm, bytes, valid)",
			      path, lineno);
			json_decref(o);
			goto out;
		}
		if (n == alloc) {
			alloc = alloc ? 2 * alloc : 64;
			pts = xrealloc(pts, alloc * sizeof(*pts));
		}
		p = &pts[n++];
		memset(p, 0, sizeof(*p));
		p->bytes = (uint64_t)json_integer_value(v);
		p->mode = jstr(o, "mode");
		p->collective = jstr(o, "collective");
		p->algorithm = jstr(o, "algorithm");
		p->assignment = jstr(o, "assignment");
		p->layout = jstr(o, "layout");
		p->placement = jstr(o, "placement");
		p->valid = json_is_true(json_object_get(o, "valid"));
		p->hosts = (int)json_integer_value(json_object_get(o, "hosts"));
		p->workers = (int)json_integer_value(json_object_get(o, "workers"));
		p->total_us = jnum(o, "total_us");
		p->oe_measured = jnum(o, "oe_measured");
		p->ref_us = jnum(o, "ref_us");
		p->compute_us = jnum(o, "compute_us");
		p->raw = xstrdup(line);
		json_decref(o);
	}
	if (!n) {
		error("%s: no kernel record in it", path);
		goto out;
	}
	d->source = xstrdup(path);
	decisions_from_points(pts, n, d);
	ret = 0;
out:
	free(line);
	fclose(f);
	free_points(pts, n);
	return ret;
}

void decisions_release(struct decisions *d)
{
	size_t i;

	for (i = 0; i < d->noff; i++) {
		struct offload_choice *c = &d->off[i];

		free(c->collective);
		free(c->algorithm);
		free(c->assignment);
		free(c->layout);
		free(c->placement);
		free(c->runner_up);
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
	return !cmp_str(a->algorithm, b->algorithm) && !cmp_str(a->assignment, b->assignment) &&
	       !cmp_str(a->layout, b->layout);
}

size_t decisions_bands(const struct decisions *d, const char *collective, struct band **out)
{
	struct band *b = xcalloc(d->noff + 1, sizeof(*b));
	size_t nb = 0, i = 0;

	while (i < d->noff) {
		const struct offload_choice *best = &d->off[i];
		size_t j = i;

		/* The best of this size over algorithms and assignments. */
		for (; j < d->noff && d->off[j].bytes == d->off[i].bytes &&
		       !strcmp(d->off[j].collective, d->off[i].collective); j++)
			if (d->off[j].oe > best->oe + TIE_EPS ||
			    (fabs(d->off[j].oe - best->oe) <= TIE_EPS && d->off[j].workers < best->workers))
				best = &d->off[j];
		if (!collective || !strcmp(best->collective, collective)) {
			if (nb && !strcmp(b[nb - 1].collective, best->collective) &&
			    same_config(b[nb - 1].best, best)) {
				b[nb - 1].hi = best->bytes;
				b[nb - 1].best = best;
				b[nb - 1].nsizes++;
			} else {
				b[nb++] = (struct band){ best->collective, best->bytes, best->bytes, best, 1 };
			}
		}
		i = j;
	}
	*out = b;
	return nb;
}

int decisions_has_offload(const struct decisions *d, const char *collective)
{
	for (size_t i = 0; i < d->noff; i++)
		if (!collective || !strcmp(d->off[i].collective, collective))
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
