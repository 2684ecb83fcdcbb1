/*
 * tuner/export/export_ucc.c: the UCC format: the measured Open MPI algorithm
 * choices as UCC's TL/UCP selection, for Open MPI's coll/ucc or any UCC
 * user. A choice goes in only where a TL/UCP algorithm runs the same
 * schedule (a binomial tree is UCC's knomial with radix 2, so the radix
 * variable is set too); every other choice is left out with a comment
 * saying why. The tokens follow UCC's parser (src/coll_score/
 * ucc_coll_score.c): coll:msg_range:mem_type:[team_sizes]:@alg, memory
 * type host, message ranges start-end with the end excluded (UCC writes
 * 0-4K#4K-inf), team sizes the ones measured, each alone ([4]). UCC
 * counts message sizes as Open MPI does (ucc_coll_args_msgsize: bytes for
 * bcast, reduce, allreduce; the whole result for gather, allgather and
 * alltoall).
 * Where an offloaded allreduce with the slice algorithm (UCC's DPU path)
 * beats the hosts alone, UCC's sliding_window gets that range.
 */
#include "export_priv.h"

#include "error.h"
#include "strvec.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

/* Open MPI's algorithm (by name) and TL/UCP's with the same schedule. */
static const struct ucc_map {
	const char *coll, *ompi, *ucc;
	int radix; /* the knomial radix that makes it the same; 0: none
				 * (-1: the radix Open MPI's knomial ran with) */
	const char *radix_var;
} ucc_maps[] = {
	{ "bcast", "binomial", "knomial", 2, "UCC_TL_UCP_BCAST_KN_RADIX" },
	{ "bcast", "knomial", "knomial", -1, "UCC_TL_UCP_BCAST_KN_RADIX" },
	{ "gather", "binomial", "knomial", 2, "UCC_TL_UCP_GATHER_KN_RADIX" },
	{ "allgather", "bruck", "bruck", 0, NULL },
	{ "allgather", "recursive_doubling", "knomial", 2, "UCC_TL_UCP_ALLGATHER_KN_RADIX" },
	{ "allgather", "ring", "ring", 0, NULL },
	{ "allgather", "neighbor", "neighbor", 0, NULL },
	{ "reduce", "binomial", "knomial", 2, "UCC_TL_UCP_REDUCE_KN_RADIX" },
	{ "allreduce", "recursive_doubling", "knomial", 2, "UCC_TL_UCP_ALLREDUCE_KN_RADIX" },
	{ "allreduce", "ring", "ring", 0, NULL },
	{ "allreduce", "rabenseifner", "sra_knomial", 2, "UCC_TL_UCP_ALLREDUCE_SRA_KN_RADIX" },
	{ "alltoall", "pairwise", "pairwise", 0, NULL },
};

static const struct ucc_map *ucc_map_of(const char *coll, int alg)
{
	const char *name = mpi_algorithm_name(coll, alg);

	for (size_t i = 0; i < sizeof(ucc_maps) / sizeof(*ucc_maps); i++)
		if (!strcmp(ucc_maps[i].coll, coll) && !strcmp(ucc_maps[i].ompi, name))
			return &ucc_maps[i];
	return NULL;
}

const char *export_ucc_alg(const char *coll, int alg)
{
	const struct ucc_map *m = ucc_map_of(coll, alg);

	return m ? m->ucc : NULL;
}

/* A size as UCC's memunits read it: K, M, G where exact. */
static void ucc_size(uint64_t v, char *buf, size_t len)
{
	static const char units[] = "KMG";
	int u = -1;

	while (u < 2 && v && !(v % 1024)) {
		v /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%llu", (unsigned long long)v);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)v, units[u]);
}

/* "lo-hi" with hi excluded; hi 0: inf. */
static void ucc_range(uint64_t lo, uint64_t hi, char *buf, size_t len)
{
	char a[32], b[32];

	ucc_size(lo, a, sizeof(a));
	if (hi)
		ucc_size(hi, b, sizeof(b));
	snprintf(buf, len, "%s-%s", a, hi ? b : "inf");
}

static void add_token(struct ucc_export *u, const char *tok)
{
	char *s = xasprintf("%s%s%s", u->tune ? u->tune : "", u->tune ? "#" : "", tok);

	free(u->tune);
	u->tune = s;
}

/* The radix a mapped choice needs; 0: none. The first choice of a
 * variable fixes it: a later one needing another is left out. */
static int radix_ok(struct ucc_export *u, const struct ucc_map *m, long radix, char *why,
		    size_t len)
{
	size_t n;

	if (!m->radix_var || radix <= 0)
		return 1;
	n = strlen(m->radix_var);
	for (size_t i = 0; i < u->vars.nr; i++)
		if (!strncmp(u->vars.v[i], m->radix_var, n) && u->vars.v[i][n] == '=') {
			if (atol(u->vars.v[i] + n + 1) == radix)
				return 1;
			snprintf(why, len, "it needs %s=%ld, which another choice set to %s",
				 m->radix_var, radix, u->vars.v[i] + n + 1);
			return 0;
		}
	strvec_pushf(&u->vars, "%s=%ld", m->radix_var, radix);
	return 1;
}

/* The tokens of coll at team size team from its rules. */
static void coll_tokens(const struct decisions *d, const struct export_opts *o, const char *coll,
			unsigned team, const struct rule *rules, size_t nr, struct ucc_export *u)
{
	for (size_t r = 0; r < nr; r++) {
		const struct mpi_choice *c = rules[r].m;
		const struct ucc_map *m = c->alg ? ucc_map_of(coll, c->alg) : NULL;
		char range[80], why[160] = "";
		long radix = 0;

		ucc_range(rules[r].size, r + 1 < nr ? rules[r + 1].size : 0, range, sizeof(range));
		if (!c->alg) {
			/* Open MPI's own choice won: nothing to say to UCC, and that
			 * is an answer (UCC keeps its own scores there). */
			strvec_pushf(&u->notes,
				     "%s %s [%u]: Open MPI's own decision was the fastest: "
				     "left to UCC's own scores",
				     coll, range, team);
			continue;
		}
		if (m)
			radix = m->radix < 0 ? ompi_global_param(o->params, coll, c->alg,
								 OMPI_KNOMIAL_RADIX) :
					       m->radix;
		if (m && radix_ok(u, m, radix, why, sizeof(why))) {
			char *tok = xasprintf("%s:%s:host:[%u]:@%s", coll, range, team, m->ucc);

			add_token(u, tok);
			free(tok);
			continue;
		}
		strvec_pushf(&u->notes, "%s %s [%u] %s (%d) left out: %s", coll, range, team,
			     mpi_algorithm_name(coll, c->alg), c->alg,
			     *why ? why : "no TL/UCP algorithm runs its schedule");
	}
	(void)d;
}

/* allreduce ranges where the offloaded slice algorithm wins: UCC's DPU
 * path, sliding_window, for the hosts' team size. */
static void dpu_tokens(const struct decisions *d, struct ucc_export *u)
{
	struct band *b;
	size_t nb = decisions_bands(d, "allreduce", &b);

	for (size_t i = 0; i < nb; i++) {
		const struct offload_choice *c = b[i].best;
		char range[80], *tok;

		if (strcmp(c->key.algorithm, "slice") || !c->pays || strcmp(c->pays, "yes"))
			continue;
		ucc_range(b[i].lo, b[i].hi + 1, range, sizeof(range));
		tok = xasprintf("allreduce:%s:host:[%u]:inf:@sliding_window", range,
				c->nodes * c->ppn);
		add_token(u, tok);
		free(tok);
		strvec_pushf(&u->notes,
			     "allreduce %s [%u]: offloaded slice (%s) beats the hosts "
			     "alone: UCC's DPU path",
			     range, c->nodes * c->ppn, c->layout);
	}
	free(b);
}

void export_ucc_release(struct ucc_export *u)
{
	free(u->tune);
	strvec_clear(&u->vars);
	strvec_clear(&u->notes);
	memset(u, 0, sizeof(*u));
}

int export_ucc_build(const struct decisions *d, const struct export_opts *o, struct ucc_export *u)
{
	const char *colls[OMPI_MAX_COLLS];
	size_t nc = export_mpi_collectives(d, colls);
	unsigned *sizes = xcalloc(d->nmpi + 1, sizeof(*sizes));
	struct rule *rules = xcalloc(d->nmpi + 1, sizeof(*rules));

	memset(u, 0, sizeof(*u));
	for (size_t c = 0; c < nc; c++) {
		size_t ns = export_comm_sizes(d, colls[c], sizes);

		for (size_t k = 0; k < ns; k++) {
			size_t i, j, nr;

			export_span(d, colls[c], sizes[k], &i, &j);
			nr = export_rules_of(d, i, j, rules);
			coll_tokens(d, o, colls[c], sizes[k], rules, nr, u);
		}
	}
	dpu_tokens(d, u);
	free(sizes);
	free(rules);
	/* Choices that all stay out are an answer (the notes say why);
	 * nothing measured is not. */
	if (!u->tune && !u->notes.nr) {
		error("ucc: nothing to tell UCC: no Open MPI measurement%s in %s",
		      decisions_has_offload(d, "allreduce") ?
			      " and no offloaded slice allreduce that wins" :
			      "",
		      d->source ? d->source : "the input");
		export_ucc_release(u);
		return -1;
	}
	return 0;
}

int export_ucc(const struct decisions *d, const struct export_opts *o, FILE *f)
{
	struct ucc_export u;

	if (export_ucc_build(d, o, &u))
		return -1;
	fprintf(f,
		"# sweetspot ucc: the measured choices as UCC's TL/UCP selection (%s run %lld).\n"
		"# Tokens: coll:bytes:host:[team size]:@algorithm, bytes from-to with the end\n"
		"# excluded, counted as Open MPI and UCC count them; only the team sizes\n"
		"# measured (other sizes keep UCC's own scores). Use with Open MPI:\n"
		"# --mca coll_ucc_enable 1 --mca coll_ucc_priority 100, and these variables.\n",
		d->source ? d->source : "-", d->run);
	for (size_t i = 0; i < u.notes.nr; i++)
		fprintf(f, "# %s\n", u.notes.v[i]);
	for (size_t i = 0; i < u.vars.nr; i++)
		fprintf(f, "%s\n", u.vars.v[i]);
	if (u.tune)
		fprintf(f, "UCC_TL_UCP_TUNE=%s\n", u.tune);
	else
		fputs("# No measured choice has a TL/UCP counterpart: UCC keeps its own scores.\n",
		      f);
	export_ucc_release(&u);
	return 0;
}
