/*
 * kernels/bw.c: --mode bw, the transport's write path alone: rank 0 writes
 * its first-size block into rank 1's region, write + completion at the
 * target, over and over (--burst N: N writes in flight per wait); other
 * ranks wait. The figure the benchmark scripts set beside memcpy over the
 * same working set (rma) or perftest's ib_write_bw (verbs). The last write
 * is checked. The offloaded kernels measure the same way, once per launch,
 * for the p2p_bw their bandwidths are compared with.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "modes.h"
#include "validate.h"
#include "xalloc.h"

int bw_measure(struct transport *t, MPI_Comm world, const struct kopts *o, size_t m, int burst,
	       double *us, struct point_result *pr)
{
	double t0 = 0, elapsed = 0;
	long long bad = -1;
	int rank, src = -1;
	const uint64_t seq = 1;

	MPI_Comm_rank(world, &rank);
	*pr = (struct point_result){ .valid = 1, .bad_rank = -1, .bad_src = -1, .bad_offset = -1 };
	if (rank == 0) {
		pattern_fill(t->base, m, 0, seq);
		if (t->ops->sync(t))
			return -1;
	}
	nb_barrier(world);
	/* With a burst of N, N writes are in flight before each wait, as a
	 * streaming bandwidth test (perftest's) keeps the link busy; the
	 * warm-up's writes are all complete before the clock starts. */
	for (int i = 0, n = o->warmup + o->iterations; rank == 0 && i < n; i++) {
		if (i == o->warmup) {
			if (t->ops->wait(t))
				return -1;
			t0 = MPI_Wtime();
		}
		if (t->ops->write(t, 1, 0, 0, m))
			return -1;
		if (((i + 1) % burst == 0 || i + 1 == n) && t->ops->wait(t))
			return -1;
	}
	if (rank == 0)
		elapsed = MPI_Wtime() - t0;
	nb_barrier(world);
	if (rank == 1) {
		if (t->ops->sync(t))
			return -1;
		check_blocks(t->base, NULL, &(struct expect){ &(struct block){ 0, m, 0, 0 }, 1, 1 },
			     seq, &bad, &src);
	}
	combine_validation(world, bad, src, "bw", pr);
	*us = elapsed * 1e6 / o->iterations;
	MPI_Bcast(us, 1, MPI_DOUBLE, 0, world);
	return 0;
}

int mode_bw(MPI_Comm world, const struct kopts *o, const char *transport, struct runinfo *ri,
	    FILE *out)
{
	struct transport *t = transport_new(transport);
	size_t m = o->sizes[0];
	unsigned char *talks;
	struct transport_cfg cfg;
	struct point_result pr;
	double us = 0;
	int rank, size, ret = -1;

	MPI_Comm_rank(world, &rank);
	MPI_Comm_size(world, &size);
	talks = xcalloc((size_t)size, 1);
	if (!t)
		abort();
	if (rank < 2)
		talks[1 - rank] = 1;
	cfg = (struct transport_cfg){ .bytes = m,
				      .talks = talks,
				      .device = o->device,
				      .ib_port = o->ib_port,
				      .gid_index = o->gid_index,
				      .fault = getenv("SWEETSPOT_FAULT") };
	if ((ret = t->ops->init(t, &cfg, world)) != 0) {
		ret = ret == -2 ? -2 : -1; /* -2: bad input, all ranks agree */
		goto out;
	}
	ret = -1;
	ri->device = t->device;
	fault_hang(o, rank);
	if (bw_measure(t, world, o, m, o->burst, &us, &pr))
		goto out;
	if (out) {
		fprintf(out, "{\"schema\":%d,\"mode\":\"bw\",\"transport\":", SCHEMA_VERSION);
		kout_json_string(out, transport);
		fprintf(out, ",\"device\":");
		kout_json_string(out, ri->device);
		fprintf(out,
			",\"bytes\":%zu,\"iterations\":%d,\"warmup\":%d,\"burst\":%d,"
			"\"us_per_write\":%.3f,\"bytes_per_s\":%.0f,\"valid\":%s}\n",
			m, o->iterations, o->warmup, o->burst, us, m / (us * 1e-6),
			pr.valid ? "true" : "false");
		fflush(out);
		fprintf(stderr, "# %s write %zu B rank 0 -> 1: %.2f us, %.1f MB/s%s\n", transport,
			m, us, m / us, pr.valid ? "" : " INVALID");
	}
	ret = t->ops->fini(t) ? -1 : !pr.valid;
out:
	free(t);
	free(talks);
	return ret;
}
