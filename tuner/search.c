/*
 * tuner/search.c: the grid and adaptive searches of search.h. The adaptive
 * search treats each line of layouts (same nodes, PPN, placement, WPN) as a
 * one-dimensional function of log2(workers) per group, assumed roughly
 * concave (it rises to a knee, then flattens or degrades), which is what the
 * DPU-Bench measurements look like. Between two measured layouts, the
 * extensions of the neighbouring secants bound what an unmeasured layout
 * could reach; only layouts whose bound beats the group's best by more than
 * the tolerance get a launch. Repetitions go where the ranking is within
 * the noise.
 */
#include "search.h"

#include "error.h"
#include "plan.h"
#include "spec.h"
#include "strvec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TIE_EPS 1e-9

struct state {
	const struct search_problem *p;
	const struct search_opts *o;
	size_t L, G;
	unsigned *reps;		/* launches per layout */
	unsigned *n;		/* L x G: valid values */
	double *sum, *min, *max;	/* L x G */
	double *buf;		/* G: one launch's values */
	size_t *order;		/* layouts sorted by line, then workers */
	size_t *line_of;	/* layout -> line index */
	size_t *line_start;	/* nlines + 1 offsets into order */
	size_t nlines;
	unsigned launches;
	int budget_hit;
	double *sigma;		/* G: pooled spread estimate */
};

int search_parse_strategy(const char *s, enum search_strategy *out)
{
	if (!strcmp(s, "adaptive"))
		*out = SEARCH_ADAPTIVE;
	else if (!strcmp(s, "grid"))
		*out = SEARCH_GRID;
	else
		return error("unknown strategy '%s' (grid or adaptive)", s);
	return 0;
}

const char *search_strategy_name(enum search_strategy s)
{
	return s == SEARCH_GRID ? "grid" : "adaptive";
}

static double tpos(const struct search_layout *l)
{
	return log2((double)(l->workers ? l->workers : 1));
}

static int same_line(const struct search_layout *a, const struct search_layout *b)
{
	return a->nodes == b->nodes && a->ppn == b->ppn && a->wpn == b->wpn &&
	       !strcmp(a->placement, b->placement);
}

/* qsort has no context argument: sort pairs of (layout pointer, index). */
struct sortkey {
	const struct search_layout *l;
	size_t i;
};

static int cmp_key(const void *x, const void *y)
{
	const struct sortkey *a = x, *b = y;
	int c;

	if (a->l->nodes != b->l->nodes)
		return a->l->nodes < b->l->nodes ? -1 : 1;
	if (a->l->ppn != b->l->ppn)
		return a->l->ppn < b->l->ppn ? -1 : 1;
	c = strcmp(a->l->placement, b->l->placement);
	if (c)
		return c;
	if (a->l->wpn != b->l->wpn)
		return a->l->wpn < b->l->wpn ? -1 : 1;
	if (a->l->workers != b->l->workers)
		return a->l->workers < b->l->workers ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

static void build_lines(struct state *st)
{
	struct sortkey *k = xcalloc(st->L ? st->L : 1, sizeof(*k));
	size_t i;

	for (i = 0; i < st->L; i++) {
		k[i].l = &st->p->layouts[i];
		k[i].i = i;
	}
	qsort(k, st->L, sizeof(*k), cmp_key);
	st->order = xcalloc(st->L ? st->L : 1, sizeof(size_t));
	st->line_of = xcalloc(st->L ? st->L : 1, sizeof(size_t));
	st->line_start = xcalloc(st->L + 1, sizeof(size_t));
	st->nlines = 0;
	for (i = 0; i < st->L; i++) {
		st->order[i] = k[i].i;
		if (!i || !same_line(k[i - 1].l, k[i].l))
			st->line_start[st->nlines++] = i;
		st->line_of[k[i].i] = st->nlines - 1;
	}
	st->line_start[st->nlines] = st->L;
	free(k);
}

#define AT(st, l, g) ((l) * (st)->G + (g))

static double mean(const struct state *st, size_t l, size_t g)
{
	return st->sum[AT(st, l, g)] / st->n[AT(st, l, g)];
}

static double spread(const struct state *st, size_t l, size_t g)
{
	size_t k = AT(st, l, g);

	if (st->n[k] >= 2)
		return (st->max[k] - st->min[k]) / 2;
	return st->sigma[g];
}

/* Pooled spread per group: the mean half-range of the layouts measured more
 * than once; failing that, of every group; failing that, the prior. */
static void update_sigma(struct state *st)
{
	double all = 0;
	size_t nall = 0, l, g;

	for (g = 0; g < st->G; g++) {
		double s = 0;
		size_t m = 0;

		for (l = 0; l < st->L; l++) {
			size_t k = AT(st, l, g);

			if (st->n[k] >= 2) {
				s += (st->max[k] - st->min[k]) / 2;
				m++;
			}
		}
		st->sigma[g] = m ? s / m : -1;
		all += s;
		nall += m;
	}
	for (g = 0; g < st->G; g++)
		if (st->sigma[g] < 0)
			st->sigma[g] = nall ? all / nall : st->o->noise_prior;
}

/* Whether layout a beats layout b for group g (both have values). */
static int better(const struct state *st, size_t g, size_t a, size_t b)
{
	double ma = mean(st, a, g), mb = mean(st, b, g);
	const struct search_layout *la = &st->p->layouts[a], *lb = &st->p->layouts[b];

	if (ma > mb + TIE_EPS)
		return 1;
	if (mb > ma + TIE_EPS)
		return 0;
	if (la->workers != lb->workers)
		return la->workers < lb->workers;
	if (la->wpn != lb->wpn)
		return la->wpn < lb->wpn;
	return a < b;
}

/* The best and second best layouts of group g (-1 when none). */
static void rank2(const struct state *st, size_t g, long *best, long *second)
{
	size_t l;

	*best = *second = -1;
	for (l = 0; l < st->L; l++) {
		if (!st->n[AT(st, l, g)])
			continue;
		if (*best < 0 || better(st, g, l, (size_t)*best)) {
			*second = *best;
			*best = (long)l;
		} else if (*second < 0 || better(st, g, l, (size_t)*second)) {
			*second = (long)l;
		}
	}
}

/* One launch: 1 when the budget forbids it, -1 on a measuring failure. */
static int measure(struct state *st, size_t l)
{
	size_t g;

	if (st->o->budget && st->launches >= st->o->budget) {
		st->budget_hit = 1;
		return 1;
	}
	for (g = 0; g < st->G; g++)
		st->buf[g] = NAN;
	if (st->p->measure(st->p->ctx, l, st->reps[l], st->buf))
		return -1;
	st->reps[l]++;
	st->launches++;
	for (g = 0; g < st->G; g++) {
		size_t k = AT(st, l, g);
		double v = st->buf[g];

		if (!isfinite(v))
			continue;
		if (!st->n[k] || v < st->min[k])
			st->min[k] = v;
		if (!st->n[k] || v > st->max[k])
			st->max[k] = v;
		st->sum[k] += v;
		st->n[k]++;
	}
	return 0;
}

/* Measures every layout flagged in want[], in plan order. */
static int measure_set(struct state *st, unsigned char *want)
{
	size_t l;
	int r;

	for (l = 0; l < st->L; l++) {
		if (!want[l])
			continue;
		want[l] = 0;
		r = measure(st, l);
		if (r)
			return r;
	}
	return 0;
}

/* Largest |slope| between consecutive valid points of any line, group g:
 * the Lipschitz constant that bounds where no secant can. */
static double max_slope(const struct state *st, size_t g)
{
	double s = 0;
	int any = 0;
	size_t ln, i;

	for (ln = 0; ln < st->nlines; ln++) {
		long prev = -1;

		for (i = st->line_start[ln]; i < st->line_start[ln + 1]; i++) {
			size_t l = st->order[i];

			if (!st->n[AT(st, l, g)])
				continue;
			if (prev >= 0) {
				double dt = tpos(&st->p->layouts[l]) - tpos(&st->p->layouts[prev]);

				if (dt > 0) {
					double v = fabs(mean(st, l, g) - mean(st, (size_t)prev, g)) / dt;

					if (v > s)
						s = v;
					any = 1;
				}
			}
			prev = (long)l;
		}
	}
	return any ? s : INFINITY;
}

static double slope(const struct state *st, size_t g, size_t a, size_t b)
{
	double dt = tpos(&st->p->layouts[b]) - tpos(&st->p->layouts[a]);

	if (dt <= 0)
		return NAN;
	return (mean(st, b, g) - mean(st, a, g)) / dt;
}

/* Upper bound of group g at position t between valid points (positions in
 * order[]) a2 < a < t < c < c2; any of them may be -1 (absent). */
static double bound(const struct state *st, size_t g, double t, long a2, long a,
		    long c, long c2, double smax)
{
	double u = INFINITY;

	if (a >= 0) {
		double fa = mean(st, (size_t)a, g), ta = tpos(&st->p->layouts[a]);
		double s = a2 >= 0 ? slope(st, g, (size_t)a2, (size_t)a) : NAN;

		u = fmin(u, fa + smax * (t - ta));
		if (isfinite(s))
			u = fmin(u, fa + s * (t - ta));
	}
	if (c >= 0) {
		double fc = mean(st, (size_t)c, g), tc = tpos(&st->p->layouts[c]);
		double s = c2 >= 0 ? slope(st, g, (size_t)c, (size_t)c2) : NAN;

		u = fmin(u, fc + smax * (tc - t));
		if (isfinite(s))
			u = fmin(u, fc - s * (tc - t));
	}
	return u;
}

/* Refinement: flags in want[] the unmeasured layouts worth a launch. */
static int propose_refine(struct state *st, unsigned char *want)
{
	size_t g, ln, i;
	int any = 0;
	long *valid = xcalloc(st->L + 1, sizeof(long));

	for (g = 0; g < st->G; g++) {
		long b, r;
		double best, smax;

		rank2(st, g, &b, &r);
		if (b < 0)
			continue;
		best = mean(st, (size_t)b, g);
		smax = max_slope(st, g);
		for (ln = 0; ln < st->nlines; ln++) {
			size_t s0 = st->line_start[ln], s1 = st->line_start[ln + 1];
			size_t nv = 0, k;

			/* valid[] holds the layouts of this line with a value, in order. */
			for (i = s0; i < s1; i++)
				if (st->n[AT(st, st->order[i], g)])
					valid[nv++] = (long)st->order[i];
			if (!nv)
				continue;
			/* Gaps: before valid[0], between valid[k-1] and valid[k], after the last. */
			for (k = 0; k <= nv; k++) {
				long a = k ? valid[k - 1] : -1, c = k < nv ? valid[k] : -1;
				long a2 = k >= 2 ? valid[k - 2] : -1, c2 = k + 1 < nv ? valid[k + 1] : -1;
				double ta = a >= 0 ? tpos(&st->p->layouts[a]) : -INFINITY;
				double tc = c >= 0 ? tpos(&st->p->layouts[c]) : INFINITY;
				double umax = -INFINITY, mid, dmin = INFINITY;
				long pick = -1;

				for (i = s0; i < s1; i++) {
					size_t l = st->order[i];
					double t = tpos(&st->p->layouts[l]);

					if (st->reps[l] || t <= ta || t >= tc)
						continue;
					umax = fmax(umax, bound(st, g, t, a2, a, c, c2, smax));
				}
				umax = fmin(umax + st->sigma[g], 100.0);
				if (umax <= best + st->o->tolerance)
					continue;
				/* Bisect the gap (log scale); an open end leans on its measured side. */
				mid = a >= 0 && c >= 0 ? (ta + tc) / 2 : a >= 0 ? ta : tc;
				for (i = s0; i < s1; i++) {
					size_t l = st->order[i];
					double t = tpos(&st->p->layouts[l]);

					if (st->reps[l] || t <= ta || t >= tc)
						continue;
					if (fabs(t - mid) < dmin) {
						dmin = fabs(t - mid);
						pick = (long)l;
					}
				}
				if (pick >= 0 && !want[pick]) {
					want[pick] = 1;
					any = 1;
				}
			}
		}
	}
	free(valid);
	return any;
}

/* Repetition: where a group's runner-up is within the spreads of its best,
 * the best gets another launch (up to the repetitions allowed). A lucky
 * single measurement then falls back and the runner-up, now best, is
 * repeated in turn: a race that spends launches only on the leaders. */
static int propose_repeat(struct state *st, unsigned char *want)
{
	size_t g;
	int any = 0;

	for (g = 0; g < st->G; g++) {
		long b, r;

		rank2(st, g, &b, &r);
		if (b < 0 || r < 0)
			continue;
		if (mean(st, (size_t)b, g) - mean(st, (size_t)r, g) >
		    spread(st, (size_t)b, g) + spread(st, (size_t)r, g))
			continue;
		if (st->reps[b] < st->p->repetitions && !want[b])
			want[b] = 1, any = 1;
	}
	return any;
}

static int is_pow2u(unsigned v)
{
	return v && !(v & (v - 1));
}

static int run_adaptive(struct state *st)
{
	unsigned char *want = xcalloc(st->L ? st->L : 1, 1);
	size_t ln, i;
	int r;

	/* Coarse: powers of two of workers, and both ends of every line. */
	for (ln = 0; ln < st->nlines; ln++)
		for (i = st->line_start[ln]; i < st->line_start[ln + 1]; i++) {
			size_t l = st->order[i];

			if (is_pow2u(st->p->layouts[l].workers) || i == st->line_start[ln] ||
			    i + 1 == st->line_start[ln + 1])
				want[l] = 1;
		}
	r = measure_set(st, want);
	while (!r) {
		update_sigma(st);
		if (!propose_refine(st, want) && !propose_repeat(st, want))
			break;
		r = measure_set(st, want);
	}
	free(want);
	return r < 0 ? -1 : 0;
}

static int run_grid(struct state *st)
{
	size_t l;
	unsigned k;
	int r = 0;

	for (l = 0; l < st->L && !r; l++)
		for (k = 0; k < st->p->repetitions && !r; k++)
			r = measure(st, l);
	return r < 0 ? -1 : 0;
}

int search_run(const struct search_problem *p, const struct search_opts *o,
	       struct search_result *res)
{
	struct state st = { 0 };
	size_t g, cells;
	int ret;

	memset(res, 0, sizeof(*res));
	st.p = p;
	st.o = o;
	st.L = p->nlayouts;
	st.G = p->ngroups;
	cells = st.L * st.G;
	if (!cells)
		cells = 1;
	st.reps = xcalloc(st.L ? st.L : 1, sizeof(unsigned));
	st.n = xcalloc(cells, sizeof(unsigned));
	st.sum = xcalloc(cells, sizeof(double));
	st.min = xcalloc(cells, sizeof(double));
	st.max = xcalloc(cells, sizeof(double));
	st.buf = xcalloc(st.G ? st.G : 1, sizeof(double));
	st.sigma = xcalloc(st.G ? st.G : 1, sizeof(double));
	build_lines(&st);

	ret = o->strategy == SEARCH_GRID ? run_grid(&st) : run_adaptive(&st);
	if (!ret) {
		update_sigma(&st);
		res->launches = st.launches;
		res->grid_launches = (unsigned)(st.L * p->repetitions);
		res->budget_exhausted = st.budget_hit;
		res->best = xcalloc(st.G ? st.G : 1, sizeof(*res->best));
		res->reps = st.reps;
		st.reps = NULL;
		for (g = 0; g < st.G; g++) {
			struct search_best *b = &res->best[g];
			long bi, ri;

			rank2(&st, g, &bi, &ri);
			b->layout = bi;
			b->runner_up = ri;
			b->runner_up_oe = ri >= 0 ? mean(&st, (size_t)ri, g) : NAN;
			if (bi >= 0) {
				b->oe = mean(&st, (size_t)bi, g);
				b->spread = spread(&st, (size_t)bi, g);
				b->reps = st.n[AT(&st, (size_t)bi, g)];
			} else {
				b->oe = b->spread = NAN;
			}
		}
	}
	free(st.reps);
	free(st.n);
	free(st.sum);
	free(st.min);
	free(st.max);
	free(st.buf);
	free(st.sigma);
	free(st.order);
	free(st.line_of);
	free(st.line_start);
	return ret;
}

void search_result_release(struct search_result *res)
{
	free(res->best);
	free(res->reps);
	memset(res, 0, sizeof(*res));
}

void search_space_from_plan(const struct spec *s, const struct plan *p,
			    struct search_space *out)
{
	size_t i, c, a, k, z, n = 0;

	memset(out, 0, sizeof(*out));
	out->layouts = xcalloc(p->nlayouts ? p->nlayouts : 1, sizeof(*out->layouts));
	for (i = 0; i < p->nlayouts; i++) {
		const struct layout *l = &p->layouts[i];

		out->layouts[i] = (struct search_layout){ l->id, l->nodes, l->ppn, l->workers,
							  l->wpn, placement_name(l->placement) };
	}
	out->nlayouts = p->nlayouts;
	out->repetitions = p->repetitions;
	/* Groups in the kernel's loop order: collective, algorithm, assignment, size. */
	out->groups = xcalloc(s->collectives.nr * s->algorithms.nr * s->assignments.nr *
			      s->nsizes + 1, sizeof(*out->groups));
	for (c = 0; c < s->collectives.nr; c++)
		for (a = 0; a < s->algorithms.nr; a++) {
			if (!spec_algorithm_applies(s->collectives.v[c], s->algorithms.v[a]))
				continue;
			for (k = 0; k < s->assignments.nr; k++)
				for (z = 0; z < s->nsizes; z++)
					out->groups[n++] = (struct search_group){
						s->collectives.v[c], s->algorithms.v[a],
						s->assignments.v[k], s->sizes[z] };
		}
	out->ngroups = n;
}

void search_space_release(struct search_space *sp)
{
	free(sp->layouts);
	free(sp->groups);
	memset(sp, 0, sizeof(*sp));
}
