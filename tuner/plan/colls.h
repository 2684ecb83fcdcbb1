/*
 * tuner/plan/colls.h: what the tuner adds to the kernel's collectives. The
 * collectives themselves (names, the algorithms that apply, which axes
 * apply, their defaults) are the kernel's table, kernels/sched/coll.h; a
 * row here is keyed by its enum coll and says only what is the tuner's:
 * Open MPI's coll/tuned id and algorithm names, how Open MPI counts its
 * message size in a rules file, its UCC name. The lookups below read both
 * tables, by the names the kernel and the spec use; colls-t fails when the
 * two disagree.
 *
 * Algorithms and schedules are both values of the algorithm axis (a spec's
 * sweep.algorithms, the kernel's -a): the algorithms are what the spec
 * measures when it lists none; the schedules (knomial, ring, recdbl) are
 * measured when listed, and only where they apply.
 */
#ifndef SWEETSPOT_COLLS_H
#define SWEETSPOT_COLLS_H

#include <stddef.h>
#include <stdint.h>

#include "coll.h"

/* How a rules file sizes one call, from the kernel's bytes per rank. */
enum colls_msg_size {
	COLLS_SIZE_BYTES,	  /* the buffer: bytes (bcast, reduce, allreduce) */
	COLLS_SIZE_BYTES_X_RANKS, /* the whole result: bytes x ranks (gather, allgather) */
};

struct colls_desc {
	enum coll coll; /* the kernel's collective */
	int ompi_id;	/* coll/tuned's COLLTYPE id; -1: none */
	enum colls_msg_size msg_size;
	const char *ucc_name; /* NULL: UCC has no TL/UCP algorithm for it */
	/* Open MPI 4.1's coll/tuned algorithm names, index = id (0: default). */
	const char *const *ompi_algorithms;
};

/* Bounds of the name lists below (names plus the NULL). */
#define COLLS_MAX_NAMES 32

/* The table, in the order people expect (bcast, gather, allgather, ...),
 * and its length. */
extern const struct colls_desc colls_table[];
extern const size_t colls_count;

/* The row of a collective called name; NULL when there is none. */
const struct colls_desc *colls_find(const char *name);
/* The kernel's name of a row's collective. */
const char *colls_name(const struct colls_desc *c);
/* The kernel's enum of an algorithm (or schedule) name; -1 if none. */
int colls_alg(const char *algorithm);
/* Nonzero when algorithm (or schedule) applies to collective (by name). */
int colls_algorithm_applies(const char *collective, const char *algorithm);
/* Nonzero when some collective has that algorithm (or schedule). */
int colls_algorithm_known(const char *algorithm);
/* Nonzero when algorithm is a schedule among workers (knomial, ring, ...). */
int colls_is_schedule(const char *algorithm);
/* Nonzero when the radix axis applies to algorithm (the k-nomial tree). */
int colls_radix_applies(const char *algorithm);
/* Nonzero when chunk and window apply to collective with algorithm. */
int colls_chunk_applies(const char *collective, const char *algorithm);
/* Nonzero when dtype and op apply to collective (a reduction). */
int colls_is_reduction(const char *collective);
/* Fills names (max >= COLLS_MAX_NAMES) with the collectives' names in
 * table order, then NULL; the strings are the table's. Returns the count. */
size_t colls_collective_names(const char **names, size_t max);
/* The same for the distinct algorithms of every row, in order of first
 * appearance, then (with_schedules) the distinct schedules. */
size_t colls_algorithm_names(const char **names, size_t max, int with_schedules);
/* The comma list of what applies to collective ("direct, knomial"), into
 * buf. Returns buf. */
const char *colls_algorithms_of(const char *collective, char *buf, size_t len);
/* The position of a collective in the table (unknown ones last): the
 * order of every listing. */
int colls_rank(const char *name);
/* Open MPI's rules-file message size of one call of collective with
 * bytes per rank over ranks ranks. */
uint64_t colls_ompi_msg_size(const char *collective, uint64_t bytes, unsigned ranks);
/* The comma list of names ("bcast, gather, allgather"), for messages: a
 * static string. */
const char *colls_names_list(void);

#endif
