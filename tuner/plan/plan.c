/*
 * tuner/plan/plan.c: expanding a spec into layouts and points, with the rules
 * that keep a layout meaningful (the paper's: fewer workers than hosts, at
 * most half the ranks, no more workers on a DPU than it has cores, and
 * enough DPUs for the workers). Rank placement is arithmetic, never a table,
 * so that a layout of 10,000 nodes costs nothing until files are written.
 */
#include "plan.h"

#include "colls.h"
#include "error.h"
#include "parse.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void layout_set_id(struct layout *l)
{
	snprintf(l->id, sizeof(l->id), "n%u-ppn%u-w%u-wpn%u-%s", l->nodes, l->ppn, l->workers,
		 l->wpn, placement_name(l->placement));
}

static unsigned placement_cores(const struct spec *s, enum placement p)
{
	return p == PLACEMENT_DPU ? s->dpu_cores : s->onload_cores;
}

int layout_check(const struct spec *s, const struct layout *l, char *err, size_t errlen)
{
	const char *what = l->placement == PLACEMENT_DPU ? "DPU cores" : "onload cores per node";

	if (!l->nodes || l->nodes > s->nodes.nr || l->ppn != s->ppn ||
	    l->hosts != l->nodes * l->ppn) {
		snprintf(err, errlen, "layout %s does not fit the system (%zu nodes x %u PPN)",
			 l->id, s->nodes.nr, s->ppn);
		return -1;
	}
	if (l->workers < 1) {
		snprintf(err, errlen, "no workers: there must be at least one (1 <= W < H)");
		return -1;
	}
	/* The paper's bound W <= (H + W) / 2, i.e. W <= H: DPU-Bench allows
	 * W = H (every host rank with a worker of its own, the paper's 64 on
	 * 64), and so do we. */
	if (2ull * l->workers > (unsigned long long)l->hosts + l->workers) {
		snprintf(err, errlen,
			 "%u workers of %u ranks: at most half of all ranks may be workers (W <= "
			 "(H + W) / 2, i.e. W <= H)",
			 l->workers, layout_ranks(l));
		return -1;
	}
	if (l->wpn < 1 || l->wpn > placement_cores(s, l->placement)) {
		snprintf(err, errlen, "%u workers per node is more than the %u %s (WPN <= %s)",
			 l->wpn, placement_cores(s, l->placement), what, what);
		return -1;
	}
	if ((unsigned long long)l->wpn * l->nodes < l->workers) {
		snprintf(err, errlen,
			 "%u workers do not fit on %u nodes at %u workers per node (W <= WPN x "
			 "nodes)",
			 l->workers, l->nodes, l->wpn);
		return -1;
	}
	return 0;
}

/* The values of one axis for a (collective, algorithm) pair: the spec's
 * when it applies, else the one "does not apply" value. */
struct axis {
	size_t n;
	int applies;
};

static struct axis axis_of(int applies, size_t n)
{
	return (struct axis){ applies ? n : 1, applies };
}

size_t plan_foreach_point(const struct spec *s, int (*fn)(const struct point *pt, void *data),
			  void *data)
{
	size_t count = 0;

	for (size_t c = 0; c < s->collectives.nr; c++)
		for (size_t a = 0; a < s->algorithms.nr; a++) {
			const char *coll = s->collectives.v[c], *alg = s->algorithms.v[a];
			struct axis dt, op, ch, wi, rx;

			if (!spec_algorithm_applies(coll, alg))
				continue;
			dt = axis_of(colls_is_reduction(coll), s->dtypes.nr);
			op = axis_of(dt.applies, s->ops.nr);
			ch = axis_of(colls_chunk_applies(coll, alg), s->nchunks);
			wi = axis_of(ch.applies, s->nwindows);
			rx = axis_of(colls_radix_applies(alg), s->nradix);
			for (size_t g = 0; g < s->assignments.nr; g++)
				for (size_t z = 0; z < s->nsizes; z++)
					for (size_t d = 0; d < dt.n; d++)
						for (size_t o = 0; o < op.n; o++) {
							struct point pt = {
								coll,
								alg,
								s->assignments.v[g],
								s->sizes[z],
								dt.applies ? s->dtypes.v[d] : NULL,
								op.applies ? s->ops.v[o] : NULL,
								0,
								0,
								0
							};

							if (pt.dtype &&
							    !spec_op_applies(pt.dtype, pt.op))
								continue;
							for (size_t k = 0; k < ch.n; k++)
								for (size_t w = 0; w < wi.n; w++)
									for (size_t r = 0; r < rx.n;
									     r++) {
										pt.chunk =
											ch.applies ?
												s->chunks
													[k] :
												0;
										pt.window =
											wi.applies ?
												s->windows
													[w] :
												0;
										pt.radix =
											rx.applies ?
												s->radix[r] :
												0;
										count++;
										if (fn &&
										    fn(&pt, data))
											return count;
									}
						}
		}
	return count;
}

static size_t points_per_layout(const struct spec *s)
{
	return plan_foreach_point(s, NULL, NULL);
}

static void make_layout(const struct spec *s, enum placement p, unsigned nodes, unsigned w,
			unsigned wpn, struct layout *l)
{
	memset(l, 0, sizeof(*l));
	l->nodes = nodes;
	l->ppn = s->ppn;
	l->hosts = nodes * s->ppn;
	l->workers = w;
	/* Fewer workers than WPN fill one DPU partly: the same placement as
	 * WPN = W, so it is that layout. */
	l->wpn = wpn > w ? w : wpn;
	l->placement = p;
	l->points = points_per_layout(s);
	layout_set_id(l);
}

static int cmp_layout(const void *a, const void *b)
{
	const struct layout *x = a, *y = b;

	if (x->workers != y->workers)
		return x->workers < y->workers ? -1 : 1;
	if (x->wpn != y->wpn)
		return x->wpn < y->wpn ? -1 : 1;
	return 0;
}

/* A (W, WPN) pair to try, and which listed values it comes from. */
struct candidate {
	unsigned w, wpn;
	size_t wpn_i, workers_i; /* workers_i: (size_t)-1 when derived */
};

/* The candidates for one node count, in the order they are tried. */
static size_t candidates(const struct spec *s, unsigned nodes, struct candidate **out)
{
	size_t n = 0, cap = 16;

	*out = xmalloc(cap * sizeof(**out));
	for (size_t i = 0; i < s->nwpn; i++) {
		unsigned d = 1;

		for (size_t j = 0; s->workers && j < s->nworkers; j++) {
			if (n == cap)
				*out = xrealloc(*out, (cap *= 2) * sizeof(**out));
			(*out)[n++] = (struct candidate){ s->workers[j], s->wpn[i], i, j };
		}
		while (!s->workers) {
			if (d > nodes)
				d = nodes;
			if (n == cap)
				*out = xrealloc(*out, (cap *= 2) * sizeof(**out));
			(*out)[n++] = (struct candidate){ s->wpn[i] * d, s->wpn[i], i, (size_t)-1 };
			if (d == nodes)
				break;
			d *= 2;
		}
	}
	return n;
}

/* The first rule a pair breaks, into err; 0 when it keeps them all. */
static int check_pair(const struct spec *s, enum placement p, unsigned nodes,
		      const struct candidate *c, struct layout *l, char *err, size_t errlen)
{
	make_layout(s, p, nodes, c->w, c->wpn, l);
	if (c->wpn > placement_cores(s, p)) {
		/* Report the WPN asked for, not the one it shrank to. */
		struct layout asked = *l;

		asked.wpn = c->wpn;
		return layout_check(s, &asked, err, errlen);
	}
	return layout_check(s, l, err, errlen);
}

int plan_build(const struct spec *s, struct plan *out)
{
	size_t cap = 16;
	char *wpn_used = xcalloc(s->nwpn, 1), *workers_used = xcalloc(s->nworkers, 1);
	char err[512];
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (s->nsizes && s->sizes[s->nsizes - 1] > SPEC_MAX_MESSAGE) {
		free(wpn_used);
		free(workers_used);
		return error("%s:%d: 'sweep.sizes': %s is more than the kernel's limit of 1G per "
			     "message (KOPTS_MAX_BYTES)",
			     s->path, s->line.sizes,
			     format_size(s->sizes[s->nsizes - 1], err, sizeof(err)));
	}
	out->repetitions = s->repetitions;
	out->layouts = xmalloc(cap * sizeof(*out->layouts));
	for (size_t pi = 0; pi < s->nplacements; pi++) {
		for (size_t ni = 0; ni < s->nnode_counts; ni++) {
			struct candidate *c;
			size_t n = candidates(s, s->node_counts[ni], &c), first = out->nlayouts;

			for (size_t k = 0; k < n; k++) {
				struct layout l;
				int dup = 0;

				if (check_pair(s, s->placements[pi], s->node_counts[ni], &c[k], &l,
					       err, sizeof(err))) {
					out->skipped++;
					continue;
				}
				wpn_used[c[k].wpn_i] = 1;
				if (c[k].workers_i != (size_t)-1)
					workers_used[c[k].workers_i] = 1;
				for (size_t j = first; j < out->nlayouts && !dup; j++)
					dup = !cmp_layout(&out->layouts[j], &l);
				if (dup)
					continue;
				if (out->nlayouts == cap)
					out->layouts = xrealloc(out->layouts,
								(cap *= 2) * sizeof(*out->layouts));
				out->layouts[out->nlayouts++] = l;
			}
			free(c);
			qsort(out->layouts + first, out->nlayouts - first, sizeof(*out->layouts),
			      cmp_layout);
		}
	}
	/* A value the spec lists that no layout uses is a mistake: say which
	 * rule its first pair breaks. */
	for (int pass = 0; pass < 2; pass++) {
		size_t nv = pass ? s->nworkers : s->nwpn;
		const char *used = pass ? workers_used : wpn_used;

		for (size_t v = 0; v < nv; v++) {
			struct candidate *c;
			struct layout l;
			size_t n;

			if (used[v])
				continue;
			n = candidates(s, s->node_counts[0], &c);
			for (size_t k = 0; k < n; k++)
				if ((pass ? c[k].workers_i : c[k].wpn_i) == v &&
				    check_pair(s, s->placements[0], s->node_counts[0], &c[k], &l,
					       err, sizeof(err)))
					break;
			free(c);
			ret = error("%s:%d: 'sweep.%s' %u is used by no layout: %s", s->path,
				    pass ? s->line.workers : s->line.wpn, pass ? "workers" : "wpn",
				    pass ? s->workers[v] : s->wpn[v], err);
		}
	}
	if (!ret && !out->nlayouts)
		ret = error("%s:%d: no layout keeps every rule; nothing to measure", s->path,
			    s->line.wpn);
	free(wpn_used);
	free(workers_used);
	if (ret)
		plan_release(out);
	return ret;
}

void plan_release(struct plan *p)
{
	free(p->layouts);
	memset(p, 0, sizeof(*p));
}

size_t plan_points(const struct plan *p)
{
	size_t n = 0;

	for (size_t i = 0; i < p->nlayouts; i++)
		n += p->layouts[i].points;
	return n;
}

size_t plan_launches(const struct plan *p)
{
	return p->nlayouts * p->repetitions;
}

size_t plan_measurements(const struct plan *p)
{
	return plan_points(p) * p->repetitions;
}

const struct layout *plan_find(const struct plan *p, const char *id)
{
	for (size_t i = 0; i < p->nlayouts; i++)
		if (!strcmp(p->layouts[i].id, id))
			return &p->layouts[i];
	return NULL;
}

unsigned layout_rank_node(const struct layout *l, unsigned rank)
{
	if (rank < l->hosts)
		return rank / l->ppn;
	return (rank - l->hosts) / l->wpn;
}

unsigned layout_workers_on(const struct layout *l, unsigned node)
{
	unsigned long long before = (unsigned long long)node * l->wpn;

	if (before >= l->workers)
		return 0;
	return l->workers - before < l->wpn ? (unsigned)(l->workers - before) : l->wpn;
}

unsigned layout_worker_nodes(const struct layout *l)
{
	return (l->workers + l->wpn - 1) / l->wpn;
}

unsigned layout_host_count(const struct spec *s, const struct layout *l)
{
	size_t nn = s->nodes.nr ? s->nodes.nr : 1;
	unsigned char *seen = xcalloc(2 * nn, 1);
	unsigned n = 0;

	/* Names are distinct per node index (host names, then DPU names): a
	 * bitmap of indices counts them in one pass over the nodes (a node's
	 * ranks are neighbours: 8.3M ranks are 320,000 steps). */
	for (unsigned long long r = 0; r < layout_ranks(l);) {
		unsigned node = layout_rank_node(l, (unsigned)r);
		size_t k = (r < l->hosts || l->placement == PLACEMENT_ONLOAD ? 0 : nn) + node;

		if (node < nn && !seen[k]) {
			seen[k] = 1;
			n++;
		}
		if (r < l->hosts)
			r = (node + 1ULL) * l->ppn < l->hosts ? (node + 1ULL) * l->ppn : l->hosts;
		else
			r = l->hosts + (node + 1ULL) * l->wpn;
	}
	free(seen);
	return n;
}

const char *layout_rank_host(const struct spec *s, const struct layout *l, unsigned rank)
{
	unsigned node = layout_rank_node(l, rank);

	if (rank < l->hosts || l->placement == PLACEMENT_ONLOAD)
		return s->nodes.v[node];
	return s->dpus.v[node];
}

const char *layout_rank_bin(const struct spec *s, const struct layout *l, unsigned rank)
{
	return rank < l->hosts ? s->host_bin : spec_worker_bin(s, l->placement);
}

/* Appends the items of v joined by commas. */
static void push_joined(struct strvec *args, const struct strvec *v)
{
	size_t len = 1;
	char *s;

	for (size_t i = 0; i < v->nr; i++)
		len += strlen(v->v[i]) + 1;
	s = xcalloc(len, 1);
	for (size_t i = 0; i < v->nr; i++) {
		if (i)
			strcat(s, ",");
		strcat(s, v->v[i]);
	}
	strvec_push(args, s);
	free(s);
}

/* The sizes as the kernel's -m takes them: one size in bytes (as DPU-Bench
 * writes it), a power-of-two range LO:HI when they are every power of two
 * in between, else a list (with K/M/G when bytes would be too long). */
static void push_sizes(const struct spec *s, struct strvec *args)
{
	int range = s->nsizes > 1;
	char *buf, num[32];
	size_t len = 0;

	for (size_t i = 1; i < s->nsizes && range; i++)
		range = s->sizes[i] == 2 * s->sizes[i - 1];
	if (range) {
		strvec_pushf(args, "%" PRIu64 ":%" PRIu64, s->sizes[0], s->sizes[s->nsizes - 1]);
		return;
	}
	buf = xcalloc(s->nsizes * 24 + 1, 1);
	for (size_t i = 0; i < s->nsizes; i++)
		len += (size_t)sprintf(buf + len, "%s%" PRIu64, i ? "," : "", s->sizes[i]);
	if (len > 200) {
		len = 0;
		for (size_t i = 0; i < s->nsizes; i++)
			len += (size_t)sprintf(buf + len, "%s%s", i ? "," : "",
					       format_size(s->sizes[i], num, sizeof(num)));
	}
	strvec_push(args, buf);
	free(buf);
}

/* Appends n numbers joined by commas. */
static void push_numbers(struct strvec *args, const uint64_t *v, size_t n)
{
	char *buf = xcalloc(n * 24 + 1, 1);
	size_t len = 0;

	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(buf + len, "%s%" PRIu64, i ? "," : "", v[i]);
	strvec_push(args, buf);
	free(buf);
}

static void push_uints(struct strvec *args, const unsigned *v, size_t n)
{
	uint64_t *w = xcalloc(n ? n : 1, sizeof(*w));

	for (size_t i = 0; i < n; i++)
		w[i] = v[i];
	push_numbers(args, w, n);
	free(w);
}

/* --dtype/--op, --chunk/--window and --radix, each only where some
 * (collective, algorithm) of the spec uses it, so that a sweep without
 * reductions or schedules runs the kernel with the arguments it always had. */
static void push_axes(const struct spec *s, struct strvec *args)
{
	int reduction, pipelined, knomial;

	spec_axes_apply(s, &reduction, &pipelined, &knomial);
	if (reduction) {
		strvec_push(args, "--dtype");
		push_joined(args, &s->dtypes);
		strvec_push(args, "--op");
		push_joined(args, &s->ops);
	}
	if (pipelined) {
		strvec_push(args, "--chunk");
		push_numbers(args, s->chunks, s->nchunks);
		strvec_push(args, "--window");
		push_uints(args, s->windows, s->nwindows);
	}
	if (knomial) {
		strvec_push(args, "--radix");
		push_uints(args, s->radix, s->nradix);
	}
}

void layout_kernel_args(const struct spec *s, const struct layout *l, struct strvec *args)
{
	strvec_push(args, "-w");
	strvec_pushf(args, "%u", l->workers);
	strvec_push(args, "-m");
	push_sizes(s, args);
	strvec_push(args, "-c");
	push_joined(args, &s->collectives);
	strvec_push(args, "-a");
	push_joined(args, &s->algorithms);
	strvec_push(args, "-A");
	push_joined(args, &s->assignments);
	push_axes(s, args);
	strvec_push(args, "-i");
	strvec_pushf(args, "%u", s->iterations);
	strvec_push(args, "-x");
	strvec_pushf(args, "%u", s->warmup);
	if (s->min_time_ms) {
		strvec_push(args, "--min-time");
		strvec_pushf(args, "%u", s->min_time_ms);
	}
	strvec_push(args, "--ppn");
	strvec_pushf(args, "%u", l->ppn);
	if (s->transport) {
		strvec_push(args, "-t");
		strvec_push(args, s->transport);
	}
	for (size_t i = 0; i < s->kernel_args.nr; i++)
		strvec_push(args, s->kernel_args.v[i]);
}
