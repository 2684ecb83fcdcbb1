/*
 * tuner/plan/point.h: what a point is, the layout aside. One type carries the
 * identity (collective, algorithm, assignment, bytes, dtype, op, chunk,
 * window, radix) in every part that has one: the plan, the search, the
 * store's records, the verdicts, the recommendation, the exports; one
 * compare, one JSON writer and one text form, so that no two parts can
 * disagree on which points are the same.
 *
 * An axis that does not apply to a point is NULL (or "": the same) for
 * strings and 0 for numbers: dtype and op are a reduction's, chunk and
 * window a pipelined point's, radix a k-nomial schedule's. Where an axis
 * applies its value is explicit (the spec and the kernel's records both
 * name the default they ran with), so 0 never means "the default".
 *
 * The strings are borrowed from whoever made the point (the spec, a row of
 * the store) unless that owner says otherwise; point_copy() makes a point
 * that owns its strings, point_release() frees them.
 */
#ifndef SWEETSPOT_POINT_H
#define SWEETSPOT_POINT_H

#include <stddef.h>
#include <stdint.h>

struct point {
	const char *collective, *algorithm, *assignment;
	uint64_t bytes;
	const char *dtype, *op; /* reductions */
	uint64_t chunk;		/* pipelined points: bytes per step */
	unsigned window;	/* pipelined points: steps in flight */
	unsigned radix;		/* k-nomial schedules */
};

#define POINT_INIT                                       \
	{                                                \
		NULL, NULL, NULL, 0, NULL, NULL, 0, 0, 0 \
	}

/* The question a point answers is (collective, bytes, dtype, op): what a
 * decision is made about. Its configuration within the layout is
 * (algorithm, assignment, chunk, window, radix): what is chosen. */

/* Orders points by question (collective, bytes, dtype, op), then by
 * configuration (algorithm, assignment, chunk, window, radix): < 0, 0 or
 * > 0. NULL and "" compare equal. */
int point_cmp(const struct point *a, const struct point *b);
/* Orders by question only; by configuration only. */
int point_cmp_question(const struct point *a, const struct point *b);
int point_cmp_config(const struct point *a, const struct point *b);

/* Nonzero when a and b, measured on a layout of hosts host ranks and
 * workers workers, are one schedule measured twice: the same point but
 * the assignment, block and cyclic, and those give every host the same
 * worker (one worker; or one host per worker). */
int point_same_schedule(const struct point *a, const struct point *b, int hosts, int workers);

/* Nonzero when a and b are the same point (point_cmp() == 0). */
int point_same(const struct point *a, const struct point *b);

/* dst becomes a copy of src owning its strings (NULL and "" become NULL);
 * free it with point_release(), which leaves *p as POINT_INIT. */
void point_copy(struct point *dst, const struct point *src);
void point_release(struct point *p);

/* Nonzero when s is a string that says something (not NULL, not ""). */
int point_has(const char *s);

/* The text form, made of the parts asked for, separated by one space:
 *   POINT_QUESTION  "allreduce 1M int32/sum"   (dtype/op where they apply)
 *   POINT_SCHEDULE  "ring/block"               (algorithm/assignment)
 *   POINT_AXES      "chunk 64K window 2 radix 4" (those that apply; may be "")
 *   POINT_REDUCTION "int32/sum" alone (where it applies; part of QUESTION)
 * Writes into buf (truncating, always terminated) and returns buf. */
#define POINT_QUESTION	1u
#define POINT_SCHEDULE	2u
#define POINT_AXES	4u
#define POINT_REDUCTION 8u
#define POINT_ALL	(POINT_QUESTION | POINT_SCHEDULE | POINT_AXES)
const char *point_text(const struct point *p, unsigned parts, char *buf, size_t len);

/* Sets the point's fields on the JSON object o (a json_t *, jansson): the
 * strings and bytes always, each axis where it applies, null where not,
 * under the record's own names ("collective", ..., "radix"). Returns 0, or
 * -1 when jansson runs out of memory. */
int point_json_set(void *o, const struct point *p);

/* Reads the point's fields from the JSON object o (a json_t *) as
 * point_json_set() writes them and the kernel's records carry them (absent
 * or null: does not apply). The strings point into o: copy them with
 * point_copy() before o is freed. Returns 0, or -1 when collective,
 * algorithm, assignment or bytes is missing or of the wrong type, or a
 * number is negative or not an integer (with the field's name in *field). */
int point_json_get(const void *o, struct point *p, const char **field);

#endif
