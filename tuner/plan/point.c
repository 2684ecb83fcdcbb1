/*
 * tuner/plan/point.c: a point's identity compared, copied, written and read
 * once (point.h).
 */
#include "point.h"
#include "assign.h"
#include "parse.h"
#include "xalloc.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int point_has(const char *s)
{
	return s && *s;
}

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

int point_cmp_question(const struct point *a, const struct point *b)
{
	int c;

	if ((c = cmp_str(a->collective, b->collective)))
		return c;
	if ((c = cmp_u64(a->bytes, b->bytes)))
		return c;
	if ((c = cmp_str(a->dtype, b->dtype)))
		return c;
	return cmp_str(a->op, b->op);
}

int point_cmp_config(const struct point *a, const struct point *b)
{
	int c;

	if ((c = cmp_str(a->algorithm, b->algorithm)))
		return c;
	if ((c = cmp_str(a->assignment, b->assignment)))
		return c;
	if ((c = cmp_u64(a->chunk, b->chunk)))
		return c;
	if ((c = cmp_u64(a->window, b->window)))
		return c;
	return cmp_u64(a->radix, b->radix);
}

int point_cmp(const struct point *a, const struct point *b)
{
	int c = point_cmp_question(a, b);

	return c ? c : point_cmp_config(a, b);
}

int point_same(const struct point *a, const struct point *b)
{
	return point_cmp(a, b) == 0;
}

static const char *dup_said(const char *s)
{
	return point_has(s) ? xstrdup(s) : NULL;
}

void point_copy(struct point *dst, const struct point *src)
{
	struct point p = *src;

	p.collective = dup_said(src->collective);
	p.algorithm = dup_said(src->algorithm);
	p.assignment = dup_said(src->assignment);
	p.dtype = dup_said(src->dtype);
	p.op = dup_said(src->op);
	*dst = p;
}

void point_release(struct point *p)
{
	static const struct point empty = POINT_INIT;

	free((char *)p->collective);
	free((char *)p->algorithm);
	free((char *)p->assignment);
	free((char *)p->dtype);
	free((char *)p->op);
	*p = empty;
}

/* Appends to buf[*n..len) as snprintf does, keeping *n at most len - 1. */
__attribute__((format(printf, 4, 5))) static void put(char *buf, size_t len, size_t *n,
						      const char *fmt, ...)
{
	va_list ap;
	int k;

	if (*n + 1 >= len)
		return;
	va_start(ap, fmt);
	k = vsnprintf(buf + *n, len - *n, fmt, ap);
	va_end(ap);
	if (k > 0)
		*n = *n + (size_t)k < len ? *n + (size_t)k : len - 1;
}

const char *point_text(const struct point *p, unsigned parts, char *buf, size_t len)
{
	char num[32];
	size_t n = 0;

	if (!len)
		return buf;
	buf[0] = 0;
	if (parts & POINT_QUESTION)
		put(buf, len, &n, "%s %s", p->collective ? p->collective : "?",
		    format_size(p->bytes, num, sizeof(num)));
	if ((parts & (POINT_QUESTION | POINT_REDUCTION)) && point_has(p->dtype))
		put(buf, len, &n, "%s%s/%s", n ? " " : "", p->dtype,
		    point_has(p->op) ? p->op : "?");
	if (parts & POINT_SCHEDULE)
		put(buf, len, &n, "%s%s/%s", n ? " " : "", p->algorithm ? p->algorithm : "?",
		    p->assignment ? p->assignment : "?");
	if ((parts & POINT_AXES) && p->chunk)
		put(buf, len, &n, "%schunk %s window %u", n ? " " : "",
		    format_size(p->chunk, num, sizeof(num)), p->window);
	if ((parts & POINT_AXES) && p->radix)
		put(buf, len, &n, "%sradix %u", n ? " " : "", p->radix);
	return buf;
}

static json_t *str_or_null(const char *s)
{
	return point_has(s) ? json_string(s) : json_null();
}

static json_t *num_or_null(uint64_t v)
{
	return v ? json_integer((json_int_t)v) : json_null();
}

int point_json_set(void *obj, const struct point *p)
{
	json_t *o = obj;
	int rc = 0;

	rc |= json_object_set_new(o, "collective", json_string(p->collective ? p->collective : ""));
	rc |= json_object_set_new(o, "algorithm", json_string(p->algorithm ? p->algorithm : ""));
	rc |= json_object_set_new(o, "assignment", json_string(p->assignment ? p->assignment : ""));
	rc |= json_object_set_new(o, "bytes", json_integer((json_int_t)p->bytes));
	rc |= json_object_set_new(o, "dtype", str_or_null(p->dtype));
	rc |= json_object_set_new(o, "op", str_or_null(p->op));
	rc |= json_object_set_new(o, "chunk", num_or_null(p->chunk));
	rc |= json_object_set_new(o, "window", num_or_null(p->window));
	rc |= json_object_set_new(o, "radix", num_or_null(p->radix));
	return rc ? -1 : 0;
}

/* An optional string: absent or null is NULL; anything but a string fails. */
static int get_str(json_t *o, const char *key, const char **out)
{
	json_t *v = json_object_get(o, key);

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return -1;
	*out = json_string_value(v);
	return 0;
}

/* An optional count: absent or null is 0; a negative or non-integer fails. */
static int get_u64(json_t *o, const char *key, uint64_t max, uint64_t *out)
{
	json_t *v = json_object_get(o, key);

	*out = 0;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    (uint64_t)json_integer_value(v) > max)
		return -1;
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

int point_json_get(const void *obj, struct point *p, const char **field)
{
	static const char *const strs[] = { "collective", "algorithm", "assignment" };
	json_t *o = (json_t *)obj;
	const char **dst[] = { &p->collective, &p->algorithm, &p->assignment };
	uint64_t window, radix;

	*p = (struct point)POINT_INIT;
	for (size_t i = 0; i < 3; i++)
		if (get_str(o, strs[i], dst[i]) || !point_has(*dst[i])) {
			*field = strs[i];
			return -1;
		}
	if (!json_is_integer(json_object_get(o, "bytes")) ||
	    get_u64(o, "bytes", UINT64_MAX, &p->bytes)) {
		*field = "bytes";
		return -1;
	}
	if (get_str(o, "dtype", &p->dtype) && (*field = "dtype"))
		return -1;
	if (get_str(o, "op", &p->op) && (*field = "op"))
		return -1;
	if (get_u64(o, "chunk", UINT64_MAX, &p->chunk) && (*field = "chunk"))
		return -1;
	if (get_u64(o, "window", UINT32_MAX, &window) && (*field = "window"))
		return -1;
	if (get_u64(o, "radix", UINT32_MAX, &radix) && (*field = "radix"))
		return -1;
	p->window = (unsigned)window;
	p->radix = (unsigned)radix;
	return 0;
}

static enum asg asg_of(const char *name)
{
	return !name		       ? ASG_N :
	       !strcmp(name, "block")  ? ASG_BLOCK :
	       !strcmp(name, "cyclic") ? ASG_CYCLIC :
					 ASG_N;
}

int point_same_schedule(const struct point *a, const struct point *b, int hosts, int workers)
{
	struct point k = *b;
	enum asg x = asg_of(a->assignment), y = asg_of(b->assignment);
	int same = 1, *o1, *o2;

	if (hosts < 1 || workers < 1 || x == ASG_N || y == ASG_N || x == y)
		return 0;
	k.assignment = a->assignment;
	if (point_cmp_config(a, &k))
		return 0;
	o1 = xcalloc((size_t)hosts, sizeof(int));
	o2 = xcalloc((size_t)hosts, sizeof(int));
	if (assign_hosts(x, hosts, workers, NULL, NULL, o1) ||
	    assign_hosts(y, hosts, workers, NULL, NULL, o2))
		same = 0;
	for (int h = 0; same && h < hosts; h++)
		same = o1[h] == o2[h];
	free(o1);
	free(o2);
	return same;
}
