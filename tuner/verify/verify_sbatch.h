/*
 * tuner/verify/verify_sbatch.h: verify with srun outside a Slurm
 * allocation, as one batch job (verify_sbatch.c); verify_run.c calls it.
 */
#ifndef SWEETSPOT_VERIFY_SBATCH_H
#define SWEETSPOT_VERIFY_SBATCH_H

#include "spec.h"
#include "verify_args.h"
#include "verify_proof.h"

#include <stdio.h>

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
