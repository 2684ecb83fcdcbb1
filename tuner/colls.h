/*
 * tuner/colls.h: the collectives as data. One row per collective says what
 * the tuner needs to know of it: its name (as the kernel and the spec spell
 * it), the offloaded algorithms that apply to it, Open MPI's coll/tuned id
 * of it in a rules file and how Open MPI counts its message size there,
 * its UCC name, whether it is a reduction (dtype and op apply), the
 * schedules among workers that apply to it and where pipelining (chunk,
 * window) applies. Every place that lists collectives or algorithms walks
 * this table; adding a collective is a row here and one in
 * kernels/sched/coll.c (see the README's developer section).
 *
 * Algorithms and schedules are both values of the algorithm axis (a spec's
 * sweep.algorithms, the kernel's -a): the algorithms are what the spec
 * measures when it lists none; the schedules (knomial, ring, recdbl) are
 * measured when listed, and only where a row names them.
 */
#ifndef SWEETSPOT_COLLS_H
#define SWEETSPOT_COLLS_H

#include <stddef.h>
#include <stdint.h>

/* How a rules file sizes one call, from the kernel's bytes per rank. */
enum colls_msg_size {
	COLLS_SIZE_BYTES,		/* the buffer: bytes (bcast, reduce, allreduce) */
	COLLS_SIZE_BYTES_X_RANKS,	/* the whole result: bytes x ranks (gather, allgather) */
};

/* Where chunk and window (pipelining) apply. */
enum colls_pipe {
	COLLS_PIPE_NONE,	/* nowhere */
	COLLS_PIPE_ALL,		/* every algorithm (reductions, gather, allgather) */
	COLLS_PIPE_SCHEDULES,	/* the schedules only (bcast knomial) */
};

struct colls_desc {
	const char *name;
	const char *const *algorithms;	/* offloaded ones, NULL-terminated */
	int ompi_id;			/* coll/tuned's COLLTYPE id; -1: none */
	enum colls_msg_size msg_size;
	const char *ucc_name;		/* NULL: UCC has no TL/UCP algorithm for it */
	int reduction;			/* dtype and op apply */
	/* Open MPI 4.1's coll/tuned algorithm names, index = id (0: default). */
	const char *const *ompi_algorithms;
	const char *const *schedules;	/* among workers, NULL-terminated */
	enum colls_pipe pipe;
};

/* Bounds of the name lists below (names plus the NULL). */
#define COLLS_MAX_NAMES 32

/* The table, in the order people expect (bcast, gather, allgather, ...),
 * and its length. */
extern const struct colls_desc colls_table[];
extern const size_t colls_count;

/* The row of a collective called name; NULL when there is none. */
const struct colls_desc *colls_find(const char *name);
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
