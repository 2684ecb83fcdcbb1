/*
 * common/error.h: how the tuner reports. Library code calls error() (prints
 * "sweetspot: <message>" to stderr and returns -1) and passes -1 up; only
 * main() and cmd_*() decide the exit status. Exit statuses are the contract
 * of every command: 0 success, 1 failure, 2 bad usage or bad input.
 */
#ifndef SWEETSPOT_ERROR_H
#define SWEETSPOT_ERROR_H

#define EXIT_USAGE 2

#if defined(__GNUC__)
#define SS_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define SS_PRINTF(a, b)
#endif

int error(const char *fmt, ...) SS_PRINTF(1, 2);
void warning(const char *fmt, ...) SS_PRINTF(1, 2);
/* The program name used in messages (default "sweetspot"). */
void error_set_prog(const char *name);

#endif
