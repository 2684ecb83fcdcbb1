/*
 * tuner/cmd/cli.c: one command's command line read with getopt_long, from the
 * command's own table of options; the same table writes its --help. Usage
 * errors are printed here, as "sweetspot COMMAND: ...", because they are
 * the command's and not the library's (error() says only "sweetspot:").
 */
#include "cli.h"
#include "error.h"
#include "parse.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* getopt_long's value for an option without a short letter: past any char. */
#define CLI_LONG_ONLY 0x100

/* The help option every command has; not in the commands' tables. */
static const struct cli_option help_option = { "help", 'h', NULL, "this text" };

static int option_count(const struct cli_command *cmd)
{
	int n = 0;

	while (cmd->options && cmd->options[n].name)
		n++;
	return n;
}

static void add_option(struct cli *c, int i, const struct cli_option *o, size_t *len)
{
	c->longopts[i] = (struct option){ o->name, o->metavar ? required_argument : no_argument,
					  NULL, o->letter ? o->letter : CLI_LONG_ONLY + i };
	if (o->letter) {
		c->optstring[(*len)++] = (char)o->letter;
		if (o->metavar)
			c->optstring[(*len)++] = ':';
	}
}

void cli_begin(struct cli *c, const struct cli_command *cmd, int argc, char **argv)
{
	int n = option_count(cmd);
	size_t len = 0;

	memset(c, 0, sizeof(*c));
	c->cmd = cmd;
	c->argc = argc;
	c->argv = argv;
	c->current = -1;
	/* ':' first: a missing argument is ':' and not '?', so we can say which. */
	c->optstring[len++] = ':';
	if (n > CLI_MAX_OPTIONS)
		n = CLI_MAX_OPTIONS; /* cli_next() refuses to parse: a bug, not usage */
	for (int i = 0; i < n; i++)
		add_option(c, i, &cmd->options[i], &len);
	add_option(c, n, &help_option, &len);
	c->optstring[len] = '\0';
	/* longopts[n + 1] stays zero: the end of getopt_long's table. */
}

/* The index of the option getopt_long returned as val. */
static int option_index(const struct cli *c, int val)
{
	for (int i = 0; c->longopts[i].name; i++)
		if (c->longopts[i].val == val)
			return i;
	return -1;
}

/* How the user spelt the option that went wrong, for the message. */
static void report_unknown(const struct cli *c, const char *text)
{
	char names[256] = "";
	size_t len = 0, plen;
	int matches = 0;

	if (strncmp(text, "--", 2) || !text[2])
		goto unknown;
	plen = strcspn(text + 2, "=");
	for (int i = 0; c->longopts[i].name; i++)
		if (!strncmp(c->longopts[i].name, text + 2, plen)) {
			matches++;
			if (len < sizeof(names))
				len += (size_t)snprintf(names + len, sizeof(names) - len, "%s--%s",
							matches > 1 ? ", " : "",
							c->longopts[i].name);
		}
	if (matches > 1) {
		cli_usage_error(c->cmd, "'%.*s' is short for more than one option (%s)",
				(int)(plen + 2), text, names);
		return;
	}
unknown:
	cli_usage_error(c->cmd, "unknown option '%s'", text);
}

static int bad_option(struct cli *c, int r)
{
	const char *text = optind > 0 && optind <= c->argc ? c->argv[optind - 1] : "?";
	int i = optopt ? option_index(c, optopt) : -1;
	char letter[3] = { '-', (char)optopt, '\0' };

	if (r == ':') {
		if (i >= 0)
			cli_usage_error(c->cmd, "--%s needs a value (%s)", c->longopts[i].name,
					c->cmd->options[i].metavar);
		else
			cli_usage_error(c->cmd, "%s needs a value", text);
	} else if (optopt && optopt < CLI_LONG_ONLY && i < 0) {
		cli_usage_error(c->cmd, "unknown option '%s'", letter);
	} else if (i >= 0) {
		/* A long option that takes no value, given one (--json=1). */
		cli_usage_error(c->cmd, "--%s takes no value ('%s')", c->longopts[i].name, text);
	} else {
		report_unknown(c, text);
	}
	return CLI_BAD;
}

int cli_next(struct cli *c)
{
	int r, i;

	if (option_count(c->cmd) > CLI_MAX_OPTIONS) {
		error("internal: %s declares more than %d options", c->cmd->name, CLI_MAX_OPTIONS);
		return CLI_BAD;
	}
	if (c->current == -1) {
		/* getopt keeps its state in globals: start over for this argv. */
		optind = 0;
		opterr = 0;
	}
	r = getopt_long(c->argc, c->argv, c->optstring, c->longopts, NULL);
	if (r == -1) {
		c->operands = c->argv + optind;
		c->noperands = c->argc - optind;
		return CLI_END;
	}
	if (r == '?' || r == ':')
		return bad_option(c, r);
	i = option_index(c, r);
	c->current = i;
	c->arg = optarg;
	if (!c->cmd->options[i].name) {
		/* Past the command's table: the help option. */
		cli_help(c->cmd, stdout);
		return CLI_HELP;
	}
	if (c->arg && !*c->arg) {
		cli_usage_error(c->cmd, "--%s needs a value (%s), not an empty one",
				c->cmd->options[i].name, c->cmd->options[i].metavar);
		return CLI_BAD;
	}
	return i;
}

int cli_status(int r)
{
	return r == CLI_HELP ? 0 : EXIT_USAGE;
}

int cli_operands(struct cli *c, int min, int max, const char *what)
{
	if (c->noperands < min)
		return cli_usage_error(c->cmd, "no %s given", what);
	if (max >= 0 && c->noperands > max) {
		if (max == 0)
			return cli_usage_error(c->cmd, "unexpected argument '%s'", c->operands[0]);
		if (max == 1)
			return cli_usage_error(c->cmd, "one %s only ('%s' and '%s')", what,
					       c->operands[0], c->operands[1]);
		return cli_usage_error(c->cmd, "at most %d of %s ('%s' is one more)", max, what,
				       c->operands[max]);
	}
	return 0;
}

int cli_uint(const struct cli *c, uint64_t min, uint64_t max, uint64_t *out)
{
	char err[128];

	if (parse_uint(c->arg, min, max, out, err, sizeof(err)))
		return cli_usage_error(c->cmd, "--%s: %s", c->cmd->options[c->current].name, err);
	return 0;
}

int cli_usage_error(const struct cli_command *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "sweetspot %s: ", cmd->name);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n(see 'sweetspot %s --help')\n", cmd->name);
	va_end(ap);
	return -1;
}

/* "  -o, --output DIR" or "      --json": how an option is listed. */
static int option_label(const struct cli_option *o, char *buf, size_t len)
{
	return snprintf(buf, len, "  %c%c%c --%s%s%s", o->letter ? '-' : ' ',
			o->letter ? o->letter : ' ', o->letter ? ',' : ' ', o->name,
			o->metavar ? " " : "", o->metavar ? o->metavar : "");
}

/* Prints text, each line after the first indented to col. */
static void put_indented(const char *text, int col, FILE *f)
{
	for (const char *s = text; *s; s++) {
		fputc(*s, f);
		if (*s == '\n' && s[1])
			fprintf(f, "%*s", col, "");
	}
}

/* Help texts start here, or on the next line after a longer label. */
#define CLI_HELP_COLUMN 24

static void help_line(const struct cli_option *o, FILE *f)
{
	char label[128];
	int n = option_label(o, label, sizeof(label));

	fputs(label, f);
	if (n + 2 > CLI_HELP_COLUMN)
		fprintf(f, "\n%*s", CLI_HELP_COLUMN, "");
	else
		fprintf(f, "%*s", CLI_HELP_COLUMN - n, "");
	put_indented(o->help, CLI_HELP_COLUMN, f);
	fputc('\n', f);
}

void cli_help(const struct cli_command *cmd, FILE *f)
{
	int col = fprintf(f, "usage: sweetspot %s ", cmd->name);

	put_indented(cmd->synopsis, col, f);
	fputs("\n\n", f);
	if (cmd->about) {
		fputs(cmd->about, f);
		fputs("\n\n", f);
	}
	fputs("Options:\n", f);
	for (int i = 0; cmd->options && cmd->options[i].name; i++)
		help_line(&cmd->options[i], f);
	help_line(&help_option, f);
	if (cmd->epilog) {
		fputc('\n', f);
		fputs(cmd->epilog, f);
		fputc('\n', f);
	}
}
