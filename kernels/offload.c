/*
 * kernels/offload.c: one launch of the offloaded kernels. Sets up once, for
 * the largest point (the transport's region, the workers' communicator, the
 * assignment of hosts to workers for each rule, the compute rate), then
 * measures every listed collective x algorithm x assignment x size.
 */
#include <stdlib.h>
#include <string.h>

#include "assign.h"
#include "coll.h"
#include "harness.h"
#include "modes.h"

/* Which ranks this one exchanges data with in any listed point, so that
 * transports that connect pairs (verbs) connect only those. */
static unsigned char *talks_of(const struct kopts *o, int rank, int size, int H, int W,
			       int *const owners[ASG_N])
{
	unsigned char *talks = calloc((size_t)size, 1);

	if (!talks)
		abort();
	for (int c = 0; c < COLL_N; c++)
		for (int a = 0; a < ALG_N; a++)
			for (int s = 0; s < ASG_N; s++) {
				struct coll_geom g = { c, a, H, W, 1, 1, owners[s] };

				if (!(o->colls & (1u << c)) || !alg_applies(c, a) ||
				    (o->algs && !(o->algs & (1u << a))) || !(o->asgs & (1u << s)))
					continue;
				for (int r = 0; r < size; r++) {
					struct coll_rank cr;

					if (coll_build(&g, r, &cr))
						continue;
					for (int pl = 0; pl < 2; pl++) {
						const struct plan *p = pl ? &cr.off : &cr.ref;

						for (int st = 0; st < p->nstages; st++)
							for (size_t i = 0; i < p->st[st].n; i++) {
								int peer = p->st[st].ops[i].peer;

								if (r == rank && peer != rank)
									talks[peer] = 1;
								if (peer == rank && r != rank)
									talks[r] = 1;
							}
					}
					coll_rank_release(&cr);
				}
			}
	return talks;
}

int mode_offload(MPI_Comm world, const struct kopts *o, const char *transport,
		 struct runinfo *ri, FILE *out)
{
	struct kctx k = { .o = o, .world = world, .wcomm = MPI_COMM_NULL };
	int *owners[ASG_N] = { NULL }, *host_node, *worker_node, ret = -1, invalid = 0;
	unsigned char *talks = NULL;
	uint64_t send_area, region;
	struct transport_cfg cfg;

	MPI_Comm_rank(world, &k.rank);
	MPI_Comm_size(world, &k.size);
	k.W = o->workers;
	k.H = k.size - k.W;
	k.fault_pending = !!(o->faults & FAULT_FLIP_BYTE);
	MPI_Comm_split(world, k.rank >= k.H ? 1 : MPI_UNDEFINED, k.rank, &k.wcomm);

	host_node = malloc((size_t)k.H * sizeof(int));
	worker_node = malloc((size_t)k.W * sizeof(int));
	if (!host_node || !worker_node)
		abort();
	assign_nodes((const char *const *)ri->hi->names, k.H, k.W, o->ppn, host_node, worker_node);
	for (int s = 0; s < ASG_N; s++) {
		owners[s] = malloc((size_t)k.H * sizeof(int));
		if (!owners[s])
			abort();
		assign_hosts(s, k.H, k.W, host_node, worker_node, owners[s]);
	}
	talks = talks_of(o, k.rank, k.size, k.H, k.W, owners);
	region = kopts_region_bytes(o, k.H, &send_area);
	cfg = (struct transport_cfg){
		.bytes = region, .talks = talks, .device = o->device, .ib_port = o->ib_port,
		.gid_index = o->gid_index, .fault = getenv("SWEETSPOT_FAULT"),
	};
	k.t = transport_new(transport);
	if (!k.t) {
		fprintf(stderr, "sweetspot-kernel: transport %s is not built in\n", transport);
		goto out;
	}
	if ((ret = k.t->ops->init(k.t, &cfg, world)) != 0) {
		ret = ret == -2 ? -2 : -1;	/* -2: bad input, all ranks agree */
		goto out_free;
	}
	ret = -1;
	ri->device = k.t->device;
	fault_hang(o, k.rank);
	compute_calibrate(&k);
	if (out)
		out_point_header(stderr, ri);
	for (int c = 0; c < COLL_N; c++)
		for (int a = 0; a < ALG_N; a++)
			for (int s = 0; s < ASG_N; s++)
				for (size_t z = 0; z < o->nsizes; z++) {
					struct coll_geom g = { c, a, k.H, k.W, o->sizes[z], send_area, owners[s] };
					struct point_result res;

					if (!(o->colls & (1u << c)) || !alg_applies(c, a) ||
					    (o->algs && !(o->algs & (1u << a))) || !(o->asgs & (1u << s)))
						continue;
					/* A failed transport leaves peers mid-collective:
					 * no collective fini, main() aborts the job. */
					if (run_point(&k, &g, &res))
						goto out_free;
					invalid |= !res.valid;
					if (out) {
						out_point_json(out, ri, c, a, s, o->sizes[z], &res);
						out_point_row(stderr, c, a, s, o->sizes[z], &res);
						if (!res.valid)
							fprintf(stderr, "sweetspot-kernel: %s %s %s %llu B: INVALID (%s phase): rank %d, first bad byte at offset %lld (block of rank %d)\n",
								coll_names[c], alg_names[a], asg_names[s],
								(unsigned long long)o->sizes[z], res.bad_phase,
								res.bad_rank, res.bad_offset, res.bad_src);
					}
				}
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
