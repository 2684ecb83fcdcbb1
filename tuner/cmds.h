/*
 * tuner/cmds.h: the sweetspot subcommands. Each cmd_<name>() takes the
 * arguments after the subcommand name (argv[0] is the subcommand) and returns
 * the exit status: 0 success, 1 failure, 2 bad usage or input.
 */
#ifndef SWEETSPOT_CMDS_H
#define SWEETSPOT_CMDS_H

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

/* The table main() dispatches from, ending with a NULL name. */
extern const struct command commands[];

int cmd_plan(int argc, char **argv);		/* cmd_plan.c (plan module) */
int cmd_generate(int argc, char **argv);	/* cmd_generate.c (plan module) */
int cmd_run(int argc, char **argv);
int cmd_results(int argc, char **argv);
int cmd_submit(int argc, char **argv);
int cmd_search(int argc, char **argv);		/* cmd_search.c (search module) */
int cmd_export(int argc, char **argv);		/* cmd_export.c (search module) */
int cmd_recommend(int argc, char **argv);	/* cmd_recommend.c (search module) */
int cmd_plot(int argc, char **argv);		/* cmd_plot.c (search module) */
int cmd_baseline(int argc, char **argv);	/* cmd_baseline.c (search module) */

#endif
