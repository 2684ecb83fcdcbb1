/*
 * tuner/verify/verify_priv.h: what the files of tuner/verify/ share and
 * nothing outside them uses: the collective loop's path, the proof
 * (verify_proof.c) and the way through sbatch (verify_sbatch.c), each
 * called by verify_run.c.
 */
#ifndef SWEETSPOT_VERIFY_PRIV_H
#define SWEETSPOT_VERIFY_PRIV_H

#include "runner.h"
#include "verify_run.h"

#include <stddef.h>
#include <stdio.h>

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

/* --dry-run outside an allocation: what the batch job would run, where,
 * printed to out. */
void verify_dry_sbatch(const struct verify_args *a, const struct verify_ctx *x,
		       const struct spec *s, FILE *out);
/* srun outside an allocation: the whole verify as one batch job that
 * runs it inside its allocation, waited for (sbatch --wait) and cancelled
 * when we are interrupted; its output copied to out, its answer ours. The
 * exit status. */
int verify_through_sbatch(const struct verify_args *a, const struct verify_ctx *x,
			  const struct verify_proof *pf, const struct spec *s, FILE *out);

#endif
