/*
 * tuner/export/export_ompi.c: the Open MPI coll/tuned rules formats: the classic
 * rules file (header-less up to 5.0.6, `rule-file-version-2` with a reqs
 * column from 5.0.7, as export.c's version check decides) and the JSON
 * rules of Open MPI >= 6. Both say, per collective and communicator size,
 * which algorithm from which message size on, from export.c's rules, with
 * the fan-in/out, segment size and max requests the measurement ran with
 * (export_params.c), so that Open MPI runs what was measured.
 */
#include "export_priv.h"

#include "error.h"
#include "parse.h"
#include "strvec.h"
#include "xalloc.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static void warn_unknown_mpi(const struct decisions *d)
{
	for (size_t k = 0; k < d->nmpi; k++)
		if (export_coll_id(d->mpi[k].collective) < 0) {
			warning("Open MPI rules: collective '%s' has no coll/tuned id here; left "
				"out",
				d->mpi[k].collective);
			return;
		}
}

/* One communicator size's block of a classic rules file. */
struct block {
	unsigned size;		  /* from this communicator size on */
	const struct rule *rules; /* NULL: one rule, algorithm 0 (Open MPI's own) */
	size_t nrules;
	const char *why; /* the comment on the size */
};

static void put_rule(FILE *f, const struct export_opts *o, int v2, const char *coll, uint64_t size,
		     const struct mpi_choice *m)
{
	int alg = m ? m->alg : 0;
	long fan, seg, reqs;
	char line[128], sz[32], per[32];

	ompi_rule_params(o->params, coll, alg, &fan, &seg, &reqs);
	if (v2)
		snprintf(line, sizeof(line), "%llu %d %ld %ld %ld", (unsigned long long)size, alg,
			 fan, seg, reqs);
	else
		snprintf(line, sizeof(line), "%llu %d %ld %ld", (unsigned long long)size, alg, fan,
			 seg);
	if (!m) {
		fprintf(f, "%-28s # Open MPI's own decision\n", line);
		return;
	}
	fprintf(f, "%-28s # %s from %s: %.1f us at %s per rank\n", line,
		mpi_algorithm_name(coll, alg), format_size(size, sz, sizeof(sz)), m->avg_us,
		format_size(m->bytes, per, sizeof(per)));
	if (!v2 && reqs)
		fprintf(f,
			"# (measured with max_requests %ld: the 4-column form cannot say it; Open "
			"MPI 4.1 then uses 0)\n",
			reqs);
}

static void put_block(FILE *f, const struct export_opts *o, int v2, const char *coll,
		      const struct block *b)
{
	fprintf(f, "%-12u # communicator size: %s\n", b->size, b->why);
	fprintf(f, "%-12zu # message size rules\n", b->rules ? b->nrules : 1);
	if (!b->rules)
		put_rule(f, o, v2, coll, 0, NULL);
	for (size_t r = 0; b->rules && r < b->nrules; r++)
		put_rule(f, o, v2, coll, b->rules[r].size, b->rules[r].m);
}

/* The blocks of coll: each measured size covers itself alone; every other
 * size (below the smallest, between, beyond the largest) is Open MPI's own
 * decision unless the model backs a choice there. Returns the count; rules
 * and why are owned by the caller through *rules and *whys. */
static size_t coll_blocks(const struct decisions *d, const char *coll, struct block *out,
			  struct rule *rules, struct strvec *whys)
{
	unsigned *sizes = xcalloc(d->nmpi + 1, sizeof(*sizes));
	size_t ns = export_comm_sizes(d, coll, sizes), nb = 0, used = 0;

	for (size_t s = 0; s < ns; s++) {
		size_t i, j;
		unsigned next = s + 1 < ns ? sizes[s + 1] : 0;
		const struct mpi_choice *m;

		if (!s && sizes[0] > 1)
			out[nb++] = (struct block){
				1, NULL, 0,
				strvec_pushf(whys, "1 to %u, not measured: Open MPI's own decision",
					     sizes[0] - 1)
			};
		export_span(d, coll, sizes[s], &i, &j);
		out[nb] = (struct block){ sizes[s], rules + used,
					  export_rules_of(d, i, j, rules + used),
					  strvec_pushf(whys, "%u, measured", sizes[s]) };
		used += out[nb++].nrules;
		if (next == sizes[s] + 1)
			continue;
		m = export_model_choice(d, coll, sizes[s] + 1);
		if (m) {
			rules[used] = (struct rule){ 0, m };
			out[nb++] = (struct block){
				sizes[s] + 1, rules + used++, 1,
				strvec_pushf(whys, "%u and up, not measured: the model's choice",
					     sizes[s] + 1)
			};
		} else if (next) {
			out[nb++] = (struct block){
				sizes[s] + 1, NULL, 0,
				strvec_pushf(whys,
					     "%u to %u, not measured: Open MPI's own decision",
					     sizes[s] + 1, next - 1)
			};
		} else {
			out[nb++] = (struct block){ sizes[s] + 1, NULL, 0,
						    strvec_pushf(
							    whys,
							    "%u and up, beyond the sizes measured: "
							    "Open MPI's own decision (no "
							    "model backs a choice there)",
							    sizes[s] + 1) };
		}
	}
	free(sizes);
	return nb;
}

static void rules_header(FILE *f, const struct decisions *d, const struct export_opts *o, int v2)
{
	if (v2)
		fputs("rule-file-version-2\n", f);
	fprintf(f,
		"# sweetspot ompi-rules: Open MPI coll/tuned dynamic rules, the fastest\n"
		"# algorithm measured per collective, communicator size and message size\n"
		"# (%s run %lld).\n# Written for Open MPI %d.%d.%d: %s.\n"
		"# Use: mpirun --mca coll_tuned_use_dynamic_rules 1 \\\n"
		"#          --mca coll_tuned_dynamic_rules_filename THIS_FILE ...\n"
		"# Message sizes are Open MPI's: bytes per rank for bcast, reduce and\n"
		"# allreduce (dtype size x count), bytes per rank times the communicator size\n"
		"# for gather, allgather and alltoall. Algorithm 0 leaves the choice to\n"
		"# Open MPI's built-in rules. Each rule's fan-in/out and segment size are\n"
		"# those the measurement ran with, from\n# %s.\n"
		"# Rules cover the communicator sizes measured, each alone.\n",
		d->source ? d->source : "-", d->mpi_run, o->ompi.major, o->ompi.minor,
		o->ompi.release,
		v2 ? "rule-file-version-2, 5 columns\n# (bytes alg faninout segsize reqs)" :
		     "the classic format, 4 columns\n# (bytes alg faninout segsize); it ignores "
		     "the rule-file-version-2 form",
		o->params && o->params->origin ? o->params->origin : "nowhere (all 0)");
}

/* bcast's knomial radix is a global parameter, in no rule: say what the
 * measurement had, which mca-params and env set. */
static void radix_note(FILE *f, const struct decisions *d, const struct export_opts *o)
{
	long r = export_knomial_radix(d, o->params);

	if (r > 0)
		fprintf(f,
			"# bcast knomial (7) ran with coll_tuned_bcast_algorithm_knomial_radix = "
			"%ld,\n"
			"# which no rule carries: set it too (mca-params and env do).\n",
			r);
}

int export_ompi_rules(const struct decisions *d, const struct export_opts *o, FILE *f)
{
	const char *colls[OMPI_MAX_COLLS];
	size_t nc = export_mpi_collectives(d, colls);
	int v2 = ompi_reads_rules_v2(&o->ompi);
	struct rule *rules;
	struct block *blocks;
	struct strvec whys = STRVEC_INIT;

	if (export_need_mpi(d, "ompi-rules"))
		return -1;
	warn_unknown_mpi(d);
	rules = xcalloc(2 * d->nmpi + 2, sizeof(*rules));
	blocks = xcalloc(3 * d->nmpi + 2, sizeof(*blocks));
	rules_header(f, d, o, v2);
	radix_note(f, d, o);
	fprintf(f, "%-12zu # collectives\n", nc);
	for (size_t c = 0; c < nc; c++) {
		size_t nb = coll_blocks(d, colls[c], blocks, rules, &whys);

		fprintf(f, "%-12d # collective id: %s\n", export_coll_id(colls[c]), colls[c]);
		fprintf(f, "%-12zu # communicator sizes\n", nb);
		for (size_t b = 0; b < nb; b++)
			put_block(f, o, v2, colls[c], &blocks[b]);
		strvec_clear(&whys);
	}
	free(rules);
	free(blocks);
	return 0;
}

/* One measured communicator size's rules as JSON. */
static json_t *json_size(const struct decisions *d, const struct export_opts *o, const char *coll,
			 unsigned size, struct rule *rules)
{
	json_t *cr = json_object(), *rs = json_array();
	size_t i, j, nr;

	export_span(d, coll, size, &i, &j);
	nr = export_rules_of(d, i, j, rules);
	json_object_set_new(cr, "comm_size_min", json_integer(size));
	json_object_set_new(cr, "comm_size_max", json_integer(size));
	for (size_t r = 0; r < nr; r++) {
		long fan, seg, reqs;
		json_t *rule;

		/* Open MPI's own decision is what no matching rule gives. */
		if (!rules[r].m->alg)
			continue;
		ompi_rule_params(o->params, coll, rules[r].m->alg, &fan, &seg, &reqs);
		rule = json_pack("{s:I, s:o, s:s, s:I, s:I, s:I}", "msg_size_min",
				 (json_int_t)rules[r].size, "msg_size_max",
				 r + 1 < nr ? json_integer((json_int_t)rules[r + 1].size - 1) :
					      json_string("inf"),
				 "alg", mpi_algorithm_name(coll, rules[r].m->alg), "faninout",
				 (json_int_t)fan, "seg_size", (json_int_t)seg, "reqs",
				 (json_int_t)reqs);
		json_array_append_new(rs, rule);
	}
	json_object_set_new(cr, "rules", rs);
	return cr;
}

/* Communicator sizes are inclusive ranges matched first to last: each
 * measured size gets its own entry, and any other size matches none, which
 * leaves it to Open MPI (export_model_choice() would add its sizes here). */
int export_ompi_json(const struct decisions *d, const struct export_opts *o, FILE *f)
{
	const char *colls[OMPI_MAX_COLLS];
	size_t nc = export_mpi_collectives(d, colls);
	json_t *root, *cs;
	struct rule *rules;
	unsigned *sizes;
	int ret;

	if (export_need_mpi(d, "ompi-json"))
		return -1;
	warn_unknown_mpi(d);
	rules = xcalloc(d->nmpi + 1, sizeof(*rules));
	sizes = xcalloc(d->nmpi + 1, sizeof(*sizes));
	root = json_object();
	cs = json_object();
	json_object_set_new(root, "rule_file_version", json_integer(3));
	json_object_set_new(root, "module", json_string("tuned"));
	for (size_t c = 0; c < nc; c++) {
		size_t ns = export_comm_sizes(d, colls[c], sizes);
		json_t *arr = json_array();

		for (size_t s = 0; s < ns; s++)
			json_array_append_new(arr, json_size(d, o, colls[c], sizes[s], rules));
		json_object_set_new(cs, colls[c], arr);
	}
	json_object_set_new(root, "collectives", cs);
	ret = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', f);
	json_decref(root);
	free(rules);
	free(sizes);
	return ret ? error("cannot write the JSON rules") : 0;
}
