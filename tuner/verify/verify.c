/*
 * tuner/verify/verify.c: what `sweetspot verify` decides without launching: the
 * environment an exported file stands for, the figures of a launch's
 * output, and the verdict per figure (verify.h).
 */
#include "verify.h"

#include "error.h"
#include "pooled.h"
#include "stats.h"
#include "xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *verify_kind_name(enum verify_kind k)
{
	return k == VERIFY_OMPI_RULES ? "Open MPI coll/tuned rules" :
	       k == VERIFY_ENV	      ? "environment file" :
	       k == VERIFY_MPMD	      ? "MPMD recipe" :
					"mca-params file";
}

/* A line without its comment and surrounding blanks, in place. */
static char *trim(char *s)
{
	char *e;

	s += strspn(s, " \t");
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* A shell word as the env writer quotes it: 'single' ('\'' inside), "double"
 * (no expansion meant), or bare. 0, or -1 when a quote is not closed or
 * something follows the word. */
static int unquote(const char *s, char **out)
{
	char *o = xmalloc(strlen(s) + 1), *w = o;

	while (*s) {
		if (*s == '\'' || *s == '"') {
			char q = *s++;
			const char *end = strchr(s, q);

			if (!end) {
				free(o);
				return -1;
			}
			memcpy(w, s, (size_t)(end - s));
			w += end - s;
			s = end + 1;
		} else if (*s == '\\' && s[1]) {
			*w++ = s[1];
			s += 2;
		} else if (isspace((unsigned char)*s)) {
			free(o);
			return -1;
		} else {
			*w++ = *s++;
		}
	}
	*w = '\0';
	*out = o;
	return 0;
}

static int is_name(const char *s, size_t n)
{
	if (!n || isdigit((unsigned char)*s))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return 0;
	return 1;
}

/* One meaningful line of an env or mca-params file into env. */
static int settings_line(char *line, enum verify_kind kind, struct strvec *env)
{
	char *eq = strchr(line, '='), *value;
	size_t n;

	if (!eq)
		return -1;
	if (kind == VERIFY_MCA_PARAMS) {
		char *name = line;

		*eq = '\0';
		name = trim(name);
		value = trim(eq + 1);
		if (!is_name(name, strlen(name)))
			return -1;
		strvec_pushf(env, "OMPI_MCA_%s=%s", name, value);
		return 0;
	}
	if (!strncmp(line, "export ", 7))
		line = trim(line + 7);
	n = (size_t)(eq - line);
	if (!is_name(line, n) || unquote(eq + 1, &value))
		return -1;
	strvec_pushf(env, "%.*s=%s", (int)n, line, value);
	free(value);
	return 0;
}

/* The kind of file, from its first meaningful line. */
static enum verify_kind kind_of(const char *first)
{
	const char *eq = strchr(first, '=');

	if (*first == '{' || !strcmp(first, "rule-file-version-2") ||
	    strspn(first, "0123456789 \t") == strlen(first))
		return VERIFY_OMPI_RULES;
	if (!strncmp(first, "export ", 7) || (eq && eq > first && eq[-1] != ' ' && eq[-1] != '\t'))
		return VERIFY_ENV;
	return VERIFY_MCA_PARAMS;
}

int verify_settings(const char *path, struct strvec *env, enum verify_kind *kind)
{
	FILE *f;
	char *line = NULL, *abs = NULL;
	size_t cap = 0, lineno = 0, before = env->nr;
	int ret = -1, seen = 0;
	struct stat st;

	if (verify_recipe_is(path)) {
		if (!(abs = realpath(path, NULL)))
			return error("%s: %s", path, strerror(errno));
		*kind = VERIFY_MPMD;
		strvec_pushf(env, "SWEETSPOT_RECIPE=%s", abs);
		free(abs);
		return 0;
	}
	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		return error("%s: a folder, but not an MPMD recipe (export --format mpmd writes "
			     "one with a slurm.hostfile)",
			     path);
	if (!(f = fopen(path, "r")))
		return error("%s: %s", path, strerror(errno));
	while (getline(&line, &cap, f) > 0) {
		char *s = line;

		lineno++;
		s[strcspn(s, "#\r\n")] = '\0';
		s = trim(s);
		if (!*s)
			continue;
		if (!seen++)
			*kind = kind_of(s);
		if (*kind == VERIFY_OMPI_RULES)
			break;
		if (settings_line(s, *kind, env)) {
			error("%s:%zu: not a setting of a%s: '%s'", path, lineno,
			      *kind == VERIFY_ENV ? "n environment file (export NAME=value)" :
						    " mca-params file (name = value)",
			      s);
			goto out;
		}
	}
	if (ferror(f)) {
		error("%s: %s", path, strerror(errno));
		goto out;
	}
	if (!seen) {
		error("%s: no setting in it (an exported rules, env or mca-params file)", path);
		goto out;
	}
	if (*kind == VERIFY_OMPI_RULES) {
		if (!(abs = realpath(path, NULL))) {
			error("%s: %s", path, strerror(errno));
			goto out;
		}
		strvec_push(env, "OMPI_MCA_coll_tuned_use_dynamic_rules=1");
		strvec_pushf(env, "OMPI_MCA_coll_tuned_dynamic_rules_filename=%s", abs);
	}
	ret = 0;
out:
	if (ret)
		while (env->nr > before)
			free(env->v[--env->nr]);
	if (env->v)
		env->v[env->nr] = NULL;
	free(abs);
	free(line);
	fclose(f);
	return ret;
}

/* ---- rules ----------------------------------------------------------------- */

/* The next number of a rules file (comments from '#' to the end of a line
 * skipped), with its line. 1 and *v, 0 at the end, -1 on a word that is
 * not a number (*word set for the message). */
static int next_number(FILE *f, size_t *line, long long *v, char *word, size_t len)
{
	size_t n = 0;
	int c;

	while ((c = fgetc(f)) != EOF) {
		if (c == '#')
			while ((c = fgetc(f)) != EOF && c != '\n')
				;
		if (c == '\n')
			(*line)++;
		else if (c != EOF && !isspace(c))
			break;
	}
	if (c == EOF)
		return 0;
	do {
		if (n + 1 < len)
			word[n++] = (char)c;
	} while ((c = fgetc(f)) != EOF && !isspace(c) && c != '#');
	if (c != EOF)
		ungetc(c, f);
	word[n] = '\0';
	if (strspn(word, "0123456789") != n || n > 18)
		return -1;
	*v = strtoll(word, NULL, 10);
	return 1;
}

int verify_rules_load(const char *path, struct verify_rules *out)
{
	FILE *f = fopen(path, "r");
	size_t line = 1;
	long long ncoll, id, ncomm, comm, nmsg, col[5];
	char word[64];
	int rc, c, ret = -1;

	memset(out, 0, sizeof(*out));
	if (!f)
		return error("%s: %s", path, strerror(errno));
	/* JSON rules start with '{': coll/tuned's other reader. */
	while ((c = fgetc(f)) != EOF && isspace(c))
		line += c == '\n';
	if (c == '{') {
		fclose(f);
		return 1;
	}
	ungetc(c, f);
#define NUM(x)                                                                   \
	do {                                                                     \
		if ((rc = next_number(f, &line, &(x), word, sizeof(word))) <= 0) \
			goto bad;                                                \
	} while (0)
	rc = next_number(f, &line, &ncoll, word, sizeof(word));
	if (rc < 0 && !strcmp(word, "rule-file-version-2")) {
		out->version2 = 1;
		rc = next_number(f, &line, &ncoll, word, sizeof(word));
	}
	if (rc <= 0)
		goto bad;
	for (long long i = 0; i < ncoll; i++) {
		NUM(id);
		NUM(ncomm);
		for (long long j = 0; j < ncomm; j++) {
			NUM(comm);
			NUM(nmsg);
			for (long long k = 0; k < nmsg; k++) {
				for (int m = 0; m < 4 + out->version2; m++)
					NUM(col[m]);
				out->v = xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
				out->v[out->n++] = (struct verify_rule){ (int)id, (unsigned)comm,
									 (uint64_t)col[0],
									 (int)col[1] };
			}
		}
	}
#undef NUM
	ret = 0;
	goto out;
bad:
	if (rc < 0)
		error("%s:%zu: '%s' is not a number of a coll/tuned rules file", path, line, word);
	else
		error("%s:%zu: the rules file ends early", path, line);
	verify_rules_release(out);
out:
	fclose(f);
	return ret;
}

void verify_rules_release(struct verify_rules *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}

int verify_rules_alg(const struct verify_rules *r, int coll, unsigned comm, uint64_t msg)
{
	unsigned block = 0;
	int alg = 0, found = 0;

	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].coll == coll && r->v[i].comm <= comm && r->v[i].comm >= block) {
			block = r->v[i].comm;
			found = 1;
		}
	for (size_t i = 0; found && i < r->n; i++)
		if (r->v[i].coll == coll && r->v[i].comm == block && r->v[i].msg <= msg)
			alg = r->v[i].alg;
	return alg;
}

/* ---- figures --------------------------------------------------------------- */

int verify_metric_compile(struct verify_metric *m, const char *src)
{
	char msg[256];
	int rc;

	memset(m, 0, sizeof(*m));
	if ((rc = regcomp(&m->re, src, REG_EXTENDED | REG_NEWLINE))) {
		regerror(rc, &m->re, msg, sizeof(msg));
		return error("--metric '%s': %s", src, msg);
	}
	m->compiled = 1;
	m->groups = m->re.re_nsub;
	if (!m->groups) {
		verify_metric_release(m);
		return error("--metric '%s' has no capture group: put the number in ( )", src);
	}
	return 0;
}

void verify_metric_release(struct verify_metric *m)
{
	if (m->compiled)
		regfree(&m->re);
	m->compiled = 0;
}

/* The name of a match: its earlier groups joined by a space, else the
 * text before the number (blanks collapsed), else "#k". */
static char *figure_name(const char *line, const regmatch_t *g, size_t groups, size_t k)
{
	char *name = NULL;
	size_t len = 0;

	for (size_t i = 1; i < groups; i++) {
		int n = (int)(g[i].rm_eo - g[i].rm_so);

		if (g[i].rm_so < 0)
			continue;
		name = xrealloc(name, len + (size_t)n + 2);
		len += (size_t)sprintf(name + len, "%s%.*s", len ? " " : "", n, line + g[i].rm_so);
	}
	if (!name) {
		const char *s = line + g[0].rm_so, *e = line + g[groups].rm_so;

		name = xmalloc((size_t)(e - s) + 1);
		for (; s < e; s++)
			if (!isspace((unsigned char)*s) || (len && name[len - 1] != ' '))
				name[len++] = isspace((unsigned char)*s) ? ' ' : *s;
		while (len && name[len - 1] == ' ')
			len--;
		name[len] = '\0';
	}
	if (!*name) {
		free(name);
		name = xasprintf("#%zu", k);
	}
	return name;
}

int verify_read_figures(const struct verify_metric *m, const char *log, struct strvec *names,
			double **vals, size_t *n)
{
	FILE *f = fopen(log, "r");
	regmatch_t g[16];
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	int ret = 0;

	*vals = NULL;
	*n = 0;
	if (m->groups >= sizeof(g) / sizeof(g[0])) {
		ret = error("--metric: at most %zu capture groups", sizeof(g) / sizeof(g[0]) - 1);
		goto out;
	}
	if (!f) {
		ret = error("%s: %s", log, strerror(errno));
		goto out;
	}
	while (getline(&line, &cap, f) > 0 && !ret) {
		char *num, *end, *name;
		double v;
		int len;

		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		if (!strncmp(line, "# command:", 10) || regexec(&m->re, line, m->groups + 1, g, 0))
			continue;
		len = (int)(g[m->groups].rm_eo - g[m->groups].rm_so);
		num = xasprintf("%.*s", len,
				g[m->groups].rm_so >= 0 ? line + g[m->groups].rm_so : "");
		errno = 0;
		v = strtod(num, &end);
		if (!*num || *end || errno == ERANGE || !isfinite(v)) {
			ret = error("%s:%zu: --metric's last group matched '%s', not a number", log,
				    lineno, num);
		} else {
			name = figure_name(line, g, m->groups, *n + 1);
			strvec_push(names, name);
			free(name);
			*vals = xrealloc(*vals, (*n + 1) * sizeof(**vals));
			(*vals)[(*n)++] = v;
		}
		free(num);
	}
out:
	free(line);
	if (f)
		fclose(f);
	return ret;
}

/* ---- decisions ------------------------------------------------------------- */

void verify_figure_add(struct verify_figure *f, int side, double v)
{
	double **x = side ? &f->b : &f->a;
	size_t *n = side ? &f->nb : &f->na, *alloc = side ? &f->alloc_b : &f->alloc_a;

	if (*n == *alloc) {
		*alloc = *alloc ? 2 * *alloc : 16;
		*x = xrealloc(*x, *alloc * sizeof(**x));
	}
	(*x)[(*n)++] = v;
}

void verify_figures_free(struct verify_figure *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].name);
		free(f[i].a);
		free(f[i].b);
	}
	free(f);
}

/* The median of x and its 95% CI (Le Boudec's order statistics). */
static int median_ci(const double *x, size_t n, double *med, double *lo, double *hi)
{
	struct stats_summary s;

	if (stats_summarize(x, n, 0.95, 1, &s))
		return -1;
	*med = s.median;
	*lo = s.ci_lo;
	*hi = s.ci_hi;
	stats_summary_free(&s);
	return 0;
}

/* B/A as the Hodges-Lehmann shift of log B against log A, with its CI; NaN
 * when a value is not positive. */
static int ratio_ci(struct verify_figure *f)
{
	double *la = xmalloc(f->na * sizeof(*la)), *lb = xmalloc(f->nb * sizeof(*lb));
	double est, lo, hi;
	int ret = 0, pos = 1;

	for (size_t i = 0; i < f->na; i++) {
		pos &= f->a[i] > 0;
		la[i] = f->a[i] > 0 ? log(f->a[i]) : 0;
	}
	for (size_t i = 0; i < f->nb; i++) {
		pos &= f->b[i] > 0;
		lb[i] = f->b[i] > 0 ? log(f->b[i]) : 0;
	}
	f->ratio = f->r_lo = f->r_hi = NAN;
	if (pos) {
		ret = stats_hodges_lehmann(lb, f->nb, la, f->na, 0.95, &est, &lo, &hi);
		if (!ret) {
			f->ratio = exp(est);
			f->r_lo = exp(lo);
			f->r_hi = exp(hi);
		}
	} else if (f->med_a != 0) {
		f->ratio = f->med_b / f->med_a;
	}
	free(la);
	free(lb);
	return ret;
}

/* The pairs' B/A: where A and B were launched in pairs (as many of each,
 * the i-th of each one pair, launched back to back) and every value is
 * positive, the mean of log(B_i / A_i) with Student's t: its p and 95%
 * interval (the noise taken as log-normal, as decisions take it). A
 * machine that drifts between pairs moves both of a pair alike, so the
 * pair's ratio sees only what B changes. 1 done, 0 not paired (the caller
 * compares the two samples apart). */
static int paired_ratio(struct verify_figure *f)
{
	double mean = 0, ss = 0, se, t;
	size_t n = f->na;

	if (!f->pairs || f->na != f->nb || n < 2)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!(f->a[i] > 0) || !(f->b[i] > 0))
			return 0;
	for (size_t i = 0; i < n; i++)
		mean += (log(f->b[i]) - log(f->a[i])) / (double)n;
	for (size_t i = 0; i < n; i++) {
		double d = log(f->b[i]) - log(f->a[i]) - mean;

		ss += d * d;
	}
	se = sqrt(ss / (double)(n - 1) / (double)n);
	t = pooled_t_upper(0.025, n - 1);
	f->ratio = exp(mean);
	f->r_lo = exp(mean - t * se);
	f->r_hi = exp(mean + t * se);
	f->p = se > 0 ? pooled_t_p(fabs(mean) / se, n - 1) : mean != 0 ? 0 : 1;
	return 1;
}

/* Launches beyond those made that would decide f, assuming the CI narrows
 * as 1/sqrt(n): until it excludes no change (an effect beyond delta) or
 * fits within the threshold (one below it). -1 when it cannot be told. */
static long more_launches(const struct verify_figure *f, double delta)
{
	double w = (log(f->r_hi) - log(f->r_lo)) / 2, s = fabs(log(f->ratio)), d = log1p(delta),
	       gap = s > d ? s : d - s, n = (double)(f->na < f->nb ? f->na : f->nb), need;

	if (!isfinite(w) || !isfinite(s) || w <= 0 || gap <= 1e-12)
		return -1;
	need = ceil(n * (w / gap) * (w / gap));
	if (need > 1e6)
		return -1;
	need = 2 * need - (double)(f->na + f->nb);
	return need < 2 ? 2 : (long)need;
}

int verify_decide(struct verify_figure *f, size_t n, int higher, double alpha, double delta)
{
	double *p = xcalloc(n ? n : 1, sizeof(*p)), *adj = xcalloc(n ? n : 1, sizeof(*adj));
	int undecided = 0, ret = -1;

	for (size_t i = 0; i < n; i++) {
		struct stats_mw mw;

		if (f[i].na < 2 || f[i].nb < 2) {
			error("figure '%s': %zu and %zu values, 2 a side at least", f[i].name,
			      f[i].na, f[i].nb);
			goto out;
		}
		if (median_ci(f[i].a, f[i].na, &f[i].med_a, &f[i].a_lo, &f[i].a_hi) ||
		    median_ci(f[i].b, f[i].nb, &f[i].med_b, &f[i].b_lo, &f[i].b_hi)) {
			error("figure '%s': its statistics cannot be computed", f[i].name);
			goto out;
		}
		f[i].paired = paired_ratio(&f[i]);
		if (f[i].paired < 0 ||
		    (!f[i].paired && (ratio_ci(&f[i]) ||
				      stats_mann_whitney(f[i].b, f[i].nb, f[i].a, f[i].na, &mw)))) {
			error("figure '%s': its statistics cannot be computed", f[i].name);
			goto out;
		}
		if (!f[i].paired)
			f[i].p = mw.p;
		p[i] = f[i].p;
	}
	if (n && stats_holm_adjust(p, n, adj))
		goto out;
	for (size_t i = 0; i < n; i++) {
		double gain = higher ? f[i].ratio - 1 : 1 - f[i].ratio;

		f[i].p_holm = adj[i];
		f[i].more_launches = -1;
		if (adj[i] < alpha && fabs(f[i].ratio - 1) >= delta && gain != 0) {
			f[i].verdict = gain > 0 ? "faster" : "slower";
		} else if (f[i].r_lo >= 1 - delta && f[i].r_hi <= 1 + delta) {
			f[i].verdict = "no difference";
		} else {
			f[i].verdict = "no difference shown";
			f[i].more_launches = more_launches(&f[i], delta);
			undecided++;
		}
	}
	ret = undecided;
out:
	free(p);
	free(adj);
	return ret;
}
