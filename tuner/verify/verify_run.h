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

#include <stdint.h>
#include <stdio.h>

/* The collective loop's rows (kernels/loop/loop.c): collective and bytes
 * name the figure, the median time per call is the number. */
#define VERIFY_LOOP_METRIC "^([a-z]+) +([0-9]+) +[0-9.]+ +([0-9.]+) "

/* The choices: the command line's, the spec's verify group filling what it
 * leaves out (verify_run() does). Strings are borrowed, but figures. */
struct verify_args {
	const char *path, *db, *export, *launcher, *metric;
	int higher, json, dry;
	struct strvec figures; /* --figures, or the spec's; empty: every figure */
	char **cmd;	       /* COMMAND ARGS..., or NULL */
	int ncmd;
	int cmd_line; /* the spec's line when the command is its verify group's */
};

/* What the two jobs run: the program's argv (the command resolved). */
struct verify_ctx {
	struct strvec prog;
	struct strvec env_b;
	enum verify_kind kind;
	struct verify_recipe recipe; /* kind VERIFY_MPMD: B runs on its layout */
};

/* What one launch runs: a program, and whether under Open MPI's pml
 * monitoring (the proof's launches: every rank writes DIR/mon.N.prof). */
struct verify_job {
	const struct strvec *prog;
	int monitor;
	const struct verify_recipe *recipe; /* on an MPMD recipe's layout, or NULL */
};

/* One point of the proof: a collective at a size, the algorithm the rules
 * give there (0: Open MPI's own choice), and what the ranks moved. */
struct verify_proof_point {
	const char *coll;
	uint64_t bytes;
	int alg;
	char id_b[96], id_ref[96];
	struct strvec prog, env_ref;
	struct verify_job job;
	int applied; /* 1 yes, 0 no, -1 not known (no traffic seen) */
};

struct verify_proof {
	const char *rules; /* the file B names; NULL: no proof for these settings */
	int mpich;	   /* MPICH CVARs: one launch of every collective and size
				 * with MPIR_CVAR_COLLECTIVE_FALLBACK=error (p[0]) */
	int mpmd;	   /* an MPMD recipe: one launch of sweetspot-loop --where on
				 * its layout (p[0]); where each rank ran in ran */
	struct strvec ran;
	char why[256];	  /* the recipe: the first rank off its host */
	const char *none; /* why there is none */
	struct verify_proof_point *p;
	size_t n;
	int failed; /* a point not applied */
};

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

/* What the ranks of a launch in dir sent one another inside collectives:
 * pml monitoring's "I" lines (from, to, bytes, messages) of every rank's
 * dir/mon.*.prof, each as "FROM TO BYTES MESSAGES", sorted, one per line;
 * NULL when there are none. The caller frees it. */
char *verify_traffic(const char *dir);

#endif
