/*
 * tuner/verify/verify_args.h: what a verify is asked: the command line's
 * choices, which the spec's verify group completes (verify_run.c) and the
 * batch job spells out again (verify_sbatch.c).
 */
#ifndef SWEETSPOT_VERIFY_ARGS_H
#define SWEETSPOT_VERIFY_ARGS_H

#include "strvec.h"

/* The choices: the command line's, the spec's verify group filling what it
 * leaves out (verify_run() does). Strings are borrowed, but figures. */
struct verify_args {
	const char *path, *db, *export, *launcher, *metric;
	int higher, json, dry;
	struct strvec figures; /* --figures, or the spec's; empty: every figure */
	char **cmd;	       /* COMMAND ARGS..., or NULL */
	int ncmd;
	int cmd_line; /* the spec's line when the command is its verify group's */
};

#endif
