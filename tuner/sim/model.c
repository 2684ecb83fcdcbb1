/*
 * tuner/sim/model.c: one point's prediction from the simulated phases, as the
 * kernel measures them (kernels/harness.c): ref (hosts alone), comm
 * (workers alone), compute (calibrated by the kernel to last ref, so
 * predicted as ref) and total (hosts compute while workers communicate).
 * The total is the largest of compute, comm and the CPU work of one node
 * over its cores: onload workers share the hosts' cores, and a compute
 * phase that fills them leaves the workers only what is left over.
 */
#include "model.h"
#include "coll.h"
#include "error.h"
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

/* Every rank's schedules; NULL after error(). */
static struct coll_rank *build_all(const struct model_machine *mc, const struct model_point *pt,
				   int **owner_out)
{
	int H = mc->nodes * mc->ppn, N = H + mc->W;
	int *owner = xmalloc((size_t)H * sizeof(int)), *hn = xmalloc((size_t)H * sizeof(int));
	int *wn = xmalloc((size_t)mc->W * sizeof(int)), *served0 = NULL, *served = NULL;
	struct coll_rank *cr = xcalloc((size_t)N, sizeof(*cr));
	struct coll_geom g;

	/* As the kernel run with --ppn: host h on node h/ppn, worker w on
	 * node w*nodes/W (kernels/sched/assign.c). */
	assign_nodes(NULL, H, mc->W, mc->ppn, hn, wn);
	if (assign_hosts(pt->asg, H, mc->W, hn, wn, owner))
		goto fail;
	g = geom_of(mc, pt, owner);
	/* Every worker's hosts once, not a scan of owner[] per worker. */
	served0 = xmalloc((size_t)(mc->W + 1) * sizeof(int));
	served = xmalloc((size_t)H * sizeof(int) + 1);
	sched_index_hosts(&g, served0, served);
	for (int r = 0; r < N; r++)
		if (coll_build(&g, r, &cr[r]))
			goto fail;
	free(hn);
	free(wn);
	free(served0);
	free(served);
	*owner_out = owner;
	return cr;
fail:
	for (int r = 0; r < N; r++)
		coll_rank_release(&cr[r]);
	free(cr);
	free(owner);
	free(hn);
	free(wn);
	free(served0);
	free(served);
	error("model: the builders refuse %s %s %s with H=%d W=%d m=%zu", coll_names[pt->coll],
	      alg_names[pt->alg], asg_names[pt->asg], H, mc->W, pt->m);
	return NULL;
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

static void derive(const struct model_params *p, const struct model_machine *mc, double worker_cpu,
		   struct model_pred *o)
{
	double sd = sqrt(p->resid * p->resid + p->noise * p->noise), t = o->compute_us;

	if (!mc->dpu && mc->host_cores > 0) {
		/* Onload: a node's hosts compute on min(cores, ppn) cores while
		 * its workers' CPU work needs the same cores. */
		int wnodes = (mc->W + mc->wpn - 1) / mc->wpn;
		double speed = mc->ppn > mc->host_cores ? (double)mc->host_cores / mc->ppn : 1;
		double work = mc->ppn * o->compute_us * speed + worker_cpu / wnodes;
		int cores = mc->host_cores < mc->ppn + mc->wpn ? mc->host_cores : mc->ppn + mc->wpn;

		if (work / cores > t)
			t = work / cores;
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

int model_predict(const struct model_params *p, const struct model_machine *mc,
		  const struct model_point *pt, struct model_pred *out)
{
	int H = mc->nodes * mc->ppn, N = H + mc->W, *owner = NULL, ret = -1;
	struct coll_rank *cr;
	double *fh, *fw, cpu = 0;

	memset(out, 0, sizeof(*out));
	if (mc->nodes < 1 || mc->ppn < 1 || mc->W < 1 || mc->wpn < 1)
		return error("model: a machine needs nodes, ppn, workers and wpn >= 1");
	cr = build_all(mc, pt, &owner);
	if (!cr)
		return -1;
	fh = stretch(mc, 1);
	fw = stretch(mc, 0);
	out->ref_us = model_sim_phase(p, mc, cr, 1, fh, NULL, &out->ops);
	out->comm_us = model_sim_phase(p, mc, cr, 0, fw, &cpu, &out->ops);
	if (out->ref_us < 0 || out->comm_us < 0) {
		error("model: the schedules of %s %s deadlock in simulation", coll_names[pt->coll],
		      alg_names[pt->alg]);
		goto out;
	}
	out->compute_us = out->ref_us;
	derive(p, mc, cpu, out);
	ret = 0;
out:
	for (int r = 0; r < N; r++)
		coll_rank_release(&cr[r]);
	free(cr);
	free(owner);
	free(fh);
	free(fw);
	return ret;
}
