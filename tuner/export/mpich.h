/*
 * tuner/export/mpich.h: MPICH's own collective algorithms, as the installed MPICH
 * lists them. MPICH (4.x) forces an algorithm per collective with a
 * control variable, MPIR_CVAR_<COLL>_INTRA_ALGORITHM=<name>, whose values
 * exist only as lower-case names in that variable's description: the
 * installed library's list is read at run time from `mpivars` (Debian's
 * mpich package; it prints every control variable and its description
 * over MPI_T), never from a table of ours, so that another MPICH version's
 * algorithms are the ones offered. Records of an MPICH algorithm carry
 * "mpich:<name>" in their algorithm field; "default" is MPICH's own
 * choice.
 */
#ifndef SWEETSPOT_MPICH_H
#define SWEETSPOT_MPICH_H

#include "strvec.h"

#include <stdio.h>

#define MPICH_ALG_PREFIX "mpich:"

/* "MPIR_CVAR_BCAST_INTRA_ALGORITHM" for "bcast": the variable that forces
 * collective's algorithm on intra-communicators. The caller frees it. */
char *mpich_cvar(const char *collective);

/* "MPIR_CVAR_BCAST_INTRA_ALGORITHM=binomial": the environment entry that
 * makes MPICH run alg for collective. The caller frees it. */
char *mpich_force_env(const char *collective, const char *alg);

/* The algorithm names of one algorithm variable's description as MPICH
 * prints it (the list lines joined without separators: "...algorithmauto
 * - Internal algorithm selection (...)binomial     - Force Binomial
 * Treenb           - Force ..."), in its order, without "auto" (MPICH's
 * own choice), appended to names. Returns the count, or -1 after error()
 * when the description does not read as such a list. */
int mpich_parse_description(const char *desc, struct strvec *names);

/* The same from the whole output of `mpivars` (text): the line of
 * mpich_cvar(collective). 0 or more names appended; -1 after error() when
 * the variable is missing or its description is not a list. */
int mpich_parse_mpivars(const char *text, const char *collective, struct strvec *names);

/* Runs the installed `mpivars` (no shell, a time limit) and returns the
 * names of collective's algorithms in names, as mpich_parse_mpivars().
 * -1 after error() when mpivars is not installed or says nothing of it. */
int mpich_algorithms(const char *collective, struct strvec *names);

/* The MPICH algorithm named by a record's algorithm field: "binomial" for
 * "mpich:binomial"; NULL for anything else ("default", "tuned:N"). */
const char *mpich_record_algorithm(const char *field);

/* The export format `mpich` (tuner/export/export_mpich.c, one row of export.c's
 * table): a shell file of MPIR_CVAR_<COLL>_INTRA_ALGORITHM settings, from
 * the MPICH records of d's source. 0, or -1 after error(). */
struct decisions;
struct export_opts;
int export_mpich(const struct decisions *d, const struct export_opts *o, FILE *f);

#endif
