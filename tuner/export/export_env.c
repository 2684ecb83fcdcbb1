/*
 * tuner/export/export_env.c: the formats that set things rather than describe
 * them: `env`, a shell file of variables (the best layout of each
 * collective, the settings that load the Open MPI rules, UCC_TL_UCP_TUNE),
 * and `mca-params`, an mca-params.conf fragment loading the rules. Both
 * point at the rules file by the absolute path the caller gives.
 */
#include "export_priv.h"

#include "colls.h"
#include "error.h"
#include "parse.h"
#include "strvec.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

/* The band of a collective covering the most sizes (ties: larger sizes). */
static const struct band *main_band(const struct band *b, size_t n)
{
	const struct band *best = NULL;

	for (size_t i = 0; i < n; i++)
		if (!best || b[i].nsizes >= best->nsizes)
			best = &b[i];
	return best;
}

static void put_var(FILE *f, const char *name, const char *value)
{
	char *q = NULL;

	shell_quote_append(&q, value);
	fprintf(f, "export %s=%s\n", name, q ? q : "''");
	free(q);
}

static void upper(char *dst, const char *src, size_t n)
{
	size_t i;

	for (i = 0; src[i] && i + 1 < n; i++)
		dst[i] = (src[i] >= 'a' && src[i] <= 'z') ? (char)(src[i] - 32) :
							    (src[i] == '-' ? '_' : src[i]);
	dst[i] = '\0';
}

static void put_ucc(FILE *f, const struct decisions *d, const struct export_opts *o)
{
	struct ucc_export u;

	if (export_ucc_build(d, o, &u))
		return;
	for (size_t i = 0; i < u.notes.nr; i++)
		fprintf(f, "# UCC: %s\n", u.notes.v[i]);
	for (size_t i = 0; i < u.vars.nr; i++) {
		char *eq = strchr(u.vars.v[i], '=');

		*eq = '\0';
		put_var(f, u.vars.v[i], eq + 1);
	}
	if (u.tune)
		put_var(f, "UCC_TL_UCP_TUNE", u.tune);
	export_ucc_release(&u);
}

int export_env(const struct decisions *d, const struct export_opts *o, FILE *f)
{
	char name[96], val[64], sz[32], sz2[32];
	int any = 0;

	fprintf(f,
		"# sweetspot env: the measured decisions as shell variables (%s run %lld).\n"
		"# Source it: . THIS_FILE\n",
		d->source ? d->source : "-", d->run);
	for (size_t c = 0; c < colls_count; c++) {
		const char *coll = colls_name(&colls_table[c]);
		struct band *b;
		size_t nb = decisions_bands(d, coll, &b);
		const struct band *m;
		char up[32], *bands = xstrdup("");

		if (!nb) {
			free(b);
			free(bands);
			continue;
		}
		any = 1;
		upper(up, coll, sizeof(up));
		m = main_band(b, nb);
		for (size_t i = 0; i < nb; i++) {
			char *t = xasprintf("%s%llu-%llu:%s:%s:%s", *bands ? " " : "",
					    (unsigned long long)b[i].lo,
					    (unsigned long long)b[i].hi, b[i].best->key.algorithm,
					    b[i].best->key.assignment, b[i].best->layout);

			fprintf(f, "# %s %s..%s: %s, %s, %s (oe_measured %.1f +- %.1f)\n", coll,
				format_size(b[i].lo, sz, sizeof(sz)),
				format_size(b[i].hi, sz2, sizeof(sz2)), b[i].best->key.algorithm,
				b[i].best->key.assignment, b[i].best->layout, b[i].best->oe,
				b[i].best->spread);
			bands = xrealloc(bands, strlen(bands) + strlen(t) + 1);
			strcat(bands, t);
			free(t);
		}
		snprintf(name, sizeof(name), "SWEETSPOT_%s_LAYOUT", up);
		put_var(f, name, m->best->layout);
		snprintf(name, sizeof(name), "SWEETSPOT_%s_WORKERS", up);
		snprintf(val, sizeof(val), "%u", m->best->workers);
		put_var(f, name, val);
		snprintf(name, sizeof(name), "SWEETSPOT_%s_WPN", up);
		snprintf(val, sizeof(val), "%u", m->best->wpn);
		put_var(f, name, val);
		snprintf(name, sizeof(name), "SWEETSPOT_%s_PLACEMENT", up);
		put_var(f, name, m->best->placement);
		snprintf(name, sizeof(name), "SWEETSPOT_%s_ASSIGNMENT", up);
		put_var(f, name, m->best->key.assignment);
		snprintf(name, sizeof(name), "SWEETSPOT_%s_ALGORITHM", up);
		put_var(f, name, m->best->key.algorithm);
		snprintf(name, sizeof(name), "SWEETSPOT_%s_BANDS", up);
		put_var(f, name, bands);
		free(bands);
		free(b);
	}
	if (decisions_has_mpi(d, NULL)) {
		any = 1;
		fputs("# Open MPI: the coll/tuned rules written by 'sweetspot export --format "
		      "ompi-rules'\n",
		      f);
		put_var(f, "OMPI_MCA_coll_tuned_use_dynamic_rules", "1");
		put_var(f, "OMPI_MCA_coll_tuned_dynamic_rules_filename", o->rules_path);
		if (export_knomial_radix(d, o->params) > 0) {
			snprintf(val, sizeof(val), "%ld", export_knomial_radix(d, o->params));
			put_var(f, "OMPI_MCA_coll_tuned_bcast_algorithm_knomial_radix", val);
		}
		/* UCC's settings only when some choice maps; their absence is no
		 * error here. */
		for (size_t k = 0; k < d->nmpi; k++)
			if (export_ucc_alg(d->mpi[k].collective, d->mpi[k].alg)) {
				put_ucc(f, d, o);
				break;
			}
	}
	if (!any)
		return error("env: nothing measured to export in %s",
			     d->source ? d->source : "the input");
	return 0;
}

int export_mca_params(const struct decisions *d, const struct export_opts *o, FILE *f)
{
	if (export_need_mpi(d, "mca-params"))
		return -1;
	fprintf(f,
		"# sweetspot mca-params: Open MPI settings that load the coll/tuned rules\n"
		"# written by 'sweetspot export --format ompi-rules' (%s run %lld).\n"
		"# Append to $HOME/.openmpi/mca-params.conf (you) or\n"
		"# $prefix/etc/openmpi-mca-params.conf (everyone).\n",
		d->source ? d->source : "-", d->mpi_run);
	fprintf(f, "coll_tuned_use_dynamic_rules = 1\n");
	fprintf(f, "coll_tuned_dynamic_rules_filename = %s\n", o->rules_path);
	/* The one parameter of a measured algorithm no rule carries. */
	if (export_knomial_radix(d, o->params) > 0)
		fprintf(f, "coll_tuned_bcast_algorithm_knomial_radix = %ld\n",
			export_knomial_radix(d, o->params));
	return 0;
}
