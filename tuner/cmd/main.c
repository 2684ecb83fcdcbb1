/*
 * tuner/cmd/main.c: the sweetspot command. A flat table of subcommands with
 * exact-match dispatch, which also writes `sweetspot --help`; one runner
 * that checks stdout really was written. Each command reads its own
 * options (tuner/cmd/cli.h).
 */
#include "cmds.h"
#include "error.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Subcommands: add new ones here, in the order of the workflow. */
const struct command commands[] = {
	{ "init", cmd_init, "write a starting sweep spec for this machine or Slurm allocation" },
	{ "plan", cmd_plan, "show the layouts and points a sweep spec expands to" },
	{ "generate", cmd_generate, "write the hostfiles and MPMD files of every layout" },
	{ "run", cmd_run, "measure a spec's plan, one launch per layout, and store every point" },
	{ "submit", cmd_submit,
	  "run the sweep as Slurm batch jobs (sbatch), in chunks that resume" },
	{ "results", cmd_results, "print the measurements of a run (table, CSV, JSON)" },
	{ "search", cmd_search, "find the best layouts with fewer launches than the full grid" },
	{ "recommend", cmd_recommend,
	  "the best configuration per collective and size band, and how to launch it" },
	{ "baseline", cmd_baseline,
	  "measure Open MPI's own algorithms on the hosts alone (for the rules)" },
	{ "model", cmd_model,
	  "calibrate from a few launches; predict, check or extrapolate every point" },
	{ "export", cmd_export,
	  "write the decisions as Open MPI rules, UCC, env, MPMD files or a profile" },
	{ "verify", cmd_verify,
	  "A/B the exported settings on your own MPI program, with proof they applied" },
	{ "plot", cmd_plot, "draw offload efficiency and runtime figures (PNG, SVG) with gnuplot" },
	{ "report", cmd_report,
	  "one static HTML page of a run: recommendations, figures, exports, logs" },
	{ NULL, NULL, NULL },
};

static void usage(FILE *f)
{
	fputs("usage: sweetspot [--version] [--help] COMMAND [ARGS]\n"
	      "       sweetspot help COMMAND\n\n"
	      "Find how many worker processes to put on SmartNICs (DPUs) or onload\n"
	      "cores, and how to spread the work among them, by measuring.\n\n"
	      "Commands:\n",
	      f);
	for (const struct command *c = commands; c->name; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->summary);
	fputs("\n'sweetspot COMMAND --help' describes one command.\n", f);
}

static const struct command *find_command(const char *name)
{
	for (const struct command *c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	error("'%s' is not a command; see 'sweetspot --help'", name);
	return NULL;
}

int main(int argc, char **argv)
{
	const struct command *c;
	char *help_argv[] = { NULL, "--help", NULL }, **args = argv + 1;
	int nargs = argc - 1, status;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("sweetspot %s\n", SWEETSPOT_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    (!strcmp(argv[1], "help") && argc != 3)) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "help")) {
		/* `sweetspot help plan` is `sweetspot plan --help`. */
		help_argv[0] = argv[2];
		args = help_argv;
		nargs = 2;
	}
	c = find_command(args[0]);
	if (!c)
		return EXIT_USAGE;
	status = c->fn(nargs, args);
	/* A full disk or a closed pipe must not pass for success. */
	if (fflush(stdout) || ferror(stdout)) {
		if (errno != EPIPE)
			error("cannot write standard output: %s", strerror(errno));
		return status ? status : 1;
	}
	return status;
}
