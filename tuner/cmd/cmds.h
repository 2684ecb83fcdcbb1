/*
 * tuner/cmd/cmds.h: the sweetspot subcommands. Each cmd_<name>() takes the
 * arguments after the subcommand name (argv[0] is the subcommand), reads its
 * options through tuner/cmd/cli.h (one table gives the parser and --help), and
 * returns the exit status: 0 success, 1 failure, 2 bad usage or input.
 * A new command: its cmd_<name>() here and a line in main.c's table.
 */
#ifndef SWEETSPOT_CMDS_H
#define SWEETSPOT_CMDS_H

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

/* The table main() dispatches from and `sweetspot --help` lists, ending
 * with a NULL name. */
extern const struct command commands[];

int cmd_init(int argc, char **argv);	 /* cmd_init.c */
int cmd_plan(int argc, char **argv);	 /* cmd_plan.c (plan module) */
int cmd_generate(int argc, char **argv); /* cmd_generate.c (plan module) */
int cmd_run(int argc, char **argv);
int cmd_results(int argc, char **argv);
int cmd_submit(int argc, char **argv);
int cmd_search(int argc, char **argv);	  /* cmd_search.c (search module) */
int cmd_export(int argc, char **argv);	  /* cmd_export.c (search module) */
int cmd_recommend(int argc, char **argv); /* cmd_recommend.c (search module) */
int cmd_plot(int argc, char **argv);	  /* cmd_plot.c (search module) */
int cmd_report(int argc, char **argv);	  /* cmd_report.c (search module) */
int cmd_baseline(int argc, char **argv);  /* cmd_baseline.c (search module) */
int cmd_verify(int argc, char **argv);	  /* cmd_verify.c */
int cmd_model(int argc, char **argv);	  /* cmd_model.c (model module) */

#endif
