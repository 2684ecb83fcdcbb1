/*
 * tuner/decide/replay.c: the replay table of replay.h. Reading is strict (every
 * number checked, every error with its line) because a benchmark built on
 * a silently misread table would measure nothing.
 */
#include "replay.h"

#include "error.h"
#include "parse.h"
#include "stats.h"
#include "strvec.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum col {
	C_COLLECTIVE,
	C_ALGORITHM,
	C_ASSIGNMENT,
	C_BYTES,
	C_WORKERS,
	C_WPN,
	C_PLACEMENT,
	C_REPETITION,
	C_OE,
	C_TOTAL,
	C_REQUIRED,
	C_VALID = C_REQUIRED,
	C_NODES,
	C_PPN,
	C_ALL
};

static const char *const col_names[C_ALL] = {
	"collective", "algorithm",   "assignment", "bytes", "workers", "wpn", "placement",
	"repetition", "oe_measured", "total_us",   "valid", "nodes",   "ppn",
};

/* Splits one CSV line in place (RFC 4180 quotes allowed) into fields.
 * Returns the field count, or -1 on an unterminated quote. */
static int csv_split(char *s, struct strvec *out)
{
	strvec_clear(out);
	for (;;) {
		char *w = s, *start = s;

		if (*s == '"') {
			s++;
			for (;;) {
				if (!*s)
					return -1;
				if (*s == '"' && s[1] == '"') {
					*w++ = '"';
					s += 2;
				} else if (*s == '"') {
					s++;
					break;
				} else {
					*w++ = *s++;
				}
			}
			if (*s && *s != ',')
				return -1;
		} else {
			while (*s && *s != ',')
				*w++ = *s++;
		}
		{
			char sep = *s;

			*w = '\0';
			strvec_push(out, start);
			if (!sep)
				break;
			s++;
		}
	}
	return (int)out->nr;
}

static int parse_double(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	if (!*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static int parse_bool(const char *s, int *out)
{
	if (!strcmp(s, "1") || !strcmp(s, "true"))
		*out = 1;
	else if (!strcmp(s, "0") || !strcmp(s, "false"))
		*out = 0;
	else
		return -1;
	return 0;
}

/* One numeric field: 0, or -1 after error() naming file, line and column. */
static int field_uint(char **f, const int *idx, int c, uint64_t max, uint64_t *out,
		      const char *path, unsigned line)
{
	char err[128];

	if (parse_uint(f[idx[c]], c == C_REPETITION ? 0 : 1, max, out, err, sizeof(err)))
		return error("%s:%u: bad %s: %s", path, line, col_names[c], err);
	return 0;
}

static int parse_row(struct replay_row *r, char **f, const int *idx, const char *path,
		     unsigned line)
{
	char err[128];
	uint64_t v;
	int c;

	r->line = line;
	r->valid = 1;
	r->nodes = r->ppn = -1;
	if (idx[C_VALID] >= 0 && parse_bool(f[idx[C_VALID]], &r->valid))
		return error("%s:%u: bad valid '%s' (0, 1, true or false)", path, line,
			     f[idx[C_VALID]]);
	if (parse_size(f[idx[C_BYTES]], &r->bytes, err, sizeof(err)))
		return error("%s:%u: bad bytes: %s", path, line, err);
	if (field_uint(f, idx, C_WORKERS, 1000000, &v, path, line))
		return -1;
	r->workers = (unsigned)v;
	if (field_uint(f, idx, C_WPN, 100000, &v, path, line))
		return -1;
	r->wpn = (unsigned)v;
	if (field_uint(f, idx, C_REPETITION, 1000000, &v, path, line))
		return -1;
	r->repetition = (long)v;
	if (idx[C_NODES] >= 0) {
		if (field_uint(f, idx, C_NODES, 10000000, &v, path, line))
			return -1;
		r->nodes = (long)v;
	}
	if (idx[C_PPN] >= 0) {
		if (field_uint(f, idx, C_PPN, 100000, &v, path, line))
			return -1;
		r->ppn = (long)v;
	}
	r->oe_measured = r->total_us = NAN;
	/* An invalid point's numbers may be absent: they are never used. */
	if (r->valid && parse_double(f[idx[C_OE]], 0, 100, &r->oe_measured))
		return error("%s:%u: bad oe_measured '%s' (a number from 0 to 100)", path, line,
			     f[idx[C_OE]]);
	if (r->valid && parse_double(f[idx[C_TOTAL]], 0, HUGE_VAL, &r->total_us))
		return error("%s:%u: bad total_us '%s' (a number of microseconds)", path, line,
			     f[idx[C_TOTAL]]);
	for (c = C_COLLECTIVE; c <= C_PLACEMENT; c++)
		if ((c == C_COLLECTIVE || c == C_ALGORITHM || c == C_ASSIGNMENT ||
		     c == C_PLACEMENT) &&
		    !*f[idx[c]])
			return error("%s:%u: empty %s", path, line, col_names[c]);
	r->collective = xstrdup(f[idx[C_COLLECTIVE]]);
	r->algorithm = xstrdup(f[idx[C_ALGORITHM]]);
	r->assignment = xstrdup(f[idx[C_ASSIGNMENT]]);
	r->placement = xstrdup(f[idx[C_PLACEMENT]]);
	return 0;
}

/* Orders rows by what makes a measurement one: layout, group, repetition. */
static int cmp_key(const struct replay_row *x, const struct replay_row *y)
{
	int c;

	if (x->workers != y->workers)
		return x->workers < y->workers ? -1 : 1;
	if (x->wpn != y->wpn)
		return x->wpn < y->wpn ? -1 : 1;
	if (x->nodes != y->nodes)
		return x->nodes < y->nodes ? -1 : 1;
	if (x->ppn != y->ppn)
		return x->ppn < y->ppn ? -1 : 1;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? -1 : 1;
	if (x->repetition != y->repetition)
		return x->repetition < y->repetition ? -1 : 1;
	if ((c = strcmp(x->placement, y->placement)) ||
	    (c = strcmp(x->collective, y->collective)) ||
	    (c = strcmp(x->algorithm, y->algorithm)) || (c = strcmp(x->assignment, y->assignment)))
		return c;
	return 0;
}

/* The key, then the line: the first of two equal rows comes first. */
static int cmp_row(const void *a, const void *b)
{
	const struct replay_row *x = *(const struct replay_row *const *)a;
	const struct replay_row *y = *(const struct replay_row *const *)b;
	int c = cmp_key(x, y);

	return c ? c : x->line < y->line ? -1 : x->line > y->line;
}

/* Two rows of one layout, group and repetition would be one launch
 * measured twice: which counts is a guess, so the table is refused.
 * 0, or -1 after error() naming both lines (the first pair in the file). */
static int check_duplicates(const struct replay *rp)
{
	const struct replay_row **v = xcalloc(rp->nrows + 1, sizeof(*v));
	const struct replay_row *first = NULL, *second = NULL;
	int ret = 0;

	for (size_t i = 0; i < rp->nrows; i++)
		v[i] = &rp->rows[i];
	qsort(v, rp->nrows, sizeof(*v), cmp_row);
	for (size_t i = 1; i < rp->nrows; i++) {
		if (cmp_key(v[i - 1], v[i]))
			continue;
		if (!second || v[i]->line < second->line) {
			first = v[i - 1];
			second = v[i];
		}
	}
	if (second)
		ret = error("%s:%u: duplicate row: the same layout (workers %u, wpn %u, %s), "
			    "point (%s %s %s %llu bytes) and repetition %ld as %s:%u",
			    rp->path, second->line, second->workers, second->wpn, second->placement,
			    second->collective, second->algorithm, second->assignment,
			    (unsigned long long)second->bytes, second->repetition, rp->path,
			    first->line);
	free(v);
	return ret;
}

int replay_load(const char *path, struct replay *rp)
{
	FILE *fp;
	char *buf = NULL;
	size_t cap = 0, alloc = 0;
	ssize_t len;
	unsigned line = 0;
	struct strvec f = STRVEC_INIT;
	int idx[C_ALL], ncols = 0, c, ret = -1;
	size_t i;

	memset(rp, 0, sizeof(*rp));
	fp = fopen(path, "r");
	if (!fp)
		return error("cannot open %s: %s", path, strerror(errno));
	rp->path = xstrdup(path);
	for (c = 0; c < C_ALL; c++)
		idx[c] = -1;
	while ((len = getline(&buf, &cap, fp)) >= 0) {
		line++;
		while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
			buf[--len] = '\0';
		if (!len || buf[0] == '#')
			continue;
		if (csv_split(buf, &f) < 0) {
			error("%s:%u: unterminated quote", path, line);
			goto out;
		}
		if (!ncols) {
			ncols = (int)f.nr;
			for (i = 0; i < f.nr; i++)
				for (c = 0; c < C_ALL; c++)
					if (!strcmp(f.v[i], col_names[c]))
						idx[c] = (int)i;
			for (c = 0; c < C_REQUIRED; c++)
				if (idx[c] < 0) {
					error("%s:%u: missing column '%s' (need %s)", path, line,
					      col_names[c],
					      "collective, algorithm, assignment, bytes, "
					      "workers, wpn, placement, repetition, oe_measured, "
					      "total_us");
					goto out;
				}
			continue;
		}
		if ((int)f.nr != ncols) {
			error("%s:%u: %zu fields, the header has %d", path, line, f.nr, ncols);
			goto out;
		}
		if (rp->nrows == alloc) {
			alloc = alloc ? 2 * alloc : 256;
			rp->rows = xrealloc(rp->rows, alloc * sizeof(*rp->rows));
		}
		memset(&rp->rows[rp->nrows], 0, sizeof(rp->rows[0]));
		if (parse_row(&rp->rows[rp->nrows], f.v, idx, path, line))
			goto out;
		rp->nrows++;
	}
	if (ferror(fp)) {
		error("cannot read %s: %s", path, strerror(errno));
		goto out;
	}
	if (!ncols) {
		error("%s:%u: empty file: no header line", path, line ? line : 1);
		goto out;
	}
	ret = check_duplicates(rp);
out:
	free(buf);
	strvec_clear(&f);
	fclose(fp);
	if (ret)
		replay_release(rp);
	return ret;
}

static long find_layout(const struct search_problem *p, const struct replay_row *r)
{
	size_t l;

	for (l = 0; l < p->nlayouts; l++) {
		const struct search_layout *x = &p->layouts[l];

		if (x->workers == r->workers && x->wpn == r->wpn &&
		    !strcmp(x->placement, r->placement) &&
		    (r->nodes < 0 || (long)x->nodes == r->nodes) &&
		    (r->ppn < 0 || (long)x->ppn == r->ppn))
			return (long)l;
	}
	return -1;
}

static long find_group(const struct search_problem *p, const struct replay_row *r)
{
	size_t g;

	for (g = 0; g < p->ngroups; g++) {
		const struct point *x = &p->groups[g];

		if (x->bytes == r->bytes && !strcmp(x->collective, r->collective) &&
		    !strcmp(x->algorithm, r->algorithm) && !strcmp(x->assignment, r->assignment))
			return (long)g;
	}
	return -1;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

/* Reorders a layout's k distinct repetitions by a permutation drawn from
 * the seed and the layout's index (each layout its own draw). */
static void permute_launches(long *reps, size_t k, uint64_t seed, size_t layout)
{
	size_t *idx = xcalloc(k + 1, sizeof(*idx));
	long *copy = xcalloc(k + 1, sizeof(*copy));

	memcpy(copy, reps, k * sizeof(*copy));
	stats_shuffle(idx, k, seed ^ ((uint64_t)(layout + 1) * 0x9e3779b97f4a7c15ULL));
	for (size_t i = 0; i < k; i++)
		reps[i] = copy[idx[i]];
	free(idx);
	free(copy);
}

size_t replay_bind(struct replay *rp, const struct search_problem *p)
{
	size_t cells, i, used = 0;
	long *lay = xcalloc(rp->nrows + 1, sizeof(long));
	long *grp = xcalloc(rp->nrows + 1, sizeof(long));
	long *reps = xcalloc(rp->nrows + 1, sizeof(long));

	free(rp->values);
	free(rp->present);
	rp->nlayouts = p->nlayouts;
	rp->ngroups = p->ngroups;
	rp->reps = p->repetitions;
	rp->missing_launches = 0;
	cells = rp->nlayouts * rp->reps * rp->ngroups;
	rp->values = xcalloc(cells ? cells : 1, sizeof(double));
	rp->present = xcalloc(rp->nlayouts * rp->reps + 1, 1);
	for (i = 0; i < cells; i++)
		rp->values[i] = NAN;
	for (i = 0; i < rp->nrows; i++) {
		lay[i] = find_layout(p, &rp->rows[i]);
		grp[i] = find_group(p, &rp->rows[i]);
	}
	/* The k-th distinct repetition number of a layout (in table order or
	 * drawn) is its k-th launch. */
	for (size_t l = 0; l < p->nlayouts; l++) {
		size_t nr = 0, k;

		for (i = 0; i < rp->nrows; i++)
			if (lay[i] == (long)l)
				reps[nr++] = rp->rows[i].repetition;
		qsort(reps, nr, sizeof(long), cmp_long);
		for (i = 0, k = 0; i < nr; i++)
			if (!k || reps[i] != reps[k - 1])
				reps[k++] = reps[i];
		if (rp->seeded)
			permute_launches(reps, k, rp->seed, l);
		for (i = 0; i < rp->nrows; i++) {
			size_t ord;

			if (lay[i] != (long)l)
				continue;
			for (ord = 0; ord < k && reps[ord] != rp->rows[i].repetition; ord++)
				;
			if (ord >= rp->reps)
				continue;
			rp->present[l * rp->reps + ord] = 1;
			if (grp[i] < 0)
				continue;
			if (rp->rows[i].valid)
				rp->values[(l * rp->reps + ord) * rp->ngroups + (size_t)grp[i]] =
					rp->rows[i].oe_measured;
			used++;
		}
	}
	free(lay);
	free(grp);
	free(reps);
	return used;
}

int replay_measure(void *ctx, size_t layout, unsigned rep, double *oe)
{
	struct replay *rp = ctx;
	size_t g;

	if (layout >= rp->nlayouts || rep >= rp->reps || !rp->present[layout * rp->reps + rep]) {
		for (g = 0; g < rp->ngroups; g++)
			oe[g] = NAN;
		rp->missing_launches++;
		return 0;
	}
	for (g = 0; g < rp->ngroups; g++)
		oe[g] = rp->values[(layout * rp->reps + rep) * rp->ngroups + g];
	return 0;
}

void replay_release(struct replay *rp)
{
	size_t i;

	for (i = 0; i < rp->nrows; i++) {
		free(rp->rows[i].collective);
		free(rp->rows[i].algorithm);
		free(rp->rows[i].assignment);
		free(rp->rows[i].placement);
	}
	free(rp->rows);
	free(rp->values);
	free(rp->present);
	free(rp->path);
	memset(rp, 0, sizeof(*rp));
}
