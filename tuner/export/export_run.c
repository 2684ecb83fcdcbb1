/*
 * tuner/export/export_run.c: one export as one call (export.h's
 * export_run()), for `sweetspot export` and the report alike: the
 * decisions read (a run, a profile or the kernel's records), inner
 * collectives pinned, and every format written to its path, all checked
 * before any is written, so that bad input leaves nothing; or an MPMD
 * recipe's folder.
 */
#include "export.h"

#include "error.h"
#include "files.h"
#include "store.h"
#include "xalloc.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int export_parse_formats(const char *s, enum export_format *f, size_t *n)
{
	char *copy = xstrdup(s), *save = NULL;
	int ret = 0;

	*n = 0;
	for (char *t = strtok_r(copy, ",", &save); t && !ret; t = strtok_r(NULL, ",", &save)) {
		if (*n == EXPORT_MAX_FORMATS || export_parse_format(t, &f[*n])) {
			ret = *n == EXPORT_MAX_FORMATS ?
				      error("--format: at most %d formats", EXPORT_MAX_FORMATS) :
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

static int load_decisions(const struct export_request *a, struct decisions *d)
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
static int shared_opts(const struct export_request *a, const struct decisions *d,
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
	if (want_ver && !a->ompi_given && ompi_version_detect(&o->ompi))
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

int export_run(const struct export_request *a)
{
	struct decisions d = DECISIONS_INIT;
	struct ompi_params params = { 0 };
	struct exp_ctx x[EXPORT_MAX_FORMATS];
	struct export_opts o = { 0 };
	const enum export_format *f = a->fmt;
	char *rules_abs = NULL, *paths[EXPORT_MAX_FORMATS] = { 0 };
	size_t n = a->nfmt;
	int status = EXIT_USAGE;

	o.ompi = a->ompi;
	if (load_decisions(a, &d))
		goto out;
	export_pin_inner(&d, stderr);
	if (f[0] == EXPORT_MPMD) {
		status = export_mpmd(&d, a->spec ? a->spec : d.spec_path, a->out, a->coll,
				     a->host_bin, a->worker_bin);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		paths[i] = !a->out ? NULL :
			   i	   ? xasprintf("%s.%s", a->out, export_format_name(f[i])) :
				     xstrdup(a->out);
	if (shared_opts(a, &d, f, n, paths, &params, &rules_abs, &o))
		goto out;
	for (size_t i = 0; i < n; i++)
		x[i] = (struct exp_ctx){ f[i], &d, o };
	status = write_outputs(x, n, paths, a->force);
out:
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(rules_abs);
	ompi_params_release(&params);
	decisions_release(&d);
	return status;
}
