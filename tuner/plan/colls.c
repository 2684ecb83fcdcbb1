/*
 * tuner/plan/colls.c: the tuner's rows of the collectives (see colls.h) and the
 * lookups by name over them and the kernel's table.
 */
#include "colls.h"

#include <stdio.h>
#include <string.h>

#include "parse.h"

static const char *const ompi_bcast[] = {
	"default",     "basic_linear", "chain",	  "pipeline",	       "split_binary_tree",
	"binary_tree", "binomial",     "knomial", "scatter_allgather", "scatter_allgather_ring",
	NULL
};
static const char *const ompi_gather[] = { "default", "basic_linear", "binomial", "linear_sync",
					   NULL };
static const char *const ompi_allgather[] = {
	"default", "linear", "bruck", "recursive_doubling", "ring", "neighbor", "two_proc", NULL
};
static const char *const ompi_reduce[] = { "default",	      "linear",	      "chain",
					   "pipeline",	      "binary",	      "binomial",
					   "in-order_binary", "rabenseifner", NULL };
static const char *const ompi_alltoall[] = {
	"default", "linear", "pairwise", "modified_bruck", "linear_sync", "two_proc", NULL
};
static const char *const ompi_barrier[] = {
	"default", "linear", "double_ring", "recursive_doubling", "bruck", "two_proc", "tree", NULL
};
static const char *const ompi_scan[] = { "default", "linear", "recursive_doubling", NULL };
static const char *const ompi_allreduce[] = { "default",	"basic_linear",
					      "nonoverlapping", "recursive_doubling",
					      "ring",		"segmented_ring",
					      "rabenseifner",	NULL };

/* Open MPI ids: enum COLLTYPE of ompi/mca/coll/base/coll_base_functions.h
 * (4.1: allgather 0, allreduce 2, alltoall 3, barrier 6, bcast 7, exscan 8,
 * gather 9, reduce 11, scan 14; scan and exscan share their algorithms). UCC has no
 * scan. A reduction's rules-file size is its buffer: dtype size x count,
 * which is the kernel's bytes; alltoall's is every block a rank sends
 * (coll_tuned_alltoall_intra_dec_dynamic: type size x count x ranks). The rows are in the kernel's order, which is the
 * order of every listing. */
const struct colls_desc colls_table[] = {
	{ COLL_BCAST, 7, COLLS_SIZE_BYTES, "bcast", ompi_bcast },
	{ COLL_GATHER, 9, COLLS_SIZE_BYTES_X_RANKS, NULL, ompi_gather },
	{ COLL_ALLGATHER, 0, COLLS_SIZE_BYTES_X_RANKS, "allgather", ompi_allgather },
	{ COLL_REDUCE, 11, COLLS_SIZE_BYTES, "reduce", ompi_reduce },
	{ COLL_ALLREDUCE, 2, COLLS_SIZE_BYTES, "allreduce", ompi_allreduce },
	{ COLL_ALLTOALL, 3, COLLS_SIZE_BYTES_X_RANKS, "alltoall", ompi_alltoall },
	{ COLL_SCAN, 14, COLLS_SIZE_BYTES, NULL, ompi_scan },
	{ COLL_EXSCAN, 8, COLLS_SIZE_BYTES, NULL, ompi_scan },
	{ COLL_BARRIER, 6, COLLS_SIZE_BYTES, "barrier", ompi_barrier },
};

const size_t colls_count = sizeof(colls_table) / sizeof(colls_table[0]);

const char *colls_name(const struct colls_desc *c)
{
	return coll_names[c->coll];
}

const struct colls_desc *colls_find(const char *name)
{
	for (size_t i = 0; name && i < colls_count; i++)
		if (!strcmp(colls_name(&colls_table[i]), name))
			return &colls_table[i];
	return NULL;
}

int colls_alg(const char *algorithm)
{
	return algorithm ? parse_name(algorithm, alg_names, ALG_N) : -1;
}

int colls_algorithm_applies(const char *collective, const char *algorithm)
{
	const struct colls_desc *c = colls_find(collective);
	int a = colls_alg(algorithm);

	return c && a >= 0 && alg_applies(c->coll, a);
}

int colls_algorithm_known(const char *algorithm)
{
	for (size_t i = 0; i < colls_count; i++)
		if (colls_algorithm_applies(colls_name(&colls_table[i]), algorithm))
			return 1;
	return 0;
}

int colls_is_schedule(const char *algorithm)
{
	return colls_algorithm_known(algorithm) && !alg_is_default(colls_alg(algorithm));
}

int colls_radix_applies(const char *algorithm)
{
	int a = colls_alg(algorithm);

	return a >= 0 && alg_has_radix(a);
}

int colls_chunk_applies(const char *collective, const char *algorithm)
{
	const struct colls_desc *c = colls_find(collective);
	int a = colls_alg(algorithm);

	return c && a >= 0 && alg_is_pipelined(c->coll, a);
}

int colls_is_reduction(const char *collective)
{
	const struct colls_desc *c = colls_find(collective);

	return c && coll_is_reduction(c->coll);
}

size_t colls_collective_names(const char **names, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < colls_count && n + 1 < max; i++)
		names[n++] = colls_name(&colls_table[i]);
	names[n] = NULL;
	return n;
}

/* Appends to names[0..*n) the algorithms of c that are schedules (or not)
 * and are not there yet. */
static void add_new(const char **names, size_t max, size_t *n, enum coll c, int schedules)
{
	for (int a = 0; a < ALG_N && *n + 1 < max; a++) {
		size_t i = 0;

		if (!alg_applies(c, a) || !alg_is_default(a) == !schedules)
			continue;
		while (i < *n && strcmp(names[i], alg_names[a]))
			i++;
		if (i == *n)
			names[(*n)++] = alg_names[a];
	}
	names[*n] = NULL;
}

size_t colls_algorithm_names(const char **names, size_t max, int with_schedules)
{
	size_t n = 0;

	names[0] = NULL;
	for (size_t i = 0; i < colls_count; i++)
		add_new(names, max, &n, colls_table[i].coll, 0);
	for (size_t i = 0; with_schedules && i < colls_count; i++)
		add_new(names, max, &n, colls_table[i].coll, 1);
	return n;
}

const char *colls_algorithms_of(const char *collective, char *buf, size_t len)
{
	const struct colls_desc *c = colls_find(collective);
	const char *names[COLLS_MAX_NAMES];
	size_t n = 0, used = 0;

	buf[0] = 0;
	if (c) {
		add_new(names, COLLS_MAX_NAMES, &n, c->coll, 0);
		add_new(names, COLLS_MAX_NAMES, &n, c->coll, 1);
	}
	for (size_t i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
					 names[i]);
	return buf;
}

int colls_rank(const char *name)
{
	const struct colls_desc *c = colls_find(name);

	return c ? (int)(c - colls_table) : (int)colls_count;
}

uint64_t colls_ompi_msg_size(const char *collective, uint64_t bytes, unsigned ranks)
{
	const struct colls_desc *c = colls_find(collective);

	return c && c->msg_size == COLLS_SIZE_BYTES_X_RANKS ? bytes * ranks : bytes;
}

const char *colls_names_list(void)
{
	static char buf[256];

	if (!*buf)
		for (size_t i = 0; i < colls_count; i++) {
			if (i)
				strncat(buf, ", ", sizeof(buf) - strlen(buf) - 1);
			strncat(buf, colls_name(&colls_table[i]), sizeof(buf) - strlen(buf) - 1);
		}
	return buf;
}
