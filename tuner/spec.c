/*
 * tuner/spec.c: loading and checking sweep specs. libconfig does the syntax;
 * everything else is checked here, setting by setting, so that a person who
 * misspells a key, gives a string where a number belongs or names a host
 * that cannot exist is told where, and nothing runs. Strings are copied out
 * of the config_t before it is destroyed.
 */
#include "spec.h"

#include "error.h"
#include "hostlist.h"
#include "parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <libconfig.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const collective_names[] = { "bcast", "gather", "allgather", NULL };
static const char *const algorithm_names[] = { "direct", "leader", "allin", NULL };
static const char *const assignment_names[] = { "block", "cyclic", "locality", NULL };
static const char *const transport_names[] = { "rma", "verbs", "auto", NULL };
static const char *const placement_names[] = { "dpu", "onload", NULL };
static const char *const launcher_names[] = { "srun", "mpirun", "mpirun_rsh", NULL };

static const char *const top_keys[] = { "system", "sweep", NULL };
static const char *const system_keys[] = { "name", "nodes", "ppn", "dpu", "onload", "host_bin",
	"dpu_bin", "launcher", "launcher_args", "env", NULL };
static const char *const dpu_keys[] = { "hosts", "suffix", "cores", NULL };
static const char *const onload_keys[] = { "cores", NULL };
static const char *const sweep_keys[] = { "collectives", "algorithms", "assignments", "sizes",
	"wpn", "workers", "nodes", "placement", "iterations", "warmup", "repetitions",
	"time_limit", "retries", "transport", NULL };

/* What a loader needs to report: the file and the config being read. */
struct loader {
	const char *path;
	char *dir;		/* the spec's folder, absolute */
	int bad;		/* problems reported so far */
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
	*out = i == 0 ? LAUNCHER_SRUN : i == 1 ? LAUNCHER_MPIRUN : LAUNCHER_MPIRUN_RSH;
	return 0;
}

int spec_algorithm_applies(const char *collective, const char *algorithm)
{
	if (!strcmp(algorithm, "direct"))
		return !strcmp(collective, "bcast") || !strcmp(collective, "gather");
	if (!strcmp(algorithm, "leader") || !strcmp(algorithm, "allin"))
		return !strcmp(collective, "allgather");
	return 0;
}

size_t spec_pairs(const struct spec *s)
{
	size_t n = 0;

	for (size_t c = 0; c < s->collectives.nr; c++)
		for (size_t a = 0; a < s->algorithms.nr; a++)
			n += (size_t)spec_algorithm_applies(s->collectives.v[c], s->algorithms.v[a]);
	return n;
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
			size_t cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
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
	case CONFIG_TYPE_GROUP: return "a group { ... }";
	case CONFIG_TYPE_INT: case CONFIG_TYPE_INT64: return "an integer";
	case CONFIG_TYPE_FLOAT: return "a floating-point number";
	case CONFIG_TYPE_STRING: return "a string";
	case CONFIG_TYPE_BOOL: return "a boolean";
	case CONFIG_TYPE_ARRAY: return "an array [ ... ]";
	case CONFIG_TYPE_LIST: return "a list ( ... )";
	default: return "nothing";
	}
}

/* The member, or NULL; a required one that is missing is reported at the
 * group's line. */
static config_setting_t *member(struct loader *ld, const config_setting_t *group,
				const char *where, const char *key, int required)
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

	if (config_setting_type(st) != CONFIG_TYPE_INT && config_setting_type(st) != CONFIG_TYPE_INT64) {
		SPEC_BAD(ld, line_of(st), "%s must be an integer, not %s", what,
			 type_name(config_setting_type(st)));
		return -1;
	}
	v = config_setting_get_int64(st);
	if (v < 0 || (unsigned long long)v < min || (unsigned long long)v > max) {
		SPEC_BAD(ld, line_of(st), "%s is %lld; it must be in [%llu, %llu]", what, v, min, max);
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
		     const char *key, int required, const char *const *known,
		     struct strvec *out, int *line)
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

/* sizes: "256K:4M", "256K,1M", or an array of sizes (strings or integers). */
static int get_sizes(struct loader *ld, const config_setting_t *sweep, struct spec *s)
{
	config_setting_t *m = member(ld, sweep, "sweep.", "sizes", 1);
	char err[256], num[32];
	int t;

	if (!m)
		return -1;
	s->line.sizes = line_of(m);
	t = config_setting_type(m);
	if (t == CONFIG_TYPE_STRING) {
		if (parse_sizes(config_setting_get_string(m), 1, s->sizes, SPEC_MAX_SIZES,
				&s->nsizes, err, sizeof(err))) {
			SPEC_BAD(ld, line_of(m), "'sweep.sizes': %s", err);
			return -1;
		}
	} else if (t == CONFIG_TYPE_ARRAY || t == CONFIG_TYPE_LIST) {
		int len = config_setting_length(m);

		if (!len || len > SPEC_MAX_SIZES) {
			SPEC_BAD(ld, line_of(m), "'sweep.sizes' must have 1 to %d sizes", SPEC_MAX_SIZES);
			return -1;
		}
		for (int i = 0; i < len; i++) {
			const config_setting_t *e = config_setting_get_elem(m, (unsigned)i);
			const char *str;
			uint64_t v;

			if (config_setting_type(e) == CONFIG_TYPE_STRING)
				str = config_setting_get_string(e);
			else if (config_setting_type(e) == CONFIG_TYPE_INT ||
				 config_setting_type(e) == CONFIG_TYPE_INT64) {
				snprintf(num, sizeof(num), "%lld", config_setting_get_int64(e));
				str = num;
			} else {
				SPEC_BAD(ld, line_of(m), "'sweep.sizes' item %d must be a size like \"256K\", not %s",
					 i + 1, type_name(config_setting_type(e)));
				return -1;
			}
			if (parse_size(str, &v, err, sizeof(err))) {
				SPEC_BAD(ld, line_of(m), "'sweep.sizes' item %d: %s", i + 1, err);
				return -1;
			}
			if (!is_pow2(v)) {
				SPEC_BAD(ld, line_of(m), "'sweep.sizes' item %d: %s is not a power of two",
					 i + 1, str);
				return -1;
			}
			s->sizes[s->nsizes++] = v;
		}
	} else {
		SPEC_BAD(ld, line_of(m), "'sweep.sizes' must be a string like \"256K:4M\" or an array of sizes, not %s",
			 type_name(t));
		return -1;
	}
	qsort(s->sizes, s->nsizes, sizeof(s->sizes[0]), cmp_u64);
	for (size_t i = 1; i < s->nsizes; i++)
		if (s->sizes[i] == s->sizes[i - 1]) {
			SPEC_BAD(ld, line_of(m), "'sweep.sizes' lists %s twice",
				 format_size(s->sizes[i], num, sizeof(num)));
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
	SPEC_BAD(ld, line, "'system.%s' \"%s\" has %s, which the appfile, config and multi-prog formats cannot carry; use a path without one (a symbolic link will do)",
		 key, bin, *bad == ' ' || *bad == '\t' ? "a blank" : *bad == '\\' ? "a backslash" :
		 *bad == '%' ? "'%' (srun expands %t and %o)" : "a quote");
	return -1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Host names must be unique across nodes and DPUs: two ranks' hosts that
 * are the same machine under two roles would break the placement. */
static int check_unique(struct loader *ld, const struct spec *s)
{
	size_t n = s->nodes.nr + s->dpus.nr;
	const char **all = xcalloc(n, sizeof(*all));
	int ret = 0;

	memcpy(all, s->nodes.v, s->nodes.nr * sizeof(*all));
	if (s->dpus.nr)
		memcpy(all + s->nodes.nr, s->dpus.v, s->dpus.nr * sizeof(*all));
	qsort(all, n, sizeof(*all), cmp_str);
	for (size_t i = 1; i < n; i++)
		if (!strcmp(all[i], all[i - 1])) {
			SPEC_BAD(ld, s->line.nodes, "host '%s' is named twice among nodes and DPUs", all[i]);
			ret = -1;
			break;
		}
	free(all);
	return ret;
}

static void load_system(struct loader *ld, const config_setting_t *sys, struct spec *s,
			int want_dpu)
{
	config_setting_t *m, *dpu, *onload;
	char *str = NULL, err[512];
	int line = 0;

	check_keys(ld, sys, "system.", system_keys);
	get_string(ld, sys, "system.", "name", 1, &s->name, NULL);
	if (!get_string(ld, sys, "system.", "nodes", 1, &str, &s->line.nodes) && str) {
		if (hostlist_expand(str, &s->nodes, err, sizeof(err)))
			SPEC_BAD(ld, s->line.nodes, "'system.nodes': %s", err);
	}
	free(str);
	str = NULL;
	get_uint(ld, sys, "system.", "ppn", 1, 1, 65536, &s->ppn, &s->line.ppn);
	if (s->ppn && (unsigned long long)s->nodes.nr * s->ppn > 100000000ull)
		SPEC_BAD(ld, s->line.ppn, "%zu nodes x %u PPN is more than 100000000 host ranks",
			 s->nodes.nr, s->ppn);

	dpu = member(ld, sys, "system.", "dpu", want_dpu);
	if (dpu && config_setting_type(dpu) != CONFIG_TYPE_GROUP)
		SPEC_BAD(ld, line_of(dpu), "'system.dpu' must be a group { hosts = ...; cores = N; }, not %s",
			 type_name(config_setting_type(dpu)));
	else if (dpu) {
		config_setting_t *hosts = config_setting_get_member(dpu, "hosts");
		config_setting_t *suffix = config_setting_get_member(dpu, "suffix");

		s->line.dpu = line_of(dpu);
		check_keys(ld, dpu, "system.dpu.", dpu_keys);
		get_uint(ld, dpu, "system.dpu.", "cores", 1, 1, 4096, &s->dpu_cores, &s->line.dpu_cores);
		if (hosts && suffix)
			SPEC_BAD(ld, line_of(suffix), "'system.dpu' has both 'hosts' and 'suffix'; give one");
		else if (!hosts && !suffix)
			SPEC_BAD(ld, line_of(dpu), "'system.dpu' needs 'hosts' (a hostlist) or 'suffix' (like \"-bf\")");
		else if (hosts && !get_string(ld, dpu, "system.dpu.", "hosts", 1, &str, &line)) {
			if (hostlist_expand(str, &s->dpus, err, sizeof(err)))
				SPEC_BAD(ld, line, "'system.dpu.hosts': %s", err);
			else if (s->nodes.nr && s->dpus.nr != s->nodes.nr)
				SPEC_BAD(ld, line, "'system.dpu.hosts' names %zu DPUs for %zu nodes; give one per node, in node order",
					 s->dpus.nr, s->nodes.nr);
		} else if (suffix && !get_string(ld, dpu, "system.dpu.", "suffix", 1, &str, &line)) {
			for (size_t i = 0; i < s->nodes.nr; i++) {
				char *name = xasprintf("%s%s", s->nodes.v[i], str);

				if (hostname_check(name, err, sizeof(err))) {
					SPEC_BAD(ld, line, "'system.dpu.suffix': %s", err);
					free(name);
					break;
				}
				strvec_push(&s->dpus, name);
				free(name);
			}
		}
		free(str);
		str = NULL;
	}
	onload = member(ld, sys, "system.", "onload", 0);
	if (onload && config_setting_type(onload) != CONFIG_TYPE_GROUP)
		SPEC_BAD(ld, line_of(onload), "'system.onload' must be a group { cores = N; }, not %s",
			 type_name(config_setting_type(onload)));
	else if (onload) {
		check_keys(ld, onload, "system.onload.", onload_keys);
		get_uint(ld, onload, "system.onload.", "cores", 1, 1, 4096, &s->onload_cores,
			 &s->line.onload_cores);
	}
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
	m = member(ld, sys, "system.", "env", 0);
	if (m && !get_strings(ld, sys, "system.", "env", 0, &s->env, &line)) {
		for (size_t i = 0; i < s->env.nr; i++) {
			const char *e = s->env.v[i], *eq = strchr(e, '=');
			int good = eq && eq > e && !isdigit((unsigned char)e[0]);

			for (const char *p = e; good && p < eq; p++)
				good = isalnum((unsigned char)*p) || *p == '_';
			if (!good) {
				SPEC_BAD(ld, line, "'system.env' item %zu: '%s' is not NAME=value", i + 1, e);
				break;
			}
		}
	}
	if (s->nodes.nr)
		check_unique(ld, s);
}

static void load_sweep(struct loader *ld, const config_setting_t *sw, struct spec *s)
{
	struct strvec place = STRVEC_INIT;
	char *str = NULL, err[512];
	int line = 0;

	check_keys(ld, sw, "sweep.", sweep_keys);
	get_names(ld, sw, "sweep.", "collectives", 1, collective_names, &s->collectives, NULL);
	if (!member(ld, sw, "sweep.", "algorithms", 0)) {
		/* All that apply to the collectives asked for. */
		for (size_t a = 0; algorithm_names[a]; a++)
			for (size_t c = 0; c < s->collectives.nr; c++)
				if (spec_algorithm_applies(s->collectives.v[c], algorithm_names[a])) {
					strvec_push(&s->algorithms, algorithm_names[a]);
					break;
				}
	} else if (!get_names(ld, sw, "sweep.", "algorithms", 0, algorithm_names,
			      &s->algorithms, &line)) {
		for (size_t a = 0; a < s->algorithms.nr; a++) {
			int used = 0;

			for (size_t c = 0; c < s->collectives.nr; c++)
				used |= spec_algorithm_applies(s->collectives.v[c], s->algorithms.v[a]);
			if (!used && s->collectives.nr)
				SPEC_BAD(ld, line, "'sweep.algorithms': '%s' applies to none of the collectives (direct: bcast, gather; leader, allin: allgather)",
					 s->algorithms.v[a]);
		}
		for (size_t c = 0; c < s->collectives.nr; c++) {
			int used = 0;

			for (size_t a = 0; a < s->algorithms.nr; a++)
				used |= spec_algorithm_applies(s->collectives.v[c], s->algorithms.v[a]);
			if (!used)
				SPEC_BAD(ld, line, "'sweep.algorithms': none applies to '%s' (%s)",
					 s->collectives.v[c],
					 strcmp(s->collectives.v[c], "allgather") ? "direct" : "leader or allin");
		}
	}
	get_names(ld, sw, "sweep.", "assignments", 1, assignment_names, &s->assignments, NULL);
	get_sizes(ld, sw, s);
	get_uints(ld, sw, "sweep.", "wpn", 1, 1, 4096, &s->wpn, &s->nwpn, &s->line.wpn);
	get_uints(ld, sw, "sweep.", "workers", 0, 1, 100000000, &s->workers, &s->nworkers,
		  &s->line.workers);
	if (member(ld, sw, "sweep.", "nodes", 0)) {
		get_uints(ld, sw, "sweep.", "nodes", 0, 1, HOSTLIST_MAX, &s->node_counts,
			  &s->nnode_counts, &s->line.sweep_nodes);
	}
	if (!get_names(ld, sw, "sweep.", "placement", 1, placement_names, &place, &s->line.placement)) {
		s->placements = xcalloc(place.nr, sizeof(*s->placements));
		for (size_t i = 0; i < place.nr; i++)
			s->placements[s->nplacements++] = (enum placement)name_index(placement_names, place.v[i]);
	}
	strvec_clear(&place);
	s->iterations = 100;
	s->warmup = 10;
	s->repetitions = 1;
	s->time_limit = 600;
	get_uint(ld, sw, "sweep.", "iterations", 0, 1, 10000000, &s->iterations, NULL);
	get_uint(ld, sw, "sweep.", "warmup", 0, 0, 10000000, &s->warmup, NULL);
	get_uint(ld, sw, "sweep.", "repetitions", 0, 1, 10000, &s->repetitions, NULL);
	get_uint(ld, sw, "sweep.", "time_limit", 0, 1, 7 * 86400, &s->time_limit, NULL);
	get_uint(ld, sw, "sweep.", "retries", 0, 0, 10, &s->retries, NULL);
	if (!get_string(ld, sw, "sweep.", "transport", 0, &str, &line) && str) {
		if (name_index(transport_names, str) < 0)
			SPEC_BAD(ld, line, "'sweep.transport': unknown transport '%s'%s", str,
				 hint(transport_names, str, err, sizeof(err)));
		else
			s->transport = xstrdup(str);
	}
	free(str);
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

int spec_load(const char *path, struct spec *out)
{
	struct loader ld = { path, NULL, 0 };
	config_t cfg;
	config_setting_t *root, *sys, *sw;
	int want_dpu = 0;

	memset(out, 0, sizeof(*out));
	out->path = xstrdup(path);
	config_init(&cfg);
	if (hash_file(&ld, out))
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
	for (size_t i = 0; i < out->nplacements && !ld.bad; i++)
		if (out->placements[i] == PLACEMENT_ONLOAD && !out->onload_cores)
			SPEC_BAD(&ld, out->line.placement,
				 "placement 'onload' needs 'system.onload' with the cores per node kept for workers");
	if (out->nnode_counts && out->nodes.nr &&
	    out->node_counts[out->nnode_counts - 1] > out->nodes.nr)
		SPEC_BAD(&ld, out->line.sweep_nodes, "'sweep.nodes': %u nodes asked for, the system has %zu",
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
	strvec_clear(&s->nodes);
	strvec_clear(&s->dpus);
	free(s->host_bin);
	free(s->dpu_bin);
	strvec_clear(&s->launcher_args);
	strvec_clear(&s->env);
	strvec_clear(&s->kernel_args);
	strvec_clear(&s->collectives);
	strvec_clear(&s->algorithms);
	strvec_clear(&s->assignments);
	free(s->wpn);
	free(s->workers);
	free(s->node_counts);
	free(s->placements);
	free(s->transport);
	memset(s, 0, sizeof(*s));
}
