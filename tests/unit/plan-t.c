/* tests/unit/plan-t.c: layouts, rules and rank placement of plans. */
#include "tap.h"
#include "plan.h"
#include "spec.h"


static char *data_path(const char *name)
{
	const char *root = getenv("SWEETSPOT_ROOT");

	return xasprintf("%s/tests/data/%s", root ? root : ".", name);
}

int main(void)
{
	struct spec s = SPEC_INIT;
	struct plan p = PLAN_INIT;
	char *path = data_path("specs/figure2.cfg");
	const struct layout *l;
	int good = 1;

	plan(8);
	ok(!spec_load(path, &s), "figure 2 spec loads");
	ok(!plan_build(&s, &p), "figure 2 plan builds");
	is_int(p.nlayouts, 1, "one layout");
	l = &p.layouts[0];
	is_str(l->id, "n2-ppn12-w8-wpn4-dpu", "layout id");
	is_int(layout_ranks(l), 32, "32 ranks");
	for (unsigned r = 0; r < 32; r++) {
		const char *want = r < 12 ? "node1" : r < 24 ? "node2" : r < 28 ? "node1-bf" : "node2-bf";

		if (strcmp(layout_rank_host(&s, l, r), want)) {
			diag("rank %u on %s, expected %s", r, layout_rank_host(&s, l, r), want);
			good = 0;
		}
	}
	ok(good, "ranks 0-11 node1, 12-23 node2, 24-27 node1-bf, 28-31 node2-bf");
	is_int(plan_points(&p), 1, "one point");
	is_int(plan_launches(&p), 1, "one launch");
	plan_release(&p);
	spec_release(&s);
	free(path);
	return done_testing();
}
