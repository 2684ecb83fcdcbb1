/*
 * tuner/export/export_rules.c: what the export writers share, below them all: the
 * Open MPI version that decides which rules format to write, and the
 * decisions turned into Open MPI rules (collectives, communicator sizes,
 * size thresholds) that the rules, UCC and env writers use. Open MPI counts
 * a rule's message size its own way: bytes per rank for bcast, bytes per
 * rank times the communicator size for gather, allgather and alltoall
 * (coll_tuned_decision_dynamic.c); the rules are in those terms (colls.h);
 * reductions count bytes, dtype size times count.
 */
#include "export_priv.h"

#include "child.h"
#include "colls.h"
#include "error.h"
#include "strvec.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- Open MPI's version ---------------------------------------------------- */

int ompi_version_parse(const char *s, struct ompi_version *v)
{
	int x[3] = { 0, 0, 0 }, n = 0;

	if (!s)
		return -1;
	if (*s == 'v')
		s++;
	while (n < 3) {
		long val = 0;

		if (!isdigit((unsigned char)*s))
			return -1;
		while (isdigit((unsigned char)*s)) {
			val = val * 10 + (*s++ - '0');
			if (val > 1000)
				return -1;
		}
		x[n++] = (int)val;
		if (*s != '.')
			break;
		s++;
	}
	/* major.minor at least; a tag such as rc1 or a1 may follow. */
	if (n < 2 || (*s && !isalpha((unsigned char)*s)))
		return -1;
	v->major = x[0];
	v->minor = x[1];
	v->release = x[2];
	return 0;
}

/* Runs argv with its output in a temporary file; returns the output
 * (caller frees) or NULL. */
static char *capture(const char *const *argv)
{
	struct strvec av = STRVEC_INIT;
	struct launch_child c = { 0 };
	struct launch_result r;
	char tmpl[] = "/tmp/sweetspot-version.XXXXXX";
	char *out = NULL, buf[4096];
	size_t n;
	FILE *f;
	int fd;

	fd = mkstemp(tmpl);
	if (fd < 0)
		return NULL;
	close(fd);
	strvec_pushv(&av, argv);
	c.argv = &av;
	c.log = tmpl;
	c.timeout_s = 30;
	if (launch_spawn(&c, &r) == 0 && (f = fopen(tmpl, "r"))) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		buf[n] = '\0';
		fclose(f);
		out = xstrdup(buf);
	}
	unlink(tmpl);
	strvec_clear(&av);
	return out;
}

int ompi_version_detect(struct ompi_version *v)
{
	static const char *const a1[] = { "ompi_info", "--version", NULL };
	static const char *const a2[] = { "mpirun", "--version", NULL };
	const char *const *tries[] = { a1, a2 };

	for (int t = 0; t < 2; t++) {
		char *out = capture(tries[t]), *p;
		int ok = -1;

		/* "Open MPI v4.1.4" (ompi_info) or "mpirun (Open MPI) 4.1.4". */
		if (out && (p = strstr(out, "Open MPI"))) {
			p += strlen("Open MPI");
			while (*p == ')' || *p == ' ')
				p++;
			ok = ompi_version_parse(strtok(p, " \n"), v);
		}
		free(out);
		if (!ok)
			return 0;
	}
	return error("cannot tell the Open MPI version (neither 'ompi_info --version' nor "
		     "'mpirun --version' answered); give --ompi-version");
}

int ompi_reads_rules_v2(const struct ompi_version *v)
{
	if (v->major != 5)
		return v->major > 5;
	return v->minor > 0 || v->release >= 7;
}

/* ---- the decisions as Open MPI rules ------------------------------------- */

/* Open MPI's message size of a rule (see the file comment). */
static uint64_t ompi_msg_size(const struct mpi_choice *m)
{
	return colls_ompi_msg_size(m->collective, m->bytes, m->ranks);
}

size_t export_rules_of(const struct decisions *d, size_t i, size_t j, struct rule *out)
{
	size_t n = 0;

	for (size_t k = i; k < j; k++) {
		if (n && out[n - 1].m->alg == d->mpi[k].alg)
			continue;
		/* Open MPI wants the first rule at size 0: the smallest measured
		 * size's choice covers everything below it too. */
		out[n].size = n ? ompi_msg_size(&d->mpi[k]) : 0;
		out[n].m = &d->mpi[k];
		n++;
	}
	return n;
}

/* ---- inner collectives ------------------------------------------------------ */

/* Open MPI 4.1's algorithms that call other collectives through the
 * communicator (coll_base_allreduce.c, coll_base_allgather.c), so that
 * the rules reach those calls too: the inner calls and their sizes, in
 * bytes per rank times inner_ranks_factor (gather's receive is m x n). */
static const struct {
	const char *coll;
	int alg;
	const char *inner[2];
	int times_ranks[2]; /* the inner call's bytes are m x ranks */
} composites[] = {
	{ "allreduce", 2, { "reduce", "bcast" }, { 0, 0 } },
	{ "allgather", 1, { "gather", "bcast" }, { 0, 1 } },
};

static int composite_of(const char *coll, int alg)
{
	for (size_t i = 0; i < sizeof(composites) / sizeof(*composites); i++)
		if (!strcmp(composites[i].coll, coll) && composites[i].alg == alg)
			return (int)i;
	return -1;
}

/* The algorithm the rules give coll on ranks ranks for bytes per rank:
 * the choice of the largest measured size at or below it, else the
 * smallest's (the first rule starts at 0); 0 when coll has no choice. */
static int rule_alg(const struct decisions *d, const char *coll, unsigned ranks, uint64_t bytes)
{
	const struct mpi_choice *below = NULL, *first = NULL;

	for (size_t k = 0; k < d->nmpi; k++) {
		const struct mpi_choice *m = &d->mpi[k];

		if (strcmp(m->collective, coll) || m->ranks != ranks)
			continue;
		if (!first || m->bytes < first->bytes)
			first = m;
		if (m->bytes <= bytes && (!below || m->bytes > below->bytes))
			below = m;
	}
	return below ? below->alg : first ? first->alg : 0;
}

size_t export_pin_inner(struct decisions *d, FILE *notes)
{
	size_t changed = 0;

	for (size_t k = 0; k < d->nmpi; k++) {
		struct mpi_choice *m = &d->mpi[k];
		int c = composite_of(m->collective, m->alg), inner = -1, alg = 0, to;

		for (int i = 0; c >= 0 && i < 2 && !alg; i++) {
			alg = rule_alg(d, composites[c].inner[i], m->ranks,
				       composites[c].times_ranks[i] ? m->bytes * m->ranks :
								      m->bytes);
			inner = i;
		}
		if (!alg)
			continue;
		to = m->runner_up >= 0 && composite_of(m->collective, m->runner_up) < 0 ?
			     m->runner_up :
			     0;
		fprintf(notes,
			"sweetspot: export: %s %u ranks %llu B: %s (%d) calls %s inside, "
			"which these rules give %s (%d), not Open MPI's own choice as when it was "
			"measured: exporting %s (%d) instead\n",
			m->collective, m->ranks, (unsigned long long)m->bytes,
			mpi_algorithm_name(m->collective, m->alg), m->alg,
			composites[c].inner[inner],
			mpi_algorithm_name(composites[c].inner[inner], alg), alg,
			to ? mpi_algorithm_name(m->collective, to) : "Open MPI's own choice", to);
		m->avg_us = to ? m->runner_up_us : m->default_us;
		m->alg = to;
		m->runner_up = -1;
		changed++;
	}
	return changed;
}

/* The reductions' ids until colls.c has their rows (coll_base_functions.h). */
static const struct {
	const char *name;
	int id;
} extra_ids[] = { { "allreduce", 2 }, { "reduce", 11 } };

int export_coll_id(const char *coll)
{
	const struct colls_desc *c = colls_find(coll);

	if (c)
		return c->ompi_id;
	for (size_t i = 0; i < sizeof(extra_ids) / sizeof(*extra_ids); i++)
		if (!strcmp(coll, extra_ids[i].name))
			return extra_ids[i].id;
	return -1;
}

static int cmp_id(const void *a, const void *b)
{
	return export_coll_id(*(const char *const *)a) - export_coll_id(*(const char *const *)b);
}

size_t export_mpi_collectives(const struct decisions *d, const char **out)
{
	size_t n = 0;

	for (size_t i = 0; i < colls_count && n < OMPI_MAX_COLLS; i++)
		if (colls_table[i].ompi_id >= 0 &&
		    decisions_has_mpi(d, colls_name(&colls_table[i])))
			out[n++] = colls_name(&colls_table[i]);
	for (size_t i = 0; i < sizeof(extra_ids) / sizeof(*extra_ids) && n < OMPI_MAX_COLLS; i++)
		if (!colls_find(extra_ids[i].name) && decisions_has_mpi(d, extra_ids[i].name))
			out[n++] = extra_ids[i].name;
	qsort(out, n, sizeof(*out), cmp_id);
	return n;
}

const struct mpi_choice *export_model_choice(const struct decisions *d, const char *coll,
					     unsigned ranks)
{
	/* The model that would back a choice at an unmeasured communicator
	 * size is not built yet: no size has one. */
	(void)d;
	(void)coll;
	(void)ranks;
	return NULL;
}

void export_span(const struct decisions *d, const char *c, unsigned ranks, size_t *i, size_t *j)
{
	for (*i = 0;
	     *i < d->nmpi && (strcmp(d->mpi[*i].collective, c) || d->mpi[*i].ranks != ranks);
	     (*i)++)
		;
	for (*j = *i;
	     *j < d->nmpi && !strcmp(d->mpi[*j].collective, c) && d->mpi[*j].ranks == ranks; (*j)++)
		;
}

size_t export_comm_sizes(const struct decisions *d, const char *c, unsigned *out)
{
	size_t n = 0;

	for (size_t k = 0; k < d->nmpi; k++)
		if (!strcmp(d->mpi[k].collective, c) && (!n || out[n - 1] != d->mpi[k].ranks))
			out[n++] = d->mpi[k].ranks;
	return n;
}

int export_need_mpi(const struct decisions *d, const char *what)
{
	const char *c[OMPI_MAX_COLLS];

	if (!export_mpi_collectives(d, c))
		return error("%s: no Open MPI algorithm measurement (kernel --mode mpi, one "
			     "coll_tuned algorithm forced per launch) in %s",
			     what, d->source ? d->source : "the input");
	return 0;
}
