/*
 * tuner/verify/verify_proof.h: verify's proof that the runtime applied the
 * settings B runs with (verify_proof.c), and what it shares with the race
 * (verify_run.c): what a launch runs, and where the collective loop is.
 */
#ifndef SWEETSPOT_VERIFY_PROOF_H
#define SWEETSPOT_VERIFY_PROOF_H

#include "argv.h"
#include "spec.h"
#include "strvec.h"
#include "verify.h"

#include <stddef.h>
#include <stdint.h>

struct runner;

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

/* The collective loop beside the spec's kernel (the same MPI family's
 * build), found; NULL when it is not there. The caller frees it. */
char *verify_loop_path(const struct spec *s);

/* The proof's points: each collective of the spec that coll/tuned has, at
 * each size, with the algorithm the rules give there (or MPICH's one
 * launch, or an MPMD recipe's). Where the settings give no classic rules
 * file, pf->none says why there is no proof. 0, or -1 after error() (a
 * rules file that does not read). */
int verify_proof_plan(struct verify_proof *pf, const struct spec *s, enum launcher l,
		      const struct verify_ctx *x);
/* Runs the proof's launches. 0, 1 interrupted, 2 a launch failed (the
 * reason in reason), -1 after error(). */
int verify_proof_run(struct verify_proof *pf, struct runner *r, const struct verify_ctx *x,
		     char *reason, size_t rlen);
void verify_proof_release(struct verify_proof *pf);

/* What the ranks of a launch in dir sent one another inside collectives:
 * pml monitoring's "I" lines (from, to, bytes, messages) of every rank's
 * dir/mon.*.prof, each as "FROM TO BYTES MESSAGES", sorted, one per line;
 * NULL when there are none. The caller frees it. */
char *verify_traffic(const char *dir);

#endif
