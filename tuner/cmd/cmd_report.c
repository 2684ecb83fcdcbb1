/*
 * tuner/cmd/cmd_report.c: `sweetspot report -o DIR [--db FILE] [--run ID]
 * [SPEC]`: a sweep's answer on one static page, DIR/index.html, that opens
 * from the file system and can be sent as a folder. Its options, one
 * report_write() (tuner/report/report.c makes the page), and the page's
 * path printed.
 */
#include "cli.h"
#include "cmds.h"
#include "error.h"
#include "report.h"
#include "store.h"

#include <stdio.h>
#include <stdlib.h>

enum { OPT_DB, OPT_RUN, OPT_OUTPUT, NOPTS };

static const struct cli_option report_options[NOPTS + 1] = {
	[OPT_DB] = CLI_OPTION_DB,
	[OPT_RUN] = { "run", 0, "ID", "a run other than the latest (of SPEC when given)" },
	[OPT_OUTPUT] = { "output", 'o', "DIR", "where the page goes (created): DIR/index.html" },
	[NOPTS] = { NULL, 0, NULL, NULL },
};

static const struct cli_command report_cli = {
	"report",
	"-o DIR [--db FILE] [--run ID] [SPEC]",
	"Writes one static HTML page, DIR/index.html, with a sweep's answer: the\n"
	"recommendation table (per collective and size: the choice, its verdict,\n"
	"the 95% CI of the best median, p against the runner-up, the indifference\n"
	"set and the exact command that measured it), the figures of 'sweetspot\n"
	"plot' (DIR/figures), the Open MPI baseline when one was measured, the\n"
	"exports written into DIR/export (a profile, env, and with a baseline the\n"
	"Open MPI rules; with SPEC the MPMD files), and every launch with a copy\n"
	"of its log (DIR/logs). The page uses no script and fetches nothing: it\n"
	"opens from the file system and the folder can be sent as it is. The run\n"
	"is the latest of SPEC when given, else the latest one; SPEC also sets how\n"
	"decisions are made (alpha, deltas), as for 'sweetspot recommend'.",
	report_options,
	"Exit status: 0 written, 1 a file or gnuplot failed, 2 bad usage or input.",
};

/* CLI_END when the command goes on, else CLI_HELP or CLI_BAD. */
static int report_args(int argc, char **argv, struct report_opts *r)
{
	struct cli c;
	uint64_t v;
	int o;

	cli_begin(&c, &report_cli, argc, argv);
	while ((o = cli_next(&c)) >= 0) {
		switch (o) {
		case OPT_DB:
			r->db = c.arg;
			break;
		case OPT_OUTPUT:
			r->dir = c.arg;
			break;
		case OPT_RUN:
			if (cli_uint(&c, 1, 1ull << 62, &v))
				return CLI_BAD;
			r->run_id = (long long)v;
			break;
		}
	}
	if (o != CLI_END)
		return o;
	if (cli_operands(&c, 0, 1, "SPEC"))
		return CLI_BAD;
	r->spec = c.noperands ? c.operands[0] : NULL;
	if (!r->dir) {
		cli_usage_error(&report_cli, "where to? give -o DIR");
		return CLI_BAD;
	}
	return CLI_END;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = { .db = STORE_DEFAULT_PATH };
	char *page = NULL;
	int status = report_args(argc, argv, &o);

	if (status != CLI_END)
		return cli_status(status);
	status = report_write(&o, &page);
	if (!status)
		printf("report: %s\n", page);
	free(page);
	return status;
}
