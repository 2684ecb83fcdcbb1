/*
 * tuner/cmd_plan.c: `sweetspot plan SPEC [--json]`, what a spec expands to:
 * its layouts in the plan's order with their point counts, and the totals
 * a finished run can be checked against ("points", "launches").
 */
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

static void plan_usage(FILE *f)
{
	fputs("usage: sweetspot plan SPEC [--json]\n\n"
	      "Reads the sweep spec SPEC and prints the layouts it expands to, in the\n"
	      "order they are measured, with the points each launch measures and the\n"
	      "totals. A layout id reads n<nodes>-ppn<PPN>-w<workers>-wpn<WPN>-<placement>.\n\n"
	      "  --json   one JSON object: spec, hash, system, repetitions, layouts[],\n"
	      "           points, launches, measurements, skipped\n"
	      "  --help   this text\n\n"
	      "Exit status: 0 success, 2 bad usage or a bad spec (file:line: message).\n", f);
}

static int print_json(const struct spec *s, const struct plan *p)
{
	json_t *o = json_object(), *arr = json_array();
	int ret;

	for (size_t i = 0; i < p->nlayouts; i++) {
		const struct layout *l = &p->layouts[i];

		json_array_append_new(arr, json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:s, s:I}",
			"id", l->id, "nodes", (json_int_t)l->nodes, "ppn", (json_int_t)l->ppn,
			"hosts", (json_int_t)l->hosts, "workers", (json_int_t)l->workers,
			"wpn", (json_int_t)l->wpn, "ranks", (json_int_t)layout_ranks(l),
			"placement", placement_name(l->placement), "points", (json_int_t)l->points));
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

static void print_people(const struct spec *s, const struct plan *p)
{
	char *nodes = hostlist_compress((const char *const *)s->nodes.v, s->nodes.nr);
	char sz[32], sz2[32];

	printf("spec     %s (hash %s)\n", s->path, s->hash);
	printf("system   %s: %zu nodes %s, %u PPN", s->name, s->nodes.nr, nodes, s->ppn);
	free(nodes);
	if (s->dpus.nr) {
		char *dpus = hostlist_compress((const char *const *)s->dpus.v, s->dpus.nr);

		printf(", DPUs %s with %u cores", dpus, s->dpu_cores);
		free(dpus);
	}
	if (s->onload_cores)
		printf(", %u onload cores per node", s->onload_cores);
	printf("\nlauncher %s\n", launcher_name(s->launcher));
	printf("points   per layout: %zu (collective, algorithm) x %zu assignments x %zu sizes (%s..%s)\n",
	       spec_pairs(s), s->assignments.nr, s->nsizes,
	       format_size(s->sizes[0], sz, sizeof(sz)),
	       format_size(s->sizes[s->nsizes - 1], sz2, sizeof(sz2)));
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
	const char *path = NULL;
	int json = 0, status = EXIT_USAGE;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			plan_usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			error("plan: unknown option '%s'", argv[i]);
			plan_usage(stderr);
			return EXIT_USAGE;
		} else if (path) {
			error("plan: one spec only ('%s' and '%s')", path, argv[i]);
			return EXIT_USAGE;
		} else
			path = argv[i];
	}
	if (!path) {
		plan_usage(stderr);
		return EXIT_USAGE;
	}
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
