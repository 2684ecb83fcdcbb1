/*
 * tuner/cmd/cmd_plan.c: `sweetspot plan SPEC [--json]`, what a spec expands to:
 * its layouts in the plan's order with their point counts, and the totals
 * a finished run can be checked against ("points", "launches").
 */
#include "cli.h"
#include "cmds.h"
#include "error.h"
#include "hostlist.h"
#include "parse.h"
#include "plan.h"
#include "spec.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_JSON, NOPTS };

static const struct cli_option plan_options[NOPTS + 1] = {
	[OPT_JSON] = { "json", 0, NULL,
		       "one JSON object: spec, hash, system, repetitions, layouts[]\n"
		       "(each with point_list[]: the point's axes and the cost of its\n"
		       "schedule), points, launches, measurements, skipped" },
	[NOPTS] = { NULL, 0, NULL, NULL },
};

static const struct cli_command plan_cli = {
	"plan",
	"SPEC [--json]",
	"Reads the sweep spec SPEC and prints the layouts it expands to, in the\n"
	"order they are measured, with the points each launch measures and the\n"
	"totals. A layout id reads n<nodes>-ppn<PPN>-w<workers>-wpn<WPN>-<placement>.",
	plan_options,
	"Exit status: 0 success, 2 bad usage or a bad spec (file:line: message).",
};

/* What print_json's callback needs: the layout, its array, and the last
 * cost worked out (dtype and op do not change what moves where, so points
 * that differ only in them share it). */
struct point_json {
	const struct layout *l;
	json_t *arr;
	struct point last;
	struct plan_cost cost;
	int have, ok;
};

/* Whether a and b run one schedule: the same point but for dtype and op,
 * which change the arithmetic, not who moves which bytes. */
static int same_schedule(const struct point *a, const struct point *b)
{
	struct point x = *a, y = *b;

	x.dtype = x.op = y.dtype = y.op = NULL;
	return point_same(&x, &y);
}

static int point_json(const struct point *pt, void *data)
{
	struct point_json *pj = data;
	json_t *o = json_object();

	point_json_set(o, pt);
	if (!pj->have || !same_schedule(&pj->last, pt)) {
		pj->ok = !plan_point_cost(pj->l, pt, &pj->cost);
		pj->last = *pt;
		pj->have = 1;
	}
	/* null: the kernel's builders have no such schedule yet. */
	json_object_set_new(o, "cost",
			    !pj->ok ? json_null() :
				      json_pack("{s:I, s:I, s:I, s:I}", "ops",
						(json_int_t)pj->cost.ops, "steps",
						(json_int_t)pj->cost.steps, "rank_bytes",
						(json_int_t)pj->cost.rank_bytes, "nic_bytes",
						(json_int_t)pj->cost.nic_bytes));
	json_array_append_new(pj->arr, o);
	return 0;
}

static int print_json(const struct spec *s, const struct plan *p)
{
	json_t *o = json_object(), *arr = json_array();
	int ret;

	for (size_t i = 0; i < p->nlayouts; i++) {
		const struct layout *l = &p->layouts[i];
		struct point_json pj = { l, json_array(), { 0 }, { 0 }, 0, 0 };

		plan_foreach_point(s, point_json, &pj);
		json_array_append_new(
			arr,
			json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:s, s:I, s:o}", "id", l->id,
				  "nodes", (json_int_t)l->nodes, "ppn", (json_int_t)l->ppn, "hosts",
				  (json_int_t)l->hosts, "workers", (json_int_t)l->workers, "wpn",
				  (json_int_t)l->wpn, "ranks", (json_int_t)layout_ranks(l),
				  "placement", placement_name(l->placement), "points",
				  (json_int_t)l->points, "point_list", pj.arr));
	}
	json_object_set_new(o, "spec", json_string(s->path));
	json_object_set_new(o, "hash", json_string(s->hash));
	json_object_set_new(o, "system", json_string(s->name));
	json_object_set_new(o, "repetitions", json_integer(p->repetitions));
	json_object_set_new(o, "layouts", arr);
	json_object_set_new(o, "points", json_integer((json_int_t)plan_points(p)));
	json_object_set_new(o, "launches", json_integer((json_int_t)plan_launches(p)));
	json_object_set_new(o, "measurements", json_integer((json_int_t)plan_measurements(p)));
	json_object_set_new(o, "skipped", json_integer((json_int_t)p->skipped));
	ret = json_dumpf(o, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(o);
	return ret;
}

/* The axes beside the layout's, where the spec's pairs use them. */
static void print_axes(const struct spec *s)
{
	int reduction, pipelined, knomial;
	char sz[32];

	spec_axes_apply(s, &reduction, &pipelined, &knomial);
	if (reduction) {
		printf("\n         reductions x dtype (");
		for (size_t i = 0; i < s->dtypes.nr; i++)
			printf("%s%s", i ? " " : "", s->dtypes.v[i]);
		printf(") x op (");
		for (size_t i = 0; i < s->ops.nr; i++)
			printf("%s%s", i ? " " : "", s->ops.v[i]);
		printf("), pairs that do not apply skipped");
	}
	if (pipelined) {
		printf("\n         pipelined x chunk (");
		for (size_t i = 0; i < s->nchunks; i++)
			printf("%s%s", i ? " " : "", format_size(s->chunks[i], sz, sizeof(sz)));
		printf(") x window (");
		for (size_t i = 0; i < s->nwindows; i++)
			printf("%s%u", i ? " " : "", s->windows[i]);
		putchar(')');
	}
	if (knomial) {
		printf("\n         knomial x radix (");
		for (size_t i = 0; i < s->nradix; i++)
			printf("%s%u", i ? " " : "", s->radix[i]);
		putchar(')');
	}
}

static void print_people(const struct spec *s, const struct plan *p)
{
	char *nodes = hostlist_compress((const char *const *)s->nodes.v, s->nodes.nr,
					HOSTLIST_SUFFIX);
	char sz[32], sz2[32];

	printf("spec     %s (hash %s)\n", s->path, s->hash);
	printf("system   %s: %zu nodes %s, %u PPN", s->name, s->nodes.nr, nodes, s->ppn);
	free(nodes);
	if (s->dpus.nr) {
		char *dpus = hostlist_compress((const char *const *)s->dpus.v, s->dpus.nr,
					       HOSTLIST_SUFFIX);

		printf(", DPUs %s with %u cores", dpus, s->dpu_cores);
		free(dpus);
	}
	if (s->onload_cores)
		printf(", %u onload cores per node", s->onload_cores);
	printf("\nlauncher %s\n", launcher_name(s->launcher));
	printf("points   per layout: %zu (collective, algorithm) x %zu assignments x %zu sizes "
	       "(%s..%s)",
	       spec_pairs(s), s->assignments.nr, s->nsizes,
	       format_size(s->sizes[0], sz, sizeof(sz)),
	       format_size(s->sizes[s->nsizes - 1], sz2, sizeof(sz2)));
	print_axes(s);
	putchar('\n');
	printf("\n%-28s %6s %5s %7s %7s %4s %-9s %7s\n", "layout", "nodes", "ppn", "hosts",
	       "workers", "wpn", "placement", "points");
	for (size_t i = 0; i < p->nlayouts; i++) {
		const struct layout *l = &p->layouts[i];

		printf("%-28s %6u %5u %7u %7u %4u %-9s %7zu\n", l->id, l->nodes, l->ppn, l->hosts,
		       l->workers, l->wpn, placement_name(l->placement), l->points);
	}
	printf("\n%zu layout%s, %zu points; %u repetition%s: %zu launches, %zu measurements",
	       p->nlayouts, p->nlayouts == 1 ? "" : "s", plan_points(p), p->repetitions,
	       p->repetitions == 1 ? "" : "s", plan_launches(p), plan_measurements(p));
	if (p->skipped)
		printf("; %zu (workers, WPN) pairs skipped by the rules", p->skipped);
	putchar('\n');
}

int cmd_plan(int argc, char **argv)
{
	struct spec spec = SPEC_INIT;
	struct plan plan = PLAN_INIT;
	const char *path;
	struct cli c;
	int json = 0, status = EXIT_USAGE, o;

	cli_begin(&c, &plan_cli, argc, argv);
	while ((o = cli_next(&c)) >= 0)
		if (o == OPT_JSON)
			json = 1;
	if (o != CLI_END)
		return cli_status(o);
	if (cli_operands(&c, 1, 1, "SPEC"))
		return EXIT_USAGE;
	path = c.operands[0];
	if (spec_load(path, &spec) || plan_build(&spec, &plan))
		goto out;
	if (json) {
		if (print_json(&spec, &plan)) {
			error("plan: cannot write JSON");
			status = 1;
			goto out;
		}
	} else
		print_people(&spec, &plan);
	status = 0;
out:
	plan_release(&plan);
	spec_release(&spec);
	return status;
}
