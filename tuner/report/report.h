/*
 * tuner/report/report.h: `sweetspot report` as one call: a sweep's answer
 * written as one static page, DIR/index.html, that opens from the file
 * system and can be sent as a folder (report.c), with its figures
 * (plot.h), the exports (export_run()) and the launches' logs beside it.
 */
#ifndef SWEETSPOT_REPORT_H
#define SWEETSPOT_REPORT_H

/* What to report. Strings are borrowed. */
struct report_opts {
	const char *db;	  /* the results database */
	const char *spec; /* NULL: none; else the run is its latest, and it sets how
			   * decisions are made (alpha, deltas) */
	const char *dir;  /* where the page goes (created) */
	long long run_id; /* a run other than the latest; 0: the latest */
};

/* Writes the page of o into o->dir. Returns the exit status: 0 written
 * (*page: index.html's path, absolute where it can be; the caller frees
 * it), 1 a file or gnuplot failed, 2 bad input (*page NULL). */
int report_write(const struct report_opts *o, char **page);

#endif
