/*
 * tuner/cmd/cli.h: how a sweetspot command reads its command line. A command
 * declares one table of options (long name, short letter, metavar, help)
 * and its synopsis; getopt_long's struct option[] and optstring are built
 * from that table, and so is the command's --help text, so what --help
 * says and what the parser accepts cannot drift apart. Every command gets
 * -h/--help (usage on stdout, exit 0) and the same bad-usage report:
 * "sweetspot COMMAND: <what>" and a pointer to --help, exit 2.
 *
 * How a command adopts it (cmd_plan.c is a short example):
 *
 *   1. An enum of its options and the table, indexed by that enum so that
 *      the order cannot go wrong; -h/--help is added by cli, not listed:
 *
 *        enum { OPT_DB, OPT_JSON, NOPTS };
 *        static const struct cli_option opts[NOPTS + 1] = {
 *            [OPT_DB]   = { "db", 0, "FILE", "results database (default ...)" },
 *            [OPT_JSON] = { "json", 'j', NULL, "one JSON object" },
 *            [NOPTS]    = { NULL, 0, NULL, NULL },
 *        };
 *        static const struct cli_command cli = {
 *            "plan", "SPEC [--json]", "What it does, a paragraph.", opts,
 *            "Exit status: 0 success, 2 bad usage or input.",
 *        };
 *
 *   2. The loop; cli.arg is the current option's argument:
 *
 *        struct cli c;
 *        int o;
 *
 *        cli_begin(&c, &cli, argc, argv);
 *        while ((o = cli_next(&c)) >= 0)
 *            switch (o) {
 *            case OPT_DB: db = c.arg; break;
 *            case OPT_JSON: json = 1; break;
 *            }
 *        if (o != CLI_END)
 *            return cli_status(o);
 *        if (cli_operands(&c, 1, 1, "SPEC"))
 *            return EXIT_USAGE;
 *        path = c.operands[0];
 *
 *   3. Bad values of options: cli_uint() for numbers, cli_usage_error()
 *      for anything else; both print and return -1, the command returns
 *      EXIT_USAGE. Delete the command's own usage function.
 *
 *   main.c's table of commands needs no change. For run, search and
 *   baseline, which parse with getopt_long already: each entry of their
 *   struct option[] becomes a cli_option (required_argument: a metavar),
 *   the lines of their usage text become the help strings, and the
 *   switch on the short letter becomes a switch on the enum.
 */
#ifndef SWEETSPOT_CLI_H
#define SWEETSPOT_CLI_H

#include "error.h"

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

/* The most options one command may declare (besides --help). */
#define CLI_MAX_OPTIONS 31

struct cli_option {
	const char *name;    /* the long name, without "--" */
	int letter;	     /* the short letter, or 0 for none */
	const char *metavar; /* the argument's name in the help; NULL: takes none */
	const char *help;    /* what it does; '\n' starts another line */
};

struct cli_command {
	const char *name;		  /* "plan": messages say "sweetspot plan: ..." */
	const char *synopsis;		  /* after "usage: sweetspot NAME "; '\n' continues it */
	const char *about;		  /* the paragraph under the usage line; may be NULL */
	const struct cli_option *options; /* ends with a NULL name */
	const char *epilog;		  /* after the options (exit statuses); may be NULL */
};

/* cli_next() results other than an option's index. */
#define CLI_END	 (-1) /* every option read: the operands are in operands[] */
#define CLI_HELP (-2) /* --help was printed on stdout: the command exits 0 */
/* The --db option most commands share, its default written once (store.h's
 * STORE_DEFAULT_PATH): [OPT_DB] = CLI_OPTION_DB. */
#define CLI_OPTION_DB                                                                \
	{                                                                            \
		"db", 0, "FILE", "results database (default " STORE_DEFAULT_PATH ")" \
	}

#define CLI_BAD (-3) /* bad usage was reported: the command exits EXIT_USAGE */

/* One parse: getopt_long's tables built from the command's, in place (no
 * allocation, nothing to release). */
struct cli {
	const struct cli_command *cmd;
	int argc;
	char **argv;
	struct option longopts[CLI_MAX_OPTIONS + 2];
	char optstring[3 * (CLI_MAX_OPTIONS + 1) + 2];
	int current;	 /* the index of the option cli_next() returned last */
	const char *arg; /* its argument; NULL for an option that takes none */
	char **operands; /* after CLI_END: the arguments that are not options */
	int noperands;
};

/* Prepares to parse argv (argv[0] is the command's name). */
void cli_begin(struct cli *c, const struct cli_command *cmd, int argc, char **argv);
/* The index in cmd->options of the next option given, with c->arg set;
 * or CLI_END, CLI_HELP (help printed) or CLI_BAD (reported). An empty
 * argument ("--db ''") is bad usage: no option of ours means anything by
 * it. Options and operands may come in any order ("SPEC --json" too); "--"
 * ends the options. A long option may be shortened to a unique prefix. */
int cli_next(struct cli *c);

/* The exit status for CLI_HELP (0) and CLI_BAD (EXIT_USAGE). */
int cli_status(int r);

/* Checks that between min and max operands (max < 0: any number) were
 * given; what names them in the message ("SPEC"). 0, or -1 after a report. */
int cli_operands(struct cli *c, int min, int max, const char *what);

/* c->arg as a number in [min, max], into *out. 0, or -1 after a report
 * naming the option ("sweetspot results: --run: ..."). */
int cli_uint(const struct cli *c, uint64_t min, uint64_t max, uint64_t *out);

/* Reports bad usage: "sweetspot NAME: <message>" and where --help is, on
 * stderr. Returns -1. */
int cli_usage_error(const struct cli_command *cmd, const char *fmt, ...) SS_PRINTF(2, 3);

/* The --help text. */
void cli_help(const struct cli_command *cmd, FILE *f);

#endif
