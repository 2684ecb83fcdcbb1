/*
 * tuner/export.h: decisions written as files that MPI runtimes, launchers
 * and sweetspot itself read:
 *   ompi-rules  Open MPI coll/tuned dynamic rules, classic format: the
 *               header-less 4-column form up to 5.0.6, `rule-file-version-2`
 *               with a 5th (reqs) column from 5.0.7 (older readers ignore
 *               that form without a word, so the version decides)
 *   ompi-json   the JSON rules of Open MPI >= 6 (rule_file_version 3)
 *   ucc         a UCC_TL_UCP_TUNE string for the same choices
 *   env         a shell file of variables (offload decisions, Open MPI
 *               rule file settings, UCC_TL_UCP_TUNE)
 *   mca-params  an mca-params.conf fragment
 *   mpmd        hostfiles and MPMD files for mpirun, mpirun_rsh and srun at
 *               the recommended layout (a folder)
 *   profile     sweetspot's own libconfig profile of the decisions, which
 *               profile_load() reads back
 * Every file is written to a temporary name beside its target and renamed
 * when complete, so a failure never leaves a partial file.
 */
#ifndef SWEETSPOT_EXPORT_H
#define SWEETSPOT_EXPORT_H

#include <stdio.h>

#include "recommend.h"

enum export_format {
	EXPORT_OMPI_RULES, EXPORT_OMPI_JSON, EXPORT_UCC, EXPORT_ENV, EXPORT_MCA_PARAMS,
	EXPORT_MPMD, EXPORT_PROFILE,
};

/* 0 and *out, or -1 after an error naming the formats. */
int export_parse_format(const char *s, enum export_format *out);
const char *export_format_name(enum export_format f);

/* An Open MPI version, e.g. {4, 1, 4}. */
struct ompi_version {
	int major, minor, release;
};

/* "4.1.4", "5.0", "v6.0.0rc1" -> version; -1 when it is not one. */
int ompi_version_parse(const char *s, struct ompi_version *v);
/* Asks the installed Open MPI (`ompi_info --version`, falling back to
 * `mpirun --version`, run without a shell). -1 after error() when neither
 * answers. */
int ompi_version_detect(struct ompi_version *v);
/* Whether this version reads `rule-file-version-2` (5.0.7 and later). */
int ompi_reads_rules_v2(const struct ompi_version *v);

struct export_opts {
	struct ompi_version ompi;	/* for ompi-rules */
	const char *rules_path;	/* the rules file env / mca-params point to */
};

/* Writers of the single-file formats, to an open stream. Return 0, or -1
 * after error() when the decisions lack what the format needs (e.g. no
 * Open MPI measurement for ompi-rules). */
int export_ompi_rules(const struct decisions *d, const struct export_opts *o, FILE *f);
int export_ompi_json(const struct decisions *d, FILE *f);
/* The UCC_TL_UCP_TUNE value (no variable name); the caller frees it.
 * NULL after error() when no choice maps to a UCC algorithm. */
char *export_ucc_tune(const struct decisions *d);
int export_ucc(const struct decisions *d, FILE *f);
int export_env(const struct decisions *d, const struct export_opts *o, FILE *f);
int export_mca_params(const struct decisions *d, const struct export_opts *o, FILE *f);
int export_profile(const struct decisions *d, FILE *f);

/* Writes path through a temporary file beside it and a rename; fn writes
 * the content. Returns 0, or -1 (after error()) with nothing left behind. */
int export_write_atomic(const char *path, int (*fn)(void *ctx, FILE *f), void *ctx);

/* Reads a profile written by export_profile() into *d. Returns 0, or -1
 * after error() with file:line. */
int profile_load(const char *path, struct decisions *d);

#endif
