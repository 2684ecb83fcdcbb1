/*
 * kernels/mpimode.c: the host-only baseline (--mode mpi). Every rank is a
 * host and the MPI library's own MPI_Bcast (root 0), MPI_Gather (root 0) or
 * MPI_Allgather runs, so that the tuner can compare offloading with what
 * the library does, and Open MPI's coll/tuned algorithm choices
 * (OMPI_MCA_coll_tuned_<coll>_algorithm) can be measured and recorded.
 * Same loop, validation and MPI_MAX reduction as the offloaded kernels.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "modes.h"
#include "validate.h"

/* "tuned:N" when the run forces an Open MPI coll/tuned algorithm. */
static void algorithm_of(enum coll c, char *buf, size_t len)
{
	char var[64];
	const char *v;

	snprintf(var, sizeof(var), "OMPI_MCA_coll_tuned_%s_algorithm", coll_names[c]);
	v = getenv(var);
	if (v && *v)
		snprintf(buf, len, "tuned:%s", v);
	else
		snprintf(buf, len, "default");
}

/* corrupt: flip one byte of the data one rank sends in the last iteration
 * (the root for bcast, the last rank otherwise), for the fault test. */
static int mpi_point(MPI_Comm world, const struct kopts *o, enum coll c, size_t m,
		     char *sendbuf, char *recvbuf, uint64_t *seq, int corrupt,
		     struct mpi_result *res)
{
	int rank, size, n = o->warmup + o->iterations, rc = MPI_SUCCESS;
	double *times = malloc((size_t)o->iterations * sizeof(*times));
	struct point_result pr = { .valid = 1, .bad_rank = -1, .bad_src = -1, .bad_offset = -1 };
	long long bad = -1;
	int src = -1;

	if (!times)
		abort();
	MPI_Comm_rank(world, &rank);
	MPI_Comm_size(world, &size);
	for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
		double t0;

		++*seq;
		if (o->validate) {
			if (c == COLL_BCAST && rank == 0)
				pattern_fill(recvbuf, m, 0, *seq);
			else if (c != COLL_BCAST)
				pattern_fill(sendbuf, m, rank, *seq);
		}
		if (corrupt && i == n - 1 && rank == (c == COLL_BCAST ? 0 : size - 1))
			(c == COLL_BCAST ? recvbuf : sendbuf)[m / 2] ^= 0x5a;
		nb_barrier(world);
		t0 = MPI_Wtime();
		switch (c) {
		case COLL_BCAST:
			rc = MPI_Bcast(recvbuf, (int)m, MPI_BYTE, 0, world);
			break;
		case COLL_GATHER:
			rc = MPI_Gather(sendbuf, (int)m, MPI_BYTE, recvbuf, (int)m, MPI_BYTE, 0, world);
			break;
		default:
			rc = MPI_Allgather(sendbuf, (int)m, MPI_BYTE, recvbuf, (int)m, MPI_BYTE, world);
			break;
		}
		if (i >= o->warmup)
			times[i - o->warmup] = (MPI_Wtime() - t0) * 1e6;
	}
	if (rc != MPI_SUCCESS) {
		char msg[MPI_MAX_ERROR_STRING];
		int len;

		MPI_Error_string(rc, msg, &len);
		fprintf(stderr, "sweetspot-kernel: rank %d: MPI %s: %s\n", rank, coll_names[c], msg);
		free(times);
		return -1;
	}
	nb_barrier(world);
	MPI_Allreduce(MPI_IN_PLACE, times, o->iterations, MPI_DOUBLE, MPI_MAX, world);
	tstats_of(times, o->iterations, &res->t);
	if (o->validate) {
		struct expect e = { NULL, 0, 0 };

		if (c == COLL_BCAST && rank != 0)
			expect_add(&e, 0, m, 0);
		if (c == COLL_ALLGATHER || (c == COLL_GATHER && rank == 0))
			for (int r = 0; r < size; r++)
				expect_add(&e, (size_t)r * m, m, r);
		check_blocks(recvbuf, &e, *seq, &bad, &src);
		free(e.b);
		if (bad >= 0)
			fprintf(stderr, "sweetspot-kernel: rank %d: MPI %s %zu B: wrong byte at offset %lld (block of rank %d)\n",
				rank, coll_names[c], m, bad, src);
		combine_validation(world, bad, src, "mpi", &pr);
	}
	res->valid = pr.valid;
	res->bad_rank = pr.bad_rank;
	res->bad_src = pr.bad_src;
	res->bad_offset = pr.bad_offset;
	free(times);
	return 0;
}

int mode_mpi(MPI_Comm world, const struct kopts *o, struct runinfo *ri, FILE *out)
{
	uint64_t mmax = 0;
	uint64_t seq = 0;
	char *sendbuf, *recvbuf;
	int size, invalid = 0, ret = -1, corrupt = !!(o->faults & FAULT_FLIP_BYTE);

	MPI_Comm_size(world, &size);
	for (size_t z = 0; z < o->nsizes; z++)
		if (o->sizes[z] > mmax)
			mmax = o->sizes[z];
	sendbuf = malloc(mmax);
	recvbuf = malloc(mmax * (uint64_t)size);
	if (!sendbuf || !recvbuf)
		abort();
	memset(sendbuf, 0, mmax);
	memset(recvbuf, 0, mmax * (uint64_t)size);
	{
		int rank;

		MPI_Comm_rank(world, &rank);
		fault_hang(o, rank);
	}
	if (out)
		out_mpi_header(stderr, ri);
	for (int c = 0; c < COLL_N; c++) {
		if (!(o->colls & (1u << c)))
			continue;
		for (size_t z = 0; z < o->nsizes; z++) {
			struct mpi_result r = { .coll = c, .bytes = o->sizes[z] };

			algorithm_of(c, r.algorithm, sizeof(r.algorithm));
			if (mpi_point(world, o, c, o->sizes[z], sendbuf, recvbuf, &seq, corrupt, &r))
				goto out;
			corrupt = 0;
			invalid |= !r.valid;
			if (out) {
				out_mpi_json(out, ri, &r);
				out_mpi_row(stderr, &r);
				if (!r.valid)
					fprintf(stderr, "sweetspot-kernel: MPI %s %llu B: INVALID: rank %d, first bad byte at offset %lld (block of rank %d)\n",
						coll_names[c], (unsigned long long)r.bytes, r.bad_rank,
						r.bad_offset, r.bad_src);
			}
		}
	}
	ret = invalid;
out:
	free(sendbuf);
	free(recvbuf);
	return ret;
}
