/*
 * tests/lib/tap.h: the Test Anything Protocol for our C unit tests. Debian 12
 * ships no C TAP library, so this is ours: plan(), ok(), is_int(), is_str(),
 * skip(), diag() and done_testing(), printing TAP version 12 for prove.
 * Header-only; each test program includes it once.
 */
#ifndef SWEETSPOT_TAP_H
#define SWEETSPOT_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tap_state {
	int planned;
	int run;
	int failed;
};

static struct tap_state tap_ = { -1, 0, 0 };

static inline void plan(int n)
{
	tap_.planned = n;
	printf("1..%d\n", n);
	fflush(stdout);
}

static inline void diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("# ", stdout);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	va_end(ap);
	fflush(stdout);
}

static inline int tap_result_(int pass, const char *file, int line, const char *fmt, va_list ap)
{
	tap_.run++;
	if (!pass)
		tap_.failed++;
	printf("%sok %d - ", pass ? "" : "not ", tap_.run);
	vprintf(fmt, ap);
	putchar('\n');
	if (!pass)
		printf("#   failed at %s:%d\n", file, line);
	fflush(stdout);
	return pass;
}

static inline int ok_at_(int pass, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = tap_result_(pass, file, line, fmt, ap);
	va_end(ap);
	return r;
}

#define ok(cond, ...) ok_at_(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

static inline int is_int_at_(long long got, long long want, const char *file, int line,
			     const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = tap_result_(got == want, file, line, fmt, ap);
	va_end(ap);
	if (!r)
		printf("#        got: %lld\n#   expected: %lld\n", got, want);
	return r;
}

#define is_int(got, want, ...) \
	is_int_at_((long long)(got), (long long)(want), __FILE__, __LINE__, __VA_ARGS__)

static inline int is_str_at_(const char *got, const char *want, const char *file, int line,
			     const char *fmt, ...)
{
	va_list ap;
	int pass = got && want ? strcmp(got, want) == 0 : got == want;
	int r;

	va_start(ap, fmt);
	r = tap_result_(pass, file, line, fmt, ap);
	va_end(ap);
	if (!r)
		printf("#        got: '%s'\n#   expected: '%s'\n", got ? got : "(null)",
		       want ? want : "(null)");
	return r;
}

#define is_str(got, want, ...) is_str_at_((got), (want), __FILE__, __LINE__, __VA_ARGS__)

static inline void skip(const char *why)
{
	tap_.run++;
	printf("ok %d # skip %s\n", tap_.run, why);
	fflush(stdout);
}

/* Returns the exit status for main(): nonzero when a test failed or the
 * count differs from the plan. */
static inline int done_testing(void)
{
	if (tap_.planned < 0) {
		printf("1..%d\n", tap_.run);
		tap_.planned = tap_.run;
	}
	if (tap_.run != tap_.planned)
		diag("planned %d tests but ran %d", tap_.planned, tap_.run);
	return tap_.failed || tap_.run != tap_.planned;
}

#endif
