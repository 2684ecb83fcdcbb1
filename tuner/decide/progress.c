/*
 * tuner/decide/progress.c: progress of a sweep, for people (see progress.h). The ETA
 * uses only the launches this invocation ran, because resumed launches took
 * no time here and would make the estimate far too hopeful.
 */
#include "progress.h"

#include <stdio.h>
#include <time.h>

double progress_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void progress_init(struct progress *p, FILE *f, int tty, long layouts, long reps)
{
	*p = (struct progress){ 0 };
	p->f = f;
	p->tty = tty;
	p->reps = reps > 0 ? reps : 1;
	p->total = layouts * p->reps;
	p->start = progress_now();
}

static void fmt_duration(char *buf, size_t len, double s)
{
	long t = (long)(s + 0.5);

	if (s < 0)
		snprintf(buf, len, "?");
	else if (t >= 3600)
		snprintf(buf, len, "%ldh%02ldm", t / 3600, t / 60 % 60);
	else if (t >= 60)
		snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
	else
		snprintf(buf, len, "%lds", t);
}

double progress_eta(const struct progress *p)
{
	if (!p->ran || p->done > p->total)
		return -1;
	return (progress_now() - p->start) / (double)p->ran * (double)(p->total - p->done);
}

void progress_budget(struct progress *p, long launches)
{
	p->total = launches;
	p->reps = 1;
	p->budget = 1;
}

static void status_line(struct progress *p, const char *now)
{
	char el[32], eta[32];

	fmt_duration(el, sizeof(el), progress_now() - p->start);
	fmt_duration(eta, sizeof(eta), progress_eta(p));
	if (p->budget)
		fprintf(p->f,
			"\r\033[K[%ld/%ld launches of the search's budget] %ld points, %ld failed, "
			"elapsed %s, ETA %s%s%s",
			p->done, p->total, p->points, p->failed, el, eta, now ? "  " : "",
			now ? now : "");
	else if (p->done > p->total)
		fprintf(p->f,
			"\r\033[K[%ld/%ld layouts, %ld/%ld launches +%ld racing] %ld points, "
			"%ld failed, elapsed %s%s%s",
			p->total / p->reps, p->total / p->reps, p->total, p->total,
			p->done - p->total, p->points, p->failed, el, now ? "  " : "",
			now ? now : "");
	else
		fprintf(p->f,
			"\r\033[K[%ld/%ld layouts, %ld/%ld launches] %ld points, %ld failed, "
			"elapsed %s, ETA %s%s%s",
			p->done / p->reps, p->total / p->reps, p->done, p->total, p->points,
			p->failed, el, eta, now ? "  " : "", now ? now : "");
	fflush(p->f);
	p->line_open = 1;
}

void progress_skip(struct progress *p)
{
	p->done++;
	p->skipped++;
}

void progress_start(struct progress *p, const char *layout, int repetition)
{
	char now[160];

	if (!p->tty)
		return;
	snprintf(now, sizeof(now), "running %s r%d", layout, repetition);
	status_line(p, now);
}

void progress_done(struct progress *p, const char *layout, int repetition, long points,
		   double seconds, const char *failure)
{
	char el[32], eta[32];

	p->done++;
	p->ran++;
	p->points += points;
	p->run_time += seconds;
	if (failure)
		p->failed++;
	if (p->tty) {
		/* Failures stay on the screen; successes only move the line. */
		if (failure) {
			fprintf(p->f, "\r\033[K%s r%d: FAILED: %s\n", layout, repetition, failure);
			p->line_open = 0;
		}
		status_line(p, NULL);
		return;
	}
	fmt_duration(el, sizeof(el), progress_now() - p->start);
	fmt_duration(eta, sizeof(eta), progress_eta(p));
	if (p->done > p->total)
		/* Racing beyond the plan: launches until the verdicts or the
		 * spec's max_repetitions, a count nobody knows in advance. */
		fprintf(p->f,
			"[%ld/%ld +%ld racing] %s r%d: %s, %ld points in %.1fs (elapsed %s)\n",
			p->total, p->total, p->done - p->total, layout, repetition,
			failure ? failure : "ok", points, seconds, el);
	else
		fprintf(p->f, "[%ld/%ld] %s r%d: %s, %ld points in %.1fs (elapsed %s, ETA %s)\n",
			p->done, p->total, layout, repetition, failure ? failure : "ok", points,
			seconds, el, eta);
	fflush(p->f);
}

void progress_landing(struct progress *p, const char *layout, int repetition, long got, long want,
		      double seconds)
{
	char el[32], now[200];

	fmt_duration(el, sizeof(el), seconds);
	if (p->tty) {
		snprintf(now, sizeof(now), "running %s r%d: %ld of %ld points after %s", layout,
			 repetition, got, want, el);
		status_line(p, now);
		return;
	}
	fprintf(p->f, "[%ld/%ld] %s r%d: running, %ld of %ld points after %s\n", p->done + 1,
		p->total, layout, repetition, got, want, el);
	fflush(p->f);
}

void progress_note(struct progress *p, const char *line)
{
	if (p->tty) {
		fprintf(p->f, "\r\033[K%s\n", line);
		p->line_open = 0;
		status_line(p, NULL);
		return;
	}
	fprintf(p->f, "%s\n", line);
	fflush(p->f);
}

void progress_finish(struct progress *p)
{
	if (p->tty && p->line_open) {
		fputc('\n', p->f);
		fflush(p->f);
	}
	p->line_open = 0;
}
