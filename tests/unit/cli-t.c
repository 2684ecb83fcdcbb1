/*
 * tests/unit/cli-t.c: the command-line framework. One table of options
 * gives what getopt_long accepts (long and short names, arguments,
 * operands in any order, "--") and what --help prints; bad usage is
 * reported as CLI_BAD, never as an option.
 */
#include "cli.h"
#include "tap.h"

enum { OPT_DB, OPT_JSON, OPT_OUTPUT, OPT_RUN, OPT_RULES, NOPTS };

static const struct cli_option options[NOPTS + 1] = {
	[OPT_DB] = { "db", 0, "FILE", "the database" },
	[OPT_JSON] = { "json", 'j', NULL, "JSON" },
	[OPT_OUTPUT] = { "output", 'o', "DIR", "where to\nwrite" },
	[OPT_RUN] = { "run", 0, "ID", "a run" },
	[OPT_RULES] = { "rules", 0, "PATH", "a rules file whose help is long enough" },
	[NOPTS] = { NULL, 0, NULL, NULL },
};

static const struct cli_command cmd = {
	"demo", "SPEC [--db FILE]\n[--json]", "What demo does.", options, "Exit status: 0.",
};

/* What one parse gave. */
struct seen {
	const char *db, *output;
	int json;
	uint64_t run;
	int noperands;
	char *first;
};

/* Parses a NULL-ended argv into *s. Returns CLI_END or CLI_BAD. */
static int parse(struct seen *s, char **argv)
{
	struct cli c;
	int argc = 0, o;

	memset(s, 0, sizeof(*s));
	while (argv[argc])
		argc++;
	cli_begin(&c, &cmd, argc, argv);
	while ((o = cli_next(&c)) >= 0) {
		switch (o) {
		case OPT_DB:
			s->db = c.arg;
			break;
		case OPT_JSON:
			s->json++;
			break;
		case OPT_OUTPUT:
			s->output = c.arg;
			break;
		case OPT_RUN:
			if (cli_uint(&c, 1, 100, &s->run))
				return CLI_BAD;
			break;
		}
	}
	if (o == CLI_END) {
		s->noperands = c.noperands;
		s->first = c.noperands ? c.operands[0] : NULL;
	}
	return o;
}

int main(void)
{
	struct seen s;
	static const char head[] =
		"usage: sweetspot demo SPEC [--db FILE]\n"
		"                      [--json]\n\nWhat demo does.\n\nOptions:\n";
	char buf[4096];
	FILE *f;
	size_t n;

	plan(23);
	{
		char *av[] = { "demo", "spec.cfg", "--db", "x.db", "-jo", "out", "--run=7", NULL };

		is_int(parse(&s, av), CLI_END, "options after the operand, short ones bundled");
		is_str(s.db, "x.db", "--db VALUE");
		is_str(s.output, "out", "-o VALUE after a bundled -j");
		is_int(s.json, 1, "-j");
		is_int((long long)s.run, 7, "--run=VALUE, a number");
		is_int(s.noperands, 1, "one operand");
		is_str(s.first, "spec.cfg", "the operand");
	}
	{
		char *av[] = { "demo", "--output", "d", "--js", "--", "--db", NULL };

		is_int(parse(&s, av), CLI_END, "a unique prefix, and --");
		is_int(s.json, 1, "--js is --json");
		is_str(s.first, "--db", "after --, an option's name is an operand");
	}
	{
		char *bad_unknown[] = { "demo", "--jsn", NULL };
		char *bad_short[] = { "demo", "-x", NULL };
		char *bad_missing[] = { "demo", "--db", NULL };
		char *bad_missing_short[] = { "demo", "-o", NULL };
		char *bad_empty[] = { "demo", "--db", "", NULL };
		char *bad_value[] = { "demo", "--json=1", NULL };
		char *bad_ambiguous[] = { "demo", "--r", "1", NULL };
		char *bad_number[] = { "demo", "--run", "0", NULL };

		is_int(parse(&s, bad_unknown), CLI_BAD, "an unknown long option");
		is_int(parse(&s, bad_short), CLI_BAD, "an unknown short option");
		is_int(parse(&s, bad_missing), CLI_BAD, "a missing value");
		is_int(parse(&s, bad_missing_short), CLI_BAD, "a missing value of a short option");
		is_int(parse(&s, bad_empty), CLI_BAD, "an empty value");
		is_int(parse(&s, bad_value), CLI_BAD, "a value to an option that takes none");
		is_int(parse(&s, bad_ambiguous), CLI_BAD, "a prefix of two options");
		is_int(parse(&s, bad_number), CLI_BAD, "a number out of range");
	}
	is_int(cli_status(CLI_HELP), 0, "--help exits 0");
	is_int(cli_status(CLI_BAD), EXIT_USAGE, "bad usage exits 2");

	f = tmpfile();
	cli_help(&cmd, f);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	ok(!strncmp(buf, head, strlen(head)),
	   "usage, synopsis continued under itself, about, then the options");
	ok(strstr(buf, "\n      --db FILE         the database\n"
		       "  -j, --json            JSON\n"
		       "  -o, --output DIR      where to\n"
		       "                        write\n") != NULL,
	   "each option from the table, short letter first, help lines aligned");
	ok(strstr(buf, "\n  -h, --help            this text\n\nExit status: 0.\n") != NULL,
	   "--help listed by cli, then the epilog");
	done_testing();
}
