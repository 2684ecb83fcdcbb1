/*
 * kernels/output.h: what rank 0 prints. One JSON object per point per line
 * (the field names are a contract the tuner reads) and a fixed-width table
 * for people on stderr.
 */
#ifndef SWEETSPOT_OUTPUT_H
#define SWEETSPOT_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

#include "harness.h"
#include "hosts.h"
#include "options.h"

#define SCHEMA_VERSION 1

/* What is the same for every point of a launch. */
struct runinfo {
	const struct kopts *o;
	int size, H, W;
	const char *transport, *device;
	const struct hostinfo *hi;
	int nodes, ppn;
	double p2p_bw; /* offload: the transport's write bandwidth, bytes/s */
};

struct mpi_result {
	enum coll coll;
	uint64_t bytes;
	char algorithm[32];
	enum dtype dt; /* reductions only */
	enum redop op;
	struct tstats t;	   /* per call: over batches of the ranks' mean; min,
				 * max: the fastest and slowest rank's mean */
	long batch_calls, batches; /* calls per timed batch, batches */
	int valid, bad_rank, bad_src;
	long long bad_offset;
};

void out_point_json(FILE *f, const struct runinfo *ri, const struct coll_geom *g, enum asg s,
		    const struct point_result *r);
void out_point_header(FILE *f, const struct runinfo *ri);
void out_point_row(FILE *f, const struct coll_geom *g, enum asg s, const struct point_result *r);

/* Bytes per second of m bytes in us microseconds (0 when us is 0), and
 * the bus bandwidth of collective c among n hosts (see docs/kernel.md). */
double out_algbw(uint64_t m, double us);
double out_busbw(enum coll c, int n, double algbw);

void out_mpi_json(FILE *f, const struct runinfo *ri, const struct mpi_result *r);
void out_mpi_header(FILE *f, const struct runinfo *ri);
void out_mpi_row(FILE *f, const struct mpi_result *r);

/* Writes s as a JSON string, quotes included. */
void kout_json_string(FILE *f, const char *s);

#endif
