/*
 * tuner/cmd/cmd_model.c: `sweetspot model SPEC`: calibrates the model from a
 * few launches (or takes the parameters the database holds for SPEC),
 * then predicts every point of the plan, or of a larger machine
 * (--nodes N [--ppn N] [--wpn LIST]), in the shape `sweetspot results`
 * prints measured points, with "predicted": true; or, with --check,
 * compares the predictions with the latest measured run of SPEC.
 */
#include "cli.h"
#include "cmds.h"
#include "coll.h"
#include "error.h"
#include "model_run.h"
#include "model_store.h"
#include "reduce.h"
#include "recommend.h"
#include "xalloc.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const struct cli_option model_opts[] = {
	{ "db", 0, "FILE", "results database (default " STORE_DEFAULT_PATH ")" },
	{ "check", 0, NULL, "compare with the latest measured run of SPEC" },
	{ "against", 0, "ID", "with --check: compare with run ID of SPEC instead of the latest" },
	{ "json", 0, NULL, "JSON output" },
	{ "csv", 0, NULL, "CSV output (predictions)" },
	{ "nodes", 0, "N", "predict a machine of N nodes (every DPU used, per WPN)" },
	{ "ppn", 0, "N", "with --nodes: host ranks per node (default: the spec's)" },
	{ "wpn", 0, "LIST", "with --nodes: workers per node, e.g. 1,2,4,8 (default: the spec's)" },
	{ "launcher", 0, "L", "calibration launcher (default as for run)" },
	{ "recalibrate", 0, NULL, "calibrate again even when the database holds parameters" },
	{ "refit", 0, NULL, "fit the parameters again on the launches they came from (no launch)" },
	{ "fit-run", 0, "ID",
	  "fit the parameters on the launches of measured run ID of SPEC instead (no launch)" },
	{ "smpi", 0, NULL,
	  "run the real kernel under SimGrid SMPI on the model's machine (run SPEC:smpi); "
	  "with --check: compare with that run" },
	{ "dry-run", 0, NULL, "with --smpi: print the smpirun commands, run nothing" },
	{ "machine", 0, "FILE",
	  "the parameters from a machine description (no launch); a calibration in the "
	  "database fills what it leaves out" },
	{ "full-sim", 0, NULL,
	  "simulate every rank, not one node's ranks for their classes (slower; the same times)" },
	{ NULL, 0, NULL, NULL },
};

static const struct cli_command model_cmd = {
	"model",
	"SPEC [--check [--against ID]] [--smpi [--dry-run]] [--json|--csv] [--nodes N [--ppn N] "
	"[--wpn LIST]] "
	"[--machine FILE] [--full-sim] [--db FILE]",
	"Predicts every point of SPEC by simulating the kernel's schedules with parameters\n"
	"calibrated from at most three launches (stored as the run SPEC:model, and the\n"
	"parameters in the table model_params). --smpi runs the SMPI build of the kernel\n"
	"(make smpi) under smpirun on a SimGrid platform made from those parameters,\n"
	"for the plan's layouts or the --nodes machine, stored as the run SPEC:smpi.",
	model_opts,
	"Exit status: 0 done, 1 failure, 2 bad usage or input.\n",
};

enum {
	O_DB,
	O_CHECK,
	O_AGAINST,
	O_JSON,
	O_CSV,
	O_NODES,
	O_PPN,
	O_WPN,
	O_LAUNCHER,
	O_RECAL,
	O_REFIT,
	O_FIT_RUN,
	O_SMPI,
	O_DRY,
	O_MACHINE,
	O_FULL
};

struct model_args {
	const char *path, *db, *launcher, *wpn, *machine;
	int host_cores, dpu_cores; /* from --machine; 0: the spec's */
	int check, json, csv, recal, refit, smpi, dry, full;
	uint64_t nodes, ppn, fit_run, against;
};

/* The best layout per (collective, bytes): highest OE, ties to fewer workers. */
struct best {
	char coll[16], layout[64];
	uint64_t bytes;
	int workers, wpn;
	double oe;
};

struct out {
	const struct model_args *a;
	json_t *arr;
	struct best *best;
	size_t nbest;
	size_t points, ops, classes; /* classes: points with a phase by classes */
	size_t extrapolated;	     /* points from smaller machines */
};

static void best_update(struct best **b, size_t *n, const char *coll, uint64_t bytes,
			const char *layout, int workers, int wpn, double oe)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*b)[i].bytes == bytes && !strcmp((*b)[i].coll, coll))
			break;
	if (i == *n) {
		*b = xrealloc(*b, (*n + 1) * sizeof(**b));
		memset(&(*b)[i], 0, sizeof(**b));
		snprintf((*b)[i].coll, sizeof((*b)[i].coll), "%s", coll);
		(*b)[i].bytes = bytes;
		(*b)[i].oe = -1;
		(*n)++;
	}
	if (oe > (*b)[i].oe || (oe == (*b)[i].oe && workers < (*b)[i].workers)) {
		(*b)[i].oe = oe;
		(*b)[i].workers = workers;
		(*b)[i].wpn = wpn;
		snprintf((*b)[i].layout, sizeof((*b)[i].layout), "%s", layout);
	}
}

static json_t *pred_json(const struct model_obs *o, const struct model_pred *pr)
{
	json_t *j = json_object();

	json_object_set_new(j, "layout", json_string(o->layout));
	json_object_set_new(j, "collective", json_string(coll_names[o->pt.coll]));
	json_object_set_new(j, "algorithm", json_string(alg_names[o->pt.alg]));
	json_object_set_new(j, "assignment", json_string(asg_names[o->pt.asg]));
	json_object_set_new(j, "mode", json_string("offload"));
	json_object_set_new(j, "bytes", json_integer((json_int_t)o->pt.m));
	/* The point's other axes, null where they do not apply (as results). */
	json_object_set_new(j, "dtype",
			    coll_is_reduction(o->pt.coll) ? json_string(dtype_names[o->pt.dt]) :
							    json_null());
	json_object_set_new(j, "op",
			    coll_is_reduction(o->pt.coll) ? json_string(redop_names[o->pt.op]) :
							    json_null());
	json_object_set_new(j, "chunk",
			    o->pt.chunk ? json_integer((json_int_t)o->pt.chunk) : json_null());
	json_object_set_new(j, "window", o->pt.window ? json_integer(o->pt.window) : json_null());
	json_object_set_new(j, "radix", o->pt.radix ? json_integer(o->pt.radix) : json_null());
	json_object_set_new(j, "hosts", json_integer(o->mc.nodes * o->mc.ppn));
	json_object_set_new(j, "workers", json_integer(o->mc.W));
	json_object_set_new(j, "wpn", json_integer(o->mc.wpn));
	json_object_set_new(j, "placement", json_string(o->mc.dpu ? "dpu" : "onload"));
	json_object_set_new(j, "nodes", json_integer(o->mc.nodes));
	json_object_set_new(j, "ppn", json_integer(o->mc.ppn));
	json_object_set_new(j, "transport", json_string("model"));
	json_object_set_new(j, "ref_us", json_real(pr->ref_us));
	json_object_set_new(j, "comm_us", json_real(pr->comm_us));
	json_object_set_new(j, "compute_us", json_real(pr->compute_us));
	json_object_set_new(j, "total_us", json_real(pr->total_us));
	json_object_set_new(j, "host_us", json_real(pr->host_us));
	json_object_set_new(j, "oe_measured", json_real(pr->oe_measured));
	json_object_set_new(j, "oe_paper", json_real(pr->oe_paper));
	json_object_set_new(j, "ranks", json_integer(o->mc.nodes * o->mc.ppn + o->mc.W));
	json_object_set_new(j, "valid", json_true());
	json_object_set_new(j, "predicted", json_true());
	json_object_set_new(j, "time_sd_rel", json_real(pr->sd_rel));
	json_object_set_new(j, "oe_measured_sd", json_real(pr->oe_measured_sd));
	json_object_set_new(j, "oe_paper_sd", json_real(pr->oe_paper_sd));
	/* How each phase was simulated: node 0's ranks for their classes, or
	 * every rank (an irregular layout, schedules that differ by node). */
	json_object_set_new(j, "ref_simulation",
			    json_string(pr->extrapolated[0] ? "extrapolated" :
					pr->classes[0]	    ? "classes" :
							      "full"));
	json_object_set_new(j, "comm_simulation",
			    json_string(pr->extrapolated[0] ? "extrapolated" :
					pr->classes[1]	    ? "classes" :
							      "full"));
	/* Too large to simulate: the nodes of the machines it is
	 * extrapolated from (docs/model.md, "Large machines"). */
	if (pr->extrapolated[0]) {
		json_t *from = json_array();

		for (int i = 0; i < 3 && pr->extrapolated[i]; i++)
			json_array_append_new(from, json_integer(pr->extrapolated[i]));
		json_object_set_new(j, "extrapolated_from", from);
	}
	return j;
}

/* The axes beside the layout's, for the text output: "" when none. */
static const char *axes_text(const struct model_point *pt)
{
	static char buf[96];
	int n = 0;

	buf[0] = 0;
	if (coll_is_reduction(pt->coll))
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, " %s/%s", dtype_names[pt->dt],
			      redop_names[pt->op]);
	if (pt->chunk)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, " chunk %zu window %d", pt->chunk,
			      pt->window);
	if (pt->radix)
		snprintf(buf + n, sizeof(buf) - (size_t)n, " radix %d", pt->radix);
	return buf;
}

static int on_pred(const struct model_obs *o, const struct model_pred *pr, void *data)
{
	struct out *out = data;

	out->points++;
	out->ops += pr->ops;
	out->classes += pr->classes[0] || pr->classes[1];
	out->extrapolated += pr->extrapolated[0] != 0;
	best_update(&out->best, &out->nbest, coll_names[o->pt.coll], o->pt.m, o->layout, o->mc.W,
		    o->mc.wpn, pr->oe_measured);
	if (out->a->json)
		json_array_append_new(out->arr, pred_json(o, pr));
	else if (out->a->csv) {
		char ch[24] = "", wi[16] = "", rx[16] = "";
		int red = coll_is_reduction(o->pt.coll);

		if (o->pt.chunk)
			snprintf(ch, sizeof(ch), "%zu", o->pt.chunk);
		if (o->pt.window)
			snprintf(wi, sizeof(wi), "%d", o->pt.window);
		if (o->pt.radix)
			snprintf(rx, sizeof(rx), "%d", o->pt.radix);
		printf("%s,%s,%s,%s,%zu,%d,%d,%d,%s,%d,%d,%.4f,%.4f,%.4f,%.4f,%.3f,%.3f,%.3f,%s,%s,"
		       "%s,%s,%s,"
		       "true\n",
		       o->layout, coll_names[o->pt.coll], alg_names[o->pt.alg],
		       asg_names[o->pt.asg], o->pt.m, o->mc.nodes * o->mc.ppn, o->mc.W, o->mc.wpn,
		       o->mc.dpu ? "dpu" : "onload", o->mc.nodes, o->mc.ppn, pr->ref_us,
		       pr->comm_us, pr->compute_us, pr->total_us, pr->oe_measured, pr->oe_paper,
		       pr->oe_measured_sd, red ? dtype_names[o->pt.dt] : "",
		       red ? redop_names[o->pt.op] : "", ch, wi, rx);
	} else
		printf("%-28s %-10s %-9s %-9s %9zu %10.2f %10.2f %10.2f %7.2f +-%5.2f%s\n",
		       o->layout, coll_names[o->pt.coll], alg_names[o->pt.alg],
		       asg_names[o->pt.asg], o->pt.m, pr->ref_us, pr->comm_us, pr->total_us,
		       pr->oe_measured, pr->oe_measured_sd, axes_text(&o->pt));
	return 0;
}

/* The layouts of --nodes: every DPU (or node) used at each WPN. */
static struct layout *big_layouts(const struct model_args *a, const struct spec *s, size_t *n)
{
	struct layout *l = xcalloc(64, sizeof(*l));
	char *copy = a->wpn ? xstrdup(a->wpn) : NULL, *save = NULL, *t;
	unsigned ppn = a->ppn ? (unsigned)a->ppn : s->ppn;
	size_t i = 0;

	*n = 0;
	for (t = copy ? strtok_r(copy, ",", &save) : NULL; copy ? t != NULL : i < s->nwpn;
	     t = copy ? strtok_r(NULL, ",", &save) : NULL, i++) {
		unsigned wpn = copy ? (unsigned)strtoul(t, NULL, 10) : s->wpn[i];
		struct layout *x = &l[*n];

		if (!wpn || *n == 64)
			continue;
		*x = (struct layout){ .nodes = (unsigned)a->nodes,
				      .ppn = ppn,
				      .hosts = (unsigned)a->nodes * ppn,
				      .workers = (unsigned)a->nodes * wpn,
				      .wpn = wpn,
				      .placement = s->placements[0] };
		layout_set_id(x);
		x->points = spec_pairs(s) * s->assignments.nr * s->nsizes;
		if (x->workers <= x->hosts)
			(*n)++;
	}
	free(copy);
	return l;
}

static void print_best(const struct out *o, FILE *f)
{
	fprintf(f, "# predicted sweet spot (highest oe_measured; ties to fewer workers):\n");
	for (size_t i = 0; i < o->nbest; i++)
		fprintf(f, "#   %-10s %9llu B: %-28s W=%d WPN=%d oe_measured %.2f\n",
			o->best[i].coll, (unsigned long long)o->best[i].bytes, o->best[i].layout,
			o->best[i].workers, o->best[i].wpn, o->best[i].oe);
}

static int predict_all(const struct model_args *a, const struct spec *s, const struct plan *p,
		       const struct model_params *mp)
{
	struct out out = { .a = a, .arr = json_array() };
	struct model_env env;
	struct layout *ls = (struct layout *)p->layouts;
	size_t nl = p->nlayouts;
	struct timespec t0, t1;
	int ret = 0;

	model_env_of(s, &env);
	if (a->host_cores)
		env.host_cores = a->host_cores;
	if (a->dpu_cores)
		env.dpu_cores = a->dpu_cores;
	if (a->full)
		env.sim = MODEL_SIM_FULL;
	if (a->nodes)
		ls = big_layouts(a, s, &nl);
	if (!nl)
		ret = error("model: no layout to predict (W <= H at every WPN?)");
	if (a->csv)
		printf("layout,collective,algorithm,assignment,bytes,hosts,workers,wpn,placement,"
		       "nodes,ppn,"
		       "ref_us,comm_us,compute_us,total_us,oe_measured,oe_paper,oe_measured_sd,"
		       "dtype,op,chunk,window,radix,predicted\n");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t i = 0; !ret && i < nl; i++) {
		double el;

		if ((ret = model_predict_layout(mp, s, &ls[i], &env, on_pred, &out)))
			error("model: layout %s (%u nodes x %u PPN, %u workers) not predicted",
			      ls[i].id, ls[i].nodes, ls[i].ppn, ls[i].workers);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		el = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
		/* Long work is never silent: where it is, after 2 s. */
		if (!ret && el > 2 && i + 1 < nl)
			fprintf(stderr,
				"# model: %zu of %zu layouts predicted (%zu points), %.1f s\n",
				i + 1, nl, out.points, el);
	}
	if (!ret && a->json)
		json_dumpf(out.arr, stdout, JSON_INDENT(1));
	if (!ret)
		print_best(&out, a->json || a->csv ? stderr : stdout);
	fprintf(stderr,
		"# model: %zu points (%zu by classes of equivalent ranks, %zu extrapolated from "
		"smaller machines), %zu operations simulated in %.3f s\n",
		out.points, out.classes, out.extrapolated, out.ops,
		(double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
	if (a->nodes)
		free(ls);
	free(out.best);
	json_decref(out.arr);
	return ret ? 1 : 0;
}

/* --smpi: the plan's layouts, or the --nodes machine's, under smpirun. */
static int smpi_all(const struct model_args *a, struct store *st, const struct spec *s,
		    const struct plan *p, const struct model_params *mp)
{
	struct layout *ls = p->layouts;
	size_t nl = p->nlayouts;
	int rc;

	if (a->nodes)
		ls = big_layouts(a, s, &nl);
	rc = nl ? model_smpi_run(a->path, a->db, st, s, ls, nl, mp, a->dry) :
		  error("model: no layout to run (W <= H at every WPN?)");
	if (a->nodes)
		free(ls);
	return rc ? 1 : 0;
}

static int parse(int argc, char **argv, struct model_args *a)
{
	struct cli c;
	int r;

	cli_begin(&c, &model_cmd, argc, argv);
	while ((r = cli_next(&c)) >= 0)
		switch (r) {
		case O_DB:
			a->db = c.arg;
			break;
		case O_CHECK:
			a->check = 1;
			break;
		case O_JSON:
			a->json = 1;
			break;
		case O_CSV:
			a->csv = 1;
			break;
		case O_NODES:
			if (cli_uint(&c, 1, 1u << 20, &a->nodes))
				return EXIT_USAGE;
			break;
		case O_PPN:
			if (cli_uint(&c, 1, 4096, &a->ppn))
				return EXIT_USAGE;
			break;
		case O_WPN:
			a->wpn = c.arg;
			break;
		case O_LAUNCHER:
			a->launcher = c.arg;
			break;
		case O_RECAL:
			a->recal = 1;
			break;
		case O_REFIT:
			a->refit = 1;
			break;
		case O_FIT_RUN:
			if (cli_uint(&c, 1, INT64_MAX, &a->fit_run))
				return EXIT_USAGE;
			break;
		case O_AGAINST:
			if (cli_uint(&c, 1, INT64_MAX, &a->against))
				return EXIT_USAGE;
			break;
		case O_SMPI:
			a->smpi = 1;
			break;
		case O_DRY:
			a->dry = 1;
			break;
		case O_MACHINE:
			a->machine = c.arg;
			break;
		case O_FULL:
			a->full = 1;
			break;
		}
	if (r != CLI_END)
		return cli_status(r);
	if (cli_operands(&c, 1, 1, "SPEC"))
		return EXIT_USAGE;
	a->path = c.operands[0];
	if (a->json && a->csv)
		return cli_usage_error(&model_cmd, "--json and --csv: one of them"), EXIT_USAGE;
	if (a->dry && (!a->smpi || a->check))
		return cli_usage_error(&model_cmd, "--dry-run goes with --smpi (not --check)"),
		       EXIT_USAGE;
	if (a->full && (a->check || a->smpi))
		return cli_usage_error(&model_cmd, "--full-sim goes with predictions (not --check "
						   "or --smpi)"),
		       EXIT_USAGE;
	if (a->against && !a->check)
		return cli_usage_error(&model_cmd, "--against goes with --check"), EXIT_USAGE;
	if ((a->ppn || a->wpn) && !a->nodes)
		return cli_usage_error(&model_cmd, "--ppn and --wpn go with --nodes"), EXIT_USAGE;
	if (a->refit + a->recal + !!a->fit_run > 1)
		return cli_usage_error(&model_cmd,
				       "--refit, --fit-run and --recalibrate: one of them"),
		       EXIT_USAGE;
	return -1;
}

/* Where each parameter came from: the description (file), the
 * calibration in the database (run), or the defaults; on stderr. */
static void print_sources(const struct model_args *a, const struct model_desc *d,
			  struct model_params *mp, int calibrated, long long run)
{
	static const char *const from[] = { "machine description", "calibration", "defaults" };

	fprintf(stderr, "# model parameters: machine %s (%s)", a->machine,
		d->name[0] ? d->name : "unnamed");
	if (calibrated)
		fprintf(stderr, ", calibration run %lld", run);
	if (d->host_cores)
		fprintf(stderr, "; host cores %d", d->host_cores);
	if (d->dpu_cores)
		fprintf(stderr, "; DPU cores %d", d->dpu_cores);
	fprintf(stderr, "\n");
	for (int k = 0; k < 3; k++) {
		int n = 0;

		for (int i = 0; i < MODEL_NPARAMS; i++) {
			int src = d->set & (1u << i) ? 0 : calibrated ? 1 : 2;

			if (src == k)
				fprintf(stderr, "%s%s %.4g", n++ ? ", " : "#   ",
					model_param_name(i), *model_param(mp, i));
		}
		if (n)
			fprintf(stderr, " (from the %s)\n", from[k]);
	}
}

int cmd_model(int argc, char **argv)
{
	struct model_args a = { .db = STORE_DEFAULT_PATH };
	struct spec spec = SPEC_INIT;
	struct plan plan = PLAN_INIT;
	struct store *st = NULL;
	struct model_params mp;
	struct model_desc desc;
	long long run = 0;
	char *key = NULL;
	enum launcher l = LAUNCHER_MPIRUN; /* picked below when a launch may come */
	int status = parse(argc, argv, &a), have;

	if (status >= 0)
		return status;
	status = EXIT_USAGE;
	/* Every input checked before the database is opened: a bad
	 * description writes nothing. */
	if (spec_load(a.path, &spec) || plan_build(&spec, &plan))
		goto out;
	/* --machine, else the spec's system.machine. */
	if (!a.machine)
		a.machine = spec.machine;
	/* A launcher only where something may launch: a description alone
	 * needs none (an srun spec outside an allocation predicts too). */
	if ((!a.machine || a.recal || a.smpi) &&
	    runner_pick_launcher(a.launcher, &spec, a.path, 0, &l))
		goto out;
	if (a.machine && model_desc_load(a.machine, &desc))
		goto out;
	a.host_cores = a.machine ? desc.host_cores : 0;
	a.dpu_cores = a.machine ? desc.dpu_cores : 0;
	status = 1;
	if (store_open(a.db, STORE_CREATE, &st))
		goto out;
	key = spec_run_key(a.path);
	have = a.recal ? 0 : store_model_load(st, key, spec.hash, &mp, &run);
	if (have < 0)
		goto out;
	if (a.refit && !have) {
		error("no calibration of %s in %s to fit again: run 'sweetspot model %s' first",
		      a.path, a.db, a.path);
		goto out;
	}
	/* A description calibrates nothing: launches only when asked. */
	if (a.fit_run ? model_refit(a.path, key, st, (long long)a.fit_run, &mp) :
	    a.refit   ? model_refit(a.path, key, st, run, &mp) :
			(a.recal || (!have && !a.machine)) &&
			      model_calibrate(a.path, key, a.db, l, st, &mp))
		goto out;
	if (a.machine) {
		/* The description's parameters, the calibration's (if any)
		 * where it says nothing, else the defaults. */
		struct model_params cal = mp;
		int calibrated = have || a.fit_run || a.refit;

		mp = desc.params;
		if (calibrated) {
			model_params_fill(&mp, desc.set, &cal);
			mp.resid = cal.resid;
			mp.noise = cal.noise;
			mp.r2 = cal.r2;
			mp.npoints = cal.npoints;
		}
		print_sources(&a, &desc, &mp, calibrated, run);
	} else
		fprintf(stderr,
			"# model parameters: fit resid %.3f (R^2 %.3f) over %d points, launch "
			"noise "
			"%.3f; shm L %.3g us g_read %.3g g_write %.3g g_share %.3g us/B, o %.3g "
			"us, "
			"reduce %.3g us/B, poll %.3g us\n",
			mp.resid, mp.r2, mp.npoints, mp.noise, mp.path[PATH_SHM].L,
			mp.path[PATH_SHM].g_read, mp.path[PATH_SHM].g_write,
			mp.path[PATH_SHM].g_share, mp.o, mp.g_reduce, mp.poll);
	if (a.smpi && !a.check)
		status = smpi_all(&a, st, &spec, &plan, &mp);
	else
		status = a.check ? model_check(a.path, st, &spec, &mp, a.json,
					       a.smpi ? "smpi" : NULL, (long long)a.against) :
				   predict_all(&a, &spec, &plan, &mp);
out:
	free(key);
	store_close(st);
	plan_release(&plan);
	spec_release(&spec);
	return status;
}
