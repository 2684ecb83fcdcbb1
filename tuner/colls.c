/*
 * tuner/colls.c: the table of collectives (see colls.h) and its lookups.
 */
#include "colls.h"

#include <stdio.h>
#include <string.h>

static const char *const direct[] = { "direct", NULL };
static const char *const allgather_algs[] = { "leader", "allin", NULL };
static const char *const reduce_algs[] = { "slice", "assigned", NULL };

/* The schedules among workers, as the kernel names them (-a): a k-nomial
 * tree for the rooted ones and the reductions; ring and recursive doubling
 * where every rank ends with everything. */
static const char *const tree[] = { "knomial", NULL };
static const char *const all_to_all[] = { "ring", "recdbl", NULL };
static const char *const allreduce_scheds[] = { "knomial", "ring", "recdbl", NULL };

static const char *const ompi_bcast[] = { "default", "basic_linear", "chain", "pipeline",
	"split_binary_tree", "binary_tree", "binomial", "knomial", "scatter_allgather",
	"scatter_allgather_ring", NULL };
static const char *const ompi_gather[] = { "default", "basic_linear", "binomial",
	"linear_sync", NULL };
static const char *const ompi_allgather[] = { "default", "linear", "bruck",
	"recursive_doubling", "ring", "neighbor", "two_proc", NULL };
static const char *const ompi_reduce[] = { "default", "linear", "chain", "pipeline", "binary",
	"binomial", "in-order_binary", "rabenseifner", NULL };
static const char *const ompi_allreduce[] = { "default", "basic_linear", "nonoverlapping",
	"recursive_doubling", "ring", "segmented_ring", "rabenseifner", NULL };

/* Open MPI ids: enum COLLTYPE of ompi/mca/coll/base/coll_base_functions.h
 * (4.1: allgather 0, allreduce 2, bcast 7, gather 9, reduce 11). A
 * reduction's rules-file size is its buffer: dtype size x count, which is
 * the kernel's bytes. */
const struct colls_desc colls_table[] = {
	{ "bcast", direct, 7, COLLS_SIZE_BYTES, "bcast", 0, ompi_bcast, tree, COLLS_PIPE_SCHEDULES },
	{ "gather", direct, 9, COLLS_SIZE_BYTES_X_RANKS, NULL, 0, ompi_gather, tree,
	  COLLS_PIPE_ALL },
	{ "allgather", allgather_algs, 0, COLLS_SIZE_BYTES_X_RANKS, "allgather", 0, ompi_allgather,
	  all_to_all, COLLS_PIPE_ALL },
	{ "reduce", reduce_algs, 11, COLLS_SIZE_BYTES, "reduce", 1, ompi_reduce, tree,
	  COLLS_PIPE_ALL },
	{ "allreduce", reduce_algs, 2, COLLS_SIZE_BYTES, "allreduce", 1, ompi_allreduce,
	  allreduce_scheds, COLLS_PIPE_ALL },
};

const size_t colls_count = sizeof(colls_table) / sizeof(colls_table[0]);

const struct colls_desc *colls_find(const char *name)
{
	for (size_t i = 0; name && i < colls_count; i++)
		if (!strcmp(colls_table[i].name, name))
			return &colls_table[i];
	return NULL;
}

static int in_list(const char *const *v, const char *s)
{
	for (; v && *v; v++)
		if (!strcmp(*v, s))
			return 1;
	return 0;
}

int colls_algorithm_applies(const char *collective, const char *algorithm)
{
	const struct colls_desc *c = colls_find(collective);

	return c && algorithm &&
	       (in_list(c->algorithms, algorithm) || in_list(c->schedules, algorithm));
}

int colls_algorithm_known(const char *algorithm)
{
	for (size_t i = 0; algorithm && i < colls_count; i++)
		if (colls_algorithm_applies(colls_table[i].name, algorithm))
			return 1;
	return 0;
}

int colls_is_schedule(const char *algorithm)
{
	for (size_t i = 0; algorithm && i < colls_count; i++)
		if (in_list(colls_table[i].schedules, algorithm))
			return 1;
	return 0;
}

/* The one schedule with a fan-out: every other is fixed by W. */
int colls_radix_applies(const char *algorithm)
{
	return algorithm && !strcmp(algorithm, "knomial");
}

int colls_chunk_applies(const char *collective, const char *algorithm)
{
	const struct colls_desc *c = colls_find(collective);

	if (!c || !colls_algorithm_applies(collective, algorithm))
		return 0;
	return c->pipe == COLLS_PIPE_ALL ||
	       (c->pipe == COLLS_PIPE_SCHEDULES && in_list(c->schedules, algorithm));
}

int colls_is_reduction(const char *collective)
{
	const struct colls_desc *c = colls_find(collective);

	return c && c->reduction;
}

size_t colls_collective_names(const char **names, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < colls_count && n + 1 < max; i++)
		names[n++] = colls_table[i].name;
	names[n] = NULL;
	return n;
}

/* Appends the names of v to names[0..*n) that are not there yet. */
static void add_new(const char **names, size_t max, size_t *n, const char *const *v)
{
	for (; v && *v && *n + 1 < max; v++) {
		names[*n] = NULL;
		if (!in_list(names, *v))
			names[(*n)++] = *v;
	}
	names[*n] = NULL;
}

size_t colls_algorithm_names(const char **names, size_t max, int with_schedules)
{
	size_t n = 0;

	names[0] = NULL;
	for (size_t i = 0; i < colls_count; i++)
		add_new(names, max, &n, colls_table[i].algorithms);
	for (size_t i = 0; with_schedules && i < colls_count; i++)
		add_new(names, max, &n, colls_table[i].schedules);
	return n;
}

const char *colls_algorithms_of(const char *collective, char *buf, size_t len)
{
	const struct colls_desc *c = colls_find(collective);
	const char *const *lists[2] = { c ? c->algorithms : NULL, c ? c->schedules : NULL };
	size_t used = 0;

	buf[0] = 0;
	for (int l = 0; l < 2; l++)
		for (const char *const *v = lists[l]; v && *v && used < len; v++)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", *v);
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
			strncat(buf, colls_table[i].name, sizeof(buf) - strlen(buf) - 1);
		}
	return buf;
}
