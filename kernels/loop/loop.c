/*
 * kernels/loop/loop.c: sweetspot-loop, the project's own small MPI
 * program, as an application would call the library: for each collective
 * and message size listed, MPI_Bcast / MPI_Gather (root 0), MPI_Allgather,
 * MPI_Reduce (root 0) and MPI_Allreduce (int32 sum) timed as OSU's
 * micro-benchmarks time them (batch.h), one row per point on stdout from
 * rank 0. It is what `sweetspot verify` runs when given no program. With
 * --once it makes one call of each point and nothing else (no barrier, no
 * timing, no output), so that a launch under Open MPI's pml monitoring
 * shows the traffic of exactly those calls: verify's proof of which
 * algorithm ran. With --where it prints where every rank runs (its host, as
 * the kernel names it, and the CPUs it may run on) and nothing else:
 * verify's proof that an MPMD recipe's layout was followed.
 */
#define _GNU_SOURCE /* sched_getaffinity */
#include <getopt.h>
#include <sched.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "hosts.h"
#include "idle.h"
#include "parse.h"
#include "xalloc.h"

#define LOOP_MAX_SIZES 64

static const char *const names[] = { "bcast", "gather", "allgather", "reduce", "allreduce" };
enum { NCOLLS = sizeof(names) / sizeof(names[0]) };

struct loop_opts {
	unsigned colls[NCOLLS]; /* indexes into names[], in the order given */
	size_t ncolls;
	uint64_t sizes[LOOP_MAX_SIZES];
	size_t nsizes;
	int iterations, warmup, batch_ms, once, where;
};

struct loop_point {
	MPI_Comm comm;
	unsigned c;
	int count;
	char *sendbuf, *recvbuf;
};

static const char usage[] =
	"usage: sweetspot-loop [-c LIST] [-m SIZES] [-i N] [-x N] [--batch-ms N] [--once]\n"
	"       sweetspot-loop --where\n"
	"  -c LIST        bcast,gather,allgather,reduce,allreduce (default: all)\n"
	"  -m SIZES       bytes per rank, e.g. 1K,64K or 1K:4M (default 1K:1M);\n"
	"                 reductions: int32 sum, sizes a multiple of 4\n"
	"  -i N           timed calls per point at least (default 100)\n"
	"  -x N           untimed calls first (default 10)\n"
	"  --batch-ms N   calls are timed in batches lasting N ms (default 20)\n"
	"  --once         one call per point, nothing else, no output\n"
	"  --where        only where each rank runs: a row 'where RANK HOST CPUS'\n"
	"                 from rank 0 (HOST: SLURMD_NODENAME, SWEETSPOT_HOSTNAME or\n"
	"                 the host's name; CPUS: the ones it may run on, e.g. 0-3)\n"
	"Prints, from rank 0, one row per point: collective, bytes, and the time per\n"
	"call in us (average and median over batches of the ranks' mean; the\n"
	"fastest and slowest rank's mean).\n";

static int call(const void *ctx)
{
	const struct loop_point *p = ctx;

	switch (p->c) {
	case 0:
		return MPI_Bcast(p->sendbuf, p->count, MPI_BYTE, 0, p->comm);
	case 1:
		return MPI_Gather(p->sendbuf, p->count, MPI_BYTE, p->recvbuf, p->count, MPI_BYTE, 0,
				  p->comm);
	case 2:
		return MPI_Allgather(p->sendbuf, p->count, MPI_BYTE, p->recvbuf, p->count, MPI_BYTE,
				     p->comm);
	case 3:
		return MPI_Reduce(p->sendbuf, p->recvbuf, p->count / 4, MPI_INT32_T, MPI_SUM, 0,
				  p->comm);
	default:
		return MPI_Allreduce(p->sendbuf, p->recvbuf, p->count / 4, MPI_INT32_T, MPI_SUM,
				     p->comm);
	}
}

static int barrier(MPI_Comm comm)
{
	return MPI_Barrier(comm);
}

static int parse_colls(const char *s, struct loop_opts *o, char *err, size_t len)
{
	o->ncolls = 0;
	for (const char *p = s; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
		size_t n = strcspn(p, ","), i;

		for (i = 0; i < NCOLLS && (strlen(names[i]) != n || strncmp(p, names[i], n)); i++)
			;
		if (i == NCOLLS || o->ncolls == NCOLLS) {
			snprintf(err, len,
				 "-c: '%.*s' is not one of bcast, gather, allgather, reduce, "
				 "allreduce",
				 (int)n, p);
			return -1;
		}
		o->colls[o->ncolls++] = (unsigned)i;
	}
	if (!o->ncolls)
		snprintf(err, len, "-c: an empty list");
	return o->ncolls ? 0 : -1;
}

static int parse_int(const char *name, const char *s, uint64_t min, uint64_t max, int *out,
		     char *err, size_t len)
{
	char why[160];
	uint64_t v;

	if (parse_uint(s, min, max, &v, why, sizeof(why))) {
		snprintf(err, len, "%s: %s", name, why);
		return -1;
	}
	*out = (int)v;
	return 0;
}

/* Every rank parses alike; 0, or -1 with one sentence in err (1 for --help). */
static int parse(int argc, char **argv, struct loop_opts *o, char *err, size_t len)
{
	static const struct option longopts[] = {
		{ "batch-ms", required_argument, NULL, 'b' },
		{ "once", no_argument, NULL, '1' },
		{ "where", no_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char why[200];
	int c;

	*o = (struct loop_opts){
		.ncolls = NCOLLS, .iterations = 100, .warmup = 10, .batch_ms = 20
	};
	for (unsigned i = 0; i < NCOLLS; i++)
		o->colls[i] = i;
	if (parse_sizes("1K:1M", 0, o->sizes, LOOP_MAX_SIZES, &o->nsizes, why, sizeof(why)))
		abort();
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:m:i:x:h", longopts, NULL)) != -1) {
		int rc = 0;

		switch (c) {
		case 'c':
			rc = parse_colls(optarg, o, err, len);
			break;
		case 'm':
			if ((rc = parse_sizes(optarg, 1, o->sizes, LOOP_MAX_SIZES, &o->nsizes, why,
					      sizeof(why))))
				snprintf(err, len, "-m: %s", why);
			break;
		case 'i':
			rc = parse_int("-i", optarg, 1, 100000000, &o->iterations, err, len);
			break;
		case 'x':
			rc = parse_int("-x", optarg, 0, 100000000, &o->warmup, err, len);
			break;
		case 'b':
			rc = parse_int("--batch-ms", optarg, 1, 60000, &o->batch_ms, err, len);
			break;
		case '1':
			o->once = 1;
			break;
		case 'W':
			o->where = 1;
			break;
		case 'h':
			return 1;
		case ':':
			snprintf(err, len, "%s needs a value", argv[optind - 1]);
			return -1;
		default:
			snprintf(err, len, "unknown option '%s'", argv[optind - 1]);
			return -1;
		}
		if (rc)
			return -1;
	}
	if (optind < argc) {
		snprintf(err, len, "unexpected argument '%s'", argv[optind]);
		return -1;
	}
	for (size_t z = 0; z < o->nsizes; z++) {
		if (o->sizes[z] > (1u << 30)) {
			snprintf(err, len, "-m: %llu bytes is more than the 1G limit",
				 (unsigned long long)o->sizes[z]);
			return -1;
		}
		for (size_t k = 0; k < o->ncolls; k++)
			if (o->colls[k] >= 3 && o->sizes[z] % 4) {
				snprintf(err, len,
					 "-m: %llu bytes is not a whole number of int32 for %s",
					 (unsigned long long)o->sizes[z], names[o->colls[k]]);
				return -1;
			}
	}
	return 0;
}

/* Every point in the order given; 0, or 1 after an MPI error (printed). */
static int run(const struct loop_opts *o, MPI_Comm comm, int rank, int size)
{
	uint64_t most = 0;
	struct loop_point p = { .comm = comm };
	int rc = MPI_SUCCESS;

	for (size_t z = 0; z < o->nsizes; z++)
		most = o->sizes[z] > most ? o->sizes[z] : most;
	p.sendbuf = xmalloc(most);
	p.recvbuf = xmalloc(most * (uint64_t)size);
	memset(p.sendbuf, rank + 1, most);
	memset(p.recvbuf, 0, most * (uint64_t)size);
	if (!rank && !o->once) {
		printf("# sweetspot-loop %s: %d ranks; time per call (us): batches of calls back "
		       "to "
		       "back lasting %d ms, averaged over ranks\n",
		       SWEETSPOT_VERSION, size, o->batch_ms);
		printf("%-12s %10s %11s %11s %11s %11s\n", "# collective", "bytes", "avg_us",
		       "median_us", "rank_min", "rank_max");
		fflush(stdout);
	}
	for (size_t k = 0; k < o->ncolls && rc == MPI_SUCCESS; k++)
		for (size_t z = 0; z < o->nsizes && rc == MPI_SUCCESS; z++) {
			struct batch_opts bo = { .comm = comm,
						 .call = call,
						 .ctx = &p,
						 .barrier = barrier,
						 .warmup = o->warmup,
						 .min_calls = o->iterations,
						 .batch_ms = o->batch_ms };
			struct batch_time t;

			p.c = o->colls[k];
			p.count = (int)o->sizes[z];
			if (o->once) {
				rc = call(&p);
				continue;
			}
			if ((rc = batch_measure(&bo, &t)) == MPI_SUCCESS && !rank) {
				printf("%-12s %10llu %11.2f %11.2f %11.2f %11.2f\n", names[p.c],
				       (unsigned long long)o->sizes[z], t.avg, t.median, t.rank_min,
				       t.rank_max);
				fflush(stdout);
			}
		}
	if (rc != MPI_SUCCESS) {
		char msg[MPI_MAX_ERROR_STRING];
		int len;

		MPI_Error_string(rc, msg, &len);
		fprintf(stderr, "sweetspot-loop: rank %d: %s:%d: MPI %s: %s\n", rank, __FILE__,
			__LINE__, names[p.c], msg);
	}
	free(p.sendbuf);
	free(p.recvbuf);
	return rc != MPI_SUCCESS;
}

/* The CPUs this process may run on, as "0-3,6". */
static void cpu_list(char *buf, size_t len)
{
	cpu_set_t set;
	size_t used = 0;

	buf[0] = '\0';
	if (sched_getaffinity(0, sizeof(set), &set)) {
		snprintf(buf, len, "unknown");
		return;
	}
	for (int c = 0; c < CPU_SETSIZE && used < len; c++) {
		int e = c;

		if (!CPU_ISSET(c, &set))
			continue;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, &set))
			e++;
		used += (size_t)snprintf(buf + used, len - used, e > c ? "%s%d-%d" : "%s%d",
					 used ? "," : "", c, e);
		c = e;
	}
}

/* --where: every rank's host and CPUs, printed by rank 0 in rank order. */
static int where(MPI_Comm comm, int rank, int size)
{
	struct hostinfo hi;
	char mine[HOST_NAME_LEN], *all = rank ? NULL : xmalloc((size_t)size * HOST_NAME_LEN);
	int rc;

	memset(mine, 0, sizeof(mine));
	cpu_list(mine, sizeof(mine));
	if (hosts_gather(comm, &hi))
		return 1;
	rc = MPI_Gather(mine, HOST_NAME_LEN, MPI_CHAR, all, HOST_NAME_LEN, MPI_CHAR, 0, comm);
	for (int r = 0; !rank && rc == MPI_SUCCESS && r < size; r++)
		printf("where %d %s %s\n", r, hi.names[r], all + (size_t)r * HOST_NAME_LEN);
	fflush(stdout);
	hosts_release(&hi);
	free(all);
	return rc != MPI_SUCCESS;
}

int main(int argc, char **argv)
{
	struct loop_opts o;
	struct idle_info idle;
	char err[256] = "";
	int rank, size, rc = parse(argc, argv, &o, err, sizeof(err));

	/* Options before MPI_Init, as OSU does: a bad value starts nothing. */
	if (rc) {
		fputs(rc > 0 ? usage : "", rc > 0 ? stdout : stderr);
		if (rc < 0)
			fprintf(stderr, "sweetspot-loop: %s\n%s", err, usage);
		return rc > 0 ? 0 : 2;
	}
	idle_setup(&idle);
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	rc = o.where ? where(MPI_COMM_WORLD, rank, size) : run(&o, MPI_COMM_WORLD, rank, size);
	if (rc)
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_Finalize();
	return 0;
}
