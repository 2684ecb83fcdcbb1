/*
 * common/error.c: the one place every message of the tuner and launch are printed.
 */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>

static const char *prog = "sweetspot";

void error_set_prog(const char *name)
{
	prog = name;
}

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "%s: warning: ", prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}
