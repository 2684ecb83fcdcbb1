/*
 * tuner/verify/verify_run.h: `sweetspot verify` as one library call. It
 * launches the user's program on the spec's host ranks through the spec's
 * launcher (srun inside an allocation) without the exported settings (A)
 * and with them (B), in pairs whose order is drawn from a seed,
 * `repetitions` pairs at least and more, up to `max_repetitions`, while a
 * figure is undecided (the race, verify_run.c); then proves that the
 * runtime applied the settings (verify_proof.c); outside a Slurm
 * allocation with srun the whole of it runs as one batch job
 * (verify_sbatch.c). Every launch goes through the sweep engine into the
 * run "SPEC:verify", so a verify run again continues. The command prints
 * what struct verify holds afterwards.
 */
#ifndef SWEETSPOT_VERIFY_RUN_H
#define SWEETSPOT_VERIFY_RUN_H

#include "spec.h"
#include "strvec.h"
#include "verify.h"
#include "verify_args.h"
#include "verify_proof.h"

#include <stdint.h>
#include <stdio.h>

/* The collective loop's rows (kernels/loop/loop.c): collective and bytes
 * name the figure, the median time per call is the number. */
#define VERIFY_LOOP_METRIC "^([a-z]+) +([0-9]+) +[0-9.]+ +([0-9.]+) "

/* The figures of the whole run, in the order of the first launch's. */
struct verify_state {
	const struct verify_args *a;
	struct verify_metric metric;
	int use_metric;
	struct verify_figure *fig;
	size_t nfig;
	int have;	    /* the first launch set the figures */
	unsigned pairs;	    /* complete pairs */
	const char *failed; /* "A", "B" or "A and B" when launches failed */
	char reason[1100];
	int bad_metric; /* no figure in a launch's output */
};

/* One verify: what it was asked, and what it found. It owns everything in
 * it (the proof's strings point into its spec and ctx). */
struct verify {
	struct verify_args a;
	struct spec spec;
	struct verify_ctx x;
	struct verify_proof proof;
	struct verify_state v;
	long long run; /* the store's run of the launches */
	int answered;  /* v and proof hold the answer, for the caller to print */
};

/* Initializes vf, its choices empty but for the database db. */
void verify_init(struct verify *vf, const char *db);
void verify_release(struct verify *vf);

/* The whole verify of vf->a: the spec read, A and B raced, the proof run
 * (or, with dry set, the commands printed to out; or, srun outside an
 * allocation, one batch job run and its output copied to out). Returns
 * the exit status: 0 verdicts computed (vf->answered: the caller prints
 * them; whatever they say), 1 a launch failed (recorded), 2 bad usage or
 * input, 130 interrupted. */
int verify_run(struct verify *vf, FILE *out);

#endif
