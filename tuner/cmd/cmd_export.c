/*
 * tuner/cmd/cmd_export.c: `sweetspot export --format FORMAT [-o PATH] [--db FILE]
 * [SPEC]`: the decisions of a run (or of a saved profile) written as a file
 * that an MPI runtime, a launcher or sweetspot reads: its options, checked,
 * and one export_run() (tuner/export/export_run.c), which leaves nothing
 * partial: each file is written beside its target and renamed.
 */
#include "cli.h"
#include "colls.h"
#include "cmds.h"
#include "error.h"
#include "export.h"
#include "store.h"
#include "strvec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	OPT_FORMAT,
	OPT_OUTPUT,
	OPT_DB,
	OPT_PROFILE,
	OPT_RECORDS,
	OPT_RUN,
	OPT_OMPI_VERSION,
	OPT_RULES,
	OPT_COLLECTIVE,
	OPT_HOST_BIN,
	OPT_WORKER_BIN,
	OPT_FORCE,
	NOPTS
};

static const struct cli_option export_options[NOPTS + 1] = {
	[OPT_FORMAT] = { "format", 0, "FORMAT",
			 "what to write (above); a comma list writes each\n"
			 "(the first to -o FILE, the others to FILE.FORMAT)" },
	[OPT_OUTPUT] = { "output", 'o', "PATH",
			 "the file (folder for mpmd); default standard output" },
	[OPT_DB] = CLI_OPTION_DB,
	[OPT_PROFILE] = { "profile", 0, "FILE", "read the decisions from a profile instead" },
	[OPT_RECORDS] = { "records", 0, "FILE",
			  "or from the kernel's JSON lines (e.g. --mode mpi\n"
			  "launches, one Open MPI algorithm forced in each)" },
	[OPT_RUN] = { "run", 0, "ID", "a run other than the latest" },
	[OPT_OMPI_VERSION] = { "ompi-version", 0, "X.Y.Z",
			       "write ompi-rules for that Open MPI (default: ask\n"
			       "ompi_info)" },
	[OPT_RULES] = { "rules", 0, "PATH",
			"the rules file env and mca-params point to (default:\n"
			"the ompi-rules written in the same call, else\n"
			"ompi-rules.conf beside the output, which must exist)" },
	[OPT_COLLECTIVE] = { "collective", 0, "C",
			     "mpmd: the layout recommended for C (default: the\n"
			     "layout best for the most sizes)" },
	[OPT_HOST_BIN] = { "host-bin", 0, "P", "mpmd: your host binary instead of the spec's" },
	[OPT_WORKER_BIN] = { "worker-bin", 0, "P",
			     "mpmd: your worker binary instead of the spec's" },
	[OPT_FORCE] = { "force", 0, NULL,
			"replace the output if it is a regular file (never a\n"
			"symlink, folder or device)" },
	[NOPTS] = { NULL, 0, NULL, NULL },
};

static const struct cli_command export_cli = {
	"export",
	"--format FORMAT [-o PATH]\n"
	"[--db FILE | --profile FILE | --records FILE]\n"
	"[--run ID] [--ompi-version X.Y.Z] [--rules PATH]\n"
	"[--collective C] [--host-bin P] [--worker-bin P] [SPEC]",
	"Writes the decisions measured in a run (the latest one of SPEC when given,\n"
	"else the latest) as a file for an MPI runtime, a launcher or sweetspot:\n\n"
	"  ompi-rules  Open MPI coll/tuned rules: the fastest algorithm per message\n"
	"              size (from the kernel's --mode mpi launches), in the format the\n"
	"              installed Open MPI reads (--ompi-version to choose)\n"
	"  ompi-json   the JSON rules of Open MPI >= 6 (rule_file_version 3)\n"
	"  ucc         UCC_TL_UCP_TUNE for the same choices\n"
	"  env         shell variables: the best layout of each collective, and the\n"
	"              Open MPI and UCC settings\n"
	"  mca-params  an mca-params.conf fragment loading the rules\n"
	"  mpmd        -o DIR: hostfiles and MPMD files for mpirun, mpirun_rsh and srun\n"
	"              at the recommended layout (needs SPEC)\n"
	"  profile     sweetspot's own profile of the decisions (read back with\n"
	"              --profile)\n\n"
	"--format ompi-rules,mca-params -o FILE writes the rules to FILE and the\n"
	"settings that load them to FILE.mca-params (env: FILE.env), in one call.",
	export_options,
	"Exit status: 0 written, 1 could not write, 2 bad usage or input (nothing written).",
};

struct export_args {
	const char *fmt, *out, *db, *profile, *records, *spec;
	const char *ver, *rules, *coll, *host_bin, *worker_bin;
	long long run;
	int force;
};

/* The option's slot in a, for those that only keep their value. */
static const char **arg_slot(struct export_args *a, int o)
{
	switch (o) {
	case OPT_FORMAT:
		return &a->fmt;
	case OPT_OUTPUT:
		return &a->out;
	case OPT_DB:
		return &a->db;
	case OPT_PROFILE:
		return &a->profile;
	case OPT_RECORDS:
		return &a->records;
	case OPT_OMPI_VERSION:
		return &a->ver;
	case OPT_RULES:
		return &a->rules;
	case OPT_COLLECTIVE:
		return &a->coll;
	case OPT_HOST_BIN:
		return &a->host_bin;
	case OPT_WORKER_BIN:
		return &a->worker_bin;
	}
	return NULL;
}

/* Checks that need no file, and the request: CLI_END, or CLI_BAD after a
 * report. */
static int check_args(const struct export_args *a, struct export_request *rq)
{
	enum export_format *fmt = rq->fmt;
	size_t *nfmt = &rq->nfmt;

	if (!a->fmt) {
		cli_usage_error(&export_cli, "--format is required");
		return CLI_BAD;
	}
	if (export_parse_formats(a->fmt, fmt, nfmt))
		return CLI_BAD;
	for (size_t i = 0; *nfmt > 1 && i < *nfmt; i++)
		if (export_format_is_folder(fmt[i])) {
			cli_usage_error(&export_cli, "--format: %s writes a folder: give it alone",
					export_format_name(fmt[i]));
			return CLI_BAD;
		}
	if (*nfmt > 1 && !a->out) {
		cli_usage_error(&export_cli, "--format with several formats needs -o FILE");
		return CLI_BAD;
	}
	if (!!a->db + !!a->profile + !!a->records > 1) {
		cli_usage_error(&export_cli, "--db, --profile and --records exclude each other");
		return CLI_BAD;
	}
	if (a->ver && ompi_version_parse(a->ver, &rq->ompi)) {
		cli_usage_error(&export_cli, "--ompi-version: '%s' is not a version such as 4.1.4",
				a->ver);
		return CLI_BAD;
	}
	if (a->coll && !colls_find(a->coll)) {
		cli_usage_error(&export_cli, "--collective: unknown collective '%s' (%s)", a->coll,
				colls_names_list());
		return CLI_BAD;
	}
	rq->out = a->out;
	rq->db = a->db;
	rq->profile = a->profile;
	rq->records = a->records;
	rq->spec = a->spec;
	rq->rules = a->rules;
	rq->coll = a->coll;
	rq->host_bin = a->host_bin;
	rq->worker_bin = a->worker_bin;
	rq->ompi_given = !!a->ver;
	rq->run = a->run;
	rq->force = a->force;
	return CLI_END;
}

/* CLI_END when the command goes on, else CLI_HELP or CLI_BAD. */
static int export_args(int argc, char **argv, struct export_args *a)
{
	struct cli c;
	uint64_t v;
	int o;

	cli_begin(&c, &export_cli, argc, argv);
	while ((o = cli_next(&c)) >= 0) {
		if (o == OPT_FORCE)
			a->force = 1;
		else if (o != OPT_RUN)
			*arg_slot(a, o) = c.arg;
		else if (cli_uint(&c, 1, 1ull << 62, &v))
			return CLI_BAD;
		else
			a->run = (long long)v;
	}
	if (o != CLI_END)
		return o;
	if (cli_operands(&c, 0, 1, "SPEC"))
		return CLI_BAD;
	a->spec = c.noperands ? c.operands[0] : NULL;
	return CLI_END;
}

int cmd_export(int argc, char **argv)
{
	struct export_args a = { 0 };
	struct export_request rq = { 0 };
	int r = export_args(argc, argv, &a);

	if (r == CLI_END)
		r = check_args(&a, &rq);
	if (r != CLI_END)
		return cli_status(r);
	return export_run(&rq);
}
