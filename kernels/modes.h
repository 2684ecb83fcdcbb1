/*
 * kernels/modes.h: the three things one launch can do. Each runs on every
 * rank, writes its records through rank 0 (out is NULL elsewhere) and
 * returns 0 when every point was valid, 1 when one failed validation, -1
 * after a transport failure (printed; the caller aborts the job), or -2
 * when the transport found the options do not fit this machine (no such
 * device, port down, ...): printed once, every rank returns -2 before any
 * data moved, and the caller exits 2.
 */
#ifndef SWEETSPOT_MODES_H
#define SWEETSPOT_MODES_H

#include <stdio.h>

#include "output.h"

/* The offloaded DPU-Bench kernels (harness.h) over transport name. */
int mode_offload(MPI_Comm world, const struct kopts *o, const char *transport, struct runinfo *ri,
		 FILE *out);

/* The host-only baseline: MPI_Bcast / Gather / Allgather / Reduce / Allreduce, every rank
 * a host, under whatever algorithm the MPI library picks (or is told). */
int mode_mpi(MPI_Comm world, const struct kopts *o, struct runinfo *ri, FILE *out);

/* The transport's write bandwidth from rank 0 to rank 1, first size. */
int mode_bw(MPI_Comm world, const struct kopts *o, const char *transport, struct runinfo *ri,
	    FILE *out);

/* The transport's write bandwidth from rank 0 to rank 1 over t (set up,
 * with m bytes at offset 0 of both regions): *us per write of m bytes, the
 * same on every rank; pr says whether rank 1 got the data. 0, or -1 after
 * a transport failure (printed). */
int bw_measure(struct transport *t, MPI_Comm world, const struct kopts *o, size_t m, int burst,
	       double *us, struct point_result *pr);

#endif
