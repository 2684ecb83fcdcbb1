/*
 * tuner/cmd/cmd_export.c: `sweetspot export --format FORMAT [-o PATH] [--db FILE]
 * [SPEC]`: the decisions of a run (or of a saved profile) written as a file
 * that an MPI runtime, a launcher or sweetspot reads. Nothing partial is
 * ever left: each file is written beside its target and renamed.
 */
#include "cli.h"
#include "colls.h"
#include "cmds.h"
#include "files.h"
#include "error.h"
#include "export.h"
#include "generate.h"
#include "parse.h"
#include "plan.h"
#include "recommend.h"
#include "spec.h"
#include "store.h"
#include "strvec.h"

#include <errno.h>
#include <limits.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	[OPT_DB] = { "db", 0, "FILE", "results database (default " STORE_DEFAULT_PATH ")" },
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

#define MAX_FORMATS 8

/* The comma list of formats. 0, or -1 after a report. */
static int parse_formats(const char *s, enum export_format *f, size_t *n)
{
	char *copy = xstrdup(s), *save = NULL;
	int ret = 0;

	*n = 0;
	for (char *t = strtok_r(copy, ",", &save); t && !ret; t = strtok_r(NULL, ",", &save)) {
		if (*n == MAX_FORMATS || export_parse_format(t, &f[*n])) {
			ret = *n == MAX_FORMATS ?
				      error("--format: at most %d formats", MAX_FORMATS) :
				      -1;
			break;
		}
		for (size_t i = 0; i < *n; i++)
			if (f[i] == f[*n])
				ret = error("--format: '%s' twice", t);
		(*n)++;
	}
	if (!ret && !*n)
		ret = error("--format: no format in '%s'", s);
	free(copy);
	return ret;
}

/* Checks that need no file: CLI_END, or CLI_BAD after a report. */
static int check_args(const struct export_args *a, struct export_opts *eo, enum export_format *fmt,
		      size_t *nfmt)
{
	if (!a->fmt) {
		cli_usage_error(&export_cli, "--format is required");
		return CLI_BAD;
	}
	if (parse_formats(a->fmt, fmt, nfmt))
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
	if (a->ver && ompi_version_parse(a->ver, &eo->ompi)) {
		cli_usage_error(&export_cli, "--ompi-version: '%s' is not a version such as 4.1.4",
				a->ver);
		return CLI_BAD;
	}
	if (a->coll && !colls_find(a->coll)) {
		cli_usage_error(&export_cli, "--collective: unknown collective '%s' (%s)", a->coll,
				colls_names_list());
		return CLI_BAD;
	}
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

struct exp_ctx {
	enum export_format fmt;
	const struct decisions *d;
	struct export_opts o;
};

static int write_one(void *ctx, FILE *f)
{
	struct exp_ctx *x = ctx;

	return export_write(x->fmt, x->d, &x->o, f);
}

/* p made absolute through its folder (which must exist). The caller frees it. */
static char *abs_path(const char *p)
{
	char *d = xstrdup(p), *b = xstrdup(p), real[PATH_MAX], *out = NULL;

	if (!realpath(dirname(d), real))
		error("cannot resolve the folder of %s: %s", p, strerror(errno));
	else
		out = xasprintf("%s/%s", strcmp(real, "/") ? real : "", basename(b));
	free(d);
	free(b);
	return out;
}

/* mpmd: bad input (exit 2) is found before anything is written. */
static int export_mpmd(const struct decisions *d, const char *spec_path, const char *dir,
		       const char *coll, const char *host_bin, const char *worker_bin)
{
	struct export_mpmd_opts o = { .spec_path = spec_path,
				      .collective = coll,
				      .host_bin = host_bin,
				      .worker_bin = worker_bin };
	struct export_mpmd m = EXPORT_MPMD_INIT;
	char *line, axes[160];
	int ret = EXIT_USAGE;

	if (!dir) {
		error("export: mpmd writes a folder: give -o DIR");
		return EXIT_USAGE;
	}
	if (export_mpmd_prepare(d, &o, &m))
		goto out;
	ret = export_mpmd_write(&m, dir) ? 1 : 0;
	if (ret)
		goto out;
	/* "with int32/sum chunk 4K window 2": the axes beside the schedule. */
	point_text(&m.choice->key, POINT_REDUCTION | POINT_AXES, axes, sizeof(axes));
	fprintf(stderr, "sweetspot: wrote %s/ for layout %s (%s %s %s, oe_measured %.1f)%s%s\n",
		dir, m.layout->id, m.choice->key.collective, m.choice->key.algorithm,
		m.choice->key.assignment, m.choice->oe, *axes ? " with " : "", axes);
	line = export_mpmd_command(&m, dir);
	if (line)
		fprintf(stderr, "sweetspot: launch it with (more in %s/commands):\n  %s\n", dir,
			line);
	free(line);
out:
	export_mpmd_release(&m);
	return ret;
}

/* The absolute path of the rules file env and mca-params name: --rules
 * (which may be written later), or ompi-rules.conf in the output's folder,
 * which must exist: Open MPI given a missing rules file silently runs its
 * own choices. The caller frees it; NULL after error(). */
static char *rules_path(const char *rules, const char *out)
{
	char *o, *rel, *abs;

	if (rules)
		return abs_path(rules);
	o = xstrdup(out ? out : "./x");
	rel = xasprintf("%s/ompi-rules.conf", dirname(o));
	abs = abs_path(rel);
	if (abs && access(abs, R_OK)) {
		error("export: the rules file %s does not exist (Open MPI would silently ignore "
		      "it): write it first (--format ompi-rules -o %s), write both in one call "
		      "(--format ompi-rules,mca-params -o RULES), or name one with --rules",
		      abs, rel);
		free(abs);
		abs = NULL;
	}
	free(o);
	free(rel);
	return abs;
}

/* Writes every format to its path (stdout for a lone format without -o):
 * all are checked first, so that bad input is exit 2 and leaves nothing.
 * Returns the exit status. */
static int write_outputs(struct exp_ctx *x, size_t n, char **paths, int force)
{
	FILE *null = fopen("/dev/null", "w");
	int bad = 0;

	for (size_t i = 0; null && i < n && !bad; i++)
		bad = write_one(&x[i], null);
	if (null)
		fclose(null);
	if (bad)
		return EXIT_USAGE;
	if (!paths[0])
		return write_one(&x[0], stdout) ? EXIT_USAGE : 0;
	/* Every target is checked before any is written: a refusal leaves nothing. */
	for (size_t i = 0; i < n; i++)
		if (files_output_check(paths[i], force))
			return EXIT_USAGE;
	for (size_t i = 0; i < n; i++) {
		if (files_write_atomic(paths[i], write_one, &x[i]))
			return 1;
		if (n > 1)
			fprintf(stderr, "sweetspot: wrote %s (%s)\n", paths[i],
				export_format_name(x[i].fmt));
	}
	return 0;
}

static int load_decisions(const struct export_args *a, struct decisions *d)
{
	if (a->profile)
		return profile_load(a->profile, d);
	if (a->records)
		return decisions_from_records(a->records, d);
	return decisions_from_db(a->db ? a->db : STORE_DEFAULT_PATH, a->run, a->spec, d);
}

/* The options every format shares: the Open MPI version (ompi-rules),
 * the algorithms' parameters, the rules file env and mca-params name. 0,
 * or -1 after error(). */
static int shared_opts(const struct export_args *a, const struct decisions *d,
		       const enum export_format *f, size_t n, char **paths,
		       struct ompi_params *params, char **rules_abs, struct export_opts *o)
{
	int want_ver = 0, want_rules = 0;
	size_t rules_at = n;

	for (size_t i = 0; i < n; i++) {
		want_ver |= f[i] == EXPORT_OMPI_RULES;
		want_rules |= f[i] == EXPORT_ENV || f[i] == EXPORT_MCA_PARAMS;
		if (f[i] == EXPORT_OMPI_RULES)
			rules_at = i;
	}
	if (want_ver && !a->ver && ompi_version_detect(&o->ompi))
		return -1;
	if (ompi_params_load(d,
			     a->profile || a->records ? NULL : (a->db ? a->db : STORE_DEFAULT_PATH),
			     a->run, a->spec, params))
		return -1;
	o->params = params;
	if (!want_rules || !decisions_has_mpi(d, NULL))
		return 0;
	if (rules_at < n) {
		/* The rules written now, beside: they will exist. */
		*rules_abs = abs_path(paths[rules_at]);
		o->rules_given = 1;
	} else {
		*rules_abs = rules_path(a->rules, a->out);
		o->rules_given = !!a->rules;
	}
	o->rules_path = *rules_abs;
	return *rules_abs ? 0 : -1;
}

int cmd_export(int argc, char **argv)
{
	struct export_args a = { 0 };
	struct decisions d = DECISIONS_INIT;
	struct ompi_params params = { 0 };
	struct exp_ctx x[MAX_FORMATS];
	struct export_opts o = { 0 };
	enum export_format f[MAX_FORMATS];
	char *rules_abs = NULL, *paths[MAX_FORMATS] = { 0 };
	size_t n = 0;
	int status = EXIT_USAGE, r;

	r = export_args(argc, argv, &a);
	if (r == CLI_END)
		r = check_args(&a, &o, f, &n);
	if (r != CLI_END)
		return cli_status(r);
	if (load_decisions(&a, &d))
		goto out;
	export_pin_inner(&d, stderr);
	if (f[0] == EXPORT_MPMD) {
		status = export_mpmd(&d, a.spec ? a.spec : d.spec_path, a.out, a.coll, a.host_bin,
				     a.worker_bin);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		paths[i] = !a.out ? NULL :
			   i	  ? xasprintf("%s.%s", a.out, export_format_name(f[i])) :
				    xstrdup(a.out);
	if (shared_opts(&a, &d, f, n, paths, &params, &rules_abs, &o))
		goto out;
	for (size_t i = 0; i < n; i++)
		x[i] = (struct exp_ctx){ f[i], &d, o };
	status = write_outputs(x, n, paths, a.force);
out:
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(rules_abs);
	ompi_params_release(&params);
	decisions_release(&d);
	return status;
}
