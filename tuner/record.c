/*
 * tuner/record.c: the one parser of the kernel's record, a JSON line per
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

/* The fields the reductions, the schedules and the calibration added to
 * the record; every one optional (older kernels, other collectives). */
static void read_axes(json_t *o, struct store_point *p)
{
	json_t *v = json_object_get(o, "calibrated");

	p->dtype = json_str_dup(o, "dtype");
	p->op = json_str_dup(o, "op");
	p->chunk = json_int(o, "chunk") > 0 ? json_int(o, "chunk") : 0;
	p->window = json_int(o, "window") > 0 ? (int)json_int(o, "window") : 0;
	p->radix = json_int(o, "radix") > 0 ? (int)json_int(o, "radix") : 0;
	p->algbw = json_num(o, "algbw");
	p->busbw = json_num(o, "busbw");
	p->p2p_bw = json_num(o, "p2p_bw");
	p->ref_us_median = json_num(o, "ref_us_median");
	p->compute_us_median = json_num(o, "compute_us_median");
	p->oe_measured_median = json_num(o, "oe_measured_median");
	p->calib_error = json_num(o, "calib_error");
	p->calibrated = !json_is_boolean(v) ? 0 : json_is_true(v) ? 1 : -1;
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

void store_point_copy(struct store_point *dst, const struct store_point *src)
{
	*dst = *src;
	dst->layout = dup_or_null(src->layout);
	dst->placement = dup_or_null(src->placement);
	dst->mode = dup_or_null(src->mode);
	dst->collective = dup_or_null(src->collective);
	dst->algorithm = dup_or_null(src->algorithm);
	dst->assignment = dup_or_null(src->assignment);
	dst->transport = dup_or_null(src->transport);
	dst->device = dup_or_null(src->device);
	dst->host_source = dup_or_null(src->host_source);
	dst->rank_hosts = dup_or_null(src->rank_hosts);
	dst->raw = dup_or_null(src->raw);
	dst->dtype = dup_or_null(src->dtype);
	dst->op = dup_or_null(src->op);
}

void store_point_release(struct store_point *p)
{
	free((char *)p->layout);
	free((char *)p->placement);
	free((char *)p->mode);
	free((char *)p->collective);
	free((char *)p->algorithm);
	free((char *)p->assignment);
	free((char *)p->transport);
	free((char *)p->device);
	free((char *)p->host_source);
	free((char *)p->rank_hosts);
	free((char *)p->raw);
	free((char *)p->dtype);
	free((char *)p->op);
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
	p->total_us = json_num(o, "total_us");
	/* An invalid point may lack times; a valid one must have them. */
	if (p->valid && isnan(p->total_us)) {
		snprintf(err, errlen, "no number \"total_us\"");
		goto out;
	}
	p->bytes = (uint64_t)bytes;
	p->schema = (int)json_int(o, "schema");
	p->mode = json_str_dup(o, "mode");
	p->collective = json_str_dup(o, "collective");
	p->algorithm = json_str_dup(o, "algorithm");
	p->assignment = mpi && !json_object_get(o, "assignment") ? xstrdup("none")
								 : json_str_dup(o, "assignment");
	p->transport = json_str_dup(o, "transport");
	p->device = json_str_dup(o, "device");
	p->host_source = json_str_dup(o, "host_source");
	p->ranks = (int)json_int(o, "ranks");
	p->bad_rank = (int)json_int(o, "bad_rank");
	p->bad_source = (int)json_int(o, "bad_source");
	p->bad_offset = json_int(o, "bad_offset");
	p->hosts = (int)json_int(o, "hosts");
	p->workers = (int)json_int(o, "workers");
	p->nodes = (int)json_int(o, "nodes");
	p->ppn = (int)json_int(o, "ppn");
	p->iterations = (int)json_int(o, "iterations");
	p->warmup = (int)json_int(o, "warmup");
	p->ref_us = json_num(o, "ref_us");
	p->comm_us = json_num(o, "comm_us");
	p->compute_us = json_num(o, "compute_us");
	p->oe_paper = json_num(o, "oe_paper");
	p->oe_measured = json_num(o, "oe_measured");
	p->overlap = json_num(o, "overlap");
	p->total_us_min = json_num(o, "total_us_min");
	p->total_us_median = json_num(o, "total_us_median");
	p->total_us_max = json_num(o, "total_us_max");
	v = json_object_get(o, "rank_hosts");
	p->rank_hosts = json_is_array(v) ? json_dumps(v, JSON_COMPACT) : xstrdup("[]");
	p->raw = xstrdup(line);
	p->layout = json_str_dup(o, "layout");
	p->placement = json_str_dup(o, "placement");
	p->wpn = -1;
	read_axes(o, p);
	ret = 0;
out:
	if (ret)
		store_point_release(p);
	json_decref(o);
	return ret;
}
