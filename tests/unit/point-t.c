/* tests/unit/point-t.c: a point's one compare, copy, text form and JSON
 * writer and reader (tuner/plan/point.h). */
#include "tap.h"
#include "point.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	struct point a = { "allreduce", "ring", "block", 65536, "int32", "sum", 4096, 2, 0 };
	struct point b = a, c, r;
	const char *field = NULL;
	char buf[128], *s;
	json_t *o;

	plan(26);
	ok(point_same(&a, &b), "a point is itself");
	b.chunk = 8192;
	ok(!point_same(&a, &b) && point_cmp(&a, &b) < 0,
	   "points of different chunks differ, in order");
	ok(!point_cmp_question(&a, &b), "and answer the same question");
	b = a;
	b.dtype = "double";
	ok(point_cmp_question(&a, &b) && !point_cmp_config(&a, &b),
	   "another dtype: another question, the same configuration");
	b = a;
	b.window = 3;
	ok(point_cmp(&a, &b) < 0, "the window is part of the identity");
	b = a;
	b.radix = 4;
	ok(point_cmp(&a, &b) < 0, "so is the radix");
	b = a;
	b.bytes = 1024;
	ok(point_cmp(&a, &b) > 0, "the question orders before the configuration (bytes)");
	struct point x = { "bcast", "direct", "block", 1024, NULL, NULL, 0, 0, 0 };
	struct point y = { "bcast", "direct", "block", 1024, "", "", 0, 0, 0 };
	ok(point_same(&x, &y), "NULL and \"\" are the same (an axis that does not apply)");

	point_copy(&c, &a);
	ok(point_same(&c, &a) && c.collective != a.collective && c.dtype != a.dtype,
	   "a copy owns its strings");
	point_release(&c);
	ok(!c.collective && !c.dtype && !c.bytes, "released: empty");
	point_copy(&c, &y);
	ok(!c.dtype && !c.op, "a copy of \"\" is NULL");
	point_release(&c);

	is_str(point_text(&a, POINT_ALL, buf, sizeof(buf)),
	       "allreduce 64K int32/sum ring/block chunk 4K window 2", "the whole text form");
	is_str(point_text(&a, POINT_SCHEDULE, buf, sizeof(buf)), "ring/block",
	       "the schedule alone");
	is_str(point_text(&a, POINT_REDUCTION | POINT_AXES, buf, sizeof(buf)),
	       "int32/sum chunk 4K window 2", "the axes beside the schedule");
	b = x;
	b.algorithm = "knomial";
	b.radix = 4;
	is_str(point_text(&b, POINT_ALL, buf, sizeof(buf)), "bcast 1K knomial/block radix 4",
	       "no dtype, no chunk: only what applies");
	is_str(point_text(&x, POINT_AXES, buf, sizeof(buf)), "", "no axis applies: empty");
	point_text(&a, POINT_ALL, buf, 10);
	is_int(strlen(buf), 9, "truncated to the buffer, terminated");

	o = json_object();
	ok(!point_json_set(o, &a), "JSON written");
	s = json_dumps(o, JSON_COMPACT);
	is_str(s,
	       "{\"collective\":\"allreduce\",\"algorithm\":\"ring\",\"assignment\":\"block\","
	       "\"bytes\":65536,\"dtype\":\"int32\",\"op\":\"sum\",\"chunk\":4096,\"window\":2,"
	       "\"radix\":null}",
	       "every field, null where the axis does not apply");
	free(s);
	ok(!point_json_get(o, &r, &field) && point_same(&r, &a), "and read back the same point");
	json_decref(o);

	o = json_pack("{s:s, s:s, s:i}", "collective", "bcast", "algorithm", "direct", "bytes", 8);
	ok(point_json_get(o, &r, &field) && !strcmp(field, "assignment"),
	   "missing assignment named");
	json_decref(o);
	o = json_pack("{s:s, s:s, s:s, s:s}", "collective", "bcast", "algorithm", "direct",
		      "assignment", "block", "bytes", "8");
	ok(point_json_get(o, &r, &field) && !strcmp(field, "bytes"), "bytes as a string refused");
	json_decref(o);
	o = json_pack("{s:s, s:s, s:s, s:i, s:i}", "collective", "bcast", "algorithm", "direct",
		      "assignment", "block", "bytes", 8, "chunk", -1);
	ok(point_json_get(o, &r, &field) && !strcmp(field, "chunk"), "a negative chunk refused");
	json_decref(o);
	o = json_pack("{s:s, s:s, s:s, s:i, s:i}", "collective", "bcast", "algorithm", "direct",
		      "assignment", "block", "bytes", 8, "dtype", 3);
	ok(point_json_get(o, &r, &field) && !strcmp(field, "dtype"),
	   "a dtype not a string refused");
	json_decref(o);
	o = json_pack("{s:s, s:s, s:s, s:i, s:n}", "collective", "bcast", "algorithm", "direct",
		      "assignment", "block", "bytes", 8, "radix");
	ok(!point_json_get(o, &r, &field) &&
		   point_same(&r, &(struct point){ "bcast", "direct", "block", 8, NULL, NULL, 0, 0,
						   0 }),
	   "null axes: do not apply");
	json_decref(o);
	ok(point_cmp(&x, &a) < 0 || point_cmp(&x, &a) > 0, "different collectives are ordered");
	return done_testing();
}
