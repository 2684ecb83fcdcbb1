/*
 * tuner/plan/spec.c: loading and checking sweep specs. libconfig does the syntax;
 * everything else is checked here, setting by setting, so that a person who
 * misspells a key, gives a string where a number belongs or names a host
 * that cannot exist is told where, and nothing runs. Strings are copied out
 * of the config_t before it is destroyed.
 */
#include "spec.h"

#include "colls.h"
#include "error.h"
#include "hostlist.h"
#include "parse.h"
#include "reduce.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <libconfig.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const assignment_names[] = { "block", "cyclic", "locality", NULL };
static const char *const transport_names[] = { "rma", "verbs", "auto", NULL };
static const char *const placement_names[] = { "dpu", "onload", NULL };
static const char *const launcher_names[] = { "srun", "mpirun", "mpirun_rsh", "hydra", NULL };

static const char *const top_keys[] = { "system", "sweep", "verify", NULL };
static const char *const system_keys[] = { "name",	    "nodes",	"ppn",	   "dpu",
					   "onload",	    "host_bin", "dpu_bin", "launcher",
					   "launcher_args", "env",	"machine", NULL };
static const char *const dpu_keys[] = { "hosts", "suffix", "cores", NULL };
static const char *const onload_keys[] = { "cores", NULL };
static const char *const sweep_keys[] = { "collectives", "algorithms",
					  "assignments", "sizes",
					  "wpn",	 "workers",
					  "nodes",	 "placement",
					  "iterations",	 "min_time",
					  "warmup",	 "repetitions",
					  "time_limit",	 "retries",
					  "transport",	 "max_repetitions",
					  "alpha",	 "delta_oe",
					  "delta_rel",	 "delta_time",
					  "cost_order",	 "calibration_tolerance",
					  "dtypes",	 "ops",
					  "chunks",	 "windows",
					  "radix",	 "budget",
					  NULL };

static const char *const verify_keys[] = { "command",	  "export",	     "metric",
					   "figures",	  "higher",	     "launcher",
					   "repetitions", "max_repetitions", NULL };

/* What a loader needs to report: the file and the config being read. */
struct loader {
	const char *path;
	char *dir; /* the spec's folder, absolute */
	int bad;   /* problems reported so far */
};

#define SPEC_BAD(ld, line, ...) spec_bad_((ld), (line), __VA_ARGS__)

static void spec_bad_(struct loader *ld, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void spec_bad_(struct loader *ld, int line, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	error("%s:%d: %s", ld->path, line, msg);
	ld->bad++;
}

const char *placement_name(enum placement p)
{
	return placement_names[p];
}

static int name_index(const char *const *names, const char *s)
{
	for (int i = 0; names[i]; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

/* Same order as enum launcher (launch/argv.h); checked here rather than
 * with launcher_parse() so that the message carries file:line. */
static int launcher_from_name(const char *name, enum launcher *out)
{
	int i = name_index(launcher_names, name);

	if (i < 0)
		return -1;
	*out = (enum launcher)i;
	return 0;
}

int spec_algorithm_applies(const char *collective, const char *algorithm)
{
	return colls_algorithm_applies(collective, algorithm);
}

/* The kernel's own names and rules (kernels/sched/reduce.h), so that the
 * spec accepts exactly what the kernel runs. */
int spec_op_applies(const char *dtype, const char *op)
{
	int dt = name_index(dtype_names, dtype), ro = name_index(redop_names, op);

	return dt >= 0 && ro >= 0 && redop_applies((enum dtype)dt, (enum redop)ro);
}

size_t spec_dtype_size(const char *dtype)
{
	int dt = name_index(dtype_names, dtype);

	return dt < 0 ? 0 : dtype_size((enum dtype)dt);
}

size_t spec_pairs(const struct spec *s)
{
	size_t n = 0;

	for (size_t c = 0; c < s->collectives.nr; c++)
		for (size_t a = 0; a < s->algorithms.nr; a++)
			n += (size_t)spec_algorithm_applies(s->collectives.v[c],
							    s->algorithms.v[a]);
	return n;
}

void spec_axes_apply(const struct spec *s, int *reduction, int *pipelined, int *knomial)
{
	*reduction = *pipelined = *knomial = 0;
	for (size_t c = 0; c < s->collectives.nr; c++)
		for (size_t a = 0; a < s->algorithms.nr; a++)
			if (spec_algorithm_applies(s->collectives.v[c], s->algorithms.v[a])) {
				*reduction |= colls_is_reduction(s->collectives.v[c]);
				*pipelined |= colls_chunk_applies(s->collectives.v[c],
								  s->algorithms.v[a]);
				*knomial |= colls_radix_applies(s->algorithms.v[a]);
			}
}

const char *spec_worker_bin(const struct spec *s, enum placement p)
{
	return p == PLACEMENT_DPU && s->dpu_bin ? s->dpu_bin : s->host_bin;
}

/* Levenshtein distance, for "did you mean" hints. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), *row, prev, d;

	row = xcalloc(lb + 1, sizeof(*row));
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = tolower((unsigned char)a[i - 1]) !=
				      tolower((unsigned char)b[j - 1]);
			size_t best = prev + cost;

			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			prev = row[j];
			row[j] = best;
		}
	}
	d = row[lb];
	free(row);
	return d;
}

/* The closest of names to s, or NULL when none is close. */
static const char *closest(const char *const *names, const char *s)
{
	const char *best = NULL;
	size_t bestd = (size_t)-1, limit = strlen(s) / 3 + 2;

	for (size_t i = 0; names[i]; i++) {
		size_t d = edit_distance(names[i], s);

		if (d < bestd) {
			bestd = d;
			best = names[i];
		}
	}
	return bestd <= limit ? best : NULL;
}

/* ", did you mean 'x'?" or "; known: a, b, c" into buf. */
static const char *hint(const char *const *names, const char *s, char *buf, size_t len)
{
	const char *c = closest(names, s);
	size_t n;

	if (c) {
		snprintf(buf, len, "; did you mean '%s'?", c);
		return buf;
	}
	snprintf(buf, len, "; known: ");
	for (size_t i = 0; names[i]; i++) {
		n = strlen(buf);
		snprintf(buf + n, len - n, "%s%s", i ? ", " : "", names[i]);
	}
	return buf;
}

static int line_of(const config_setting_t *st)
{
	return (int)config_setting_source_line(st);
}

/* Reports every member of group that is not one of keys. */
static void check_keys(struct loader *ld, const config_setting_t *group, const char *where,
		       const char *const *keys)
{
	char buf[512];

	for (int i = 0; i < config_setting_length(group); i++) {
		const config_setting_t *m = config_setting_get_elem(group, (unsigned)i);
		const char *name = config_setting_name(m);

		if (!name || name_index(keys, name) >= 0)
			continue;
		/* A setting of a group written outside it is a common slip. */
		if (keys == top_keys && name_index(system_keys, name) >= 0)
			SPEC_BAD(ld, line_of(m), "setting '%s' belongs in the system group", name);
		else if (keys == top_keys && name_index(sweep_keys, name) >= 0)
			SPEC_BAD(ld, line_of(m), "setting '%s' belongs in the sweep group", name);
		else
			SPEC_BAD(ld, line_of(m), "unknown setting '%s%s'%s", where, name,
				 hint(keys, name, buf, sizeof(buf)));
	}
}

static const char *type_name(int type)
{
	switch (type) {
	case CONFIG_TYPE_GROUP:
		return "a group { ... }";
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		return "an integer";
	case CONFIG_TYPE_FLOAT:
		return "a floating-point number";
	case CONFIG_TYPE_STRING:
		return "a string";
	case CONFIG_TYPE_BOOL:
		return "a boolean";
	case CONFIG_TYPE_ARRAY:
		return "an array [ ... ]";
	case CONFIG_TYPE_LIST:
		return "a list ( ... )";
	default:
		return "nothing";
	}
}

/* The member, or NULL; a required one that is missing is reported at the
 * group's line. */
static config_setting_t *member(struct loader *ld, const config_setting_t *group, const char *where,
				const char *key, int required)
{
	config_setting_t *m = group ? config_setting_get_member(group, key) : NULL;

	if (!m && required)
		SPEC_BAD(ld, group && line_of(group) ? line_of(group) : 1, "missing setting '%s%s'",
			 where, key);
	return m;
}

static int get_uint_elem(struct loader *ld, const config_setting_t *st, const char *what,
			 unsigned long long min, unsigned long long max, unsigned *out)
{
	long long v;

	if (config_setting_type(st) != CONFIG_TYPE_INT &&
	    config_setting_type(st) != CONFIG_TYPE_INT64) {
		SPEC_BAD(ld, line_of(st), "%s must be an integer, not %s", what,
			 type_name(config_setting_type(st)));
		return -1;
	}
	v = config_setting_get_int64(st);
	if (v < 0 || (unsigned long long)v < min || (unsigned long long)v > max) {
		SPEC_BAD(ld, line_of(st), "%s is %lld; it must be in [%llu, %llu]", what, v, min,
			 max);
		return -1;
	}
	*out = (unsigned)v;
	return 0;
}

static int get_uint(struct loader *ld, const config_setting_t *group, const char *where,
		    const char *key, int required, unsigned long long min, unsigned long long max,
		    unsigned *out, int *line)
{
	config_setting_t *m = member(ld, group, where, key, required);
	char what[128];

	if (!m)
		return required ? -1 : 0;
	if (line)
		*line = line_of(m);
	snprintf(what, sizeof(what), "'%s%s'", where, key);
	return get_uint_elem(ld, m, what, min, max, out);
}

/* A number (integer or float) in [min, max]. */
static int get_double(struct loader *ld, const config_setting_t *group, const char *where,
		      const char *key, double min, double max, double *out)
{
	config_setting_t *m = member(ld, group, where, key, 0);
	double v;

	if (!m)
		return 0;
	switch (config_setting_type(m)) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		v = (double)config_setting_get_int64(m);
		break;
	case CONFIG_TYPE_FLOAT:
		v = config_setting_get_float(m);
		break;
	default:
		SPEC_BAD(ld, line_of(m), "'%s%s' must be a number, not %s", where, key,
			 type_name(config_setting_type(m)));
		return -1;
	}
	if (!(v >= min && v <= max)) {
		SPEC_BAD(ld, line_of(m), "'%s%s' is %g; it must be in [%g, %g]", where, key, v, min,
			 max);
		return -1;
	}
	*out = v;
	return 0;
}

/* A string with no control characters (every generated file is lines of
 * words; a newline in a path would forge a line). */
static int get_string(struct loader *ld, const config_setting_t *group, const char *where,
		      const char *key, int required, char **out, int *line)
{
	config_setting_t *m = member(ld, group, where, key, required);
	const char *s;

	if (!m)
		return required ? -1 : 0;
	if (line)
		*line = line_of(m);
	if (config_setting_type(m) != CONFIG_TYPE_STRING) {
		SPEC_BAD(ld, line_of(m), "'%s%s' must be a string, not %s", where, key,
			 type_name(config_setting_type(m)));
		return -1;
	}
	s = config_setting_get_string(m);
	if (!*s) {
		SPEC_BAD(ld, line_of(m), "'%s%s' is empty", where, key);
		return -1;
	}
	for (const char *p = s; *p; p++)
		if (iscntrl((unsigned char)*p)) {
			SPEC_BAD(ld, line_of(m), "'%s%s' has a control character (byte 0x%02x)",
				 where, key, (unsigned char)*p);
			return -1;
		}
	free(*out);
	*out = xstrdup(s);
	return 0;
}

/* A list of strings: an array or list of strings, or one string. */
static int get_strings(struct loader *ld, const config_setting_t *group, const char *where,
		       const char *key, int required, struct strvec *out, int *line)
{
	config_setting_t *m = member(ld, group, where, key, required);
	int t;

	if (!m)
		return required ? -1 : 0;
	if (line)
		*line = line_of(m);
	t = config_setting_type(m);
	if (t == CONFIG_TYPE_STRING) {
		strvec_push(out, config_setting_get_string(m));
		return 0;
	}
	if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST) {
		SPEC_BAD(ld, line_of(m), "'%s%s' must be an array of strings, not %s", where, key,
			 type_name(t));
		return -1;
	}
	for (int i = 0; i < config_setting_length(m); i++) {
		const config_setting_t *e = config_setting_get_elem(m, (unsigned)i);
		const char *s;

		if (config_setting_type(e) != CONFIG_TYPE_STRING) {
			SPEC_BAD(ld, line_of(e) ? line_of(e) : line_of(m),
				 "'%s%s' item %d must be a string, not %s", where, key, i + 1,
				 type_name(config_setting_type(e)));
			return -1;
		}
		s = config_setting_get_string(e);
		for (const char *p = s; *p; p++)
			if (iscntrl((unsigned char)*p)) {
				SPEC_BAD(ld, line_of(m), "'%s%s' item %d has a control character",
					 where, key, i + 1);
				return -1;
			}
		strvec_push(out, s);
	}
	return 0;
}

/* A list of names from a fixed set, without duplicates. */
static int get_names(struct loader *ld, const config_setting_t *group, const char *where,
		     const char *key, int required, const char *const *known, struct strvec *out,
		     int *line)
{
	struct strvec raw = STRVEC_INIT;
	char buf[512];
	int ln = 0, ret = -1;

	if (get_strings(ld, group, where, key, required, &raw, &ln))
		goto out;
	if (line)
		*line = ln;
	if (ln && !raw.nr) {
		SPEC_BAD(ld, ln, "'%s%s' is empty", where, key);
		goto out;
	}
	for (size_t i = 0; i < raw.nr; i++) {
		int dup = 0;

		if (name_index(known, raw.v[i]) < 0) {
			SPEC_BAD(ld, ln, "'%s%s': unknown value '%s'%s", where, key, raw.v[i],
				 hint(known, raw.v[i], buf, sizeof(buf)));
			goto out;
		}
		for (size_t j = 0; j < out->nr; j++)
			dup |= !strcmp(out->v[j], raw.v[i]);
		if (dup) {
			SPEC_BAD(ld, ln, "'%s%s' lists '%s' twice", where, key, raw.v[i]);
			goto out;
		}
		strvec_push(out, raw.v[i]);
	}
	ret = 0;
out:
	strvec_clear(&raw);
	return ret;
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

/* A list of counts: an integer or an array of them; sorted, no duplicates. */
static int get_uints(struct loader *ld, const config_setting_t *group, const char *where,
		     const char *key, int required, unsigned long long min, unsigned long long max,
		     unsigned **out, size_t *n, int *line)
{
	config_setting_t *m = member(ld, group, where, key, required);
	char what[128];
	int t, len;

	if (!m)
		return required ? -1 : 0;
	*line = line_of(m);
	t = config_setting_type(m);
	if (t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64) {
		*out = xmalloc(sizeof(**out));
		*n = 1;
		snprintf(what, sizeof(what), "'%s%s'", where, key);
		return get_uint_elem(ld, m, what, min, max, *out);
	}
	if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST) {
		SPEC_BAD(ld, line_of(m), "'%s%s' must be an array of integers, not %s", where, key,
			 type_name(t));
		return -1;
	}
	len = config_setting_length(m);
	if (!len) {
		SPEC_BAD(ld, line_of(m), "'%s%s' is empty", where, key);
		return -1;
	}
	*out = xcalloc((size_t)len, sizeof(**out));
	*n = (size_t)len;
	for (int i = 0; i < len; i++) {
		snprintf(what, sizeof(what), "'%s%s' item %d", where, key, i + 1);
		if (get_uint_elem(ld, config_setting_get_elem(m, (unsigned)i), what, min, max,
				  &(*out)[i]))
			return -1;
	}
	qsort(*out, *n, sizeof(**out), cmp_uint);
	for (size_t i = 1; i < *n; i++)
		if ((*out)[i] == (*out)[i - 1]) {
			SPEC_BAD(ld, line_of(m), "'%s%s' lists %u twice", where, key, (*out)[i]);
			return -1;
		}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* One size of an array: a string like "24K" or an integer. */
static int get_size_elem(struct loader *ld, const config_setting_t *e, const char *key, int i,
			 int line, uint64_t *out)
{
	char err[256], num[32];
	const char *str;

	if (config_setting_type(e) == CONFIG_TYPE_STRING)
		str = config_setting_get_string(e);
	else if (config_setting_type(e) == CONFIG_TYPE_INT ||
		 config_setting_type(e) == CONFIG_TYPE_INT64) {
		snprintf(num, sizeof(num), "%lld", config_setting_get_int64(e));
		str = num;
	} else {
		SPEC_BAD(ld, line, "'sweep.%s' item %d must be a size like \"256K\", not %s", key,
			 i + 1, type_name(config_setting_type(e)));
		return -1;
	}
	if (parse_size(str, out, err, sizeof(err))) {
		SPEC_BAD(ld, line, "'sweep.%s' item %d: %s", key, i + 1, err);
		return -1;
	}
	return 0;
}

/* A list of byte counts under key: "256K:4M" (every power of two between),
 * "256K,24K", or an array of sizes (strings or integers, any byte count);
 * sorted, no duplicates. Returns 1 when the key is absent, 0 when read. */
static int get_size_list(struct loader *ld, const config_setting_t *sweep, const char *key,
			 int required, uint64_t *out, size_t *n, int *line)
{
	config_setting_t *m = member(ld, sweep, "sweep.", key, required);
	char err[256], num[32];
	int t;

	if (!m)
		return required ? -1 : 1;
	*line = line_of(m);
	t = config_setting_type(m);
	if (t == CONFIG_TYPE_STRING) {
		if (parse_sizes(config_setting_get_string(m), 0, out, SPEC_MAX_SIZES, n, err,
				sizeof(err))) {
			SPEC_BAD(ld, *line, "'sweep.%s': %s", key, err);
			return -1;
		}
	} else if (t == CONFIG_TYPE_ARRAY || t == CONFIG_TYPE_LIST) {
		int len = config_setting_length(m);

		if (!len || len > SPEC_MAX_SIZES) {
			SPEC_BAD(ld, *line, "'sweep.%s' must have 1 to %d sizes", key,
				 SPEC_MAX_SIZES);
			return -1;
		}
		for (int i = 0; i < len; i++)
			if (get_size_elem(ld, config_setting_get_elem(m, (unsigned)i), key, i,
					  *line, &out[(*n)++]))
				return -1;
	} else {
		SPEC_BAD(
			ld, *line,
			"'sweep.%s' must be a string like \"256K:4M\" or an array of sizes, not %s",
			key, type_name(t));
		return -1;
	}
	qsort(out, *n, sizeof(out[0]), cmp_u64);
	for (size_t i = 1; i < *n; i++)
		if (out[i] == out[i - 1]) {
			SPEC_BAD(ld, *line, "'sweep.%s' lists %s twice", key,
				 format_size(out[i], num, sizeof(num)));
			return -1;
		}
	return 0;
}

/* A binary path: relative ones with a '/' are taken from the spec's folder
 * (so a profile works from any working directory); bare names are left
 * for the launcher's PATH search. */
static char *resolve_bin(const struct loader *ld, const char *bin)
{
	if (bin[0] == '/' || !strchr(bin, '/'))
		return xstrdup(bin);
	return xasprintf("%s/%s", ld->dir, bin);
}

/* The MPMD files (Open MPI appfile, MVAPICH config, srun multi-prog) split
 * lines on blanks and have no quoting that all three read alike, so a
 * binary path must not need quoting there: no blanks, quotes or backslash,
 * and no '%', which srun's multi-prog substitutes. */
static int check_bin(struct loader *ld, const char *key, const char *bin, int line)
{
	const char *bad = strpbrk(bin, " \t'\"\\%");

	if (!bad)
		return 0;
	SPEC_BAD(ld, line,
		 "'system.%s' \"%s\" has %s, which the appfile, config and multi-prog formats "
		 "cannot carry; use a path without one (a symbolic link will do)",
		 key, bin,
		 *bad == ' ' || *bad == '\t' ? "a blank" :
		 *bad == '\\'		     ? "a backslash" :
		 *bad == '%'		     ? "'%' (srun expands %t and %o)" :
					       "a quote");
	return -1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* v[0..n) in strcmp order: v itself when it is in that order already (a
 * ranged hostlist usually is: one pass, no copy), else a sorted copy in
 * *copy, which the caller frees. */
static char *const *sorted_names(char *const *v, size_t n, char ***copy)
{
	size_t i = 1;

	*copy = NULL;
	while (i < n && strcmp(v[i - 1], v[i]) < 0)
		i++;
	if (i >= n)
		return v;
	*copy = xcalloc(n, sizeof(**copy));
	memcpy(*copy, v, n * sizeof(**copy));
	qsort(*copy, n, sizeof(**copy), cmp_str);
	return *copy;
}

/* Host names must be unique across nodes and DPUs: two ranks' hosts that
 * are the same machine under two roles would break the placement. Each
 * list is sorted on its own (320,000 names on Fugaku are in order already,
 * which is checked in one pass), then the two are merged. */
static int check_unique(struct loader *ld, const struct spec *s)
{
	char **ca, **cb;
	char *const *a = sorted_names(s->nodes.v, s->nodes.nr, &ca);
	char *const *b = sorted_names(s->dpus.v, s->dpus.nr, &cb);
	const char *prev = NULL, *cur;
	size_t i = 0, j = 0;
	int ret = 0;

	while (i < s->nodes.nr || j < s->dpus.nr) {
		if (j == s->dpus.nr || (i < s->nodes.nr && strcmp(a[i], b[j]) <= 0))
			cur = a[i++];
		else
			cur = b[j++];
		if (prev && !strcmp(prev, cur)) {
			SPEC_BAD(ld, s->line.nodes, "host '%s' is named twice among nodes and DPUs",
				 cur);
			ret = -1;
			break;
		}
		prev = cur;
	}
	free(ca);
	free(cb);
	return ret;
}

/* The DPUs' names, each node's name and suffix. The nodes' names are valid,
 * so every DPU's is when the longest does not pass the limit and the
 * suffix after the longest last label (where it joins a node's name) makes
 * a valid name; else each is checked, to name the first one wrong. */
static void suffix_names(struct loader *ld, struct spec *s, const char *suffix, int line)
{
	size_t sl = strlen(suffix), most = 0, last = 0, slot;
	char *name, *w, err[512];
	int check_each;

	for (size_t i = 0; i < s->nodes.nr; i++) {
		const char *dot = strrchr(s->nodes.v[i], '.'), *v = s->nodes.v[i];
		size_t nl = strlen(v), ll = dot ? nl - (size_t)(dot + 1 - v) : nl;

		most = nl > most ? nl : most;
		last = ll > last ? ll : last;
	}
	/* Each name is made in one buffer, then kept in one block (slots of
	 * the longest valid name): Fugaku has 158,976 nodes. */
	name = xmalloc((most > last ? most : last) + sl + 1);
	slot = (most + sl < HOSTNAME_MAX ? most + sl : HOSTNAME_MAX) + 1;
	s->dpu_names = w = xmalloc(s->nodes.nr ? s->nodes.nr * slot : 1);
	s->dpus.alloc = s->nodes.nr + 1;
	s->dpus.v = xcalloc(s->dpus.alloc, sizeof(*s->dpus.v));
	memset(name, 'a', last);
	memcpy(name + last, suffix, sl + 1);
	check_each = most + sl > HOSTNAME_MAX || hostname_check(name, err, sizeof(err));
	for (size_t i = 0; i < s->nodes.nr; i++) {
		size_t nl = strlen(s->nodes.v[i]);

		memcpy(name, s->nodes.v[i], nl);
		memcpy(name + nl, suffix, sl + 1);
		if (check_each && hostname_check(name, err, sizeof(err))) {
			SPEC_BAD(ld, line, "'system.dpu.suffix': %s", err);
			break;
		}
		memcpy(w, name, nl + sl + 1);
		s->dpus.v[s->dpus.nr++] = w;
		w += nl + sl + 1;
	}
	free(name);
}

/* system.dpu: the DPUs' cores and their host names, from a hostlist (one
 * per node, in node order) or from a suffix to the nodes' names. */
static void load_dpu(struct loader *ld, const config_setting_t *sys, struct spec *s, int want_dpu)
{
	config_setting_t *dpu;
	char *str = NULL, err[512];
	int line = 0;

	dpu = member(ld, sys, "system.", "dpu", want_dpu);
	if (dpu && config_setting_type(dpu) != CONFIG_TYPE_GROUP)
		SPEC_BAD(ld, line_of(dpu),
			 "'system.dpu' must be a group { hosts = ...; cores = N; }, not %s",
			 type_name(config_setting_type(dpu)));
	else if (dpu) {
		config_setting_t *hosts = config_setting_get_member(dpu, "hosts");
		config_setting_t *suffix = config_setting_get_member(dpu, "suffix");

		s->line.dpu = line_of(dpu);
		check_keys(ld, dpu, "system.dpu.", dpu_keys);
		get_uint(ld, dpu, "system.dpu.", "cores", 1, 1, 4096, &s->dpu_cores,
			 &s->line.dpu_cores);
		if (hosts && suffix)
			SPEC_BAD(ld, line_of(suffix),
				 "'system.dpu' has both 'hosts' and 'suffix'; give one");
		else if (!hosts && !suffix)
			SPEC_BAD(ld, line_of(dpu),
				 "'system.dpu' needs 'hosts' (a hostlist) or 'suffix' (like "
				 "\"-bf\")");
		else if (hosts && !get_string(ld, dpu, "system.dpu.", "hosts", 1, &str, &line)) {
			if (hostlist_expand_pooled(str, &s->dpus, &s->dpu_names, err, sizeof(err)))
				SPEC_BAD(ld, line, "'system.dpu.hosts': %s", err);
			else if (s->nodes.nr && s->dpus.nr != s->nodes.nr)
				SPEC_BAD(ld, line,
					 "'system.dpu.hosts' names %zu DPUs for %zu nodes; give "
					 "one per node, in node order",
					 s->dpus.nr, s->nodes.nr);
		} else if (suffix &&
			   !get_string(ld, dpu, "system.dpu.", "suffix", 1, &str, &line)) {
			suffix_names(ld, s, str, line);
		}
		free(str);
	}
}

/* system.env: every item NAME=value, NAME a shell variable's name. */
static void load_env(struct loader *ld, const config_setting_t *sys, struct spec *s)
{
	config_setting_t *m;
	int line = 0;

	m = member(ld, sys, "system.", "env", 0);
	if (m && !get_strings(ld, sys, "system.", "env", 0, &s->env, &line)) {
		for (size_t i = 0; i < s->env.nr; i++) {
			const char *e = s->env.v[i], *eq = strchr(e, '=');
			int good = eq && eq > e && !isdigit((unsigned char)e[0]);

			for (const char *p = e; good && p < eq; p++)
				good = isalnum((unsigned char)*p) || *p == '_';
			if (!good) {
				SPEC_BAD(ld, line, "'system.env' item %zu: '%s' is not NAME=value",
					 i + 1, e);
				break;
			}
		}
	}
}

static void load_system(struct loader *ld, const config_setting_t *sys, struct spec *s,
			int want_dpu)
{
	config_setting_t *onload;
	char *str = NULL, err[512];
	int line = 0;

	check_keys(ld, sys, "system.", system_keys);
	get_string(ld, sys, "system.", "name", 1, &s->name, NULL);
	if (!get_string(ld, sys, "system.", "nodes", 1, &str, &s->line.nodes) && str) {
		if (hostlist_expand_pooled(str, &s->nodes, &s->node_names, err, sizeof(err)))
			SPEC_BAD(ld, s->line.nodes, "'system.nodes': %s", err);
	}
	free(str);
	str = NULL;
	get_uint(ld, sys, "system.", "ppn", 1, 1, 65536, &s->ppn, &s->line.ppn);
	if (s->ppn && (unsigned long long)s->nodes.nr * s->ppn > 100000000ull)
		SPEC_BAD(ld, s->line.ppn, "%zu nodes x %u PPN is more than 100000000 host ranks",
			 s->nodes.nr, s->ppn);

	load_dpu(ld, sys, s, want_dpu);
	onload = member(ld, sys, "system.", "onload", 0);
	if (onload && config_setting_type(onload) != CONFIG_TYPE_GROUP)
		SPEC_BAD(ld, line_of(onload),
			 "'system.onload' must be a group { cores = N; }, not %s",
			 type_name(config_setting_type(onload)));
	else if (onload) {
		check_keys(ld, onload, "system.onload.", onload_keys);
		get_uint(ld, onload, "system.onload.", "cores", 1, 1, 4096, &s->onload_cores,
			 &s->line.onload_cores);
	}
	/* The machine description the model predicts from (model --machine):
	 * a path from the spec's folder unless absolute. */
	if (!get_string(ld, sys, "system.", "machine", 0, &str, &s->line.machine) && str) {
		s->machine = str[0] == '/' ? xstrdup(str) : xasprintf("%s/%s", ld->dir, str);
		if (access(s->machine, R_OK))
			SPEC_BAD(ld, s->line.machine, "'system.machine' \"%s\": cannot read: %s",
				 s->machine, strerror(errno));
	}
	free(str);
	str = NULL;
	if (!get_string(ld, sys, "system.", "host_bin", 1, &str, &s->line.host_bin) && str) {
		s->host_bin = resolve_bin(ld, str);
		check_bin(ld, "host_bin", s->host_bin, s->line.host_bin);
	}
	free(str);
	str = NULL;
	if (!get_string(ld, sys, "system.", "dpu_bin", want_dpu, &str, &s->line.dpu_bin) && str) {
		s->dpu_bin = resolve_bin(ld, str);
		check_bin(ld, "dpu_bin", s->dpu_bin, s->line.dpu_bin);
	}
	free(str);
	str = NULL;
	s->launcher = LAUNCHER_MPIRUN;
	if (!get_string(ld, sys, "system.", "launcher", 0, &str, &line) && str &&
	    launcher_from_name(str, &s->launcher))
		SPEC_BAD(ld, line, "'system.launcher': unknown launcher '%s'%s", str,
			 hint(launcher_names, str, err, sizeof(err)));
	free(str);
	get_strings(ld, sys, "system.", "launcher_args", 0, &s->launcher_args, NULL);
	load_env(ld, sys, s);
	if (s->nodes.nr)
		check_unique(ld, s);
}

/* sweep.budget: launches (an integer) or a share of the grid ("15%"). */
static void load_budget(struct loader *ld, const config_setting_t *sw, struct spec *s)
{
	config_setting_t *m = config_setting_get_member(sw, "budget");
	char err[160];
	int line = 0;

	s->budget = 0;
	s->budget_frac = 0;
	if (!m)
		return;
	if (config_setting_type(m) == CONFIG_TYPE_STRING) {
		if (parse_budget(config_setting_get_string(m), &s->budget, &s->budget_frac, err,
				 sizeof(err)))
			SPEC_BAD(ld, line_of(m), "'sweep.budget': %s", err);
		return;
	}
	get_uint(ld, sw, "sweep.", "budget", 0, 1, 100000000, &s->budget, &line);
}

/* How decisions are made (docs/decisions.md, "Statistics"): launches per
 * configuration (repetitions is the least, max_repetitions the most), the
 * significance level, the practical thresholds, which placement costs less,
 * and how far the calibrated compute may miss the reference. */
static void load_statistics(struct loader *ld, const config_setting_t *sw, struct spec *s)
{
	struct strvec order = STRVEC_INIT;
	int line = 0;

	s->max_repetitions = 0;
	s->alpha = 0.05;
	s->delta_oe = 0.5;
	s->delta_rel = 0.05;
	s->delta_time = 0.01;
	s->dpu_first = 1;
	s->calibration_tolerance = 0.10;
	get_uint(ld, sw, "sweep.", "max_repetitions", 0, 1, 10000, &s->max_repetitions, &line);
	get_double(ld, sw, "sweep.", "alpha", 1e-6, 0.5, &s->alpha);
	get_double(ld, sw, "sweep.", "delta_oe", 0, 100, &s->delta_oe);
	get_double(ld, sw, "sweep.", "delta_rel", 0, 0.5, &s->delta_rel);
	get_double(ld, sw, "sweep.", "delta_time", 0, 0.99, &s->delta_time);
	get_double(ld, sw, "sweep.", "calibration_tolerance", 0.001, 10, &s->calibration_tolerance);
	if (!get_names(ld, sw, "sweep.", "cost_order", 0, placement_names, &order, NULL) &&
	    order.nr) {
		if (order.nr != 2)
			SPEC_BAD(ld, line_of(config_setting_get_member(sw, "cost_order")),
				 "'sweep.cost_order' names both placements, cheapest first "
				 "([\"dpu\", \"onload\"] or [\"onload\", \"dpu\"])");
		else
			s->dpu_first = !strcmp(order.v[0], "dpu");
	}
	strvec_clear(&order);
	load_budget(ld, sw, s);
	s->max_repetitions_set = s->max_repetitions != 0;
	if (!s->max_repetitions)
		s->max_repetitions = s->repetitions > 10 ? s->repetitions : 10;
	else if (s->max_repetitions < s->repetitions)
		SPEC_BAD(ld, line,
			 "'sweep.max_repetitions' is %u, fewer than 'sweep.repetitions' (%u)",
			 s->max_repetitions, s->repetitions);
}

/* The reductions of the table, "reduce, allreduce", for messages. */
static const char *reduction_names(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (size_t c = 0; c < colls_count && used < len; c++)
		if (coll_is_reduction(colls_table[c].coll))
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
						 colls_name(&colls_table[c]));
	return buf;
}

/* sweep.dtypes and sweep.ops: names the kernel knows (reduce.h), every op
 * applying to some listed dtype and every dtype having some listed op
 * (bitwise and logical ops are for integers only). */
static void load_dtypes_ops(struct loader *ld, const config_setting_t *sw, struct spec *s,
			    int reduction)
{
	const char *dts[DT_N + 1], *ops[RO_N + 1];
	char buf[128];

	memcpy(dts, dtype_names, sizeof(dtype_names));
	dts[DT_N] = NULL;
	memcpy(ops, redop_names, sizeof(redop_names));
	ops[RO_N] = NULL;
	if (get_names(ld, sw, "sweep.", "dtypes", 0, dts, &s->dtypes, &s->line.dtypes) ||
	    get_names(ld, sw, "sweep.", "ops", 0, ops, &s->ops, &s->line.ops))
		return;
	for (int k = 0; k < 2; k++) {
		int line = k ? s->line.ops : s->line.dtypes;

		if (line && !reduction)
			SPEC_BAD(ld, line,
				 "'sweep.%s' applies only to reductions (%s), and none is listed",
				 k ? "ops" : "dtypes", reduction_names(buf, sizeof(buf)));
	}
	if (!s->dtypes.nr)
		strvec_push(&s->dtypes, SPEC_DEFAULT_DTYPE);
	if (!s->ops.nr)
		strvec_push(&s->ops, SPEC_DEFAULT_OP);
	for (size_t o = 0; o < s->ops.nr; o++) {
		int used = 0;

		for (size_t d = 0; d < s->dtypes.nr; d++)
			used |= spec_op_applies(s->dtypes.v[d], s->ops.v[o]);
		if (!used)
			SPEC_BAD(ld, s->line.ops ? s->line.ops : s->line.dtypes,
				 "'sweep.ops': '%s' applies to none of the dtypes (bitwise and "
				 "logical ops are for integer dtypes only)",
				 s->ops.v[o]);
	}
	for (size_t d = 0; d < s->dtypes.nr; d++) {
		int used = 0;

		for (size_t o = 0; o < s->ops.nr; o++)
			used |= spec_op_applies(s->dtypes.v[d], s->ops.v[o]);
		if (!used)
			SPEC_BAD(ld, s->line.dtypes ? s->line.dtypes : s->line.ops,
				 "'sweep.dtypes': none of the ops applies to '%s' (bitwise and "
				 "logical ops are for integer dtypes only)",
				 s->dtypes.v[d]);
	}
}

/* Every dtype must divide every size and chunk: a reduction moves whole
 * elements. */
static void check_divisible(struct loader *ld, const struct spec *s, const char *key,
			    const uint64_t *v, size_t n, int line)
{
	char num[32];

	for (size_t d = 0; d < s->dtypes.nr; d++) {
		size_t es = spec_dtype_size(s->dtypes.v[d]);

		for (size_t i = 0; es && i < n; i++)
			if (v[i] % es) {
				SPEC_BAD(ld, line ? line : s->line.dtypes,
					 "'sweep.%s': %s is not a whole number of '%s' elements "
					 "(%zu bytes each)",
					 key, format_size(v[i], num, sizeof(num)), s->dtypes.v[d],
					 es);
				return;
			}
	}
}

/* The axes beside the layout's: dtypes and ops (reductions), chunks and
 * windows (pipelining), radix (knomial). Each is checked against the
 * collectives and algorithms it applies to: a value listed for none is a
 * mistake, as in sweep.algorithms. */
static void load_axes(struct loader *ld, const config_setting_t *sw, struct spec *s)
{
	int reduction, pipelined, knomial, r;

	spec_axes_apply(s, &reduction, &pipelined, &knomial);
	load_dtypes_ops(ld, sw, s, reduction);
	r = get_size_list(ld, sw, "chunks", 0, s->chunks, &s->nchunks, &s->line.chunks);
	if (r > 0)
		s->chunks[s->nchunks++] = COLL_DEFAULT_CHUNK;
	else if (!r && s->chunks[s->nchunks - 1] > SPEC_MAX_MESSAGE)
		SPEC_BAD(ld, s->line.chunks,
			 "'sweep.chunks': %" PRIu64 " bytes is more than the kernel's limit of 1G",
			 s->chunks[s->nchunks - 1]);
	get_uints(ld, sw, "sweep.", "windows", 0, 1, 4096, &s->windows, &s->nwindows,
		  &s->line.windows);
	get_uints(ld, sw, "sweep.", "radix", 0, COLL_RADIX_MIN, COLL_RADIX_MAX, &s->radix,
		  &s->nradix, &s->line.radix);
	if ((s->line.chunks || s->line.windows) && !pipelined)
		SPEC_BAD(ld, s->line.chunks ? s->line.chunks : s->line.windows,
			 "'sweep.%s' applies only to the reductions and to gather and allgather "
			 "with a schedule, and none is listed",
			 s->line.chunks ? "chunks" : "windows");
	if (s->line.radix && !knomial)
		SPEC_BAD(ld, s->line.radix,
			 "'sweep.radix' applies only to the knomial schedule, which no listed "
			 "collective runs");
	if (!s->nwindows) {
		s->windows = xmalloc(sizeof(*s->windows));
		s->windows[s->nwindows++] = COLL_DEFAULT_WINDOW;
	}
	if (!s->nradix) {
		s->radix = xmalloc(sizeof(*s->radix));
		s->radix[s->nradix++] = COLL_DEFAULT_RADIX;
	}
	if (reduction) {
		check_divisible(ld, s, "sizes", s->sizes, s->nsizes, s->line.sizes);
		check_divisible(ld, s, "chunks", s->chunks, s->nchunks, s->line.chunks);
	}
}

/* sweep.algorithms: all the algorithms (not the schedules) that apply when
 * absent; else every one listed must apply to some collective and every
 * collective must have one. */
static void load_algorithms(struct loader *ld, const config_setting_t *sw, struct spec *s)
{
	const char *known[COLLS_MAX_NAMES];
	char buf[256];
	int line = 0;

	colls_algorithm_names(known, COLLS_MAX_NAMES, !!member(ld, sw, "sweep.", "algorithms", 0));
	if (!member(ld, sw, "sweep.", "algorithms", 0)) {
		for (size_t a = 0; known[a]; a++)
			for (size_t c = 0; c < s->collectives.nr; c++)
				if (spec_algorithm_applies(s->collectives.v[c], known[a])) {
					strvec_push(&s->algorithms, known[a]);
					break;
				}
		return;
	}
	if (get_names(ld, sw, "sweep.", "algorithms", 0, known, &s->algorithms, &line))
		return;
	for (size_t a = 0; a < s->algorithms.nr; a++) {
		int used = 0;

		for (size_t c = 0; c < s->collectives.nr; c++)
			used |= spec_algorithm_applies(s->collectives.v[c], s->algorithms.v[a]);
		if (!used && s->collectives.nr) {
			size_t len = 0;

			buf[0] = 0;
			for (size_t c = 0; c < colls_count && len < sizeof(buf); c++)
				if (colls_algorithm_applies(colls_name(&colls_table[c]),
							    s->algorithms.v[a]))
					len += (size_t)snprintf(buf + len, sizeof(buf) - len,
								"%s%s", len ? ", " : "",
								colls_name(&colls_table[c]));
			SPEC_BAD(ld, line,
				 "'sweep.algorithms': '%s' applies to none of the collectives "
				 "(only to %s)",
				 s->algorithms.v[a], buf);
		}
	}
	for (size_t c = 0; c < s->collectives.nr; c++) {
		int used = 0;

		for (size_t a = 0; a < s->algorithms.nr; a++)
			used |= spec_algorithm_applies(s->collectives.v[c], s->algorithms.v[a]);
		if (!used)
			SPEC_BAD(ld, line, "'sweep.algorithms': none applies to '%s' (%s)",
				 s->collectives.v[c],
				 colls_algorithms_of(s->collectives.v[c], buf, sizeof(buf)));
	}
}

static void load_sweep(struct loader *ld, const config_setting_t *sw, struct spec *s)
{
	const char *colls[COLLS_MAX_NAMES];
	struct strvec place = STRVEC_INIT;
	char *str = NULL, err[512];
	int line = 0;

	check_keys(ld, sw, "sweep.", sweep_keys);
	colls_collective_names(colls, COLLS_MAX_NAMES);
	get_names(ld, sw, "sweep.", "collectives", 1, colls, &s->collectives, NULL);
	load_algorithms(ld, sw, s);
	get_names(ld, sw, "sweep.", "assignments", 1, assignment_names, &s->assignments, NULL);
	get_size_list(ld, sw, "sizes", 1, s->sizes, &s->nsizes, &s->line.sizes);
	load_axes(ld, sw, s);
	get_uints(ld, sw, "sweep.", "wpn", 1, 1, 4096, &s->wpn, &s->nwpn, &s->line.wpn);
	get_uints(ld, sw, "sweep.", "workers", 0, 1, 100000000, &s->workers, &s->nworkers,
		  &s->line.workers);
	if (member(ld, sw, "sweep.", "nodes", 0)) {
		get_uints(ld, sw, "sweep.", "nodes", 0, 1, HOSTLIST_MAX, &s->node_counts,
			  &s->nnode_counts, &s->line.sweep_nodes);
	}
	if (!get_names(ld, sw, "sweep.", "placement", 1, placement_names, &place,
		       &s->line.placement)) {
		s->placements = xcalloc(place.nr, sizeof(*s->placements));
		for (size_t i = 0; i < place.nr; i++)
			s->placements[s->nplacements++] = (enum placement)name_index(
				placement_names, place.v[i]);
	}
	strvec_clear(&place);
	s->iterations = 100;
	s->warmup = 10;
	s->repetitions = 1;
	s->time_limit = 600;
	get_uint(ld, sw, "sweep.", "iterations", 0, 1, 10000000, &s->iterations, NULL);
	get_uint(ld, sw, "sweep.", "warmup", 0, 0, 10000000, &s->warmup, NULL);
	get_uint(ld, sw, "sweep.", "min_time", 0, 0, 600000, &s->min_time_ms, NULL);
	get_uint(ld, sw, "sweep.", "repetitions", 0, 1, 10000, &s->repetitions, NULL);
	get_uint(ld, sw, "sweep.", "time_limit", 0, 1, 7 * 86400, &s->time_limit, NULL);
	get_uint(ld, sw, "sweep.", "retries", 0, 0, 10, &s->retries, NULL);
	load_statistics(ld, sw, s);
	if (!get_string(ld, sw, "sweep.", "transport", 0, &str, &line) && str) {
		if (name_index(transport_names, str) < 0)
			SPEC_BAD(ld, line, "'sweep.transport': unknown transport '%s'%s", str,
				 hint(transport_names, str, err, sizeof(err)));
		else
			s->transport = xstrdup(str);
	}
	free(str);
}

/* verify.metric: a POSIX extended expression with a capture group (the
 * number; earlier groups name the figure), as verify reads it. */
static void check_metric(struct loader *ld, const char *src, int line)
{
	regex_t re;
	char msg[256];
	int rc = regcomp(&re, src, REG_EXTENDED);

	if (rc) {
		regerror(rc, &re, msg, sizeof(msg));
		SPEC_BAD(ld, line, "'verify.metric' \"%s\": %s", src, msg);
		return;
	}
	if (!re.re_nsub)
		SPEC_BAD(ld, line,
			 "'verify.metric' \"%s\" has no ( ) group: the last one is the number",
			 src);
	regfree(&re);
}

/* The optional verify group (spec.h). */
static void load_verify(struct loader *ld, const config_setting_t *vg, struct spec *s)
{
	struct spec_verify *v = &s->verify;
	config_setting_t *m;
	char *str = NULL, err[512];
	int line = 0;

	if (!vg)
		return;
	if (config_setting_type(vg) != CONFIG_TYPE_GROUP) {
		SPEC_BAD(ld, line_of(vg), "'verify' must be a group { ... }, not %s",
			 type_name(config_setting_type(vg)));
		return;
	}
	v->present = 1;
	check_keys(ld, vg, "verify.", verify_keys);
	if (!get_strings(ld, vg, "verify.", "command", 0, &v->command, &v->line_command) &&
	    v->line_command) {
		if (!v->command.nr || !*v->command.v[0])
			SPEC_BAD(ld, v->line_command,
				 "'verify.command' is empty: name the program");
		else if (strchr(v->command.v[0], '/') && v->command.v[0][0] != '/') {
			str = resolve_bin(ld, v->command.v[0]);
			free(v->command.v[0]);
			v->command.v[0] = str;
			str = NULL;
		}
	}
	if (!get_string(ld, vg, "verify.", "export", 0, &str, &v->line_export) && str)
		v->export = str[0] == '/' ? xstrdup(str) : xasprintf("%s/%s", ld->dir, str);
	free(str);
	str = NULL;
	if (!get_string(ld, vg, "verify.", "metric", 0, &v->metric, &line) && v->metric)
		check_metric(ld, v->metric, line);
	if (!get_strings(ld, vg, "verify.", "figures", 0, &v->figures, &line))
		for (size_t i = 0; i < v->figures.nr; i++)
			if (!*v->figures.v[i] || strchr(v->figures.v[i], ',')) {
				SPEC_BAD(ld, line, "'verify.figures' item %zu: '%s' is %s", i + 1,
					 v->figures.v[i],
					 *v->figures.v[i] ? "no figure name (a comma)" : "empty");
				break;
			}
	if ((m = member(ld, vg, "verify.", "higher", 0))) {
		if (config_setting_type(m) != CONFIG_TYPE_BOOL)
			SPEC_BAD(ld, line_of(m), "'verify.higher' must be true or false, not %s",
				 type_name(config_setting_type(m)));
		else
			v->higher = config_setting_get_bool(m);
	}
	if (!get_string(ld, vg, "verify.", "launcher", 0, &str, &line) && str) {
		if (launcher_from_name(str, &v->launcher))
			SPEC_BAD(ld, line, "'verify.launcher': unknown launcher '%s'%s", str,
				 hint(launcher_names, str, err, sizeof(err)));
		else
			v->launcher_set = 1;
	}
	free(str);
	get_uint(ld, vg, "verify.", "repetitions", 0, 1, 10000, &v->repetitions, NULL);
	get_uint(ld, vg, "verify.", "max_repetitions", 0, 1, 10000, &v->max_repetitions, &line);
	if (v->max_repetitions &&
	    v->max_repetitions < (v->repetitions ? v->repetitions : s->repetitions))
		SPEC_BAD(ld, line,
			 "'verify.max_repetitions' is %u, fewer than the repetitions (%u)",
			 v->max_repetitions, v->repetitions ? v->repetitions : s->repetitions);
}

/* FNV-1a 64 of the file's bytes: cheap, stable, enough to tell two
 * versions of a spec apart in the results database. */
static int hash_file(struct loader *ld, struct spec *s)
{
	FILE *f = fopen(ld->path, "rb");
	uint64_t h = 0xcbf29ce484222325ull;
	unsigned char buf[8192];
	size_t n;

	if (!f) {
		error("%s: %s", ld->path, strerror(errno));
		return -1;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		for (size_t i = 0; i < n; i++)
			h = (h ^ buf[i]) * 0x100000001b3ull;
	if (ferror(f)) {
		error("%s: %s", ld->path, strerror(errno));
		fclose(f);
		return -1;
	}
	fclose(f);
	snprintf(s->hash, sizeof(s->hash), "%016llx", (unsigned long long)h);
	return 0;
}

static char *spec_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char cwd[PATH_MAX];

	if (slash && path[0] == '/')
		return slash == path ? xstrdup("/") : xasprintf("%.*s", (int)(slash - path), path);
	if (!getcwd(cwd, sizeof(cwd)))
		strcpy(cwd, ".");
	if (!slash)
		return xstrdup(cwd);
	return xasprintf("%s/%.*s", cwd, (int)(slash - path), path);
}

/* Limits a spec is checked against before libconfig reads it
 * (docs/limits.md, "Bad input"): libconfig 1.5 exits the whole process on
 * an @include it cannot read (a folder, a FIFO), so includes are refused; a
 * file or a nesting far beyond any real spec is refused in bounded time and
 * memory. */
#define SPEC_MAX_BYTES (1u << 20)
#define SPEC_MAX_DEPTH 16

/* Skips a comment or a string at *p (advancing it and the line count);
 * 1 when there was one. */
static int skip_inert(const char **p, const char *end, int *line)
{
	const char *q = *p;

	if (*q == '#' || (*q == '/' && q + 1 < end && q[1] == '/')) {
		while (q < end && *q != '\n')
			q++;
	} else if (*q == '/' && q + 1 < end && q[1] == '*') {
		for (q += 2; q + 1 < end && !(q[0] == '*' && q[1] == '/'); q++)
			*line += *q == '\n';
		q = q + 1 < end ? q + 2 : end;
	} else if (*q == '"') {
		for (q++; q < end && *q != '"'; q++) {
			*line += *q == '\n';
			if (*q == '\\' && q + 1 < end)
				q++;
		}
		q = q < end ? q + 1 : end;
	} else {
		return 0;
	}
	*p = q;
	return 1;
}

static int prescan_text(const char *path, const char *buf, size_t n)
{
	const char *p = buf, *end = buf + n;
	int line = 1, depth = 0, bol = 1;

	while (p < end) {
		if (bol && !strncmp(p, "@include", end - p < 8 ? (size_t)(end - p) : 8))
			return error("%s:%d: @include is not supported: write the spec as one file",
				     path, line);
		if (skip_inert(&p, end, &line))
			continue;
		if (*p == '{' || *p == '(' || *p == '[') {
			if (++depth > SPEC_MAX_DEPTH)
				return error("%s:%d: settings nested more than %d deep, the limit",
					     path, line, SPEC_MAX_DEPTH);
		} else if (*p == '}' || *p == ')' || *p == ']') {
			depth--;
		}
		if (*p == '\n')
			line++;
		bol = *p == '\n' || (bol && (*p == ' ' || *p == '\t'));
		p++;
	}
	return 0;
}

/* Reads at most SPEC_MAX_BYTES of path and checks the limits above. */
static int spec_prescan(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	size_t n;
	int ret;

	if (!f)
		return error("%s: cannot read: %s", path, strerror(errno));
	buf = xmalloc(SPEC_MAX_BYTES + 1);
	n = fread(buf, 1, SPEC_MAX_BYTES + 1, f);
	if (ferror(f))
		ret = error("%s: cannot read: %s", path, strerror(errno));
	else if (n > SPEC_MAX_BYTES)
		ret = error("%s: larger than %u bytes, the limit for a spec", path, SPEC_MAX_BYTES);
	else
		ret = prescan_text(path, buf, n);
	fclose(f);
	free(buf);
	return ret;
}

int spec_load(const char *path, struct spec *out)
{
	struct loader ld = { path, NULL, 0 };
	config_t cfg;
	config_setting_t *root, *sys, *sw;
	int want_dpu = 0;

	memset(out, 0, sizeof(*out));
	out->path = xstrdup(path);
	config_init(&cfg);
	if (hash_file(&ld, out) || spec_prescan(path))
		goto fail;
	if (!config_read_file(&cfg, path)) {
		if (config_error_type(&cfg) == CONFIG_ERR_FILE_IO)
			error("%s: cannot read: %s", path, strerror(errno));
		else
			error("%s:%d: %s", config_error_file(&cfg) ? config_error_file(&cfg) : path,
			      config_error_line(&cfg), config_error_text(&cfg));
		goto fail;
	}
	ld.dir = spec_dir(path);
	root = config_root_setting(&cfg);
	check_keys(&ld, root, "", top_keys);
	sys = member(&ld, root, "", "system", 1);
	sw = member(&ld, root, "", "sweep", 1);
	if (sys && config_setting_type(sys) != CONFIG_TYPE_GROUP) {
		SPEC_BAD(&ld, line_of(sys), "'system' must be a group { ... }, not %s",
			 type_name(config_setting_type(sys)));
		sys = NULL;
	}
	if (sw && config_setting_type(sw) != CONFIG_TYPE_GROUP) {
		SPEC_BAD(&ld, line_of(sw), "'sweep' must be a group { ... }, not %s",
			 type_name(config_setting_type(sw)));
		sw = NULL;
	}
	if (ld.bad)
		goto fail;
	/* The sweep says whether DPUs are needed; read it first. */
	load_sweep(&ld, sw, out);
	for (size_t i = 0; i < out->nplacements; i++)
		want_dpu |= out->placements[i] == PLACEMENT_DPU;
	load_system(&ld, sys, out, want_dpu);
	load_verify(&ld, member(&ld, root, "", "verify", 0), out);
	for (size_t i = 0; i < out->nplacements && !ld.bad; i++)
		if (out->placements[i] == PLACEMENT_ONLOAD && !out->onload_cores)
			SPEC_BAD(&ld, out->line.placement,
				 "placement 'onload' needs 'system.onload' with the cores per node "
				 "kept for workers");
	if (out->nnode_counts && out->nodes.nr &&
	    out->node_counts[out->nnode_counts - 1] > out->nodes.nr)
		SPEC_BAD(&ld, out->line.sweep_nodes,
			 "'sweep.nodes': %u nodes asked for, the system has %zu",
			 out->node_counts[out->nnode_counts - 1], out->nodes.nr);
	if (!out->nnode_counts && out->nodes.nr) {
		out->node_counts = xmalloc(sizeof(*out->node_counts));
		out->node_counts[0] = (unsigned)out->nodes.nr;
		out->nnode_counts = 1;
	}
	if (ld.bad)
		goto fail;
	free(ld.dir);
	config_destroy(&cfg);
	return 0;
fail:
	free(ld.dir);
	config_destroy(&cfg);
	return -1;
}

void spec_release(struct spec *s)
{
	free(s->path);
	free(s->name);
	free(s->nodes.v);
	free(s->node_names);
	free(s->dpus.v);
	free(s->dpu_names);
	free(s->host_bin);
	free(s->machine);
	free(s->dpu_bin);
	strvec_clear(&s->launcher_args);
	strvec_clear(&s->env);
	strvec_clear(&s->kernel_args);
	strvec_clear(&s->collectives);
	strvec_clear(&s->algorithms);
	strvec_clear(&s->assignments);
	strvec_clear(&s->dtypes);
	strvec_clear(&s->ops);
	free(s->windows);
	free(s->radix);
	free(s->wpn);
	free(s->workers);
	free(s->node_counts);
	free(s->placements);
	free(s->transport);
	strvec_clear(&s->verify.command);
	free(s->verify.export);
	free(s->verify.metric);
	strvec_clear(&s->verify.figures);
	memset(s, 0, sizeof(*s));
}
