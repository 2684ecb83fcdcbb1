/*
 * tuner/cmd_export.c: `sweetspot export --format FORMAT [-o PATH] [--db FILE]
 * [SPEC]`: the decisions of a run (or of a saved profile) written as a file
 * that an MPI runtime, a launcher or sweetspot reads. Nothing partial is
 * ever left: each file is written beside its target and renamed.
 */
#include "cmds.h"
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

static void export_usage(FILE *f)
{
	fputs("usage: sweetspot export --format FORMAT [-o PATH]\n"
	      "                        [--db FILE | --profile FILE | --records FILE]\n"
	      "                        [--run ID] [--ompi-version X.Y.Z] [--rules PATH]\n"
	      "                        [--collective C] [--host-bin P] [--worker-bin P] [SPEC]\n\n"
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
	      "  -o PATH           the file (folder for mpmd); default standard output\n"
	      "  --db FILE         results database (default " STORE_DEFAULT_PATH ")\n"
	      "  --profile FILE    read the decisions from a profile instead\n"
	      "  --records FILE    or from the kernel's JSON lines (e.g. --mode mpi launches,\n"
	      "                    one Open MPI algorithm forced in each)\n"
	      "  --run ID          a run other than the latest\n"
	      "  --ompi-version V  write ompi-rules for Open MPI V (default: ask ompi_info)\n"
	      "  --rules PATH      the rules file env and mca-params point to (default\n"
	      "                    ompi-rules.conf beside the output)\n"
	      "  --collective C    mpmd: the layout recommended for C (default: the layout\n"
	      "                    best for the most sizes)\n"
	      "  --host-bin P, --worker-bin P   mpmd: your binaries instead of the spec's\n\n"
	      "Exit status: 0 written, 1 could not write, 2 bad usage or input (nothing written).\n", f);
}

struct exp_ctx {
	enum export_format fmt;
	const struct decisions *d;
	struct export_opts o;
};

static int write_one(void *ctx, FILE *f)
{
	struct exp_ctx *x = ctx;

	switch (x->fmt) {
	case EXPORT_OMPI_RULES:
		return export_ompi_rules(x->d, &x->o, f);
	case EXPORT_OMPI_JSON:
		return export_ompi_json(x->d, f);
	case EXPORT_UCC:
		return export_ucc(x->d, f);
	case EXPORT_ENV:
		return export_env(x->d, &x->o, f);
	case EXPORT_MCA_PARAMS:
		return export_mca_params(x->d, &x->o, f);
	case EXPORT_PROFILE:
		return export_profile(x->d, f);
	case EXPORT_MPMD:
		break;
	}
	return error("internal: format has no single-file writer");
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

/* The recommended layout id: of collective c's widest band, or of the band
 * covering the most sizes of any collective (ties: higher OE). */
static const struct offload_choice *recommended(const struct decisions *d, const char *c)
{
	struct band *b;
	size_t nb = decisions_bands(d, c, &b);
	const struct offload_choice *best = NULL;
	size_t most = 0;

	for (size_t i = 0; i < nb; i++)
		if (b[i].nsizes > most || (b[i].nsizes == most && best && b[i].best->oe > best->oe)) {
			most = b[i].nsizes;
			best = b[i].best;
		}
	free(b);
	return best;
}

static int export_mpmd(const struct decisions *d, const char *spec_path, const char *dir,
		       const char *coll, const char *host_bin, const char *worker_bin)
{
	struct spec spec = SPEC_INIT;
	struct plan plan = PLAN_INIT;
	const struct offload_choice *c;
	const struct layout *l;
	char *save_host = NULL, *save_dpu = NULL;
	int ret = EXIT_USAGE;

	if (!spec_path) {
		error("export: mpmd needs the SPEC (its hosts and binaries)");
		return EXIT_USAGE;
	}
	if (!dir) {
		error("export: mpmd writes a folder: give -o DIR");
		return EXIT_USAGE;
	}
	if (coll && !decisions_has_offload(d, coll)) {
		error("export: %s has no offloaded measurement of %s", d->source, coll);
		return EXIT_USAGE;
	}
	c = recommended(d, coll);
	if (!c) {
		error("export: %s has no offloaded measurement to recommend a layout from", d->source);
		return EXIT_USAGE;
	}
	if (spec_load(spec_path, &spec) || plan_build(&spec, &plan))
		goto out;
	l = plan_find(&plan, c->layout);
	if (!l) {
		error("export: the recommended layout %s is not in the plan of %s", c->layout, spec_path);
		goto out;
	}
	/* The user's own binaries take the kernel's places in the files. */
	save_host = spec.host_bin;
	save_dpu = spec.dpu_bin;
	if (host_bin)
		spec.host_bin = (char *)host_bin;
	if (worker_bin && l->placement == PLACEMENT_DPU)
		spec.dpu_bin = (char *)worker_bin;
	else if (worker_bin && strcmp(worker_bin, spec.host_bin)) {
		error("export: onload workers run the host binary; --worker-bin must equal it");
		goto restore;
	}
	ret = generate_layout(&spec, l, dir) ? 1 : 0;
	if (!ret)
		fprintf(stderr, "sweetspot: wrote %s/ for layout %s (%s %s %s, oe_measured %.1f)\n",
			dir, l->id, c->collective, c->algorithm, c->assignment, c->oe);
restore:
	spec.host_bin = save_host;
	spec.dpu_bin = save_dpu;
out:
	plan_release(&plan);
	spec_release(&spec);
	return ret;
}

int cmd_export(int argc, char **argv)
{
	struct decisions d = DECISIONS_INIT;
	struct exp_ctx x = { 0 };
	const char *fmt = NULL, *out = NULL, *db = NULL, *profile = NULL, *spec = NULL, *records = NULL;
	const char *ver = NULL, *rules = NULL, *coll = NULL, *host_bin = NULL, *worker_bin = NULL;
	long long run = 0;
	char *rules_abs = NULL, err[128];
	uint64_t v;
	int status = EXIT_USAGE, i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char **slot = NULL;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			export_usage(stdout);
			return 0;
		}
		if (!strcmp(a, "--format"))
			slot = &fmt;
		else if (!strcmp(a, "-o") || !strcmp(a, "--output"))
			slot = &out;
		else if (!strcmp(a, "--db"))
			slot = &db;
		else if (!strcmp(a, "--profile"))
			slot = &profile;
		else if (!strcmp(a, "--records"))
			slot = &records;
		else if (!strcmp(a, "--ompi-version"))
			slot = &ver;
		else if (!strcmp(a, "--rules"))
			slot = &rules;
		else if (!strcmp(a, "--collective"))
			slot = &coll;
		else if (!strcmp(a, "--host-bin"))
			slot = &host_bin;
		else if (!strcmp(a, "--worker-bin"))
			slot = &worker_bin;
		else if (!strcmp(a, "--run")) {
			if (i + 1 >= argc || parse_uint(argv[i + 1], 1, 1ull << 62, &v, err, sizeof(err))) {
				error("export: --run needs a run id%s%s", i + 1 < argc ? ": " : "",
				      i + 1 < argc ? err : "");
				return EXIT_USAGE;
			}
			run = (long long)v;
			i++;
			continue;
		} else if (a[0] == '-' && a[1]) {
			error("export: unknown option '%s'", a);
			export_usage(stderr);
			return EXIT_USAGE;
		} else if (spec) {
			error("export: one spec only ('%s' and '%s')", spec, a);
			return EXIT_USAGE;
		} else {
			spec = a;
			continue;
		}
		if (i + 1 >= argc) {
			error("export: %s needs a value", a);
			return EXIT_USAGE;
		}
		*slot = argv[++i];
	}
	if (!fmt) {
		error("export: --format is required");
		export_usage(stderr);
		return EXIT_USAGE;
	}
	if (export_parse_format(fmt, &x.fmt))
		return EXIT_USAGE;
	if (!!db + !!profile + !!records > 1) {
		error("export: --db, --profile and --records exclude each other");
		return EXIT_USAGE;
	}
	if (ver && ompi_version_parse(ver, &x.o.ompi)) {
		error("export: --ompi-version: '%s' is not a version such as 4.1.4", ver);
		return EXIT_USAGE;
	}
	if (coll && strcmp(coll, "bcast") && strcmp(coll, "gather") && strcmp(coll, "allgather")) {
		error("export: --collective: unknown collective '%s' (bcast, gather, allgather)", coll);
		return EXIT_USAGE;
	}
	if (profile ? profile_load(profile, &d) : records ? decisions_from_records(records, &d)
		    : decisions_from_db(db ? db : STORE_DEFAULT_PATH, run, spec, &d))
		goto out;
	if (x.fmt == EXPORT_MPMD) {
		status = export_mpmd(&d, spec ? spec : d.spec_path, out, coll, host_bin, worker_bin);
		goto out;
	}
	if (x.fmt == EXPORT_OMPI_RULES && !ver && ompi_version_detect(&x.o.ompi))
		goto out;
	if (x.fmt == EXPORT_ENV || x.fmt == EXPORT_MCA_PARAMS) {
		/* Default: ompi-rules.conf in the output's folder. */
		if (rules) {
			rules_abs = abs_path(rules);
		} else {
			char *o = xstrdup(out ? out : "./x");

			rules_abs = xasprintf("%s/ompi-rules.conf", dirname(o));
			free(o);
			o = rules_abs;
			rules_abs = abs_path(o);
			free(o);
		}
		if (!rules_abs)
			goto out;
		x.o.rules_path = rules_abs;
	}
	x.d = &d;
	if (out) {
		/* Check first, so that bad input is exit 2 and leaves nothing. */
		FILE *null = fopen("/dev/null", "w");
		int bad = null ? write_one(&x, null) : 0;

		if (null)
			fclose(null);
		if (bad)
			goto out;
		status = export_write_atomic(out, write_one, &x) ? 1 : 0;
	} else {
		status = write_one(&x, stdout) ? EXIT_USAGE : 0;
	}
out:
	free(rules_abs);
	decisions_release(&d);
	return status;
}
