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
};

struct mpi_result {
	enum coll coll;
	uint64_t bytes;
	char algorithm[32];
	struct tstats t;
	int valid, bad_rank, bad_src;
	long long bad_offset;
};

void out_point_json(FILE *f, const struct runinfo *ri, enum coll c, enum alg a,
		    enum asg s, uint64_t bytes, const struct point_result *r);
void out_point_header(FILE *f, const struct runinfo *ri);
void out_point_row(FILE *f, enum coll c, enum alg a, enum asg s, uint64_t bytes,
		   const struct point_result *r);

void out_mpi_json(FILE *f, const struct runinfo *ri, const struct mpi_result *r);
void out_mpi_header(FILE *f, const struct runinfo *ri);
void out_mpi_row(FILE *f, const struct mpi_result *r);

/* Writes s as a JSON string, quotes included. */
void json_string(FILE *f, const char *s);

#endif
