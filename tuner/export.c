/*
 * tuner/export.c: the single-file export formats of export.h, the version
 * check that decides which Open MPI rules format to write, the atomic
 * file writer, and the profile reader. Open MPI counts a rule's message
 * size its own way: bytes per rank for bcast, bytes per rank times the
 * communicator size for gather and allgather (coll_tuned_decision_dynamic.c);
 * the rules are written in those terms.
 */
#include "export.h"

#include "child.h"
#include "error.h"
#include "parse.h"
#include "strvec.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <libconfig.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const format_names[] = {
	"ompi-rules", "ompi-json", "ucc", "env", "mca-params", "mpmd", "profile", NULL,
};

int export_parse_format(const char *s, enum export_format *out)
{
	for (int i = 0; format_names[i]; i++)
		if (!strcmp(s, format_names[i])) {
			*out = (enum export_format)i;
			return 0;
		}
	return error("unknown format '%s' (ompi-rules, ompi-json, ucc, env, mca-params, "
		     "mpmd or profile)", s);
}

const char *export_format_name(enum export_format f)
{
	return format_names[f];
}

/* ---- Open MPI's version ---------------------------------------------------- */

int ompi_version_parse(const char *s, struct ompi_version *v)
{
	int x[3] = { 0, 0, 0 }, n = 0;

	if (!s)
		return -1;
	if (*s == 'v')
		s++;
	while (n < 3) {
		long val = 0;

		if (!isdigit((unsigned char)*s))
			return -1;
		while (isdigit((unsigned char)*s)) {
			val = val * 10 + (*s++ - '0');
			if (val > 1000)
				return -1;
		}
		x[n++] = (int)val;
		if (*s != '.')
			break;
		s++;
	}
	/* major.minor at least; a tag such as rc1 or a1 may follow. */
	if (n < 2 || (*s && !isalpha((unsigned char)*s)))
		return -1;
	v->major = x[0];
	v->minor = x[1];
	v->release = x[2];
	return 0;
}

/* Runs argv with its output in a temporary file; returns the output
 * (caller frees) or NULL. */
static char *capture(const char *const *argv)
{
	struct strvec av = STRVEC_INIT;
	struct launch_child c = { 0 };
	struct launch_result r;
	char tmpl[] = "/tmp/sweetspot-version.XXXXXX";
	char *out = NULL, buf[4096];
	size_t n;
	FILE *f;
	int fd;

	fd = mkstemp(tmpl);
	if (fd < 0)
		return NULL;
	close(fd);
	strvec_pushv(&av, argv);
	c.argv = &av;
	c.log = tmpl;
	c.timeout_s = 30;
	if (launch_spawn(&c, &r) == 0 && (f = fopen(tmpl, "r"))) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		buf[n] = '\0';
		fclose(f);
		out = xstrdup(buf);
	}
	unlink(tmpl);
	strvec_clear(&av);
	return out;
}

int ompi_version_detect(struct ompi_version *v)
{
	static const char *const a1[] = { "ompi_info", "--version", NULL };
	static const char *const a2[] = { "mpirun", "--version", NULL };
	const char *const *tries[] = { a1, a2 };

	for (int t = 0; t < 2; t++) {
		char *out = capture(tries[t]), *p;
		int ok = -1;

		/* "Open MPI v4.1.4" (ompi_info) or "mpirun (Open MPI) 4.1.4". */
		if (out && (p = strstr(out, "Open MPI"))) {
			p += strlen("Open MPI");
			while (*p == ')' || *p == ' ')
				p++;
			ok = ompi_version_parse(strtok(p, " \n"), v);
		}
		free(out);
		if (!ok)
			return 0;
	}
	return error("cannot tell the Open MPI version (neither 'ompi_info --version' nor "
		     "'mpirun --version' answered); give --ompi-version");
}

int ompi_reads_rules_v2(const struct ompi_version *v)
{
	if (v->major != 5)
		return v->major > 5;
	return v->minor > 0 || v->release >= 7;
}

/* ---- Open MPI rules ---------------------------------------------------------- */

static int coll_id(const char *c)
{
	if (!strcmp(c, "allgather"))
		return 0;
	if (!strcmp(c, "bcast"))
		return 7;
	if (!strcmp(c, "gather"))
		return 9;
	return -1;
}

/* Open MPI's message size of a rule (see the file comment). */
static uint64_t ompi_msg_size(const struct mpi_choice *m)
{
	return strcmp(m->collective, "bcast") ? m->bytes * m->ranks : m->bytes;
}

/* The rules of one collective and communicator size: choices [i, j) of
 * d->mpi, merged where the algorithm does not change. */
struct rule {
	uint64_t size;
	const struct mpi_choice *m;
};

static size_t rules_of(const struct decisions *d, size_t i, size_t j, struct rule *out)
{
	size_t n = 0;

	for (size_t k = i; k < j; k++) {
		if (n && out[n - 1].m->alg == d->mpi[k].alg)
			continue;
		/* Open MPI wants the first rule at size 0: the smallest measured
		 * size's choice covers everything below it too. */
		out[n].size = n ? ompi_msg_size(&d->mpi[k]) : 0;
		out[n].m = &d->mpi[k];
		n++;
	}
	return n;
}

/* Collectives with Open MPI choices, in collective id order. */
static size_t mpi_collectives(const struct decisions *d, const char **out)
{
	static const char *const order[] = { "allgather", "bcast", "gather" };
	size_t n = 0;

	for (int i = 0; i < 3; i++)
		if (decisions_has_mpi(d, order[i]))
			out[n++] = order[i];
	return n;
}

/* The extent of collective c, comm size `ranks` in d->mpi: [*i, *j). */
static void span(const struct decisions *d, const char *c, unsigned ranks, size_t *i, size_t *j)
{
	for (*i = 0; *i < d->nmpi && (strcmp(d->mpi[*i].collective, c) || d->mpi[*i].ranks != ranks); (*i)++)
		;
	for (*j = *i; *j < d->nmpi && !strcmp(d->mpi[*j].collective, c) && d->mpi[*j].ranks == ranks; (*j)++)
		;
}

static size_t comm_sizes(const struct decisions *d, const char *c, unsigned *out)
{
	size_t n = 0;

	for (size_t k = 0; k < d->nmpi; k++)
		if (!strcmp(d->mpi[k].collective, c) && (!n || out[n - 1] != d->mpi[k].ranks))
			out[n++] = d->mpi[k].ranks;
	return n;
}

static void warn_unknown_mpi(const struct decisions *d)
{
	for (size_t k = 0; k < d->nmpi; k++)
		if (coll_id(d->mpi[k].collective) < 0) {
			warning("Open MPI rules: collective '%s' has no coll/tuned id here; left out",
				d->mpi[k].collective);
			return;
		}
}

static int need_mpi(const struct decisions *d, const char *what)
{
	const char *c[3];

	if (!mpi_collectives(d, c))
		return error("%s: no Open MPI algorithm measurement (kernel --mode mpi, one "
			     "coll_tuned algorithm forced per launch) in %s", what,
			     d->source ? d->source : "the input");
	return 0;
}

int export_ompi_rules(const struct decisions *d, const struct export_opts *o, FILE *f)
{
	const char *colls[3];
	size_t nc = mpi_collectives(d, colls);
	int v2 = ompi_reads_rules_v2(&o->ompi);
	struct rule *rules = xcalloc(d->nmpi + 1, sizeof(*rules));
	unsigned *sizes = xcalloc(d->nmpi + 1, sizeof(*sizes));
	char sz[32];

	if (need_mpi(d, "ompi-rules")) {
		free(rules);
		free(sizes);
		return -1;
	}
	warn_unknown_mpi(d);
	if (v2)
		fputs("rule-file-version-2\n", f);
	fprintf(f, "# sweetspot ompi-rules: Open MPI coll/tuned dynamic rules, the fastest\n"
		"# algorithm measured per collective, communicator size and message size\n"
		"# (%s run %lld).\n# Written for Open MPI %d.%d.%d: %s.\n"
		"# Use: mpirun --mca coll_tuned_use_dynamic_rules 1 \\\n"
		"#          --mca coll_tuned_dynamic_rules_filename THIS_FILE ...\n"
		"# Message sizes are Open MPI's: bytes per rank for bcast, bytes per rank\n"
		"# times the communicator size for gather and allgather. Algorithm 0 leaves\n"
		"# the choice to Open MPI's built-in rules.\n",
		d->source ? d->source : "-", d->run, o->ompi.major, o->ompi.minor, o->ompi.release,
		v2 ? "rule-file-version-2, 5 columns\n# (bytes alg faninout segsize reqs)"
		   : "the classic format, 4 columns\n# (bytes alg faninout segsize); it ignores "
		     "the rule-file-version-2 form");
	fprintf(f, "%-12zu # collectives\n", nc);
	for (size_t c = 0; c < nc; c++) {
		size_t ns = comm_sizes(d, colls[c], sizes);

		fprintf(f, "%-12d # collective id: %s\n", coll_id(colls[c]), colls[c]);
		fprintf(f, "%-12zu # communicator sizes\n", ns);
		for (size_t s = 0; s < ns; s++) {
			size_t i, j, nr;

			span(d, colls[c], sizes[s], &i, &j);
			nr = rules_of(d, i, j, rules);
			fprintf(f, "%-12u # communicator size (this one and up)\n", sizes[s]);
			fprintf(f, "%-12zu # message size rules\n", nr);
			for (size_t r = 0; r < nr; r++) {
				char line[96];

				snprintf(line, sizeof(line), v2 ? "%llu %d 0 0 0" : "%llu %d 0 0",
					 (unsigned long long)rules[r].size, rules[r].m->alg);
				fprintf(f, "%-24s # %s from %s: %.1f us at %s per rank\n", line,
					mpi_algorithm_name(colls[c], rules[r].m->alg),
					format_size(rules[r].size, sz, sizeof(sz)), rules[r].m->avg_us,
					format_size(rules[r].m->bytes, (char[32]){ 0 }, 32));
			}
		}
	}
	free(rules);
	free(sizes);
	return 0;
}

int export_ompi_json(const struct decisions *d, FILE *f)
{
	const char *colls[3];
	size_t nc = mpi_collectives(d, colls);
	json_t *root, *cs;
	struct rule *rules;
	unsigned *sizes;
	int ret;

	if (need_mpi(d, "ompi-json"))
		return -1;
	warn_unknown_mpi(d);
	rules = xcalloc(d->nmpi + 1, sizeof(*rules));
	sizes = xcalloc(d->nmpi + 1, sizeof(*sizes));
	root = json_object();
	cs = json_object();
	json_object_set_new(root, "rule_file_version", json_integer(3));
	json_object_set_new(root, "module", json_string("tuned"));
	for (size_t c = 0; c < nc; c++) {
		size_t ns = comm_sizes(d, colls[c], sizes);
		json_t *arr = json_array();

		for (size_t s = 0; s < ns; s++) {
			json_t *cr = json_object(), *rs = json_array();
			size_t i, j, nr;

			span(d, colls[c], sizes[s], &i, &j);
			nr = rules_of(d, i, j, rules);
			json_object_set_new(cr, "comm_size_min", json_integer(sizes[s]));
			json_object_set_new(cr, "comm_size_max", s + 1 < ns ?
					    json_integer(sizes[s + 1] - 1) : json_string("inf"));
			for (size_t r = 0; r < nr; r++) {
				/* Open MPI's own decision is what no matching rule gives. */
				if (!rules[r].m->alg)
					continue;
				json_array_append_new(rs, json_pack("{s:I, s:o, s:s}",
					"msg_size_min", (json_int_t)rules[r].size,
					"msg_size_max", r + 1 < nr ?
						json_integer((json_int_t)rules[r + 1].size - 1) :
						json_string("inf"),
					"alg", mpi_algorithm_name(colls[c], rules[r].m->alg)));
			}
			json_object_set_new(cr, "rules", rs);
			json_array_append_new(arr, cr);
		}
		json_object_set_new(cs, colls[c], arr);
	}
	json_object_set_new(root, "collectives", cs);
	ret = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', f);
	json_decref(root);
	free(rules);
	free(sizes);
	return ret ? error("cannot write the JSON rules") : 0;
}

/* ---- UCC ----------------------------------------------------------------- */

/* UCC TL/UCP's nearest algorithm to an Open MPI one; NULL when none. */
static const char *ucc_alg(const char *coll, int alg)
{
	if (!strcmp(coll, "bcast")) {
		if (alg == 4 || alg == 5)
			return "dbt";
		if (alg == 8 || alg == 9)
			return "sag_knomial";
		return alg > 0 && alg <= 7 ? "knomial" : NULL;
	}
	if (!strcmp(coll, "allgather")) {
		static const char *const m[] = { NULL, "linear", "bruck", "knomial", "ring",
						 "neighbor", NULL };
		return alg > 0 && alg < 7 ? m[alg] : NULL;
	}
	return NULL;
}

char *export_ucc_tune(const struct decisions *d)
{
	char *s = xstrdup("");
	unsigned *sizes = xcalloc(d->nmpi + 1, sizeof(*sizes));
	struct rule *rules = xcalloc(d->nmpi + 1, sizeof(*rules));
	static const char *const colls[] = { "bcast", "gather", "allgather" };

	for (int c = 0; c < 3; c++) {
		size_t ns = comm_sizes(d, colls[c], sizes);

		for (size_t k = 0; k < ns; k++) {
			size_t i, j, nr;
			char team[64];

			span(d, colls[c], sizes[k], &i, &j);
			nr = rules_of(d, i, j, rules);
			if (k + 1 < ns)
				snprintf(team, sizeof(team), "[%u-%u]", sizes[k], sizes[k + 1] - 1);
			else
				snprintf(team, sizeof(team), "[%u-inf]", sizes[k]);
			for (size_t r = 0; r < nr; r++) {
				const char *a = ucc_alg(colls[c], rules[r].m->alg);
				char *tok, hi[32];

				if (!a)
					continue;
				if (r + 1 < nr)
					snprintf(hi, sizeof(hi), "%llu",
						 (unsigned long long)rules[r + 1].size - 1);
				else
					snprintf(hi, sizeof(hi), "inf");
				tok = xasprintf("%s%s:%llu-%s:%s:@%s", *s ? "#" : "", colls[c],
						(unsigned long long)rules[r].size, hi, team, a);
				s = xrealloc(s, strlen(s) + strlen(tok) + 1);
				strcat(s, tok);
				free(tok);
			}
		}
	}
	free(sizes);
	free(rules);
	if (!*s) {
		free(s);
		error("ucc: no measured Open MPI choice has a UCC TL/UCP counterpart%s",
		      decisions_has_mpi(d, NULL) ? "" : " (no Open MPI measurement at all)");
		return NULL;
	}
	return s;
}

int export_ucc(const struct decisions *d, FILE *f)
{
	char *tune = export_ucc_tune(d);

	if (!tune)
		return -1;
	fprintf(f, "# sweetspot ucc: the measured Open MPI algorithm choices as UCC's TL/UCP\n"
		"# selection (%s run %lld); tokens are coll:bytes:[team sizes]:@algorithm,\n"
		"# sizes counted as Open MPI counts them. gather has no TL/UCP counterpart\n"
		"# and is left to UCC's scores. Use with Open MPI: --mca coll_ucc_enable 1\n"
		"# --mca coll_ucc_priority 100, and this variable in the environment.\n",
		d->source ? d->source : "-", d->run);
	fprintf(f, "UCC_TL_UCP_TUNE=%s\n", tune);
	free(tune);
	return 0;
}

/* ---- env and mca-params ---------------------------------------------------- */

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

int export_env(const struct decisions *d, const struct export_opts *o, FILE *f)
{
	static const char *const colls[] = { "bcast", "gather", "allgather" };
	char name[96], val[64], sz[32], sz2[32];
	int any = 0;

	fprintf(f, "# sweetspot env: the measured decisions as shell variables (%s run %lld).\n"
		"# Source it: . THIS_FILE\n", d->source ? d->source : "-", d->run);
	for (int c = 0; c < 3; c++) {
		struct band *b;
		size_t nb = decisions_bands(d, colls[c], &b);
		const struct band *m;
		char up[32], *bands = xstrdup("");

		if (!nb) {
			free(b);
			free(bands);
			continue;
		}
		any = 1;
		upper(up, colls[c], sizeof(up));
		m = main_band(b, nb);
		for (size_t i = 0; i < nb; i++) {
			char *t = xasprintf("%s%llu-%llu:%s:%s:%s", *bands ? " " : "",
					    (unsigned long long)b[i].lo, (unsigned long long)b[i].hi,
					    b[i].best->algorithm, b[i].best->assignment, b[i].best->layout);

			fprintf(f, "# %s %s..%s: %s, %s, %s (oe_measured %.1f +- %.1f)\n", colls[c],
				format_size(b[i].lo, sz, sizeof(sz)), format_size(b[i].hi, sz2, sizeof(sz2)),
				b[i].best->algorithm, b[i].best->assignment, b[i].best->layout,
				b[i].best->oe, b[i].best->spread);
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
		put_var(f, name, m->best->assignment);
		snprintf(name, sizeof(name), "SWEETSPOT_%s_ALGORITHM", up);
		put_var(f, name, m->best->algorithm);
		snprintf(name, sizeof(name), "SWEETSPOT_%s_BANDS", up);
		put_var(f, name, bands);
		free(bands);
		free(b);
	}
	if (decisions_has_mpi(d, NULL)) {
		char *tune;

		any = 1;
		fputs("# Open MPI: the coll/tuned rules written by 'sweetspot export --format ompi-rules'\n", f);
		put_var(f, "OMPI_MCA_coll_tuned_use_dynamic_rules", "1");
		put_var(f, "OMPI_MCA_coll_tuned_dynamic_rules_filename", o->rules_path);
		/* A UCC string only when some choice maps; its absence is no error here. */
		for (size_t k = 0; k < d->nmpi; k++)
			if (ucc_alg(d->mpi[k].collective, d->mpi[k].alg)) {
				tune = export_ucc_tune(d);
				if (tune) {
					put_var(f, "UCC_TL_UCP_TUNE", tune);
					free(tune);
				}
				break;
			}
	}
	if (!any)
		return error("env: nothing measured to export in %s", d->source ? d->source : "the input");
	return 0;
}

int export_mca_params(const struct decisions *d, const struct export_opts *o, FILE *f)
{
	if (need_mpi(d, "mca-params"))
		return -1;
	fprintf(f, "# sweetspot mca-params: Open MPI settings that load the coll/tuned rules\n"
		"# written by 'sweetspot export --format ompi-rules' (%s run %lld).\n"
		"# Append to $HOME/.openmpi/mca-params.conf (you) or\n"
		"# $prefix/etc/openmpi-mca-params.conf (everyone).\n",
		d->source ? d->source : "-", d->run);
	fprintf(f, "coll_tuned_use_dynamic_rules = 1\n");
	fprintf(f, "coll_tuned_dynamic_rules_filename = %s\n", o->rules_path);
	return 0;
}

/* ---- profile --------------------------------------------------------------- */

/* A libconfig string literal. */
static void put_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if ((unsigned char)*s < 0x20)
			fprintf(f, "\\x%02x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/* A libconfig float: always with a point or exponent, exact on reading. */
static void put_float(FILE *f, double v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.17g", v);
	if (!strpbrk(buf, ".eEn"))
		strcat(buf, ".0");
	fputs(buf, f);
}

int export_profile(const struct decisions *d, FILE *f)
{
	size_t i;

	if (!d->noff && !d->nmpi)
		return error("profile: nothing measured to export in %s",
			     d->source ? d->source : "the input");
	fputs("# sweetspot profile: the decisions measured, for sweetspot to read back\n"
	      "# ('sweetspot export --profile THIS_FILE --format ...', 'sweetspot recommend\n"
	      "# --profile THIS_FILE'). offload: the best layout of every collective,\n"
	      "# algorithm, assignment and message size; mpi: the fastest Open MPI\n"
	      "# coll/tuned algorithm per collective, communicator and message size.\n", f);
	fputs("version = 1;\nsource = ", f);
	put_str(f, d->source);
	fprintf(f, ";\nrun = %lldL;\n", d->run);
	if (d->spec_path) {
		fputs("spec = ", f);
		put_str(f, d->spec_path);
		fputs(";\n", f);
	}
	if (d->spec_hash) {
		fputs("spec_hash = ", f);
		put_str(f, d->spec_hash);
		fputs(";\n", f);
	}
	fputs("offload = (", f);
	for (i = 0; i < d->noff; i++) {
		const struct offload_choice *c = &d->off[i];

		fputs(i ? ",\n  { collective = " : "\n  { collective = ", f);
		put_str(f, c->collective);
		fputs("; algorithm = ", f);
		put_str(f, c->algorithm);
		fputs("; assignment = ", f);
		put_str(f, c->assignment);
		fprintf(f, "; bytes = %lluL;\n    layout = ", (unsigned long long)c->bytes);
		put_str(f, c->layout);
		fputs("; placement = ", f);
		put_str(f, c->placement);
		fprintf(f, "; nodes = %u; ppn = %u; workers = %u; wpn = %u;\n    oe = ",
			c->nodes, c->ppn, c->workers, c->wpn);
		put_float(f, c->oe);
		fputs("; spread = ", f);
		put_float(f, c->spread);
		fprintf(f, "; repetitions = %u;", c->reps);
		if (c->runner_up) {
			fputs(" runner_up = ", f);
			put_str(f, c->runner_up);
			fputs("; runner_up_oe = ", f);
			put_float(f, c->runner_up_oe);
			fputc(';', f);
		}
		fputs("\n    total_us = ", f);
		put_float(f, isfinite(c->total_us) ? c->total_us : -1);
		fputs("; ref_us = ", f);
		put_float(f, isfinite(c->ref_us) ? c->ref_us : -1);
		fputs("; compute_us = ", f);
		put_float(f, isfinite(c->compute_us) ? c->compute_us : -1);
		fputs("; }", f);
	}
	fputs("\n);\nmpi = (", f);
	for (i = 0; i < d->nmpi; i++) {
		const struct mpi_choice *m = &d->mpi[i];

		fputs(i ? ",\n  { collective = " : "\n  { collective = ", f);
		put_str(f, m->collective);
		fprintf(f, "; ranks = %u; bytes = %lluL; algorithm = %d; avg_us = ", m->ranks,
			(unsigned long long)m->bytes, m->alg);
		put_float(f, m->avg_us);
		if (isfinite(m->default_us)) {
			fputs("; default_us = ", f);
			put_float(f, m->default_us);
		}
		fprintf(f, "; algorithms = %u; }", m->algorithms);
	}
	fputs("\n);\n", f);
	return 0;
}

/* Profile settings: typed lookups that report file:line. */
static int get_str(const config_setting_t *g, const char *name, const char *path, char **out)
{
	const char *s;

	if (!config_setting_lookup_string(g, name, &s))
		return error("%s:%d: missing or not a string: %s", path,
			     config_setting_source_line(g), name);
	*out = xstrdup(s);
	return 0;
}

static int get_num(const config_setting_t *g, const char *name, const char *path,
		   int optional, double *out)
{
	config_setting_t *s = config_setting_get_member(g, name);

	if (!s) {
		if (optional) {
			*out = NAN;
			return 0;
		}
		return error("%s:%d: missing: %s", path, config_setting_source_line(g), name);
	}
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		*out = (double)config_setting_get_int64(s);
		return 0;
	case CONFIG_TYPE_FLOAT:
		*out = config_setting_get_float(s);
		return 0;
	default:
		return error("%s:%d: not a number: %s", path, config_setting_source_line(s), name);
	}
}

static int get_uint(const config_setting_t *g, const char *name, const char *path, unsigned *out)
{
	double v;

	if (get_num(g, name, path, 0, &v))
		return -1;
	if (v < 0 || v > 4294967295.0 || v != floor(v))
		return error("%s:%d: %s must be a whole number >= 0", path,
			     config_setting_source_line(g), name);
	*out = (unsigned)v;
	return 0;
}

int profile_load(const char *path, struct decisions *d)
{
	config_t cfg;
	config_setting_t *list;
	long long run = 0;
	const char *s;
	int ret = -1, version = 0;
	unsigned n;

	memset(d, 0, sizeof(*d));
	config_init(&cfg);
	if (!config_read_file(&cfg, path)) {
		if (config_error_type(&cfg) == CONFIG_ERR_FILE_IO)
			error("cannot read %s: %s", path, strerror(errno));
		else
			error("%s:%d: %s", config_error_file(&cfg) ? config_error_file(&cfg) : path,
			      config_error_line(&cfg), config_error_text(&cfg));
		goto out;
	}
	if (!config_lookup_int(&cfg, "version", &version) || version != 1) {
		error("%s: not a sweetspot profile of version 1", path);
		goto out;
	}
	d->source = config_lookup_string(&cfg, "source", &s) ? xstrdup(s) : xstrdup(path);
	if (config_lookup_int64(&cfg, "run", &run))
		d->run = run;
	if (config_lookup_string(&cfg, "spec", &s))
		d->spec_path = xstrdup(s);
	if (config_lookup_string(&cfg, "spec_hash", &s))
		d->spec_hash = xstrdup(s);
	list = config_lookup(&cfg, "offload");
	n = list ? (unsigned)config_setting_length(list) : 0;
	d->off = xcalloc(n + 1, sizeof(*d->off));
	for (unsigned i = 0; i < n; i++) {
		config_setting_t *g = config_setting_get_elem(list, i);
		struct offload_choice *c = &d->off[d->noff];
		double b, reps;

		if (!config_setting_is_group(g)) {
			error("%s:%d: offload entries are groups { ... }", path,
			      config_setting_source_line(list));
			goto out;
		}
		d->noff++;
		if (get_str(g, "collective", path, &c->collective) ||
		    get_str(g, "algorithm", path, &c->algorithm) ||
		    get_str(g, "assignment", path, &c->assignment) ||
		    get_str(g, "layout", path, &c->layout) ||
		    get_str(g, "placement", path, &c->placement) ||
		    get_num(g, "bytes", path, 0, &b) ||
		    get_uint(g, "nodes", path, &c->nodes) || get_uint(g, "ppn", path, &c->ppn) ||
		    get_uint(g, "workers", path, &c->workers) || get_uint(g, "wpn", path, &c->wpn) ||
		    get_num(g, "oe", path, 0, &c->oe) || get_num(g, "spread", path, 0, &c->spread) ||
		    get_num(g, "repetitions", path, 0, &reps) ||
		    get_num(g, "runner_up_oe", path, 1, &c->runner_up_oe) ||
		    get_num(g, "total_us", path, 1, &c->total_us) ||
		    get_num(g, "ref_us", path, 1, &c->ref_us) ||
		    get_num(g, "compute_us", path, 1, &c->compute_us))
			goto out;
		if (b < 1) {
			error("%s:%d: bytes must be >= 1", path, config_setting_source_line(g));
			goto out;
		}
		c->bytes = (uint64_t)b;
		c->reps = (unsigned)reps;
		if (config_setting_lookup_string(g, "runner_up", &s))
			c->runner_up = xstrdup(s);
		/* Absent figures were written as -1. */
		if (c->total_us < 0)
			c->total_us = NAN;
		if (c->ref_us < 0)
			c->ref_us = NAN;
		if (c->compute_us < 0)
			c->compute_us = NAN;
	}
	list = config_lookup(&cfg, "mpi");
	n = list ? (unsigned)config_setting_length(list) : 0;
	d->mpi = xcalloc(n + 1, sizeof(*d->mpi));
	for (unsigned i = 0; i < n; i++) {
		config_setting_t *g = config_setting_get_elem(list, i);
		struct mpi_choice *m = &d->mpi[d->nmpi];
		double b, alg;

		if (!config_setting_is_group(g)) {
			error("%s:%d: mpi entries are groups { ... }", path,
			      config_setting_source_line(list));
			goto out;
		}
		d->nmpi++;
		if (get_str(g, "collective", path, &m->collective) ||
		    get_uint(g, "ranks", path, &m->ranks) || get_num(g, "bytes", path, 0, &b) ||
		    get_num(g, "algorithm", path, 0, &alg) || get_num(g, "avg_us", path, 0, &m->avg_us) ||
		    get_num(g, "default_us", path, 1, &m->default_us) ||
		    get_uint(g, "algorithms", path, &m->algorithms))
			goto out;
		if (b < 1 || alg < 0 || alg > 64 || alg != floor(alg)) {
			error("%s:%d: bad bytes or algorithm", path, config_setting_source_line(g));
			goto out;
		}
		m->bytes = (uint64_t)b;
		m->alg = (int)alg;
	}
	if (!d->noff && !d->nmpi) {
		error("%s: the profile holds no decision", path);
		goto out;
	}
	ret = 0;
out:
	config_destroy(&cfg);
	if (ret)
		decisions_release(d);
	return ret;
}

/* ---- atomic files ------------------------------------------------------------ */

int export_write_atomic(const char *path, int (*fn)(void *ctx, FILE *f), void *ctx)
{
	char *tmp = xasprintf("%s.tmp.XXXXXX", path);
	FILE *f = NULL;
	int fd, ret = -1;

	fd = mkstemp(tmp);
	if (fd < 0) {
		error("cannot create %s: %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	f = fdopen(fd, "w");
	if (!f) {
		error("cannot write %s: %s", tmp, strerror(errno));
		close(fd);
		goto out;
	}
	if (fn(ctx, f))
		goto out;
	if (fflush(f) || ferror(f) || fsync(fileno(f))) {
		error("cannot write %s: %s", tmp, strerror(errno));
		goto out;
	}
	if (fclose(f)) {
		f = NULL;
		error("cannot write %s: %s", tmp, strerror(errno));
		goto out;
	}
	f = NULL;
	if (rename(tmp, path)) {
		error("cannot rename %s to %s: %s", tmp, path, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	if (f)
		fclose(f);
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
}
