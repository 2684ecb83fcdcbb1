/*
 * tuner/cmd_recommend.c: `sweetspot recommend SPEC [--db FILE] [--json]`:
 * one answer to act on. Uses the results the database holds for SPEC (or
 * runs the adaptive search first when it holds none), and prints, per
 * collective and size band, the best configuration, its offload efficiency
 * with spread, the margin over the runner-up and over no offload at all,
 * and the exact command and files that launch it (written for the spec's
 * launchers by the plan's generator).
 */
#include "cmds.h"
#include "error.h"
#include "generate.h"
#include "parse.h"
#include "plan.h"
#include "recommend.h"
#include "search.h"
#include "search_real.h"
#include "spec.h"
#include "store.h"
#include "strvec.h"

#include <errno.h>
#include <jansson.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void recommend_usage(FILE *f)
{
	fputs("usage: sweetspot recommend SPEC [--db FILE] [--run ID] [--collective C]\n"
	      "                           [--files DIR] [--json]\n\n"
	      "Recommends, for every collective and size band of SPEC, the configuration\n"
	      "(algorithm, assignment, workers, WPN, placement) with the highest offload\n"
	      "efficiency, from the results the database holds for SPEC; when it holds\n"
	      "none, the adaptive search runs first (real launches). For each it prints\n"
	      "the efficiency with its spread, the margin over the runner-up and over no\n"
	      "offload, and the command and files that launch it.\n\n"
	      "  --db FILE        results database (default " STORE_DEFAULT_PATH ")\n"
	      "  --run ID         a run other than the latest of SPEC\n"
	      "  --collective C   only this collective\n"
	      "  --files DIR      where the launch files go (default: recommended/ beside\n"
	      "                   the database), one folder per layout\n"
	      "  --json           one JSON object: source, run, recommendations[]\n\n"
	      "Exit status: 0 success, 1 failure, 2 bad usage or input (nothing measured\n"
	      "for a collective asked for, an empty database, a bad spec).\n", f);
}

/* Runs the adaptive search for real when the database has no run of spec. */
static int ensure_results(const struct spec *s, const struct plan *p, const char *spec_path,
			  const char *db)
{
	struct store *st = NULL;
	struct store_run run = { 0 };
	struct search_space sp;
	struct search_problem prob = { 0 };
	struct search_opts opts = SEARCH_OPTS_INIT;
	struct search_real real = SEARCH_REAL_INIT;
	struct search_result res;
	int have = 0, ret;

	if (!access(db, F_OK)) {
		char *key = spec_run_key(spec_path);

		if (store_open(db, STORE_RDONLY, &st)) {
			free(key);
			return -1;
		}
		have = store_latest_run(st, key, &run);
		free(key);
		store_run_release(&run);
		store_close(st);
		if (have < 0)
			return -1;
	}
	if (have)
		return 0;
	fprintf(stderr, "sweetspot: %s holds no results of %s: searching first\n", db, spec_path);
	search_space_from_plan(s, p, &sp);
	prob = (struct search_problem){ sp.layouts, sp.nlayouts, sp.groups, sp.ngroups,
					sp.repetitions, search_real_measure, &real };
	ret = search_real_init(&real, spec_path, db, NULL, &sp);
	if (!ret) {
		ret = search_run(&prob, &opts, &res);
		if (!ret) {
			fprintf(stderr, "sweetspot: adaptive search used %u launches of %u\n",
				res.launches, res.grid_launches);
			search_result_release(&res);
		}
	}
	search_real_release(&real);
	search_space_release(&sp);
	return ret;
}

/* The line after the heading of the launcher's command in a generated
 * `commands` file. The caller frees it; NULL if absent. */
static char *command_of(const char *dir, enum launcher l)
{
	static const char *const heads[] = { "# Slurm", "# Open MPI", "# MVAPICH2" };
	char *path = xasprintf("%s/commands", dir), *line = NULL, *out = NULL;
	size_t cap = 0;
	ssize_t n;
	int next = 0;
	FILE *f = fopen(path, "r");

	free(path);
	if (!f)
		return NULL;
	while (!out && (n = getline(&line, &cap, f)) >= 0) {
		while (n && line[n - 1] == '\n')
			line[--n] = '\0';
		if (next && n && line[0] != '#')
			out = xstrdup(line);
		else if ((unsigned)l < 3 && !strcmp(line, heads[l]))
			next = 1;
	}
	free(line);
	fclose(f);
	return out;
}

static char *files_root(const char *files, const char *db)
{
	char *copy, *out;

	if (files)
		return xstrdup(files);
	copy = xstrdup(db);
	out = xasprintf("%s/recommended", dirname(copy));
	free(copy);
	return out;
}

static int mkdir_p(const char *path)
{
	char *p = xstrdup(path);
	int ret = 0;

	for (char *s = p + 1;; s++) {
		if (*s && *s != '/')
			continue;
		char c = *s;

		*s = '\0';
		if (mkdir(p, 0777) && errno != EEXIST) {
			ret = error("cannot create %s: %s", p, strerror(errno));
			break;
		}
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return ret;
}

int cmd_recommend(int argc, char **argv)
{
	struct spec spec = SPEC_INIT;
	struct plan plan = PLAN_INIT;
	struct decisions d = DECISIONS_INIT;
	const char *path = NULL, *db = STORE_DEFAULT_PATH, *coll = NULL, *files = NULL;
	long long run = 0;
	int json = 0, status = EXIT_USAGE, i;
	char err[128], *root = NULL;
	uint64_t v;
	json_t *jo = NULL, *jrecs = NULL;
	static const char *const colls[] = { "bcast", "gather", "allgather" };

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			recommend_usage(stdout);
			return 0;
		} else if (!strcmp(a, "--json")) {
			json = 1;
		} else if (!strcmp(a, "--db") || !strcmp(a, "--run") || !strcmp(a, "--collective") ||
			   !strcmp(a, "--files")) {
			if (i + 1 >= argc) {
				error("recommend: %s needs a value", a);
				return EXIT_USAGE;
			}
			i++;
			if (!strcmp(a, "--db"))
				db = argv[i];
			else if (!strcmp(a, "--collective"))
				coll = argv[i];
			else if (!strcmp(a, "--files"))
				files = argv[i];
			else if (parse_uint(argv[i], 1, 1ull << 62, &v, err, sizeof(err))) {
				error("recommend: --run: %s", err);
				return EXIT_USAGE;
			} else {
				run = (long long)v;
			}
		} else if (a[0] == '-' && a[1]) {
			error("recommend: unknown option '%s'", a);
			recommend_usage(stderr);
			return EXIT_USAGE;
		} else if (path) {
			error("recommend: one spec only ('%s' and '%s')", path, a);
			return EXIT_USAGE;
		} else {
			path = a;
		}
	}
	if (!path) {
		recommend_usage(stderr);
		return EXIT_USAGE;
	}
	if (coll && strcmp(coll, "bcast") && strcmp(coll, "gather") && strcmp(coll, "allgather")) {
		error("recommend: --collective: unknown collective '%s' (bcast, gather, allgather)", coll);
		return EXIT_USAGE;
	}
	if (spec_load(path, &spec) || plan_build(&spec, &plan))
		goto out;
	if (!run && ensure_results(&spec, &plan, path, db)) {
		status = 1;
		goto out;
	}
	if (decisions_from_db(db, run, path, &d))
		goto out;
	if (coll && !decisions_has_offload(&d, coll)) {
		error("recommend: %s run %lld holds no offloaded measurement of %s", db, d.run, coll);
		goto out;
	}
	if (!decisions_has_offload(&d, NULL)) {
		error("recommend: %s run %lld holds no offloaded measurement", db, d.run);
		goto out;
	}
	root = files_root(files, db);
	if (mkdir_p(root)) {
		status = 1;
		goto out;
	}
	if (json) {
		jo = json_object();
		jrecs = json_array();
		json_object_set_new(jo, "source", json_string(db));
		json_object_set_new(jo, "run", json_integer(d.run));
		json_object_set_new(jo, "spec", json_string(path));
	} else {
		printf("Recommendation from %s, run %lld (%s)\n", db, d.run, path);
	}
	for (int c = 0; c < 3; c++) {
		struct band *b;
		size_t nb;

		if (coll && strcmp(coll, colls[c]))
			continue;
		nb = decisions_bands(&d, colls[c], &b);
		for (size_t k = 0; k < nb; k++) {
			const struct offload_choice *x = b[k].best;
			const struct layout *l = plan_find(&plan, x->layout);
			char lo[32], hi[32], *dir = NULL, *cmd = NULL;
			double none = x->ref_us + x->compute_us;
			double saved = none - x->total_us;

			if (l) {
				dir = xasprintf("%s/%s", root, l->id);
				if (generate_layout(&spec, l, dir)) {
					free(dir);
					free(b);
					status = 1;
					goto out;
				}
				cmd = command_of(dir, spec.launcher);
			}
			format_size(b[k].lo, lo, sizeof(lo));
			format_size(b[k].hi, hi, sizeof(hi));
			if (json) {
				json_t *r = json_pack("{s:s, s:I, s:I, s:s, s:s, s:s, s:I, s:I, s:s, s:f, s:f, s:I}",
					"collective", colls[c], "bytes_min", (json_int_t)b[k].lo,
					"bytes_max", (json_int_t)b[k].hi, "algorithm", x->algorithm,
					"assignment", x->assignment, "layout", x->layout,
					"workers", (json_int_t)x->workers, "wpn", (json_int_t)x->wpn,
					"placement", x->placement, "oe_measured", round(x->oe * 100) / 100,
					"spread", round(x->spread * 100) / 100, "repetitions", (json_int_t)x->reps);

				json_object_set_new(r, "runner_up", x->runner_up ? json_string(x->runner_up) : json_null());
				json_object_set_new(r, "margin_runner_up", x->runner_up ?
						    json_real(round((x->oe - x->runner_up_oe) * 100) / 100) : json_null());
				json_object_set_new(r, "no_offload_us", isfinite(none) ? json_real(round(none * 100) / 100) : json_null());
				json_object_set_new(r, "offloaded_us", isfinite(x->total_us) ? json_real(round(x->total_us * 100) / 100) : json_null());
				json_object_set_new(r, "saved_pct", isfinite(saved) && none > 0 ?
						    json_real(round(saved / none * 10000) / 100) : json_null());
				json_object_set_new(r, "files", dir ? json_string(dir) : json_null());
				json_object_set_new(r, "command", cmd ? json_string(cmd) : json_null());
				json_array_append_new(jrecs, r);
			} else {
				char band[80];

				if (b[k].lo == b[k].hi)
					snprintf(band, sizeof(band), "%s", lo);
				else
					snprintf(band, sizeof(band), "%s..%s", lo, hi);
				printf("\n%s, %s: %s algorithm, %s assignment, %u worker%s (WPN %u, %s)\n",
				       colls[c], band, x->algorithm, x->assignment, x->workers,
				       x->workers == 1 ? "" : "s", x->wpn, x->placement);
				if (x->reps > 1)
					printf("  layout %s: oe_measured %.1f%% +- %.1f (%u repetitions)\n",
					       x->layout, x->oe, x->spread, x->reps);
				else
					printf("  layout %s: oe_measured %.1f%% +- ? (1 repetition: no spread yet)\n",
					       x->layout, x->oe);
				if (x->runner_up)
					printf("  runner-up %s: %.1f%%, %.1f points behind\n", x->runner_up,
					       x->runner_up_oe, x->oe - x->runner_up_oe);
				else
					printf("  no runner-up: only this layout was measured\n");
				if (isfinite(saved) && none > 0)
					printf("  no offload: %.1f us per call (reference %.1f + compute %.1f);"
					       " offloaded %.1f us: %.1f us %s (%.0f%%)\n", none, x->ref_us,
					       x->compute_us, x->total_us, fabs(saved),
					       saved >= 0 ? "saved" : "more: offloading does not pay here",
					       fabs(saved) / none * 100);
				if (dir)
					printf("  files: %s/\n", dir);
				if (cmd)
					printf("  launch: %s\n", cmd);
			}
			free(dir);
			free(cmd);
		}
		free(b);
	}
	/* Open MPI on the hosts alone, when its baseline was measured. */
	if (decisions_has_mpi(&d, coll)) {
		json_t *jm = json ? json_array() : NULL;

		if (!json)
			printf("\nOpen MPI alone (sweetspot baseline), fastest coll/tuned algorithm:\n");
		for (size_t k = 0; k < d.nmpi; k++) {
			const struct mpi_choice *m = &d.mpi[k];
			char sz[32];

			if (coll && strcmp(coll, m->collective))
				continue;
			format_size(m->bytes, sz, sizeof(sz));
			if (json) {
				json_t *o = json_pack("{s:s, s:I, s:I, s:i, s:s, s:f}", "collective",
					m->collective, "ranks", (json_int_t)m->ranks, "bytes",
					(json_int_t)m->bytes, "algorithm", m->alg, "name",
					mpi_algorithm_name(m->collective, m->alg), "avg_us",
					round(m->avg_us * 100) / 100);

				json_object_set_new(o, "default_us", isfinite(m->default_us) ?
						    json_real(round(m->default_us * 100) / 100) : json_null());
				json_array_append_new(jm, o);
			} else {
				printf("  %-9s %3u ranks %6s: %s (%d), %.1f us", m->collective, m->ranks, sz,
				       mpi_algorithm_name(m->collective, m->alg), m->alg, m->avg_us);
				if (isfinite(m->default_us) && m->alg)
					printf("; Open MPI's own choice %.1f us", m->default_us);
				putchar('\n');
			}
		}
		if (json)
			json_object_set_new(jo, "mpi", jm);
		else
			printf("  files: sweetspot export --format ompi-rules|ompi-json|ucc|mca-params --db %s %s\n",
			       db, path);
	}
	if (json) {
		json_object_set_new(jo, "recommendations", jrecs);
		json_dumpf(jo, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
		putchar('\n');
		jrecs = NULL;
	}
	status = 0;
out:
	json_decref(jo);
	free(root);
	decisions_release(&d);
	plan_release(&plan);
	spec_release(&spec);
	return status;
}
