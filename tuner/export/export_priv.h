/*
 * tuner/export/export_priv.h: what the export format files share and nobody else
 * sees: the Open MPI rules derived from the decisions (which collectives,
 * communicator sizes and size thresholds), used alike by the Open MPI
 * rules, UCC and env writers, and the one check that there is an Open MPI
 * measurement at all. They live in export_rules.c, below every writer.
 */
#ifndef SWEETSPOT_EXPORT_PRIV_H
#define SWEETSPOT_EXPORT_PRIV_H

#include "export.h"

#include <stdint.h>
#include <stdio.h>

/* One message-size rule of one collective and communicator size: from
 * size on (Open MPI's count, see export.c), choice m. */
struct rule {
	uint64_t size;
	const struct mpi_choice *m;
};

/* The rules of choices [i, j) of d->mpi, merged where the algorithm does
 * not change, the first at size 0. out has room for j - i. Returns the
 * count. */
size_t export_rules_of(const struct decisions *d, size_t i, size_t j, struct rule *out);
/* Most collectives an export names. */
#define OMPI_MAX_COLLS 16

/* Collectives with Open MPI choices, in coll/tuned id order (out:
 * OMPI_MAX_COLLS). */
size_t export_mpi_collectives(const struct decisions *d, const char **out);
/* The extent [*i, *j) of collective c at communicator size ranks in d->mpi. */
void export_span(const struct decisions *d, const char *c, unsigned ranks, size_t *i, size_t *j);
/* The communicator sizes measured for c, ascending (out: d->nmpi). */
size_t export_comm_sizes(const struct decisions *d, const char *c, unsigned *out);
/* The choice a model backs for coll at an unmeasured communicator size
 * ranks; NULL: none (then the files leave that size to Open MPI). The
 * hook the model will fill; today it backs none. */
const struct mpi_choice *export_model_choice(const struct decisions *d, const char *coll,
					     unsigned ranks);
/* 0, or -1 after an error saying `what` needs an Open MPI measurement. */
int export_need_mpi(const struct decisions *d, const char *what);

/* The knomial radix bcast's knomial choices (algorithm 7) ran with; 0
 * when no choice is bcast knomial. */
long export_knomial_radix(const struct decisions *d, const struct ompi_params *p);

/* UCC TL/UCP's nearest algorithm to Open MPI's alg for coll; NULL: none. */
const char *export_ucc_alg(const char *coll, int alg);

#endif
