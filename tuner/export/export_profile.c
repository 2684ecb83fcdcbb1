/*
 * tuner/export/export_profile.c: sweetspot's own profile: the decisions written
 * as a libconfig file (every figure exact, so that reading it back gives
 * the same decisions and the same exports), and profile_load() that reads
 * it back with file:line for anything wrong.
 */
#include "export.h"

#include "error.h"
#include "xalloc.h"

#include <errno.h>
#include <libconfig.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* The axes of a point that apply to it (point.h), each as a setting:
 * "dtype", "op", "chunk", "window", "radix". */
static void put_axes(FILE *f, const struct point *p)
{
	if (point_has(p->dtype)) {
		fputs(" dtype = ", f);
		put_str(f, p->dtype);
		fputs("; op = ", f);
		put_str(f, p->op);
		fputc(';', f);
	}
	if (p->chunk)
		fprintf(f, " chunk = %lluL; window = %u;", (unsigned long long)p->chunk, p->window);
	if (p->radix)
		fprintf(f, " radix = %u;", p->radix);
}

int export_profile(const struct decisions *d, FILE *f)
{
	size_t i;

	if (!d->noff && !d->nmpi)
		return error("profile: nothing measured to export in %s",
			     d->source ? d->source : "the input");
	fputs("# sweetspot profile: the decisions measured, for sweetspot to read back\n"
	      "# ('sweetspot export --profile THIS_FILE --format ...'). offload: the\n"
	      "# chosen layout of every question (collective, message size, and a\n"
	      "# reduction's dtype and op) with the point it ran (algorithm, assignment,\n"
	      "# chunk, window, radix); mpi: the fastest Open MPI coll/tuned algorithm\n"
	      "# per collective, communicator and message size.\n",
	      f);
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
		put_str(f, c->key.collective);
		fputs("; algorithm = ", f);
		put_str(f, c->key.algorithm);
		fputs("; assignment = ", f);
		put_str(f, c->key.assignment);
		fprintf(f, "; bytes = %lluL;", (unsigned long long)c->key.bytes);
		put_axes(f, &c->key);
		fputs("\n    layout = ", f);
		put_str(f, c->layout);
		fputs("; placement = ", f);
		put_str(f, c->placement);
		fprintf(f, "; nodes = %u; ppn = %u; workers = %u; wpn = %u;\n    oe = ", c->nodes,
			c->ppn, c->workers, c->wpn);
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

/* An optional string setting: absent is NULL. */
static int get_opt_str(const config_setting_t *g, const char *name, const char *path, char **out)
{
	*out = NULL;
	return config_setting_get_member(g, name) ? get_str(g, name, path, out) : 0;
}

static int get_num(const config_setting_t *g, const char *name, const char *path, int optional,
		   double *out)
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

/* The axes put_axes() wrote; absent (a profile of version 1 or a point
 * where they do not apply): NULL and 0. A reduction names both dtype and
 * op, a pipelined point chunk and window. */
static int get_axes(const config_setting_t *g, const char *path, struct point *p)
{
	unsigned window = 0, radix = 0;
	double chunk = 0;
	int line = config_setting_source_line(g);
	char *dtype = NULL, *op = NULL;
	int rc = get_opt_str(g, "dtype", path, &dtype) || get_opt_str(g, "op", path, &op);

	/* Owned by p from here: released with it whatever follows. */
	p->dtype = dtype;
	p->op = op;
	if (rc)
		return -1;
	if (!p->dtype != !p->op)
		return error("%s:%d: dtype and op go together", path, line);
	if (config_setting_get_member(g, "chunk") &&
	    (get_num(g, "chunk", path, 0, &chunk) || get_uint(g, "window", path, &window)))
		return -1;
	if (chunk < 0 || chunk != floor(chunk) || chunk > 18446744073709549568.0 ||
	    (chunk > 0) != (window > 0))
		return error("%s:%d: chunk must be a whole number of bytes with a window >= 1",
			     path, line);
	if (config_setting_get_member(g, "radix") && get_uint(g, "radix", path, &radix))
		return -1;
	if (config_setting_get_member(g, "radix") && radix < 2)
		return error("%s:%d: radix must be >= 2", path, line);
	p->chunk = (uint64_t)chunk;
	p->window = window;
	p->radix = radix;
	return 0;
}

/* One offload entry, group g, into c. */
static int load_offload_one(const config_setting_t *g, const char *path, struct offload_choice *c)
{
	const char *s;
	double b, reps;

	char *coll = NULL, *alg = NULL, *asg = NULL;
	int rc = get_str(g, "collective", path, &coll) || get_str(g, "algorithm", path, &alg) ||
		 get_str(g, "assignment", path, &asg);

	/* Owned by c from here: released with it whatever follows. */
	c->key.collective = coll;
	c->key.algorithm = alg;
	c->key.assignment = asg;
	if (rc || get_str(g, "layout", path, &c->layout) ||
	    get_str(g, "placement", path, &c->placement) || get_num(g, "bytes", path, 0, &b) ||
	    get_uint(g, "nodes", path, &c->nodes) || get_uint(g, "ppn", path, &c->ppn) ||
	    get_uint(g, "workers", path, &c->workers) || get_uint(g, "wpn", path, &c->wpn) ||
	    get_num(g, "oe", path, 0, &c->oe) || get_num(g, "spread", path, 0, &c->spread) ||
	    get_num(g, "repetitions", path, 0, &reps) ||
	    get_num(g, "runner_up_oe", path, 1, &c->runner_up_oe) ||
	    get_num(g, "total_us", path, 1, &c->total_us) ||
	    get_num(g, "ref_us", path, 1, &c->ref_us) ||
	    get_num(g, "compute_us", path, 1, &c->compute_us))
		return -1;
	if (b < 1)
		return error("%s:%d: bytes must be >= 1", path, config_setting_source_line(g));
	c->key.bytes = (uint64_t)b;
	if (get_axes(g, path, &c->key))
		return -1;
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
	return 0;
}

/* One mpi entry, group g, into m. */
static int load_mpi_one(const config_setting_t *g, const char *path, struct mpi_choice *m)
{
	double b, alg;

	if (get_str(g, "collective", path, &m->collective) ||
	    get_uint(g, "ranks", path, &m->ranks) || get_num(g, "bytes", path, 0, &b) ||
	    get_num(g, "algorithm", path, 0, &alg) || get_num(g, "avg_us", path, 0, &m->avg_us) ||
	    get_num(g, "default_us", path, 1, &m->default_us) ||
	    get_uint(g, "algorithms", path, &m->algorithms))
		return -1;
	if (b < 1 || alg < 0 || alg > 64 || alg != floor(alg))
		return error("%s:%d: bad bytes or algorithm", path, config_setting_source_line(g));
	m->bytes = (uint64_t)b;
	m->alg = (int)alg;
	return 0;
}

/* The list `name` and its length (absent: NULL and 0). */
static config_setting_t *load_list(config_t *cfg, const char *name, unsigned *len)
{
	config_setting_t *list = config_lookup(cfg, name);

	*len = list ? (unsigned)config_setting_length(list) : 0;
	return list;
}

static int check_group(const config_setting_t *g, const config_setting_t *list, const char *path,
		       const char *name)
{
	if (!config_setting_is_group(g))
		return error("%s:%d: %s entries are groups { ... }", path,
			     config_setting_source_line(list), name);
	return 0;
}

/* Every offload and mpi entry. The counts grow before an entry is read,
 * so that decisions_release() frees a half-read one too. */
static int load_entries(config_t *cfg, const char *path, struct decisions *d)
{
	config_setting_t *list;
	unsigned n;

	list = load_list(cfg, "offload", &n);
	d->off = xcalloc(n + 1, sizeof(*d->off));
	for (unsigned i = 0; i < n; i++) {
		config_setting_t *g = config_setting_get_elem(list, i);

		if (check_group(g, list, path, "offload"))
			return -1;
		if (load_offload_one(g, path, &d->off[d->noff++]))
			return -1;
	}
	list = load_list(cfg, "mpi", &n);
	d->mpi = xcalloc(n + 1, sizeof(*d->mpi));
	for (unsigned i = 0; i < n; i++) {
		config_setting_t *g = config_setting_get_elem(list, i);

		if (check_group(g, list, path, "mpi"))
			return -1;
		if (load_mpi_one(g, path, &d->mpi[d->nmpi++]))
			return -1;
	}
	return 0;
}

/* The file itself, its version, and where its decisions came from. */
static int load_header(config_t *cfg, const char *path, struct decisions *d)
{
	long long run = 0;
	const char *s;
	int version = 0;

	if (!config_read_file(cfg, path)) {
		if (config_error_type(cfg) == CONFIG_ERR_FILE_IO)
			return error("cannot read %s: %s", path, strerror(errno));
		return error("%s:%d: %s", config_error_file(cfg) ? config_error_file(cfg) : path,
			     config_error_line(cfg), config_error_text(cfg));
	}
	if (!config_lookup_int(cfg, "version", &version) || version != 1)
		return error("%s: not a sweetspot profile of version 1", path);
	d->source = config_lookup_string(cfg, "source", &s) ? xstrdup(s) : xstrdup(path);
	if (config_lookup_int64(cfg, "run", &run))
		d->run = run;
	if (config_lookup_string(cfg, "spec", &s))
		d->spec_path = xstrdup(s);
	if (config_lookup_string(cfg, "spec_hash", &s))
		d->spec_hash = xstrdup(s);
	return 0;
}

int profile_load(const char *path, struct decisions *d)
{
	config_t cfg;
	int ret = -1;

	memset(d, 0, sizeof(*d));
	config_init(&cfg);
	if (load_header(&cfg, path, d) || load_entries(&cfg, path, d))
		goto out;
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
