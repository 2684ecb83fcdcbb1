/*
 * tuner/report/report.c: a sweep's answer on one static page (report.h):
 * DIR/index.html with the recommendation table (one row per decision), the
 * figures (plot.h) in DIR/figures, the Open MPI baseline, the exports
 * written into DIR/export (export_run()), and every launch with a copy of
 * its log in DIR/logs. No script, no server, nothing fetched from
 * elsewhere: the page is HTML and CSS, its images files beside it. The
 * report owns those three folders and index.html in DIR.
 */
#include "report.h"

#include "error.h"
#include "export.h"
#include "files.h"
#include "parse.h"
#include "plot.h"
#include "recommend.h"
#include "spec.h"
#include "store.h"
#include "strvec.h"
#include "xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One export the page lists: its file (relative to DIR) and what it is. */
struct report_export {
	char *path;
	const char *what;
};

/* One launch of the run, its log copied (log NULL: it had none left). */
struct report_launch {
	long long id;
	char *layout, *status, *log;
	int repetition, ok;
	double wall_s;
};

/* One page's making: its choices, and what it shows. */
struct report {
	const char *db, *spec, *dir;
	long long run_id;
	struct decisions d, base; /* the run's; the baseline's (its mpi[]) */
	long long base_run;	  /* 0: no baseline */
	struct store *st;
	struct store_run run;
	struct strvec figures; /* stems in DIR/figures, in the page's order */
	struct report_export exports[8];
	size_t nexports;
	struct report_launch *launches;
	size_t nlaunches;
};

/* ---- what the page shows ------------------------------------------------- */

/* The figures' order on the page: the paper's first, then per kind. */
static int figure_rank(const char *stem)
{
	static const char *const kinds[] = { "paper-", "oe-",	   "wpn-",  "placement-",
					     "sched-", "runtime-", "model-" };

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strncmp(stem, kinds[i], strlen(kinds[i])))
			return (int)i;
	return (int)(sizeof(kinds) / sizeof(kinds[0]));
}

static int cmp_figure(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	int rx = figure_rank(x), ry = figure_rank(y);

	return rx != ry ? rx - ry : strcmp(x, y);
}

/* Draws the run's figures into DIR/figures and lists their stems. */
static int report_figures(struct report *r)
{
	struct store_point *pts = NULL;
	char *dir = xasprintf("%s/figures", r->dir);
	size_t n = 0;
	DIR *d = NULL;
	struct dirent *e;
	int ret = -1;

	if (store_load_points(r->st, r->d.run, STORE_VALID_ONLY, &pts, &n) ||
	    files_remove_tree(dir) || plot_write(pts, n, NULL, 0, dir) < 0)
		goto out;
	if (!(d = opendir(dir))) {
		error("cannot read %s: %s", dir, strerror(errno));
		goto out;
	}
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (len > 4 && !strcmp(e->d_name + len - 4, ".png"))
			strvec_pushf(&r->figures, "%.*s", (int)(len - 4), e->d_name);
	}
	qsort(r->figures.v, r->figures.nr, sizeof(char *), cmp_figure);
	ret = 0;
out:
	if (d)
		closedir(d);
	store_points_free(pts, n);
	free(dir);
	return ret;
}

/* Exports format fmt of run into DIR/export/file (export_run(), with the
 * rules file env and mca-params name, and the spec mpmd needs, when
 * given); the page lists what it wrote. A format the decisions cannot give
 * (its error is on stderr) is left out, not fatal. */
static void report_export(struct report *r, const char *file, const char *what, long long run,
			  enum export_format fmt, const char *rules, const char *spec)
{
	char *out = xasprintf("%s/export/%s", r->dir, file);
	struct export_request rq = { .fmt = { fmt },
				     .nfmt = 1,
				     .out = out,
				     .db = r->db,
				     .run = run,
				     .rules = rules,
				     .spec = spec,
				     .force = 1 };

	if (export_run(&rq) == 0 && r->nexports < sizeof(r->exports) / sizeof(r->exports[0]))
		r->exports[r->nexports++] = (struct report_export){ xasprintf("export/%s", file),
								    what };
	else
		fprintf(stderr, "sweetspot: report: %s not written\n", out);
	free(out);
}

static int report_exports(struct report *r)
{
	char *dir = xasprintf("%s/export", r->dir), *rules = NULL;
	int ret = files_remove_tree(dir) || files_mkdir_p(dir) ? -1 : 0;

	if (ret)
		goto out;
	report_export(r, "sweetspot.profile",
		      "sweetspot's own profile of the decisions "
		      "(sweetspot export --profile reads it back)",
		      r->d.run, EXPORT_PROFILE, NULL, NULL);
	if (r->base_run) {
		rules = xasprintf("%s/export/ompi-rules.conf", r->dir);
		report_export(r, "ompi-rules.conf", "Open MPI coll/tuned rules from the baseline",
			      r->base_run, EXPORT_OMPI_RULES, NULL, NULL);
		report_export(r, "mca-params.conf", "an mca-params.conf fragment loading the rules",
			      r->base_run, EXPORT_MCA_PARAMS, rules, NULL);
	}
	report_export(r, "sweetspot.env", "shell variables: the best layout of each collective",
		      r->d.run, EXPORT_ENV, rules, NULL);
	if (r->spec)
		report_export(r, "mpmd",
			      "hostfiles and MPMD files of the recommended layout "
			      "(a folder; commands in mpmd/commands)",
			      r->d.run, EXPORT_MPMD, NULL, r->spec);
out:
	free(rules);
	free(dir);
	return ret;
}

/* Copies the file from to to. 0, or -1 after error(). */
static int copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
	char buf[65536];
	size_t n;
	int ret = 0;

	if (!in || !out) {
		ret = error("cannot copy %s to %s: %s", from, to, strerror(errno));
		goto out;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			break;
	if (ferror(in) || ferror(out))
		ret = error("cannot copy %s to %s: %s", from, to, strerror(errno));
out:
	if (in)
		fclose(in);
	if (out && fclose(out) && !ret)
		ret = error("cannot write %s: %s", to, strerror(errno));
	return ret;
}

/* One launch into r->launches, its log copied into DIR/logs. */
static int add_launch(const struct store_launch *l, void *data)
{
	struct report *r = data;
	struct report_launch *x;
	char *to;

	r->launches = xrealloc(r->launches, (r->nlaunches + 1) * sizeof(*r->launches));
	x = &r->launches[r->nlaunches++];
	*x = (struct report_launch){ l->id,    xstrdup(l->layout.id), NULL,
				     NULL,     l->repetition,	      l->ok,
				     l->wall_s };
	if (l->ok)
		x->status = xstrdup("ok");
	else if (l->timed_out)
		x->status = xstrdup("timed out");
	else
		x->status = xasprintf("failed (exit %d)%s%s", l->exit_status, l->reason ? ": " : "",
				      l->reason ? l->reason : "");
	if (!*l->log_path || access(l->log_path, R_OK))
		return 0;
	to = xasprintf("%s/logs/launch-%lld.log", r->dir, l->id);
	if (copy_file(l->log_path, to)) {
		free(to);
		return -1;
	}
	x->log = xasprintf("logs/launch-%lld.log", l->id);
	free(to);
	return 0;
}

static int report_launches(struct report *r)
{
	char *dir = xasprintf("%s/logs", r->dir);
	int ret = files_remove_tree(dir) || files_mkdir_p(dir) ||
				  store_foreach_launch(r->st, r->d.run, add_launch, r) ?
			  -1 :
			  0;

	free(dir);
	return ret;
}

/* The baseline: the latest baseline run (of SPEC when given) that holds
 * Open MPI's algorithms, else those measured in the run itself. 0, or -1
 * after error(). */
static int report_baseline(struct report *r)
{
	struct store_run b = { 0 };
	int have = r->spec ? recommend_find_run(r->st, r->spec, 1, &b) : 0;

	if (!have)
		have = recommend_find_run(r->st, NULL, 1, &b);
	if (have > 0) {
		r->base.params = r->d.params;
		if (decisions_from_db(r->db, b.id, NULL, &r->base) == 0 && r->base.nmpi)
			r->base_run = b.id;
	}
	store_run_release(&b);
	if (!r->base_run && r->d.nmpi)
		r->base_run = r->d.run;
	return have < 0 ? -1 : 0;
}

/* ---- the page ------------------------------------------------------------ */

/* s as HTML text (and attribute values); NULL as nothing. */
static void html(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

/* printf for the page: %s is escaped (html()); %d, %u, %lld and %% as
 * printf has them. The text of fmt is written as it is (it is HTML). */
__attribute__((format(printf, 2, 3))) static void htmlf(FILE *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	for (const char *p = fmt; *p; p++) {
		if (*p != '%') {
			fputc(*p, f);
		} else if (*++p == 's') {
			html(f, va_arg(ap, const char *));
		} else if (*p == 'd') {
			fprintf(f, "%d", va_arg(ap, int));
		} else if (*p == 'u') {
			fprintf(f, "%u", va_arg(ap, unsigned));
		} else if (!strncmp(p, "lld", 3)) {
			fprintf(f, "%lld", va_arg(ap, long long));
			p += 2;
		} else {
			fputc('%', f);
		}
	}
	va_end(ap);
}

/* A number as fmt has it, or a dash when it is not one. */
static void html_num(FILE *f, const char *fmt, double v)
{
	if (isfinite(v))
		fprintf(f, fmt, v);
	else
		fputs("&ndash;", f);
}

/* A table cell "[lo, hi]" (a CI). */
static void html_ci(FILE *f, double lo, double hi)
{
	fputs("<td class=\"n\">", f);
	html_num(f, "[%.1f, ", lo);
	html_num(f, "%.1f]", hi);
}

static const char report_css[] =
	"body{font-family:sans-serif;margin:2em auto;max-width:1400px;padding:0 1em;color:#222}"
	"h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}"
	"table{border-collapse:collapse;font-size:.9em}th,td{border:1px solid #ccc;padding:.3em "
	".5em;"
	"vertical-align:top;text-align:left}th{background:#f0f0f0}td.n{text-align:right}"
	"code{font-size:.85em;word-break:break-all}td.set{max-width:22em;font-size:.85em}"
	".best{color:#006d2c}.tie{color:#0072b2}.undecided{color:#d55e00}"
	"figure{display:inline-block;margin:.5em;vertical-align:top}"
	"figure img{max-width:100%;border:1px solid #ddd}figcaption{font-size:.8em}"
	"dl{display:grid;grid-template-columns:max-content auto;gap:.2em 1em}dt{font-weight:bold}";

static void page_head(FILE *f, const struct report *r)
{
	const struct store_run *u = &r->run;

	htmlf(f,
	      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<title>sweetspot report: run %lld of %s</title>\n",
	      r->d.run, u->spec_path);
	fprintf(f, "<style>%s</style>\n</head>\n<body>\n", report_css);
	htmlf(f,
	      "<h1>sweetspot report: run %lld</h1>\n<dl>\n<dt>spec</dt><dd>%s</dd>\n"
	      "<dt>database</dt><dd>%s</dd>\n<dt>measured</dt><dd>%s &ndash; %s on %s with %s "
	      "(%s)</dd>\n"
	      "<dt>written by</dt><dd>sweetspot %s; again with <code>sweetspot report --db %s "
	      "--run %lld -o DIR</code></dd>\n</dl>\n",
	      r->d.run, u->spec_path, r->db, u->started,
	      u->finished ? u->finished : "(not finished)", u->host, u->launcher, u->status,
	      SWEETSPOT_VERSION, r->db, r->d.run);
}

/* One decision's row. */
static void decision_row(FILE *f, const struct report *r, const struct offload_choice *c)
{
	const char *v = c->verdict ? c->verdict : "undecided";
	char sz[32], *cmd = NULL;
	int dt = point_has(c->key.dtype);

	htmlf(f, "<tr><td>%s%s%s%s%s</td><td class=\"n\">%s</td>", c->key.collective, dt ? " " : "",
	      dt ? c->key.dtype : "", dt ? " " : "", dt ? c->key.op : "",
	      format_size(c->key.bytes, sz, sizeof(sz)));
	htmlf(f,
	      "<td>%u worker%s (WPN %u, %s), %s, %s assignment<br><small>layout %s</small></td>"
	      "<td class=\"n\">",
	      c->workers, c->workers == 1 ? "" : "s", c->wpn, c->placement, c->key.algorithm,
	      c->key.assignment, c->layout);
	html_num(f, "%.1f%%", c->oe);
	htmlf(f, " (%u)</td><td class=\"%s\">%s</td>", c->reps, v, v);
	html_ci(f, c->ci_lo, c->ci_hi);
	fputs(c->ci_exact ?
		      "</td><td class=\"n\">" :
		      "<br><small>min&ndash;max: too few launches</small></td><td class=\"n\">",
	      f);
	html_num(f, "%.2g", c->p_value);
	htmlf(f, "</td><td class=\"set\">%u: %s</td><td>%s</td><td>", c->nindifferent,
	      c->indifferent, c->pays ? c->pays : "unclear");
	if (store_launch_command(r->st, r->d.run, c->layout, &cmd) > 0)
		htmlf(f, "<code>%s</code>", cmd);
	else
		fputs("none of its launches ended well", f);
	free(cmd);
	fputs("</td></tr>\n", f);
}

/* One row per decision (collective, size, dtype, op). */
static void page_decisions(FILE *f, const struct report *r)
{
	fputs("<h2 id=\"recommendation\">Recommendation</h2>\n<p>Per collective and size: the "
	      "cheapest "
	      "configuration not significantly worse than the best (the indifference set), the "
	      "verdict (decided on the pooled noise by Gupta's subset with Dunnett's bounds and "
	      "Welch's contrast with the leader, or by Mann-Whitney under Holm where the pooled "
	      "model's checks fail), the 95% CI of the best median offload efficiency "
	      "(the reference over the offloaded total, medians over iterations, uncapped), p of "
	      "the best against the runner-up (the t test at the pooled "
	      "noise, or Mann-Whitney under the rank rule; not adjusted for the other "
	      "configurations), and the command that measured the choice "
	      "(its last launch that ended well).</p>\n<table id=\"decisions\">\n<thead><tr>"
	      "<th>collective</th><th>size</th><th>choice</th><th>OE median (launches)</th>"
	      "<th>verdict</th><th>95% CI of the best</th><th>p</th><th>indifference set</th>"
	      "<th>offloading pays</th><th>command</th></tr></thead>\n<tbody>\n",
	      f);
	for (size_t i = 0; i < r->d.noff; i++)
		decision_row(f, r, &r->d.off[i]);
	fputs("</tbody>\n</table>\n", f);
}

static void page_figures(FILE *f, const struct report *r)
{
	fputs("<h2 id=\"figures\">Figures</h2>\n<p>Medians over the launches with their 95% CI; "
	      "ringed points are in the indifference set. Each image links to its SVG; the data "
	      "and the gnuplot script are beside them in <a href=\"figures/\">figures/</a>.</p>\n",
	      f);
	for (size_t i = 0; i < r->figures.nr; i++) {
		const char *s = r->figures.v[i];

		htmlf(f,
		      "<figure><a href=\"figures/%s.svg\"><img src=\"figures/%s.png\" "
		      "alt=\"%s\"></a>"
		      "<figcaption>%s</figcaption></figure>\n",
		      s, s, s, s);
	}
}

static void page_baseline(FILE *f, const struct report *r)
{
	const struct decisions *b = r->base_run == r->d.run ? &r->d : &r->base;

	fputs("<h2 id=\"baseline\">Baseline: Open MPI on the hosts alone</h2>\n", f);
	if (!r->base_run) {
		fputs("<p>No baseline was measured: <code>sweetspot baseline SPEC</code> measures "
		      "Open "
		      "MPI's own algorithms, for the rules files.</p>\n",
		      f);
		return;
	}
	htmlf(f,
	      "<p>Run %lld: the fastest coll/tuned algorithm per collective, communicator and "
	      "size, its median time per call with the 95%% CI.</p>\n<table "
	      "id=\"baseline-table\">\n"
	      "<thead><tr><th>collective</th><th>ranks</th><th>size</th><th>algorithm</th>"
	      "<th>median (us)</th><th>95%% CI</th><th>verdict</th><th>p</th>"
	      "<th>Open MPI's own choice (us)</th></tr></thead>\n<tbody>\n",
	      r->base_run);
	for (size_t i = 0; i < b->nmpi; i++) {
		const struct mpi_choice *m = &b->mpi[i];
		char sz[32];

		htmlf(f,
		      "<tr><td>%s</td><td class=\"n\">%u</td><td class=\"n\">%s</td><td>%s "
		      "(%d)</td>"
		      "<td class=\"n\">",
		      m->collective, m->ranks, format_size(m->bytes, sz, sizeof(sz)),
		      mpi_algorithm_name(m->collective, m->alg), m->alg);
		html_num(f, "%.1f", m->avg_us);
		fputs("</td>", f);
		html_ci(f, m->ci_lo, m->ci_hi);
		htmlf(f, "</td><td>%s</td><td class=\"n\">", m->verdict ? m->verdict : "undecided");
		html_num(f, "%.2g", m->p_value);
		fputs("</td><td class=\"n\">", f);
		html_num(f, "%.1f", m->default_us);
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody>\n</table>\n", f);
}

static void page_exports(FILE *f, const struct report *r)
{
	fputs("<h2 id=\"exports\">Exports</h2>\n<ul>\n", f);
	for (size_t i = 0; i < r->nexports; i++)
		htmlf(f, "<li><a href=\"%s\">%s</a>: %s</li>\n", r->exports[i].path,
		      r->exports[i].path, r->exports[i].what);
	fputs("</ul>\n", f);
}

static void page_launches(FILE *f, const struct report *r)
{
	fputs("<h2 id=\"launches\">Launches</h2>\n<table id=\"launches-table\">\n<thead><tr>"
	      "<th>launch</th><th>layout</th><th>repetition</th><th>status</th><th>wall (s)</th>"
	      "<th>log</th></tr></thead>\n<tbody>\n",
	      f);
	for (size_t i = 0; i < r->nlaunches; i++) {
		const struct report_launch *l = &r->launches[i];

		htmlf(f,
		      "<tr><td class=\"n\">%lld</td><td>%s</td><td class=\"n\">%d</td><td>%s</td>"
		      "<td class=\"n\">",
		      l->id, l->layout, l->repetition, l->status);
		html_num(f, "%.1f", l->wall_s);
		if (l->log)
			htmlf(f, "</td><td><a href=\"%s\">log</a></td></tr>\n", l->log);
		else
			fputs("</td><td>(no log left)</td></tr>\n", f);
	}
	fputs("</tbody>\n</table>\n", f);
}

static int write_page(void *ctx, FILE *f)
{
	const struct report *r = ctx;

	page_head(f, r);
	page_decisions(f, r);
	page_figures(f, r);
	page_baseline(f, r);
	page_exports(f, r);
	page_launches(f, r);
	fputs("</body>\n</html>\n", f);
	return ferror(f) ? -1 : 0;
}

/* The decisions and the store. 0, or the exit status. */
static int report_load(struct report *r)
{
	struct spec s = SPEC_INIT;

	if (r->spec) {
		if (spec_load(r->spec, &s))
			return EXIT_USAGE;
		r->d.params = recommend_spec_params(&s);
		spec_release(&s);
	}
	if (decisions_from_db(r->db, r->run_id, r->spec, &r->d))
		return EXIT_USAGE;
	if (!decisions_has_offload(&r->d, NULL)) {
		error("report: %s run %lld holds no offloaded measurement", r->db, r->d.run);
		return EXIT_USAGE;
	}
	if (store_open(r->db, STORE_RDONLY, &r->st) || store_get_run(r->st, r->d.run, &r->run) <= 0)
		return 1;
	return 0;
}

static void report_free(struct report *r)
{
	for (size_t i = 0; i < r->nexports; i++)
		free(r->exports[i].path);
	for (size_t i = 0; i < r->nlaunches; i++) {
		free(r->launches[i].layout);
		free(r->launches[i].status);
		free(r->launches[i].log);
	}
	free(r->launches);
	strvec_clear(&r->figures);
	store_run_release(&r->run);
	store_close(r->st);
	decisions_release(&r->base);
	decisions_release(&r->d);
}

int report_write(const struct report_opts *o, char **page)
{
	struct report r = { .db = o->db,
			    .spec = o->spec,
			    .dir = o->dir,
			    .run_id = o->run_id,
			    .d = DECISIONS_INIT,
			    .base = DECISIONS_INIT,
			    .figures = STRVEC_INIT };
	char *path = NULL, *abs;
	int status;

	*page = NULL;
	if ((status = report_load(&r)) != 0)
		goto out;
	status = 1;
	if (files_mkdir_p(r.dir) || report_figures(&r) || report_baseline(&r) ||
	    report_exports(&r) || report_launches(&r))
		goto out;
	path = xasprintf("%s/index.html", r.dir);
	if (files_write_atomic(path, write_page, &r))
		goto out;
	abs = realpath(path, NULL);
	*page = abs ? abs : xstrdup(path);
	status = 0;
out:
	free(path);
	report_free(&r);
	return status;
}
