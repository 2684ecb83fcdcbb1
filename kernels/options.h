/*
 * kernels/options.h: the command line of sweetspot-kernel. Parsed before
 * MPI_Init, by every rank alike, so that a bad value stops the launch before
 * any communication; the checks that need the number of ranks run right
 * after MPI_Init (kopts_check_size). Pure C: the unit tests link it without MPI.
 */
#ifndef SWEETSPOT_KOPTS_H
#define SWEETSPOT_KOPTS_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "assign.h"
#include "coll.h"

/* offload: the DPU-Bench pattern; mpi: the host-only MPI collective baseline;
 * bw: the transport's write bandwidth between ranks 0 and 1 (benchmarks). */
enum kmode { MODE_OFFLOAD, MODE_MPI, MODE_BW };

#define FAULT_FLIP_BYTE 1u
#define FAULT_HANG	2u
#define FAULT_BAD_RKEY	4u /* verbs: every remote key wrong */

#define KOPTS_MAX_SIZES 64
/* Values of --chunk, --window, --radix: each a point axis. */
#define KOPTS_MAX_AXIS	16
/* The largest message: keeps every rank's region (hosts x size) sane. */
#define KOPTS_MAX_BYTES (1ull << 30)

struct kopts {
	enum kmode mode;
	unsigned colls; /* bit per enum coll */
	unsigned algs;	/* bit per enum alg; 0 = all that apply */
	unsigned asgs;	/* bit per enum asg */
	int workers;
	uint64_t sizes[KOPTS_MAX_SIZES];
	size_t nsizes;
	int iterations, warmup;
	int burst;		     /* --mode bw: writes posted before a wait (default 1) */
	int windows[KOPTS_MAX_AXIS]; /* pipelined points: chunks in flight (default 2) */
	int batch_ms;		     /* mpi: a timed batch of calls lasts at least this long */
	int min_time_ms; /* offload: a phase of a point lasts at least this long (0: -i alone) */
	size_t nwindows;
	unsigned dtypes;		 /* bit per enum dtype (default int32) */
	unsigned redops;		 /* bit per enum redop (default sum) */
	uint64_t chunks[KOPTS_MAX_AXIS]; /* bytes per pipelined step (default 64K) */
	size_t nchunks;
	int radixes[KOPTS_MAX_AXIS]; /* knomial: tree radix, 2..8 (default 2) */
	size_t nradixes;
	char transport[8];	/* "rma" | "verbs" | "auto" */
	const char *device;	/* verbs: --device (NULL: first active port); in argv */
	int ib_port;		/* verbs: --ib-port (default 1) */
	int gid_index;		/* verbs: --gid-index (-1: first RoCE v2, IPv4-mapped first) */
	int ppn;		/* 0: from the ranks' host names */
	double calib_tolerance; /* the compute may miss the reference by this
				 * fraction before it is calibrated again (0.10) */
	int validate;
	const char *output; /* NULL: stdout; points into argv */
	int help, version;
	unsigned faults; /* FAULT_* from SWEETSPOT_FAULT */
};

extern const char *const mode_names[3];

/* Fills o from argv (defaults first). Returns 0, or -1 with one sentence
 * for people in err. --help and --version only set o->help / o->version. */
int kopts_parse(int argc, char **argv, struct kopts *o, char *err, size_t errlen);

/* The comma list of SWEETSPOT_FAULT (NULL or "" = none) into FAULT_* bits. */
int kopts_parse_faults(const char *s, unsigned *out, char *err, size_t errlen);

/* The checks that need the number of ranks: workers <= hosts (so
 * workers <= size/2), --ppn <= hosts, the per-rank region not absurd. */
int kopts_check_size(const struct kopts *o, int size, char *err, size_t errlen);

/* The region of a launch with this many hosts (and o->workers workers):
 * sched_region() (kernels/sched/schedule.h) of the largest size, the
 * listed collectives and the largest scratch of any chunk x window. */
void kopts_region(const struct kopts *o, int hosts, struct sched_region *r);
/* Its size; *send_area gets S. */
uint64_t kopts_region_bytes(const struct kopts *o, int hosts, uint64_t *send_area);

/* Writes the usage text (--help), made from the option table and the
 * kernel's collectives, to f. */
void kopts_usage(FILE *f);

#endif
