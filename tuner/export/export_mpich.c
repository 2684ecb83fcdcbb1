/*
 * tuner/export/export_mpich.c: the mpich format: MPICH's fastest own algorithm of
 * each collective as the control variable that forces it
 * (MPIR_CVAR_<COLL>_INTRA_ALGORITHM=<name>), a shell file to source before
 * the application starts. The evidence is the host-only records of MPICH
 * algorithms ("algorithm": "mpich:<name>", kernel --mode mpi) of the
 * database run or --records file the decisions came from: struct decisions
 * holds Open MPI's coll/tuned ids only, so the records are read again
 * here. A variable forces one algorithm at every message size: it is
 * written only for a collective whose fastest algorithm is the same at
 * every size and communicator size measured; the others are named in a
 * comment and left to MPICH. Every name written is checked against the
 * installed MPICH's own list (mpivars): MPICH aborts MPI_Init on a name it
 * does not know.
 */
#include "export.h"

#include "error.h"
#include "mpich.h"
#include "record.h"
#include "store.h"
#include "xalloc.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The mean time per call of one algorithm at one collective, communicator
 * size and message size. */
struct mpich_cell {
	char *coll, *alg;
	unsigned ranks;
	uint64_t bytes;
	double sum;
	unsigned n;
};

struct mpich_set {
	struct mpich_cell *c;
	size_t n, cap;
};

static void set_add(struct mpich_set *s, const struct store_point *p)
{
	const char *alg = mpich_record_algorithm(p->key.algorithm);
	double t = p->total_us_median > 0 ? p->total_us_median : p->total_us;
	unsigned ranks = p->ranks > 0 ? (unsigned)p->ranks :
					(unsigned)(p->hosts > 0 ? p->hosts : 0);
	size_t i;

	if (!alg || !p->valid || !p->mode || strcmp(p->mode, "mpi") || !isfinite(t) || t <= 0)
		return;
	for (i = 0; i < s->n; i++)
		if (!strcmp(s->c[i].coll, p->key.collective) && !strcmp(s->c[i].alg, alg) &&
		    s->c[i].ranks == ranks && s->c[i].bytes == p->key.bytes)
			break;
	if (i == s->n) {
		if (s->n == s->cap) {
			s->cap = s->cap ? 2 * s->cap : 16;
			s->c = xrealloc(s->c, s->cap * sizeof(*s->c));
		}
		s->c[s->n++] = (struct mpich_cell){
			xstrdup(p->key.collective), xstrdup(alg), ranks, p->key.bytes, 0, 0
		};
	}
	s->c[i].sum += t;
	s->c[i].n++;
}

static int add_point(const struct store_point *p, void *data)
{
	set_add(data, p);
	return 0;
}

static void set_free(struct mpich_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->c[i].coll);
		free(s->c[i].alg);
	}
	free(s->c);
}

/* The records of a kernel JSON lines file. */
static int read_records(const char *path, struct mpich_set *s)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, err[256];
	size_t cap = 0;
	unsigned lineno = 0;
	int ret = 0;

	if (!f)
		return error("cannot open %s: %s", path, strerror(errno));
	while (!ret && getline(&line, &cap, f) >= 0) {
		struct store_point p;

		lineno++;
		if (!line[strspn(line, " \t\r\n")])
			continue;
		if (record_parse(line, &p, err, sizeof(err)))
			ret = error("%s:%u: not a kernel record: %s", path, lineno, err);
		else
			set_add(s, &p);
		if (!ret)
			store_point_release(&p);
	}
	free(line);
	fclose(f);
	return ret;
}

static int read_evidence(const struct decisions *d, struct mpich_set *s)
{
	struct store *st = NULL;
	int ret;

	if (!d->source)
		return error("export: mpich needs the records it decides from");
	if (d->mpi_run <= 0)
		return read_records(d->source, s);
	if (store_open(d->source, STORE_RDONLY, &st))
		return -1;
	ret = store_foreach_point(st, d->mpi_run, STORE_VALID_ONLY, add_point, s) < 0 ? -1 : 0;
	store_close(st);
	return ret;
}

/* The fastest algorithm of collective c at (ranks, bytes): its cell. */
static const struct mpich_cell *fastest(const struct mpich_set *s, const char *c, unsigned ranks,
					uint64_t bytes)
{
	const struct mpich_cell *best = NULL;

	for (size_t i = 0; i < s->n; i++) {
		const struct mpich_cell *x = &s->c[i];

		if (strcmp(x->coll, c) || x->ranks != ranks || x->bytes != bytes)
			continue;
		if (!best || x->sum / x->n < best->sum / best->n)
			best = x;
	}
	return best;
}

static int known_to_mpich(const char *coll, const char *alg)
{
	struct strvec names = STRVEC_INIT;
	int found = 0;

	if (mpich_algorithms(coll, &names) < 0)
		return -1;
	for (size_t i = 0; i < names.nr; i++)
		found |= !strcmp(names.v[i], alg);
	if (!found)
		error("export: '%s' is not a %s algorithm of the installed MPICH (mpivars lists "
		      "%zu of them, e.g. %s)",
		      alg, coll, names.nr, names.nr ? names.v[0] : "none");
	strvec_clear(&names);
	return found ? 0 : -1;
}

/* One collective: the variable when one algorithm wins everywhere, else
 * a comment naming the winners. */
static int write_collective(const struct mpich_set *s, const char *c, FILE *f)
{
	const char *one = NULL;
	int same = 1;
	char *var;

	for (size_t i = 0; i < s->n; i++) {
		const struct mpich_cell *b;

		if (strcmp(s->c[i].coll, c))
			continue;
		b = fastest(s, c, s->c[i].ranks, s->c[i].bytes);
		if (one && strcmp(one, b->alg))
			same = 0;
		one = one ? one : b->alg;
	}
	if (!same) {
		fprintf(f, "# %s: the fastest algorithm differs between the sizes measured:", c);
		for (size_t i = 0; i < s->n; i++)
			if (!strcmp(s->c[i].coll, c) &&
			    fastest(s, c, s->c[i].ranks, s->c[i].bytes) == &s->c[i])
				fprintf(f, " %llu bytes on %u ranks %s;",
					(unsigned long long)s->c[i].bytes, s->c[i].ranks,
					s->c[i].alg);
		fprintf(f,
			"\n#   one variable forces one algorithm at every size: left to MPICH\n");
		return 0;
	}
	if (known_to_mpich(c, one))
		return -1;
	var = mpich_cvar(c);
	fprintf(f, "# %s: %s is the fastest at every size measured:", c, one);
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->c[i].coll, c) && !strcmp(s->c[i].alg, one))
			fprintf(f, " %llu bytes on %u ranks %.2f us;",
				(unsigned long long)s->c[i].bytes, s->c[i].ranks,
				s->c[i].sum / s->c[i].n);
	fprintf(f, "\nexport %s=%s\n", var, one);
	free(var);
	return 0;
}

int export_mpich(const struct decisions *d, const struct export_opts *o, FILE *f)
{
	char from[48] = "";
	struct mpich_set s = { NULL, 0, 0 };
	struct strvec colls = STRVEC_INIT;
	int ret = -1;

	(void)o;
	if (read_evidence(d, &s))
		goto out;
	for (size_t i = 0; i < s.n; i++) {
		size_t k;

		for (k = 0; k < colls.nr && strcmp(colls.v[k], s.c[i].coll); k++)
			;
		if (k == colls.nr)
			strvec_push(&colls, s.c[i].coll);
	}
	if (!colls.nr) {
		error("export: mpich: no MPICH algorithm measurement (kernel --mode mpi records "
		      "with \"algorithm\": \"mpich:<name>\") in %s",
		      d->source);
		goto out;
	}
	if (d->mpi_run > 0)
		snprintf(from, sizeof(from), " run %lld", d->mpi_run);
	fprintf(f,
		"# MPICH collective algorithms measured by sweetspot, from %s%s.\n"
		"# Source it before starting the application (. ./FILE), or give each line\n"
		"# to mpiexec.hydra as -genv NAME VALUE. A forced algorithm that cannot run\n"
		"# on a communicator falls back silently unless "
		"MPIR_CVAR_COLLECTIVE_FALLBACK=print.\n",
		d->source, from);
	for (size_t i = 0; i < colls.nr; i++)
		if (write_collective(&s, colls.v[i], f))
			goto out;
	ret = 0;
out:
	strvec_clear(&colls);
	set_free(&s);
	return ret;
}
