/*
 * tuner/export/export.h: decisions written as files that MPI runtimes, launchers
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
 * when complete, so a failure never leaves a partial file. export.c holds
 * the table of formats and dispatches; each family has its own file
 * (export_ompi.c, export_ucc.c, export_env.c, export_mpmd.c,
 * export_profile.c).
 */
#ifndef SWEETSPOT_EXPORT_H
#define SWEETSPOT_EXPORT_H

#include <stdio.h>

#include "plan.h"
#include "recommend.h"
#include "spec.h"
#include "strvec.h"

enum export_format {
	EXPORT_OMPI_RULES,
	EXPORT_OMPI_JSON,
	EXPORT_UCC,
	EXPORT_ENV,
	EXPORT_MCA_PARAMS,
	EXPORT_MPMD,
	EXPORT_PROFILE,
	EXPORT_MPICH,
};

/* 0 and *out, or -1 after an error naming the formats. */
int export_parse_format(const char *s, enum export_format *out);
const char *export_format_name(enum export_format f);
/* 1 for a format that writes a folder (mpmd: export_mpmd_*), else 0. */
int export_format_is_folder(enum export_format f);

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

/* ---- Open MPI's coll/tuned parameters (export_params.c) ---------------- */

/* `ompi_info --param coll tuned --level 9 --parsable`, its coll/tuned
 * lines without the "mca:coll:tuned:param:coll_tuned_" prefix. */
struct ompi_info {
	struct strvec lines;
};

/* Runs ompi_info (no shell). 0, or -1 after error() when it gives nothing. */
int ompi_info_load(struct ompi_info *oi);
void ompi_info_release(struct ompi_info *oi);
/* The integer value of parameter coll_tuned_<name>. 0, or -1 when absent. */
int ompi_info_int(const struct ompi_info *oi, const char *name, long *out);
/* coll_tuned_<coll>_algorithm_count: ids 0..count-1 (0 is Open MPI's own
 * choice); 0 when ompi_info does not say. */
int ompi_info_algorithms(const struct ompi_info *oi, const char *coll);
/* The enumerator name of algorithm alg of coll (e.g. "chain"), copied to
 * buf; NULL when ompi_info lists none. */
const char *ompi_info_algorithm_name(const struct ompi_info *oi, const char *coll, int alg,
				     char *buf, size_t len);

/* The MCA parameters coll_tuned_<coll>_algorithm_<name> a forced
 * algorithm runs with. */
enum ompi_param {
	OMPI_SEGSIZE,
	OMPI_TREE_FANOUT,
	OMPI_CHAIN_FANOUT,
	OMPI_MAX_REQUESTS,
	OMPI_KNOMIAL_RADIX,
	OMPI_NPARAMS
};

const char *ompi_param_name(enum ompi_param p);

#define OMPI_ANY_ALG (-1)

/* What one algorithm of one collective ran with (alg OMPI_ANY_ALG: the
 * collective's values for every algorithm); -1: not known. */
struct ompi_alg_params {
	char *coll;
	int alg;
	long val[OMPI_NPARAMS];
};

struct ompi_params {
	struct ompi_alg_params *v;
	size_t n;
	char *origin; /* where the values come from, for the files' comments */
};

/* The parameters behind d's Open MPI choices: from the baseline launches'
 * recorded environment in db (run_id, else the latest baseline of
 * spec_path, else the latest baseline), the rest from the installed Open
 * MPI; db NULL: the installed Open MPI's alone. Nothing to do (0) when d
 * holds no Open MPI choice. 0, or -1 after error(). */
int ompi_params_load(const struct decisions *d, const char *db, long long run_id,
		     const char *spec_path, struct ompi_params *p);
/* Adds coll's values (every algorithm) from ompi_info. */
void ompi_params_from_info(const struct ompi_info *oi, const char *coll, struct ompi_params *p);
const struct ompi_alg_params *ompi_params_find(const struct ompi_params *p, const char *coll,
					       int alg);
void ompi_params_release(struct ompi_params *p);
/* A rule's columns for algorithm alg of coll, as Open MPI 4.1's forced
 * path passes them to the algorithm: fan-in/out (chain or tree, per
 * collective), segment size, max requests; all 0 for alg 0. */
void ompi_rule_params(const struct ompi_params *p, const char *coll, int alg, long *faninout,
		      long *segsize, long *reqs);
/* A parameter no rule carries (bcast's knomial radix): its value; 0 unknown. */
long ompi_global_param(const struct ompi_params *p, const char *coll, int alg, enum ompi_param k);

/* Open MPI choices that would not run as measured: an algorithm made of
 * other collectives called through the communicator (allreduce
 * nonoverlapping = reduce + bcast, allgather basic_linear = gather +
 * bcast) was measured with those inner calls at Open MPI's own decision
 * (only the outer algorithm forced); under rules that give the inner
 * collective an algorithm of its own at the inner size, the runtime would
 * run a combination never measured. Each such choice becomes its
 * runner-up when that one calls no collective inside, else Open MPI's
 * own choice (0); one line per change is printed to notes. Returns how
 * many changed. */
size_t export_pin_inner(struct decisions *d, FILE *notes);

/* The Open MPI coll/tuned id of a collective (coll_base_functions.h); -1: none. */
int export_coll_id(const char *coll);

struct export_opts {
	struct ompi_version ompi; /* for ompi-rules */
	const char *rules_path;	  /* the rules file env / mca-params point to */
	int rules_given;	  /* rules_path was named (--rules): it need not exist yet */
	const struct ompi_params *params; /* what each algorithm ran with; NULL: 0s */
};

/* ---- one export, as `sweetspot export` and the report ask it (export_run.c) */

/* At most this many formats in one export. */
#define EXPORT_MAX_FORMATS 8

/* The comma list of formats s ("ompi-rules,mca-params") into f, *n of
 * them. 0, or -1 after error() (an unknown one, one twice, too many). */
int export_parse_formats(const char *s, enum export_format *f, size_t *n);

/* One export. Strings are borrowed. */
struct export_request {
	enum export_format fmt[EXPORT_MAX_FORMATS]; /* the first to out, the others
						     * to out.FORMAT; a folder
						     * format alone */
	size_t nfmt;
	const char *out;		    /* a file (a folder for mpmd); NULL: stdout */
	const char *db, *profile, *records; /* where the decisions come from (one, or
					     * none: the default database) */
	long long run;			    /* the database's run; 0: the latest (of spec) */
	const char *spec;		    /* NULL: none */
	const char *rules;		    /* the rules file env and mca-params name, or NULL */
	const char *coll, *host_bin, *worker_bin; /* mpmd's choices, or NULL */
	struct ompi_version ompi;		  /* ompi-rules for this Open MPI... */
	int ompi_given;				  /* ... when set, else the installed one's */
	int force;				  /* replace a regular file at out */
};

/* Writes the export rq asks for. Returns the exit status: 0 written, 1 a
 * file could not be written, 2 bad input (nothing written). */
int export_run(const struct export_request *rq);

/* Writes a single-file format f to out through the format table. Returns
 * 0, or -1 after error() (a folder format, or what its writer reports). */
int export_write(enum export_format f, const struct decisions *d, const struct export_opts *o,
		 FILE *out);

/* Writers of the single-file formats, to an open stream. Return 0, or -1
 * after error() when the decisions lack what the format needs (e.g. no
 * Open MPI measurement for ompi-rules). */
int export_ompi_rules(const struct decisions *d, const struct export_opts *o, FILE *f);
int export_ompi_json(const struct decisions *d, const struct export_opts *o, FILE *f);
/* UCC's settings for the decisions: the UCC_TL_UCP_TUNE value, the
 * variables that make a mapped algorithm the same schedule ("NAME=value",
 * e.g. UCC_TL_UCP_BCAST_KN_RADIX=2), and why each choice left out is. */
struct ucc_export {
	char *tune;
	struct strvec vars, notes;
};

/* 0 (tune NULL when every choice stays out: the notes say why), or -1
 * after error() when there is nothing to tell UCC at all. */
int export_ucc_build(const struct decisions *d, const struct export_opts *o, struct ucc_export *u);
void export_ucc_release(struct ucc_export *u);
int export_ucc(const struct decisions *d, const struct export_opts *o, FILE *f);
int export_env(const struct decisions *d, const struct export_opts *o, FILE *f);
int export_mca_params(const struct decisions *d, const struct export_opts *o, FILE *f);
int export_profile(const struct decisions *d, FILE *f);

/* The mpmd format: the recommended layout's hostfiles, MPMD files and
 * `commands` (generate.h), for the user's application. Owns what it holds
 * (export_mpmd_release()); choice points into the decisions it came from. */
struct export_mpmd {
	struct spec spec;
	struct plan plan;
	const struct layout *layout;
	const struct offload_choice *choice;
};

#define EXPORT_MPMD_INIT                         \
	{                                        \
		SPEC_INIT, PLAN_INIT, NULL, NULL \
	}

/* What mpmd is asked for. Pointers are borrowed. */
struct export_mpmd_opts {
	const char *spec_path;	/* the spec of the hosts and binaries */
	const char *collective; /* whose recommended layout; NULL: the widest band's */
	const char *host_bin;	/* the user's binaries in the kernel's place; NULL: the spec's */
	const char *worker_bin;
};

/* Chooses the layout (o->collective's widest band, else the band covering
 * the most sizes of any collective) and loads o->spec_path with the
 * user's binaries in place. Returns 0, or -1 after error() when the input
 * cannot give one: nothing is written. */
int export_mpmd_prepare(const struct decisions *d, const struct export_mpmd_opts *o,
			struct export_mpmd *m);
/* Writes the folder dir (generate_layout()'s rules). 0, or -1 after error(). */
int export_mpmd_write(const struct export_mpmd *m, const char *dir);
/* The line that launches the written folder dir with the spec's launcher,
 * built by launch/argv.c as `commands` has it; the caller frees it. NULL
 * after error(). */
char *export_mpmd_command(const struct export_mpmd *m, const char *dir);
void export_mpmd_release(struct export_mpmd *m);

/* Reads a profile written by export_profile() into *d. Returns 0, or -1
 * after error() with file:line. */
int profile_load(const char *path, struct decisions *d);

#endif
