/*
 * tuner/cmd/cmd_verify.c: `sweetspot verify SPEC --export FILE -- COMMAND
 * [ARGS...]`: is the user's program faster with the exported settings?
 * Its options, one call of verify_run() (tuner/verify/verify_run.h: the
 * paired race of A without and B with the settings, and the proof that
 * the runtime applied them), and the answer printed, as text or JSON.
 */
#include "cli.h"
#include "cmds.h"
#include "error.h"
#include "store.h"
#include "strvec.h"
#include "verify_run.h"
#include "xalloc.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	OPT_EXPORT,
	OPT_DB,
	OPT_LAUNCHER,
	OPT_METRIC,
	OPT_FIGURES,
	OPT_HIGHER,
	OPT_JSON,
	OPT_DRY_RUN,
	NOPTS
};

static const struct cli_option verify_options[NOPTS + 1] = {
	[OPT_EXPORT] = { "export", 0, "FILE",
			 "the exported settings B runs with: an ompi-rules\n"
			 "(or ompi-json) file, an env or mpich file, an mca-params file,\n"
			 "or an mpmd recipe's folder (B runs on its layout)" },
	[OPT_DB] = CLI_OPTION_DB,
	[OPT_LAUNCHER] = { "launcher", 0, "L",
			   "mpirun, srun or hydra (default: srun inside a Slurm\n"
			   "allocation, else the spec's launcher); srun outside an\n"
			   "allocation: one sbatch job runs the whole verify" },
	[OPT_METRIC] = { "metric", 0, "REGEX",
			 "figures from the output: each line it matches, the\n"
			 "last ( ) group the number, earlier groups its name\n"
			 "(default: the launch's wall time)" },
	[OPT_FIGURES] = { "figures", 0, "LIST",
			  "decide only these figures (names as --metric gives\n"
			  "them, comma separated), in this order" },
	[OPT_HIGHER] = { "higher", 0, NULL, "larger figures are better (bandwidth, rate)" },
	[OPT_JSON] = { "json", 0, NULL, "one JSON object: run, pairs, figures[]" },
	[OPT_DRY_RUN] = { "dry-run", 0, NULL, "print the commands of A and B; touch nothing" },
	[NOPTS] = { NULL, 0, NULL, NULL },
};

static const struct cli_command verify_cli = {
	"verify",
	"SPEC [--export FILE] [--db FILE] [--launcher L] [--metric REGEX]\n"
	"[--figures LIST] [--higher] [--json] [--dry-run] [-- COMMAND [ARGS...]]",
	"Runs COMMAND (an MPI program) on the spec's host ranks through the spec's\n"
	"launcher without the exported settings (A) and with them (B), in pairs of\n"
	"seeded random order: the spec's repetitions pairs at least, up to its\n"
	"max_repetitions while a figure is undecided. Per figure it prints A's and\n"
	"B's medians with 95% CIs, B/A with its CI, the Mann-Whitney p (Holm over\n"
	"the figures) and a verdict: faster, slower, no difference (B/A's CI within\n"
	"the spec's practical threshold), or no difference shown (with the launches\n"
	"a decision would take). Launches are stored as the run SPEC:verify and a\n"
	"run again continues. Without COMMAND: the project's collective loop\n"
	"(sweetspot-loop) over the spec's collectives and sizes, a figure each.\n"
	"The spec's verify group may give the command, export, metric, figures,\n"
	"higher, launcher, repetitions and max_repetitions; the command line wins.",
	verify_options,
	"Exit status: 0 verdicts computed (whatever they say), 1 a launch failed\n"
	"(recorded), 2 bad usage or input, 130 interrupted.",
};

/* The comma-separated words of list, appended to out. */
static void split_list(const char *list, struct strvec *out)
{
	char *dup = xstrdup(list), *save = NULL;

	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save))
		strvec_push(out, t);
	free(dup);
}

/* CLI_END when the command goes on, else CLI_HELP or CLI_BAD. */
static int parse_args(int argc, char **argv, struct verify_args *a)
{
	struct cli c;
	int o;

	cli_begin(&c, &verify_cli, argc, argv);
	while ((o = cli_next(&c)) >= 0)
		switch (o) {
		case OPT_EXPORT:
			a->export = c.arg;
			break;
		case OPT_DB:
			a->db = c.arg;
			break;
		case OPT_LAUNCHER:
			a->launcher = c.arg;
			break;
		case OPT_METRIC:
			a->metric = c.arg;
			break;
		case OPT_FIGURES:
			strvec_clear(&a->figures);
			split_list(c.arg, &a->figures);
			break;
		case OPT_HIGHER:
			a->higher = 1;
			break;
		case OPT_JSON:
			a->json = 1;
			break;
		case OPT_DRY_RUN:
			a->dry = 1;
			break;
		}
	if (o != CLI_END)
		return o;
	if (cli_operands(&c, 1, -1, "SPEC [COMMAND ARGS...]"))
		return CLI_BAD;
	a->path = c.operands[0];
	a->cmd = c.noperands > 1 ? c.operands + 1 : NULL;
	a->ncmd = c.noperands - 1;
	return CLI_END;
}
static void proof_text(const struct verify_proof *pf);
static json_t *proof_json(const struct verify_proof *pf);

static json_t *num_or_null(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static void print_json(const struct verify *vf)
{
	const struct verify_state *v = &vf->v;
	const struct verify_ctx *x = &vf->x;
	const struct verify_proof *pf = &vf->proof;
	json_t *o = json_object(), *figs = json_array();

	json_object_set_new(o, "run", json_integer(vf->run));
	json_object_set_new(o, "pairs", json_integer(v->pairs));
	json_object_set_new(o, "export", json_string(v->a->export));
	json_object_set_new(o, "settings", json_string(verify_kind_name(x->kind)));
	json_object_set_new(o, "higher_is_better", json_boolean(v->a->higher));
	for (size_t i = 0; i < v->nfig; i++) {
		const struct verify_figure *f = &v->fig[i];
		json_t *j = json_object();

		json_object_set_new(j, "name", json_string(f->name));
		json_object_set_new(j, "a",
				    json_pack("{s:o,s:[o,o],s:I}", "median", num_or_null(f->med_a),
					      "ci", num_or_null(f->a_lo), num_or_null(f->a_hi), "n",
					      (json_int_t)f->na));
		json_object_set_new(j, "b",
				    json_pack("{s:o,s:[o,o],s:I}", "median", num_or_null(f->med_b),
					      "ci", num_or_null(f->b_lo), num_or_null(f->b_hi), "n",
					      (json_int_t)f->nb));
		json_object_set_new(j, "ratio", num_or_null(f->ratio));
		json_object_set_new(j, "ratio_ci",
				    json_pack("[o,o]", num_or_null(f->r_lo), num_or_null(f->r_hi)));
		json_object_set_new(j, "paired", json_boolean(f->paired));
		json_object_set_new(j, "p", num_or_null(f->p));
		json_object_set_new(j, "p_holm", num_or_null(f->p_holm));
		json_object_set_new(j, "verdict", json_string(f->verdict));
		json_object_set_new(j, "more_launches",
				    f->more_launches >= 0 ? json_integer(f->more_launches) :
							    json_null());
		json_array_append_new(figs, j);
	}
	json_object_set_new(o, "figures", figs);
	json_object_set_new(o, "proof", proof_json(pf));
	json_dumpf(o, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(o);
}

static void print_text(const struct verify *vf)
{
	const struct verify_state *v = &vf->v;
	const struct verify_ctx *x = &vf->x;
	const struct verify_proof *pf = &vf->proof;
	printf("verify run %lld: %u pairs; A without, B with %s (%s); %s is better\n", vf->run,
	       v->pairs, v->a->export, verify_kind_name(x->kind),
	       v->a->higher ? "higher" : "lower");
	printf("%-24s %-28s %-28s %-24s %8s  %s\n", "figure", "A median [95% CI]",
	       "B median [95% CI]", "B/A [95% CI]", "p (Holm)", "verdict");
	for (size_t i = 0; i < v->nfig; i++) {
		const struct verify_figure *f = &v->fig[i];
		char a[64], b[64], q[64], more[64] = "";

		snprintf(a, sizeof(a), "%.4g [%.4g, %.4g]", f->med_a, f->a_lo, f->a_hi);
		snprintf(b, sizeof(b), "%.4g [%.4g, %.4g]", f->med_b, f->b_lo, f->b_hi);
		snprintf(q, sizeof(q), "%.3f [%.3f, %.3f]", f->ratio, f->r_lo, f->r_hi);
		if (f->more_launches > 0)
			snprintf(more, sizeof(more), " (about %ld more launches would decide)",
				 f->more_launches);
		else if (!strcmp(f->verdict, "no difference shown"))
			snprintf(more, sizeof(more),
				 " (no estimate of the launches it would take)");
		printf("%-24s %-28s %-28s %-24s %8.4f  %s%s\n", f->name, a, b, q, f->p_holm,
		       f->verdict, more);
	}
	proof_text(pf);
}

static void proof_text_mpmd(const struct verify_proof *pf)
{
	printf("proof: sweetspot-loop --where on the recipe's layout, each rank's host against "
	       "%s/slurm.hostfile: %s%s\n",
	       pf->rules, pf->failed ? "NOT APPLIED: " : "every rank on its host: applied",
	       pf->failed ? pf->why : "");
	for (size_t i = 0; i < pf->ran.nr && i < 16; i++)
		printf("  rank %-4zu %s\n", i, pf->ran.v[i]);
	if (pf->ran.nr > 16)
		printf("  (%zu ranks more)\n", pf->ran.nr - 16);
}

static void proof_text(const struct verify_proof *pf)
{
	if (!pf->rules) {
		printf("proof: none: %s\n", pf->none);
		return;
	}
	if (pf->mpmd) {
		proof_text_mpmd(pf);
		return;
	}
	if (pf->mpich) {
		printf("proof: one call of each collective and size with B's settings and "
		       "MPIR_CVAR_COLLECTIVE_FALLBACK=error: %s\n",
		       pf->p[0].applied ? "MPICH ran every forced algorithm: applied" :
					  "MPICH refused a forced algorithm (it would have fallen "
					  "back to its own): "
					  "NOT APPLIED");
		return;
	}
	printf("proof: one call of each collective and size under Open MPI's pml monitoring, with "
	       "B's "
	       "settings and with what %s gives forced:\n",
	       pf->rules);
	for (size_t i = 0; i < pf->n; i++) {
		const struct verify_proof_point *p = &pf->p[i];
		char what[64];

		if (p->alg)
			snprintf(what, sizeof(what), "algorithm %d forced", p->alg);
		else
			snprintf(what, sizeof(what), "no rules (Open MPI's own choice)");
		printf("  %-10s %10llu: %s: %s\n", p->coll, (unsigned long long)p->bytes, what,
		       p->applied > 0 ? "the same traffic: applied" :
		       p->applied     ? "no traffic seen: not known" :
				    "other traffic (another algorithm ran, or an inner collective "
				    "followed another rule): NOT APPLIED");
	}
}

static json_t *proof_json(const struct verify_proof *pf)
{
	json_t *o = json_object(), *pts = json_array();

	if (!pf->rules) {
		json_object_set_new(o, "none", json_string(pf->none));
		json_decref(pts);
		return o;
	}
	json_object_set_new(
		o,
		pf->mpich ? "method" :
		pf->mpmd  ? "recipe" :
			    "rules",
		json_string(pf->mpich ? "MPIR_CVAR_COLLECTIVE_FALLBACK=error" : pf->rules));
	json_object_set_new(o, "applied", json_boolean(!pf->failed));
	if (pf->mpmd) {
		json_t *ran = json_array();

		for (size_t i = 0; i < pf->ran.nr; i++)
			json_array_append_new(ran, json_string(pf->ran.v[i]));
		json_object_set_new(o, "ranks", ran);
		if (pf->failed)
			json_object_set_new(o, "why", json_string(pf->why));
		json_decref(pts);
		return o;
	}
	if (pf->mpich) {
		json_decref(pts);
		return o;
	}
	for (size_t i = 0; i < pf->n; i++) {
		const struct verify_proof_point *p = &pf->p[i];

		json_array_append_new(
			pts, json_pack("{s:s,s:I,s:i,s:o}", "collective", p->coll, "bytes",
				       (json_int_t)p->bytes, "algorithm", p->alg, "applied",
				       p->applied < 0 ? json_null() : json_boolean(p->applied)));
	}
	json_object_set_new(o, "points", pts);
	return o;
}

int cmd_verify(int argc, char **argv)
{
	struct verify vf;
	int status;

	verify_init(&vf, STORE_DEFAULT_PATH);
	status = parse_args(argc, argv, &vf.a);
	if (status != CLI_END) {
		verify_release(&vf);
		return cli_status(status);
	}
	status = verify_run(&vf, stdout);
	if (vf.answered) {
		if (vf.a.json)
			print_json(&vf);
		else
			print_text(&vf);
	}
	verify_release(&vf);
	return status;
}
