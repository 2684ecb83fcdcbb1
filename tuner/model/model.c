/*
 * tuner/model/model.c: one point's prediction from the simulated phases, as the
 * kernel measures them (kernels/harness.c): ref (hosts alone), comm
 * (workers alone), compute (calibrated by the kernel to last ref, so
 * predicted as ref) and total (hosts compute while workers communicate).
 * The total is the largest of compute, comm and, onload, the time a node's
 * hosts and workers take on its cores shared fairly: onload workers share
 * the hosts' cores, a compute phase that fills them leaves the workers
 * only a share, and a worker, one process, never runs on two cores. The
 * sharing starts past the scheduler's slice (model.h): shorter work runs
 * unshared, and the kernel times each rank from its own start.
 */
#include "model.h"
#include "coll.h"
#include "error.h"
#include "sort.h"
#include "xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void model_params_default(struct model_params *p)
{
	memset(p, 0, sizeof(*p));
	/* 100 Gb/s NIC: 12.5 GB/s = 8e-5 us/B; memory bus some 20 GB/s. */
	p->path[PATH_SHM] = (struct model_link){ 0.1, 1e-4, 1e-4, 5e-5 };
	p->path[PATH_NET] = (struct model_link){ 2.0, 8e-5, 8e-5, 8e-5 };
	p->path[PATH_PCIE] = (struct model_link){ 1.0, 6e-5, 6e-5, 6e-5 };
	p->o = 0.2;
	p->g_reduce = 1e-4;
	p->g_copy = 1e-4;
	p->poll = 1.0;
	p->t0 = 0.05;
	p->os_slice = MODEL_OS_SLICE;
	p->noise = 0.05;
	p->resid = 0.10;
}

/* The kernel's geometry of a point (kernels/offload.c geom_of with the
 * region of kernels/options.c kopts_region). */
static struct coll_geom geom_of(const struct model_machine *mc, const struct model_point *pt,
				const int *owner)
{
	int H = mc->nodes * mc->ppn;
	size_t mmax = pt->mmax > pt->m ? pt->mmax : pt->m;
	size_t chunk = pt->chunk ? pt->chunk : COLL_DEFAULT_CHUNK;
	int window = pt->window ? pt->window : COLL_DEFAULT_WINDOW;
	struct sched_region rg;

	/* Where the launch's other collectives would put the areas does not
	 * change a time: the region as if gathers ran beside it. */
	sched_region(H, mc->W, mmax, SCHED_RECV_ALL | coll_region_all(pt->coll),
		     pt->has_reduction || coll_is_reduction(pt->coll) ?
			     sched_scratch_bytes(H, mc->W, mmax, chunk, window) :
			     0,
		     &rg);
	return (struct coll_geom){
		.coll = pt->coll,
		.alg = pt->alg,
		.H = H,
		.W = mc->W,
		.m = pt->m,
		.S = rg.send,
		.owner = owner,
		.chunk = chunk,
		.window = window,
		.dt = pt->dt,
		.op = pt->op,
		.radix = pt->radix ? pt->radix : COLL_DEFAULT_RADIX,
		.R = rg.scratch,
		.F = rg.flags,
	};
}

/* A point's geometry and what it rests on. */
struct built {
	int *owner, *hn, *wn, *served0, *served;
	struct coll_geom g;
};

static void built_release(struct built *b)
{
	free(b->owner);
	free(b->hn);
	free(b->wn);
	free(b->served0);
	free(b->served);
}

/* As the kernel run with --ppn: host h on node h/ppn, worker w on node
 * w*nodes/W (kernels/sched/assign.c). 0, or -1 (nothing said). */
static int built_init(const struct model_machine *mc, const struct model_point *pt, struct built *b)
{
	int H = mc->nodes * mc->ppn;

	b->owner = xmalloc((size_t)H * sizeof(int));
	b->hn = xmalloc((size_t)H * sizeof(int));
	b->wn = xmalloc((size_t)mc->W * sizeof(int));
	/* Every worker's hosts once, not a scan of owner[] per worker. */
	b->served0 = xmalloc((size_t)(mc->W + 1) * sizeof(int));
	b->served = xmalloc((size_t)H * sizeof(int) + 1);
	assign_nodes(NULL, H, mc->W, mc->ppn, b->hn, b->wn);
	if (assign_hosts(pt->asg, H, mc->W, b->hn, b->wn, b->owner))
		return -1;
	b->g = geom_of(mc, pt, b->owner);
	sched_index_hosts(&b->g, b->served0, b->served);
	return 0;
}

static void ranks_release(struct coll_rank *cr, int n)
{
	for (int i = 0; cr && i < n; i++)
		coll_rank_release(&cr[i]);
	free(cr);
}

/* What building a rank's schedules cost: operations and dependencies,
 * of both phases, and the blocks it checks (memory and time go with it). */
static size_t rank_work(const struct coll_rank *cr)
{
	return cr->ref.n + cr->ref.ndeps + cr->off.n + cr->off.ndeps + cr->exp.n;
}

/* The schedules of ranks ids[0 .. n) (ids NULL: ranks 0 .. n), their work
 * added to *work; NULL when a builder refuses (nothing said) or, with
 * limit > 0, once *work passes limit (*work then says so). */
static struct coll_rank *build_ranks(const struct built *b, const int *ids, int n, size_t *work,
				     size_t limit)
{
	struct coll_rank *cr = xcalloc((size_t)n, sizeof(*cr));

	for (int i = 0; i < n; i++) {
		if (coll_build(&b->g, ids ? ids[i] : i, &cr[i])) {
			ranks_release(cr, n);
			return NULL;
		}
		*work += rank_work(&cr[i]);
		if (limit && *work > limit) {
			ranks_release(cr, n);
			return NULL;
		}
	}
	return cr;
}

/* CPU stretch of every rank in a phase where the hosts (hosts) or the
 * workers (!hosts) are active: active ranks of its node side over cores. */
static double *stretch(const struct model_machine *mc, int hosts)
{
	int H = mc->nodes * mc->ppn, N = H + mc->W;
	double *f = xmalloc((size_t)N * sizeof(*f));

	for (int r = 0; r < N; r++) {
		int dpu, node = model_rank_node(mc, r, &dpu), active;
		int cores = dpu ? mc->dpu_cores : mc->host_cores;

		if (hosts)
			active = r < H ? mc->ppn : 0;
		else
			active = r >= H ? (node == (mc->W - 1) / mc->wpn ? mc->W - node * mc->wpn :
									   mc->wpn) :
					  0;
		f[r] = cores > 0 && active > cores ? (double)active / cores : 1;
	}
	return f;
}

/* The time `n` processes of CPU work d[0 .. n) (ascending, core-us) take
 * on `cores` cores shared fairly: while m are left each runs at
 * min(1, cores / m), so the least finishes first. At least the total over
 * the cores and at least the largest. */
static double shared_cores(const double *d, int n, int cores, double of, double *at)
{
	double t = 0, given = 0;

	for (int i = 0; i < n; i++) {
		double rate = n - i > cores ? (double)cores / (n - i) : 1;

		t += (d[i] - given) / rate;
		given = d[i];
		/* When a process of work `of` is done: the first of its value. */
		if (at && d[i] == of && (i == 0 || d[i - 1] != of))
			*at = t;
	}
	return t;
}

/* Onload: the busiest node's hosts (ppn, each computing for compute_us on
 * its share of the cores) and workers (its busiest worker's CPU work and
 * the rest of the node's spread evenly over the others) on the node's
 * cores. A worker is one process: it cannot use more than one core, and
 * while the hosts compute it gets a share of one. Every process runs its
 * first slice unshared, timed from its own start (model_sim.c), so only
 * the work past it is shared, and the hosts' compute, calibrated in wall
 * time, is that much CPU work up to the slice. */
static double onload_cpu_bound(const struct model_params *p, const struct model_machine *mc,
			       const struct model_cpu *cpu, double compute_us, double *hosts_us)
{
	int wnodes = (mc->W + mc->wpn - 1) / mc->wpn, w = mc->wpn < mc->W ? mc->wpn : mc->W;
	int n = mc->ppn + w;
	double speed = mc->ppn > mc->host_cores ? (double)mc->host_cores / mc->ppn : 1;
	double node = cpu->total / wnodes, rest = w > 1 ? (node - cpu->busiest) / (w - 1) : 0;
	double host = compute_us > p->os_slice ? p->os_slice + (compute_us - p->os_slice) * speed :
						 compute_us;
	double *d = xmalloc((size_t)n * sizeof(*d)), t, most = 0;

	for (int i = 0; i < mc->ppn; i++)
		d[i] = host;
	d[mc->ppn] = w > 1 ? cpu->busiest : node;
	for (int i = mc->ppn + 1; i < n; i++)
		d[i] = rest > 0 ? rest : 0;
	for (int i = 0; i < n; i++) {
		most = d[i] > most ? d[i] : most;
		d[i] = d[i] > p->os_slice ? d[i] - p->os_slice : 0;
	}
	sort_doubles(d, (size_t)n);
	{
		double hrest = host > p->os_slice ? host - p->os_slice : 0, hat = 0;

		t = (most < p->os_slice ? most : p->os_slice) +
		    shared_cores(d, n, mc->host_cores, hrest, &hat);
		/* The hosts' own end: their unshared part, then their share. */
		*hosts_us = (host < p->os_slice ? host : p->os_slice) + hat;
	}
	free(d);
	return t;
}

static void derive(const struct model_params *p, const struct model_machine *mc,
		   const struct model_cpu *cpu, struct model_pred *o)
{
	double sd = sqrt(p->resid * p->resid + p->noise * p->noise), t = o->compute_us;

	o->host_us = o->compute_us;
	if (!mc->dpu && mc->host_cores > 0) {
		double h = 0, u = onload_cpu_bound(p, mc, cpu, o->compute_us, &h);

		if (u > t)
			t = u;
		if (h > o->host_us)
			o->host_us = h;
	}
	o->total_us = t > o->comm_us ? t : o->comm_us;
	o->oe_paper = 100 * o->ref_us / (o->comm_us > o->compute_us ? o->comm_us : o->compute_us);
	o->oe_measured = 100 * o->ref_us / o->total_us;
	if (o->oe_measured > 100)
		o->oe_measured = 100;
	o->sd_rel = sd;
	/* ref and the other time each off by sd, independently. */
	o->oe_paper_sd = o->oe_paper * sqrt(2) * sd;
	o->oe_measured_sd = o->oe_measured * sqrt(2) * sd;
}

/* Whether b is a's schedule with every peer `by` nodes on (offsets are
 * not compared: no time depends on them). */
static int sched_shifted(const struct model_machine *mc, const struct sched *a,
			 const struct sched *b, int by)
{
	if (a->n != b->n || a->ndeps != b->ndeps ||
	    (a->ndeps && memcmp(a->deps, b->deps, a->ndeps * sizeof(*a->deps))))
		return 0;
	for (size_t i = 0; i < a->n; i++) {
		const struct op *x = &a->ops[i], *y = &b->ops[i];

		if (x->kind != y->kind || x->len != y->len || x->tag != y->tag ||
		    x->count != y->count || x->dep0 != y->dep0 || x->ndeps != y->ndeps ||
		    y->peer != model_rank_shift(mc, x->peer, by))
			return 0;
	}
	return 1;
}

/* What a prediction works from: node 0's ranks (ids, n0) and their
 * schedules, every rank's where a phase is simulated in full, the stretch
 * of each phase, and per phase whether classes stand for the ranks. */
struct prep {
	struct built b;
	int *ids, n0, N;
	struct coll_rank *reps, *all;
	double *f[2]; /* ref, comm */
	int classes[2];
	size_t work, limit; /* built so far; 0 or the most allowed */
};

/* Whether every node is node 0 one node on as far as anything but the
 * schedules goes: a worker set per node, owners and stretch that shift
 * with the nodes, and a post that moves the clock (model_sim.c). */
static int regular(const struct model_params *p, const struct model_machine *mc,
		   const struct prep *x)
{
	int H = mc->nodes * mc->ppn;

	if (mc->nodes < 2 || mc->W != mc->nodes * mc->wpn || !(p->o > 0))
		return 0;
	for (int h = 0; h < H; h++)
		if (x->b.owner[model_rank_shift(mc, h, 1)] !=
		    model_rank_shift(mc, H + x->b.owner[h], 1) - H)
			return 0;
	for (int r = 0; r < x->N; r++)
		for (int ph = 0; ph < 2; ph++)
			if (x->f[ph][r] != x->f[ph][model_rank_shift(mc, r, 1)])
				return 0;
	return 1;
}

/* Per phase, whether the schedules of every node are node 0's shifted:
 * compared on every node up to 8 nodes, beyond on nodes 1, 2, the middle
 * and the last (a builder's special ranks, a root, a leader, recdbl's
 * extras, sit at the start or the end of the ranks). -1 when a builder
 * refuses. */
static int classes_check(const struct model_machine *mc, struct prep *x)
{
	int n = mc->nodes, few = n <= 8, sample[4] = { 1, 2, n / 2, n - 1 };

	x->classes[0] = x->classes[1] = 1;
	for (int s = 0; s < (few ? n - 1 : 4); s++) {
		int by = few ? s + 1 : sample[s];

		for (int i = 0; i < x->n0 && (x->classes[0] || x->classes[1]); i++) {
			struct coll_rank cr;

			if (coll_build(&x->b.g, model_rank_shift(mc, x->ids[i], by), &cr))
				return -1;
			x->work += rank_work(&cr);
			x->classes[0] &= sched_shifted(mc, &x->reps[i].ref, &cr.ref, by);
			x->classes[1] &= sched_shifted(mc, &x->reps[i].off, &cr.off, by);
			coll_rank_release(&cr);
		}
	}
	return 0;
}

static void prep_release(struct prep *x)
{
	built_release(&x->b);
	ranks_release(x->reps, x->n0);
	ranks_release(x->all, x->N);
	free(x->ids);
	free(x->f[0]);
	free(x->f[1]);
}

/* The schedules a prediction needs: node 0's, and every rank's unless
 * classes stand for both phases. 0; 1 when they would take more than
 * x->limit (nothing said); -1 after error(). */
static int prep_init(const struct model_params *p, const struct model_machine *mc,
		     const struct model_point *pt, enum model_sim_mode mode, struct prep *x)
{
	x->N = mc->nodes * mc->ppn + mc->W;
	x->ids = xmalloc(((size_t)mc->ppn + (size_t)mc->wpn) * sizeof(int));
	x->n0 = model_node_ranks(mc, x->ids);
	x->f[0] = stretch(mc, 1);
	x->f[1] = stretch(mc, 0);
	if (built_init(mc, pt, &x->b) ||
	    !(x->reps = build_ranks(&x->b, x->ids, x->n0, &x->work, x->limit)) ||
	    (mode != MODEL_SIM_FULL && regular(p, mc, x) && classes_check(mc, x)) ||
	    (!(x->classes[0] && x->classes[1]) &&
	     !(x->all = build_ranks(&x->b, NULL, x->N, &x->work, x->limit)))) {
		if (x->limit && x->work > x->limit)
			return 1;
		return error("model: the builders refuse %s %s %s with H=%d W=%d m=%zu",
			     coll_names[pt->coll], alg_names[pt->alg], asg_names[pt->asg],
			     mc->nodes * mc->ppn, mc->W, pt->m);
	}
	return 0;
}

/* Phase ph (0: ref, 1: comm), by classes where they stand. */
static double phase(const struct model_params *p, const struct model_machine *mc,
		    const struct prep *x, int ph, struct model_cpu *cpu, struct model_pred *out)
{
	double *f, t;

	if (!x->classes[ph])
		return model_sim_phase(p, mc, x->all, !ph, x->f[ph], cpu, &out->ops);
	f = xmalloc((size_t)x->n0 * sizeof(*f));
	for (int i = 0; i < x->n0; i++)
		f[i] = x->f[ph][x->ids[i]];
	t = model_sim_classes(p, mc, x->reps, !ph, f, cpu, &out->ops);
	out->classes[ph] = x->n0;
	free(f);
	return t;
}

/* One point simulated on its own machine (classes where they stand, unless
 * mode is MODEL_SIM_FULL). *work: the operations, dependencies and blocks
 * built. 0; 1 when that would pass limit (> 0; nothing said); -1 after
 * error(). */
static int predict_exact(const struct model_params *p, const struct model_machine *mc,
			 const struct model_point *pt, enum model_sim_mode mode, size_t limit,
			 struct model_pred *out, size_t *work)
{
	struct prep x = { .limit = limit };
	struct model_cpu cpu = { 0, 0 };
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if ((ret = prep_init(p, mc, pt, mode, &x)))
		goto out;
	ret = -1;
	out->ref_us = phase(p, mc, &x, 0, NULL, out);
	out->comm_us = phase(p, mc, &x, 1, &cpu, out);
	if (out->ref_us < 0 || out->comm_us < 0) {
		error("model: the schedules of %s %s deadlock in simulation", coll_names[pt->coll],
		      alg_names[pt->alg]);
		goto out;
	}
	out->compute_us = out->ref_us;
	out->worker_cpu = cpu;
	derive(p, mc, &cpu, out);
	ret = 0;
out:
	*work = x.work;
	prep_release(&x);
	return ret;
}

/* y at x from n machines (2 or 3, each twice the nodes of the one
 * before): how the slope grows from one doubling to the next says how y
 * grows. About the same (within 25%: what one machine's edges, a root's
 * node, make of a linear time): the line through the last two; much
 * steeper (a leader's funnel: a parabola's slope doubles): y = a + b n^p,
 * p = 1 + log2(slope ratio), at most 3; much flatter (a tree's depth):
 * a + b log2(n).
 * Never below the largest machine's y. */
static double extrapolate(const double *xs, const double *ys, int n, double x)
{
	double d1 = ys[n - 1] - ys[n - 2],
	       y = ys[n - 1] + d1 / (xs[n - 1] - xs[n - 2]) * (x - xs[n - 1]);
	/* The slopes' ratio: 1 for a line, 2 for a parabola (doubling x). */
	double d0 = n == 3 ? ys[1] - ys[0] : 0,
	       r = d0 > 0 ? d1 / (xs[n - 1] - xs[n - 2]) / (d0 / (xs[1] - xs[0])) : 1;

	if (n == 3 && d0 > 0 && d1 > 0 && r > 1.25) {
		double p = 1 + log2(r), b;

		p = p < 3 ? p : 3;
		b = d1 / (pow(xs[2], p) - pow(xs[1], p));
		y = ys[2] + b * (pow(x, p) - pow(xs[2], p));
	} else if (n == 3 && d0 > 0 && d1 > 0 && r < 0.8)
		y = ys[2] + d1 / log2(xs[2] / xs[1]) * log2(x / xs[2]);
	return y > ys[n - 1] ? y : ys[n - 1];
}

int model_predict(const struct model_params *p, const struct model_machine *mc,
		  const struct model_point *pt, struct model_pred *out)
{
	return model_predict_mode(p, mc, pt, MODEL_SIM_AUTO, out);
}

int model_predict_mode(const struct model_params *p, const struct model_machine *mc,
		       const struct model_point *pt, enum model_sim_mode mode,
		       struct model_pred *out)
{
	return model_predict_budget(p, mc, pt, mode, MODEL_SIM_BUDGET, out);
}

int model_predict_budget(const struct model_params *p, const struct model_machine *mc,
			 const struct model_point *pt, enum model_sim_mode mode, size_t budget,
			 struct model_pred *out)
{
	struct model_pred r[3];
	double xs[3], y[4][3];
	size_t work = 0, prev = 0;
	int n, k = 0, rc;

	memset(out, 0, sizeof(*out));
	if (mc->nodes < 1 || mc->ppn < 1 || mc->W < 1 || mc->wpn < 1)
		return error("model: a machine needs nodes, ppn, workers and wpn >= 1");
	/* Exact: asked for, a small machine, or one not every node of which
	 * has its workers (nothing to scale down). */
	if (mode != MODEL_SIM_AUTO || !budget || mc->nodes <= MODEL_SIM_SMALL ||
	    mc->W != mc->nodes * mc->wpn) {
		rc = predict_exact(p, mc, pt, mode, 0, out, &work);
		return rc ? -1 : 0;
	}
	/* Machines of 1, 2, 4 ... nodes, each simulated exactly, until the
	 * next would pass the budget (its work projected from the growth so
	 * far), or until this one fits it: then it is simulated exactly. */
	for (n = 2; n < mc->nodes; n *= 2) {
		struct model_machine sm = *mc;
		double grow;

		sm.nodes = n;
		sm.W = n * mc->wpn;
		prev = work;
		work = 0;
		if ((rc = predict_exact(p, &sm, pt, mode, 10 * budget, &r[k % 3], &work)) < 0)
			return -1;
		if (rc > 0)
			break;
		xs[k % 3] = n;
		k++;
		grow = k >= 2 && prev ? (double)work / (double)prev : 8;
		if (grow < 2)
			grow = 2;
		if ((double)work * pow(grow, log2((double)mc->nodes / n)) <= 4.0 * (double)budget) {
			if ((rc = predict_exact(p, mc, pt, mode, 4 * budget, out, &work)) <= 0)
				return rc;
			break; /* larger than it seemed: from the smaller ones */
		}
		if (k >= 3 && (double)work * grow > (double)budget)
			break;
	}
	if (k < 2)
		return error("model: %s %s %s of %zu bytes on %d nodes is too large to simulate "
			     "from smaller machines (%d nodes alone builds more than %zu "
			     "operations)",
			     coll_names[pt->coll], alg_names[pt->alg], asg_names[pt->asg], pt->m,
			     mc->nodes, n, 10 * budget);
	/* The last three machines (two where a third would not fit), in
	 * order. */
	{
		int np = k < 3 ? k : 3;
		double x3[3];
		struct model_cpu cpu;

		for (int i = 0; i < np; i++) {
			const struct model_pred *q = &r[(k - np + i) % 3];

			x3[i] = xs[(k - np + i) % 3];
			y[0][i] = q->ref_us;
			y[1][i] = q->comm_us;
			y[2][i] = q->worker_cpu.total;
			y[3][i] = q->worker_cpu.busiest;
			out->ops += q->ops;
			out->extrapolated[i] = (int)x3[i];
		}
		out->ref_us = extrapolate(x3, y[0], np, mc->nodes);
		out->comm_us = extrapolate(x3, y[1], np, mc->nodes);
		cpu.total = extrapolate(x3, y[2], np, mc->nodes);
		cpu.busiest = extrapolate(x3, y[3], np, mc->nodes);
		out->compute_us = out->ref_us;
		out->worker_cpu = cpu;
		derive(p, mc, &cpu, out);
	}
	return 0;
}
