/*
 * kernels/bw.c: --mode bw, the transport's write path alone: rank 0 writes
 * its first-size block into rank 1's region, write + completion at the
 * target, over and over; other ranks wait. The figure the benchmark script
 * sets beside memcpy over the same working set. The last write is checked.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "modes.h"
#include "validate.h"

int mode_bw(MPI_Comm world, const struct kopts *o, const char *transport,
	    struct runinfo *ri, FILE *out)
{
	struct transport *t = transport_new(transport);
	size_t m = o->sizes[0];
	unsigned char *talks;
	struct transport_cfg cfg;
	struct point_result pr = { .valid = 1, .bad_rank = -1, .bad_src = -1, .bad_offset = -1 };
	double t0 = 0, elapsed = 0;
	long long bad = -1;
	int rank, size, src = -1, ret = -1;
	const uint64_t seq = 1;

	MPI_Comm_rank(world, &rank);
	MPI_Comm_size(world, &size);
	talks = calloc((size_t)size, 1);
	if (!talks || !t)
		abort();
	if (rank < 2)
		talks[1 - rank] = 1;
	cfg = (struct transport_cfg){ .bytes = m, .talks = talks, .device = o->device,
				      .ib_port = o->ib_port, .gid_index = o->gid_index,
				      .fault = getenv("SWEETSPOT_FAULT") };
	if ((ret = t->ops->init(t, &cfg, world)) != 0) {
		ret = ret == -2 ? -2 : -1;	/* -2: bad input, all ranks agree */
		goto out;
	}
	ret = -1;
	ri->device = t->device;
	fault_hang(o, rank);
	if (rank == 0) {
		pattern_fill(t->base, m, 0, seq);
		if (t->ops->sync(t))
			goto out;
	}
	nb_barrier(world);
	for (int i = 0; rank == 0 && i < o->warmup + o->iterations; i++) {
		if (i == o->warmup)
			t0 = MPI_Wtime();
		if (t->ops->write(t, 1, 0, 0, m) || t->ops->wait(t))
			goto out;
	}
	if (rank == 0)
		elapsed = MPI_Wtime() - t0;
	nb_barrier(world);
	if (rank == 1) {
		if (t->ops->sync(t))
			goto out;
		check_blocks(t->base, &(struct expect){ &(struct block){ 0, m, 0 }, 1, 1 }, seq, &bad, &src);
	}
	combine_validation(world, bad, src, "bw", &pr);
	if (out) {
		double us = elapsed * 1e6 / o->iterations;

		fprintf(out, "{\"schema\":%d,\"mode\":\"bw\",\"transport\":", SCHEMA_VERSION);
		json_string(out, transport);
		fprintf(out, ",\"device\":");
		json_string(out, ri->device);
		fprintf(out, ",\"bytes\":%zu,\"iterations\":%d,\"warmup\":%d,\"us_per_write\":%.3f,"
			"\"bytes_per_s\":%.0f,\"valid\":%s}\n", m, o->iterations, o->warmup, us,
			m / (us * 1e-6), pr.valid ? "true" : "false");
		fflush(out);
		fprintf(stderr, "# %s write %zu B rank 0 -> 1: %.2f us, %.1f MB/s%s\n", transport, m,
			us, m / us, pr.valid ? "" : " INVALID");
	}
	ret = t->ops->fini(t) ? -1 : !pr.valid;
out:
	free(t);
	free(talks);
	return ret;
}
