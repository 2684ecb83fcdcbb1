/*
 * kernels/offload.c: one launch of the offloaded kernels. Sets up once, for
 * the largest point (the transport's region, the workers' communicator, the
 * assignment of hosts to workers for each rule, the compute rate), then
 * measures every listed collective x algorithm x assignment x size.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "assign.h"
#include "coll.h"
#include "harness.h"
#include "modes.h"
#include "reduce.h"
#include "xalloc.h"

/* The geometry of a point (m = 1 byte and the largest chunk do for
 * talks_of: who talks to whom does not depend on them). */
static struct coll_geom geom_of(const struct kctx *k, const struct sched_region *rg, int c, int a,
				const int *owner, uint64_t m, int dt, int op)
{
	return (struct coll_geom){
		.coll = c,
		.alg = a,
		.H = k->H,
		.W = k->W,
		.m = m,
		.S = rg->send,
		.owner = owner,
		.chunk = k->o->chunks[0],
		.window = k->o->windows[0],
		.dt = dt,
		.op = op,
		.radix = k->o->radixes[0],
		.R = rg->scratch,
		.F = rg->flags,
	};
}

static int point_listed(const struct kopts *o, int c, int a, int s)
{
	return (o->colls & (1u << c)) && alg_applies(c, a) &&
	       (o->algs ? !!(o->algs & (1u << a)) : alg_is_default(a)) && (o->asgs & (1u << s));
}

/* Marks in talks[] the ranks this one exchanges data with in g. */
static void talks_add(const struct kctx *k, const struct coll_geom *g, unsigned char *talks)
{
	for (int r = 0; r < k->size; r++) {
		struct coll_rank cr;

		if (coll_build(g, r, &cr))
			continue;
		for (int pl = 0; pl < 2; pl++) {
			const struct sched *p = pl ? &cr.off : &cr.ref;

			for (size_t i = 0; i < p->n; i++) {
				int peer = p->ops[i].peer;

				if (r == k->rank && peer != k->rank)
					talks[peer] = 1;
				if (peer == k->rank && r != k->rank)
					talks[r] = 1;
			}
		}
		coll_rank_release(&cr);
	}
}

/* Which ranks this one exchanges data with in any listed point, so that
 * transports that connect pairs (verbs) connect only those; ranks 0 and 1
 * always (the p2p_bw measurement). A k-nomial tree's shape is its
 * radix's: every listed radix counts. */
static unsigned char *talks_of(const struct kctx *k, const struct sched_region *rg,
			       int *const owners[ASG_N])
{
	unsigned char *talks = xcalloc((size_t)k->size, 1);

	if (k->rank < 2)
		talks[1 - k->rank] = 1;
	for (int c = 0; c < COLL_N; c++)
		for (int a = 0; a < ALG_N; a++)
			for (int s = 0; s < ASG_N; s++) {
				/* Reductions: enough elements that every part, of H
				 * or of W, has some; room for any scratch. */
				struct coll_geom g = geom_of(
					k, rg, c, a, owners[s],
					coll_is_reduction(c) ? (uint64_t)k->H * k->W * 8 : 1,
					DT_INT64, RO_SUM);

				g.F = SIZE_MAX;
				if (!point_listed(k->o, c, a, s))
					continue;
				for (size_t x = 0; x < (alg_has_radix(a) ? k->o->nradixes : 1);
				     x++) {
					g.radix = k->o->radixes[x];
					talks_add(k, &g, talks);
				}
			}
	return talks;
}

/* Runs and reports one point; 0, or -1 after a transport failure. */
static int one_point(struct kctx *k, struct runinfo *ri, const struct coll_geom *g, int s,
		     FILE *out, int *invalid)
{
	struct point_result res;

	if (run_point(k, g, &res))
		return -1;
	*invalid |= !res.valid;
	if (!out)
		return 0;
	out_point_json(out, ri, g, s, &res);
	out_point_row(stderr, g, s, &res);
	if (!res.calibrated)
		fprintf(stderr,
			"sweetspot-kernel: warning: %s %s %s %zu B: the dummy compute misses the "
			"reference by %.1f%% after %d recalibrations (--calib-tolerance %g): "
			"\"calibrated\":false\n",
			coll_names[g->coll], alg_names[g->alg], asg_names[s], g->m,
			100 * res.calib_error, res.recalibrations, k->o->calib_tolerance);
	if (!res.valid)
		fprintf(stderr,
			"sweetspot-kernel: %s %s %s %zu B: INVALID (%s phase): rank %d, first bad "
			"byte at offset %lld (block of rank %d)\n",
			coll_names[g->coll], alg_names[g->alg], asg_names[s], g->m, res.bad_phase,
			res.bad_rank, res.bad_offset, res.bad_src);
	return 0;
}

/* One listed (collective, algorithm, assignment, dtype, op, size) at every
 * chunk x window (where they apply) x radix (knomial) of the command line. */
static int point_axes(struct kctx *k, struct runinfo *ri, struct coll_geom *g, int s, FILE *out,
		      int *invalid)
{
	const struct kopts *o = k->o;
	int pipe = alg_is_pipelined(g->coll, g->alg), knom = alg_has_radix(g->alg);

	for (size_t c = 0; c < (pipe ? o->nchunks : 1); c++)
		for (size_t w = 0; w < (pipe ? o->nwindows : 1); w++)
			for (size_t x = 0; x < (knom ? o->nradixes : 1); x++) {
				g->chunk = o->chunks[c];
				g->window = o->windows[w];
				g->radix = o->radixes[x];
				/* A failed transport leaves peers mid-collective:
				 * no collective fini, main() aborts the job. */
				if (one_point(k, ri, g, s, out, invalid))
					return -1;
			}
	return 0;
}

/* Every listed point; 0, or -1 after a transport failure. */
static int all_points(struct kctx *k, struct runinfo *ri, const struct sched_region *rg,
		      int *const owners[ASG_N], FILE *out, int *invalid)
{
	const struct kopts *o = k->o;

	for (int c = 0; c < COLL_N; c++)
		for (int a = 0; a < ALG_N; a++)
			for (int s = 0; s < ASG_N; s++)
				for (int dt = 0; dt < DT_N; dt++)
					for (int op = 0; op < RO_N; op++)
						for (size_t z = 0; z < o->nsizes; z++) {
							int red = coll_is_reduction(c);
							struct coll_geom g = geom_of(
								k, rg, c, a, owners[s], o->sizes[z],
								dt, op);

							if (!point_listed(o, c, a, s) ||
							    (red && (!(o->dtypes & (1u << dt)) ||
								     !(o->redops & (1u << op)) ||
								     !redop_applies(dt, op))) ||
							    (!red && (dt || op)))
								continue;
							if (point_axes(k, ri, &g, s, out, invalid))
								return -1;
						}
	return 0;
}

/* The transport's point-to-point write bandwidth at the largest size,
 * once per launch, as --mode bw measures it. */
static int measure_p2p(struct kctx *k, const struct sched_region *rg, struct runinfo *ri)
{
	struct point_result pr;
	double us = 0;

	if (bw_measure(k->t, k->world, k->o, rg->send, 1, &us, &pr))
		return -1;
	ri->p2p_bw = pr.valid && us > 0 ? rg->send / (us * 1e-6) : 0;
	return 0;
}

int mode_offload(MPI_Comm world, const struct kopts *o, const char *transport, struct runinfo *ri,
		 FILE *out)
{
	struct kctx k = { .o = o, .world = world, .wcomm = MPI_COMM_NULL };
	int *owners[ASG_N] = { NULL }, *host_node, *worker_node, ret = -1, invalid = 0;
	unsigned char *talks = NULL;
	struct sched_region rg;
	struct transport_cfg cfg;

	MPI_Comm_rank(world, &k.rank);
	MPI_Comm_size(world, &k.size);
	k.W = o->workers;
	k.H = k.size - k.W;
	k.fault_pending = !!(o->faults & FAULT_FLIP_BYTE);
	MPI_Comm_split(world, k.rank >= k.H ? 1 : MPI_UNDEFINED, k.rank, &k.wcomm);

	host_node = xmalloc((size_t)k.H * sizeof(int));
	worker_node = xmalloc((size_t)k.W * sizeof(int));
	assign_nodes((const char *const *)ri->hi->names, k.H, k.W, o->ppn, host_node, worker_node);
	for (int s = 0; s < ASG_N; s++) {
		owners[s] = xmalloc((size_t)k.H * sizeof(int));
		assign_hosts(s, k.H, k.W, host_node, worker_node, owners[s]);
	}
	kopts_region(o, k.H, &rg);
	talks = talks_of(&k, &rg, owners);
	cfg = (struct transport_cfg){
		.bytes = rg.bytes,
		.talks = talks,
		.device = o->device,
		.ib_port = o->ib_port,
		.gid_index = o->gid_index,
		.fault = getenv("SWEETSPOT_FAULT"),
	};
	k.t = transport_new(transport);
	if (!k.t) {
		fprintf(stderr, "sweetspot-kernel: transport %s is not built in\n", transport);
		goto out;
	}
	if ((ret = k.t->ops->init(k.t, &cfg, world)) != 0) {
		ret = ret == -2 ? -2 : -1; /* -2: bad input, all ranks agree */
		goto out_free;
	}
	ret = -1;
	ri->device = k.t->device;
	fault_hang(o, k.rank);
	/* Flags hold stamps of iterations: none yet, before anyone signals
	 * (compute_calibrate's barrier orders this before any use). */
	memset((char *)k.t->base + rg.flags, 0, rg.bytes - rg.flags);
	if (k.t->ops->sync(k.t) || measure_p2p(&k, &rg, ri))
		goto out_free;
	compute_calibrate(&k);
	if (out)
		out_point_header(stderr, ri);
	if (all_points(&k, ri, &rg, owners, out, &invalid))
		goto out_free;
	ret = k.t->ops->fini(k.t) ? -1 : invalid;
out_free:
	free(k.t);
out:
	if (k.wcomm != MPI_COMM_NULL)
		MPI_Comm_free(&k.wcomm);
	for (int s = 0; s < ASG_N; s++)
		free(owners[s]);
	free(host_node);
	free(worker_node);
	free(talks);
	return ret;
}
