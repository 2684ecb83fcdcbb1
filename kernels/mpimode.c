/*
 * kernels/mpimode.c: the host-only baseline (--mode mpi). Every rank is a
 * host and the MPI library's own MPI_Bcast (root 0), MPI_Gather (root 0),
 * MPI_Allgather, MPI_Reduce (root 0), MPI_Allreduce, MPI_Scan or
 * MPI_Exscan (each listed dtype x op, mapped to MPI's datatypes and
 * operations), MPI_Alltoall or MPI_Barrier runs, so that the tuner can compare offloading with what
 * the library does, and Open MPI's coll/tuned algorithm choices
 * (OMPI_MCA_coll_tuned_<coll>_algorithm) can be measured and recorded.
 * Same loop, validation and MPI_MAX reduction as the offloaded kernels.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "harness.h"
#include "modes.h"
#include "reduce.h"
#include "validate.h"
#include "xalloc.h"

/* "tuned:N" when the run forces an Open MPI coll/tuned algorithm,
 * "mpich:NAME" when it forces an MPICH one (MPIR_CVAR_<COLL>_INTRA_ALGORITHM,
 * "auto" being MPICH's own choice), else "default". */
static void algorithm_of(enum coll c, char *buf, size_t len)
{
	char var[64];
	const char *v;
	size_t i;

	snprintf(var, sizeof(var), "OMPI_MCA_coll_tuned_%s_algorithm", coll_names[c]);
	v = getenv(var);
	if (v && *v) {
		snprintf(buf, len, "tuned:%s", v);
		return;
	}
	i = (size_t)snprintf(var, sizeof(var), "MPIR_CVAR_%s_INTRA_ALGORITHM", coll_names[c]);
	for (size_t k = strlen("MPIR_CVAR_"); k < i && k < sizeof(var); k++)
		var[k] = (char)toupper((unsigned char)var[k]);
	v = getenv(var);
	if (v && *v && strcmp(v, "auto"))
		snprintf(buf, len, "mpich:%s", v);
	else
		snprintf(buf, len, "default");
}

/* The MPI names of our element types and operations. */
static MPI_Datatype mpi_dtype(enum dtype dt)
{
	/* A switch, not a table: Open MPI's handles are addresses of globals,
	 * not constants a static initializer may hold. */
	switch (dt) {
	case DT_INT32:
		return MPI_INT32_T;
	case DT_INT64:
		return MPI_INT64_T;
	case DT_UINT32:
		return MPI_UINT32_T;
	case DT_UINT64:
		return MPI_UINT64_T;
	case DT_FLOAT:
		return MPI_FLOAT;
	default:
		return MPI_DOUBLE;
	}
}

static MPI_Op mpi_op(enum redop op)
{
	switch (op) {
	case RO_SUM:
		return MPI_SUM;
	case RO_PROD:
		return MPI_PROD;
	case RO_MIN:
		return MPI_MIN;
	case RO_MAX:
		return MPI_MAX;
	case RO_BAND:
		return MPI_BAND;
	case RO_BOR:
		return MPI_BOR;
	case RO_BXOR:
		return MPI_BXOR;
	case RO_LAND:
		return MPI_LAND;
	case RO_LOR:
		return MPI_LOR;
	default:
		return MPI_LXOR;
	}
}

/* One point of the baseline: what runs and on which buffers. */
struct mpi_point {
	MPI_Comm world;
	int rank, size;
	enum coll c;
	size_t m;
	enum dtype dt;
	enum redop op;
	char *sendbuf, *recvbuf;
};

/* The sources' data of iteration seq (bcast: the root's result buffer). */
static void mpi_fill(const struct mpi_point *p, uint64_t seq)
{
	if (p->c == COLL_BCAST && p->rank == 0)
		pattern_fill(p->recvbuf, p->m, 0, seq);
	else if (coll_is_reduction(p->c))
		reduce_fill(p->sendbuf, p->m, p->dt, p->op, p->size, p->rank, seq);
	else if (p->c == COLL_ALLTOALL)
		pattern_fill(p->sendbuf, p->m * (size_t)p->size, p->rank, seq);
	else if (p->c != COLL_BCAST)
		pattern_fill(p->sendbuf, p->m, p->rank, seq);
}

static int mpi_call(const struct mpi_point *p)
{
	int n = (int)p->m;

	switch (p->c) {
	case COLL_BCAST:
		return MPI_Bcast(p->recvbuf, n, MPI_BYTE, 0, p->world);
	case COLL_GATHER:
		return MPI_Gather(p->sendbuf, n, MPI_BYTE, p->recvbuf, n, MPI_BYTE, 0, p->world);
	case COLL_ALLGATHER:
		return MPI_Allgather(p->sendbuf, n, MPI_BYTE, p->recvbuf, n, MPI_BYTE, p->world);
	case COLL_ALLTOALL:
		return MPI_Alltoall(p->sendbuf, n, MPI_BYTE, p->recvbuf, n, MPI_BYTE, p->world);
	case COLL_BARRIER:
		return MPI_Barrier(p->world);
	case COLL_SCAN:
		return MPI_Scan(p->sendbuf, p->recvbuf, (int)(p->m / dtype_size(p->dt)),
				mpi_dtype(p->dt), mpi_op(p->op), p->world);
	case COLL_EXSCAN:
		return MPI_Exscan(p->sendbuf, p->recvbuf, (int)(p->m / dtype_size(p->dt)),
				  mpi_dtype(p->dt), mpi_op(p->op), p->world);
	case COLL_REDUCE:
		return MPI_Reduce(p->sendbuf, p->recvbuf, (int)(p->m / dtype_size(p->dt)),
				  mpi_dtype(p->dt), mpi_op(p->op), 0, p->world);
	default:
		return MPI_Allreduce(p->sendbuf, p->recvbuf, (int)(p->m / dtype_size(p->dt)),
				     mpi_dtype(p->dt), mpi_op(p->op), p->world);
	}
}

/* Every byte (every element of a reduction) at every destination. */
static void mpi_check(const struct mpi_point *p, uint64_t seq, struct point_result *pr)
{
	struct coll_geom g = { .coll = p->c, .H = p->size, .m = p->m, .dt = p->dt, .op = p->op };
	struct expect e = { NULL, 0, 0 };
	long long bad = -1;
	int src = -1;

	if (p->c == COLL_BCAST && p->rank != 0)
		expect_add(&e, 0, p->m, 0);
	if (p->c == COLL_ALLGATHER || (p->c == COLL_GATHER && p->rank == 0))
		for (int r = 0; r < p->size; r++)
			expect_add(&e, (size_t)r * p->m, p->m, r);
	if (p->c == COLL_ALLTOALL)
		for (int r = 0; r < p->size; r++)
			expect_add_from(&e, (size_t)r * p->m, p->m, r, (size_t)p->rank * p->m);
	/* MPI_Exscan leaves rank 0's buffer undefined. */
	if (p->c == COLL_SCAN || (p->c == COLL_EXSCAN && p->rank > 0))
		expect_add_prefix(&e, 0, p->m, 0, p->c == COLL_SCAN ? p->rank + 1 : p->rank);
	if (p->c == COLL_ALLREDUCE || (p->c == COLL_REDUCE && p->rank == 0))
		expect_add_reduced(&e, 0, p->m, 0);
	check_blocks(p->recvbuf, &g, &e, seq, &bad, &src);
	free(e.b);
	if (bad >= 0)
		fprintf(stderr,
			"sweetspot-kernel: rank %d: MPI %s %zu B: wrong byte at offset %lld (block "
			"of rank %d)\n",
			p->rank, coll_names[p->c], p->m, bad, src);
	combine_validation(p->world, bad, src, "mpi", pr);
}

/* batch.h's call: one collective of the point. */
static int mpi_call_fn(const void *ctx)
{
	return mpi_call(ctx);
}

/* Validation apart from timing: one more call on data filled for it (the
 * timed calls move whatever the buffers hold, as a benchmark's do).
 * corrupt: flip one byte of the data one rank sends (the root for bcast,
 * rank 0 for exscan, whose last rank's data reaches nobody, the last rank
 * otherwise), for the fault test. */
static int mpi_validate(const struct mpi_point *p, uint64_t *seq, int corrupt,
			struct point_result *pr)
{
	int rc;

	++*seq;
	mpi_fill(p, *seq);
	if (corrupt && p->rank == (p->c == COLL_BCAST || p->c == COLL_EXSCAN ? 0 : p->size - 1))
		(p->c == COLL_BCAST ? p->recvbuf : p->sendbuf)[p->m / 2] ^= 0x5a;
	nb_barrier(p->world);
	if ((rc = mpi_call(p)) == MPI_SUCCESS)
		mpi_check(p, *seq, pr);
	return rc;
}

/* One point: -x calls of warm-up, then batches of calls (batch.h) until
 * -i calls are timed. total_us is the time per call averaged over ranks
 * and batches, total_us_median its median over batches (the launch's
 * figure), total_us_min and _max the fastest and slowest rank's. */
static int mpi_point(const struct mpi_point *p, const struct kopts *o, uint64_t *seq, int corrupt,
		     struct mpi_result *res)
{
	struct point_result pr = { .valid = 1, .bad_rank = -1, .bad_src = -1, .bad_offset = -1 };
	struct batch_opts bo = { .comm = p->world,
				 .call = mpi_call_fn,
				 .ctx = p,
				 .barrier = nb_barrier,
				 .warmup = o->warmup,
				 .min_calls = o->iterations,
				 .batch_ms = o->batch_ms };
	struct batch_time bt;
	int rc = batch_measure(&bo, &bt);

	if (rc == MPI_SUCCESS) {
		res->t = (struct tstats){ bt.avg, bt.rank_min, bt.median, bt.rank_max };
		res->batch_calls = bt.calls;
		res->batches = bt.batches;
		if (o->validate)
			rc = mpi_validate(p, seq, corrupt, &pr);
	}
	res->valid = pr.valid;
	res->bad_rank = pr.bad_rank;
	res->bad_src = pr.bad_src;
	res->bad_offset = pr.bad_offset;
	if (rc != MPI_SUCCESS) {
		char msg[MPI_MAX_ERROR_STRING];
		int len;

		MPI_Error_string(rc, msg, &len);
		fprintf(stderr, "sweetspot-kernel: rank %d: %s:%d: MPI %s: %s\n", p->rank, __FILE__,
			__LINE__, coll_names[p->c], msg);
		return -1;
	}
	return 0;
}

/* Runs and reports one point; 0, or -1 after an MPI failure (printed). */
static int mpi_one(struct mpi_point *p, const struct kopts *o, struct runinfo *ri, FILE *out,
		   uint64_t *seq, int *corrupt, int *invalid)
{
	struct mpi_result r = { .coll = p->c, .bytes = p->m, .dt = p->dt, .op = p->op };

	algorithm_of(p->c, r.algorithm, sizeof(r.algorithm));
	if (mpi_point(p, o, seq, *corrupt, &r))
		return -1;
	*corrupt = 0;
	*invalid |= !r.valid;
	if (!out)
		return 0;
	out_mpi_json(out, ri, &r);
	out_mpi_row(stderr, &r);
	if (!r.valid)
		fprintf(stderr,
			"sweetspot-kernel: MPI %s %llu B: INVALID: rank %d, first bad byte at "
			"offset %lld (block of rank %d)\n",
			coll_names[p->c], (unsigned long long)r.bytes, r.bad_rank, r.bad_offset,
			r.bad_src);
	return 0;
}

int mode_mpi(MPI_Comm world, const struct kopts *o, struct runinfo *ri, FILE *out)
{
	uint64_t mmax = 0;
	uint64_t seq = 0;
	char *sendbuf, *recvbuf;
	int size, rank, invalid = 0, ret = -1, corrupt = !!(o->faults & FAULT_FLIP_BYTE);

	MPI_Comm_size(world, &size);
	MPI_Comm_rank(world, &rank);
	for (size_t z = 0; z < o->nsizes; z++)
		if (o->sizes[z] > mmax)
			mmax = o->sizes[z];
	/* alltoall sends a block to every rank: size x m. */
	sendbuf = xmalloc(mmax * (uint64_t)size);
	recvbuf = xmalloc(mmax * (uint64_t)size);
	memset(sendbuf, 0, mmax * (uint64_t)size);
	memset(recvbuf, 0, mmax * (uint64_t)size);
	fault_hang(o, rank);
	if (out)
		out_mpi_header(stderr, ri);
	for (int c = 0; c < COLL_N; c++)
		for (int dt = 0; dt < DT_N; dt++)
			for (int op = 0; op < RO_N; op++)
				for (size_t z = 0; z < o->nsizes && (o->colls & (1u << c)); z++) {
					struct mpi_point p = { .world = world,
							       .rank = rank,
							       .size = size,
							       .c = c,
							       .m = o->sizes[z],
							       .dt = dt,
							       .op = op,
							       .sendbuf = sendbuf,
							       .recvbuf = recvbuf };

					/* Reductions: every listed pair that applies; the
					 * others once, as dtype and op 0. */
					if (coll_is_reduction(c) ?
						    !(o->dtypes & (1u << dt)) ||
							    !(o->redops & (1u << op)) ||
							    !redop_applies(dt, op) :
						    dt || op)
						continue;
					if (mpi_one(&p, o, ri, out, &seq, &corrupt, &invalid))
						goto out;
				}
	ret = invalid;
out:
	free(sendbuf);
	free(recvbuf);
	return ret;
}
