/*
 * tuner/store/record.c: the one parser of the kernel's record, a JSON line per
 * point (see record.h; store.h for the fields). The sweep engine (run,
 * baseline, search) and recommend's --records read records through it.
 */
#include "record.h"
#include "xalloc.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- kernel records ------------------------------------------------------ */

static const char *json_str_dup(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return xstrdup(json_is_string(v) ? json_string_value(v) : "");
}

static double json_num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static long long json_int(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (json_is_integer(v))
		return json_integer_value(v);
	return -1;
}

#define F(name, type, flags)                                           \
	{                                                              \
#name, type, offsetof(struct store_point, name), flags \
	}
#define K(name, type, flags)                                               \
	{                                                                  \
#name, type, offsetof(struct store_point, key.name), flags \
	}
#define COL REC_COLUMN
#define NN  REC_NOTNULL
#define KER REC_KERNEL
#define JS  REC_JSON
#define CSV REC_CSV
#define ZN  REC_ZERO_NULL

const struct rec_field rec_fields[] = {
	F(id, REC_LL, COL | REC_ROWID),
	F(run, REC_LL, COL | JS),
	F(launch, REC_LL, COL | JS),
	F(layout, REC_TEXT, COL | NN | KER | JS | CSV),
	K(collective, REC_TEXT, COL | NN | JS | CSV),
	K(algorithm, REC_TEXT, COL | NN | JS | CSV),
	K(assignment, REC_TEXT, COL | NN | JS | CSV),
	K(bytes, REC_U64, COL | NN | JS | CSV),
	F(workers, REC_INT, COL | KER | JS | CSV),
	F(wpn, REC_INT, COL | JS | CSV),
	F(placement, REC_TEXT, COL | KER | JS | CSV),
	F(repetition, REC_INT, COL | NN | JS | CSV),
	F(oe_measured, REC_REAL, COL | KER | JS | CSV),
	F(oe_paper, REC_REAL, COL | KER | JS | CSV),
	F(total_us, REC_REAL, COL | KER | JS | CSV),
	F(valid, REC_BOOL, COL | NN | JS | CSV),
	K(dtype, REC_TEXT, COL | NN | JS | CSV | ZN),
	K(op, REC_TEXT, COL | NN | JS | CSV | ZN),
	K(chunk, REC_U64, COL | NN | JS | CSV | ZN),
	K(window, REC_UINT, COL | NN | JS | CSV | ZN),
	K(radix, REC_UINT, COL | NN | JS | CSV | ZN),
	F(algbw, REC_REAL, COL | KER | JS | CSV),
	F(busbw, REC_REAL, COL | KER | JS | CSV),
	F(p2p_bw, REC_REAL, COL | KER | JS | CSV),
	F(calibrated, REC_TRI, COL | KER | JS | CSV),
	F(schema, REC_INT, COL | KER),
	F(mode, REC_TEXT, COL | NN | KER | JS),
	F(hosts, REC_INT, COL | KER | JS),
	F(nodes, REC_INT, COL | KER | JS),
	F(ppn, REC_INT, COL | KER | JS),
	F(ranks, REC_INT, COL | KER | JS),
	F(iterations, REC_INT, COL | KER | JS),
	F(warmup, REC_INT, COL | KER | JS),
	F(transport, REC_TEXT, COL | KER | JS),
	F(device, REC_TEXT, COL | KER | JS),
	F(host_source, REC_TEXT, COL | KER | JS),
	F(ref_us, REC_REAL, COL | KER | JS),
	F(comm_us, REC_REAL, COL | KER | JS),
	F(compute_us, REC_REAL, COL | KER | JS),
	F(overlap, REC_REAL, COL | KER | JS),
	F(total_us_min, REC_REAL, COL | KER | JS),
	F(total_us_median, REC_REAL, COL | KER | JS),
	F(total_us_max, REC_REAL, COL | KER | JS),
	F(ref_us_median, REC_REAL, COL | KER | JS),
	F(compute_us_median, REC_REAL, COL | KER | JS),
	F(oe_measured_median, REC_REAL, COL | KER | JS),
	F(calib_error, REC_REAL, COL | KER | JS),
	F(bad_rank, REC_INT, COL | KER | JS | REC_INVALID),
	F(bad_source, REC_INT, COL | KER | JS | REC_INVALID),
	F(bad_offset, REC_LL, COL | KER | JS | REC_INVALID),
	F(rank_hosts, REC_ARRAY, COL | KER | JS),
	F(raw, REC_TEXT, COL | NN),
};

const size_t rec_nfields = sizeof(rec_fields) / sizeof(*rec_fields);

#undef F
#undef K
#undef COL
#undef NN
#undef KER
#undef JS
#undef CSV
#undef ZN

char *rec_names(unsigned all, unsigned none, size_t *n)
{
	size_t len = 1, k = 0;
	char *s;

	for (size_t i = 0; i < rec_nfields; i++)
		len += strlen(rec_fields[i].name) + 2;
	s = xmalloc(len);
	s[0] = 0;
	for (size_t i = 0; i < rec_nfields; i++) {
		const struct rec_field *f = &rec_fields[i];

		if ((f->flags & all) != all || (f->flags & none))
			continue;
		if (k++)
			strcat(s, ", ");
		strcat(s, f->name);
	}
	if (n)
		*n = k;
	return s;
}

/* A field the kernel writes as it is (REC_KERNEL), from its record o. */
static void read_field(json_t *o, const struct rec_field *f, struct store_point *p)
{
	json_t *v = json_object_get(o, f->name);
	void *at = rec_at(p, f);

	switch (f->type) {
	case REC_TEXT:
		*(const char **)at = json_str_dup(o, f->name);
		break;
	case REC_INT:
		*(int *)at = (int)json_int(o, f->name);
		break;
	case REC_LL:
		*(long long *)at = json_int(o, f->name);
		break;
	case REC_REAL:
		*(double *)at = json_num(o, f->name);
		break;
	case REC_TRI:
		*(int *)at = !json_is_boolean(v) ? 0 : json_is_true(v) ? 1 : -1;
		break;
	case REC_ARRAY:
		*(const char **)at = json_is_array(v) ? json_dumps(v, JSON_COMPACT) : xstrdup("[]");
		break;
	case REC_U64:
	case REC_UINT:
	case REC_BOOL:
		break; /* the point's key and validity: record_parse() checks them */
	}
}

/* The point's axes (point.h): "" and 0 where they do not apply. */
static void read_axes(json_t *o, struct store_point *p)
{
	p->key.dtype = json_str_dup(o, "dtype");
	p->key.op = json_str_dup(o, "op");
	p->key.chunk = json_int(o, "chunk") > 0 ? (uint64_t)json_int(o, "chunk") : 0;
	p->key.window = json_int(o, "window") > 0 ? (unsigned)json_int(o, "window") : 0;
	p->key.radix = json_int(o, "radix") > 0 ? (unsigned)json_int(o, "radix") : 0;
}

void store_point_copy(struct store_point *dst, const struct store_point *src)
{
	*dst = *src;
	for (size_t i = 0; i < rec_nfields; i++) {
		const struct rec_field *f = &rec_fields[i];
		const char **s = rec_at(dst, f);

		if ((f->type == REC_TEXT || f->type == REC_ARRAY) && *s)
			*s = xstrdup(*s);
	}
}

void store_point_release(struct store_point *p)
{
	for (size_t i = 0; i < rec_nfields; i++) {
		const struct rec_field *f = &rec_fields[i];

		if (f->type == REC_TEXT || f->type == REC_ARRAY)
			free(*(char **)rec_at(p, f));
	}
	memset(p, 0, sizeof(*p));
}

int record_parse(const char *line, struct store_point *p, char *err, size_t errlen)
{
	static const char *const required_str[] = { "collective", "algorithm", "assignment" };
	json_error_t jerr;
	json_t *o, *v, *mode;
	long long bytes;
	int ret = -1, mpi;

	memset(p, 0, sizeof(*p));
	o = json_loads(line, JSON_REJECT_DUPLICATES, &jerr);
	if (!o) {
		snprintf(err, errlen, "not JSON (column %d: %s)", jerr.column, jerr.text);
		return -1;
	}
	if (!json_is_object(o)) {
		snprintf(err, errlen, "not a JSON object");
		goto out;
	}
	mode = json_object_get(o, "mode");
	mpi = json_is_string(mode) && !strcmp(json_string_value(mode), "mpi");
	for (size_t i = 0; i < sizeof(required_str) / sizeof(*required_str); i++) {
		v = json_object_get(o, required_str[i]);
		/* Open MPI alone has no workers to assign hosts to. */
		if (mpi && !v && !strcmp(required_str[i], "assignment"))
			continue;
		if (!json_is_string(v) || !*json_string_value(v)) {
			snprintf(err, errlen, "no \"%s\" string", required_str[i]);
			goto out;
		}
	}
	bytes = json_int(o, "bytes");
	if (bytes <= 0) {
		snprintf(err, errlen, "no positive integer \"bytes\"");
		goto out;
	}
	v = json_object_get(o, "valid");
	if (!json_is_boolean(v)) {
		snprintf(err, errlen, "no boolean \"valid\"");
		goto out;
	}
	p->valid = json_is_true(v);
	/* An invalid point may lack times; a valid one must have them. */
	if (p->valid && isnan(json_num(o, "total_us"))) {
		snprintf(err, errlen, "no number \"total_us\"");
		goto out;
	}
	for (size_t i = 0; i < rec_nfields; i++)
		if (rec_fields[i].flags & REC_KERNEL)
			read_field(o, &rec_fields[i], p);
	p->key.bytes = (uint64_t)bytes;
	p->key.collective = json_str_dup(o, "collective");
	p->key.algorithm = json_str_dup(o, "algorithm");
	p->key.assignment = mpi && !json_object_get(o, "assignment") ?
				    xstrdup("none") :
				    json_str_dup(o, "assignment");
	p->raw = xstrdup(line);
	p->wpn = -1;
	read_axes(o, p);
	ret = 0;
out:
	if (ret)
		store_point_release(p);
	json_decref(o);
	return ret;
}

double store_point_oe(const struct store_point *p)
{
	if (isfinite(p->ref_us_median) && isfinite(p->total_us_median) && p->ref_us_median > 0 &&
	    p->total_us_median > 0)
		return 100 * p->ref_us_median / p->total_us_median;
	return p->oe_measured;
}
