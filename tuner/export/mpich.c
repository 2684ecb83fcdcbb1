/*
 * tuner/export/mpich.c: MPICH's algorithm names, read from the installed MPICH's
 * `mpivars`. Its description of an algorithm variable is MPICH's column-
 * aligned list with the line breaks dropped: "auto - Internal ..." first,
 * then every "name<blanks>- Force ..." padded to one width, each glued to
 * the end of the previous description. The first name after auto's entry
 * ends a parenthesis or starts after a non-name character, which gives
 * the width; every later name is then that width less its blanks.
 */
#include "mpich.h"

#include "child.h"
#include "error.h"
#include "xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *mpich_cvar(const char *collective)
{
	char *v = xasprintf("MPIR_CVAR_%s_INTRA_ALGORITHM", collective);

	for (char *p = v; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	return v;
}

char *mpich_force_env(const char *collective, const char *alg)
{
	char *v = mpich_cvar(collective), *e = xasprintf("%s=%s", v, alg);

	free(v);
	return e;
}

const char *mpich_record_algorithm(const char *field)
{
	size_t n = strlen(MPICH_ALG_PREFIX);

	if (!field || strncmp(field, MPICH_ALG_PREFIX, n) || !field[n])
		return NULL;
	return field + n;
}

static int name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/* The entries' separators: each "- " after one or more blanks; sep[i] is
 * where the blanks start and blanks[i] how many. Returns the count. */
static size_t find_entries(const char *d, size_t *sep, size_t *blanks, size_t max)
{
	size_t n = 0;

	for (const char *p = strstr(d, " - "); p && n < max; p = strstr(p + 3, " - ")) {
		const char *q = p;

		while (q > d && q[-1] == ' ')
			q--;
		sep[n] = (size_t)(q - d);
		blanks[n] = (size_t)(p - q) + 1;
		n++;
	}
	return n;
}

int mpich_parse_description(const char *desc, struct strvec *names)
{
	size_t sep[64], blanks[64], n = find_entries(desc, sep, blanks, 64), width, start;
	int count = 0;

	/* auto's entry first, then at least one algorithm */
	if (n < 2 || sep[0] < 4 || strncmp(desc + sep[0] - 4, "auto", 4))
		return error("MPICH's description of an algorithm variable does not list "
			     "'auto - ...' then the algorithms: \"%.60s...\"",
			     desc);
	start = sep[1];
	while (start > sep[0] + blanks[0] && name_char(desc[start - 1]))
		start--;
	width = sep[1] - start + blanks[1];
	for (size_t i = 1; i < n; i++) {
		size_t len = width > blanks[i] ? width - blanks[i] : 0;

		if (!len || len > sep[i])
			return error(
				"MPICH's algorithm list is not aligned at entry %zu: \"%.60s...\"",
				i, desc + (sep[i] > 40 ? sep[i] - 40 : 0));
		for (size_t k = sep[i] - len; k < sep[i]; k++)
			if (!name_char(desc[k]))
				return error(
					"MPICH's algorithm list: entry %zu is not a name: \"%.*s\"",
					i, (int)len, desc + sep[i] - len);
		strvec_pushf(names, "%.*s", (int)len, desc + sep[i] - len);
		count++;
	}
	return count;
}

int mpich_parse_mpivars(const char *text, const char *collective, struct strvec *names)
{
	char *var = mpich_cvar(collective), *line = NULL;
	const char *p = text;
	size_t vlen = strlen(var);
	int ret = -1;

	/* "\tMPIR_CVAR_X_INTRA_ALGORITHM <blanks>=value\tscope\t...\tdescription" */
	for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *s = p + strspn(p, "\t "), *after = s + vlen;

		if (strncmp(s, var, vlen) || (*after != ' ' && *after != '='))
			continue;
		after += strspn(after, " ");
		if (*after != '=')
			continue;
		line = xasprintf("%.*s", (int)strcspn(s, "\n"), s);
		break;
	}
	if (!line) {
		error("the installed MPICH has no %s (mpivars does not list it)", var);
	} else {
		char *desc = strrchr(line, '\t');

		ret = desc ? mpich_parse_description(desc + 1, names) : -1;
		if (!desc)
			error("mpivars: %s has no description", var);
	}
	free(line);
	free(var);
	return ret;
}

/* mpivars' whole output (stdout and stderr), or NULL after error(). */
static char *run_mpivars(void)
{
	char tmpl[] = "/tmp/sweetspot-mpivars.XXXXXX", *out = NULL;
	struct strvec av = STRVEC_INIT;
	struct launch_child c = { 0 };
	struct launch_result r;
	FILE *f = NULL;
	long len;
	int fd = mkstemp(tmpl);

	if (fd < 0) {
		error("cannot create a temporary file: %s", strerror(errno));
		return NULL;
	}
	close(fd);
	strvec_push(&av, "mpivars");
	c.argv = &av;
	c.log = tmpl;
	c.timeout_s = 60;
	if (launch_spawn(&c, &r) || r.status) {
		error("mpivars (MPICH's list of control variables, Debian package mpich) %s",
		      r.status == -1 ? "is not installed" : r.reason);
	} else if (!(f = fopen(tmpl, "r")) || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 ||
		   fseek(f, 0, SEEK_SET)) {
		error("cannot read mpivars' output: %s", strerror(errno));
	} else {
		out = xcalloc((size_t)len + 1, 1);
		if (fread(out, 1, (size_t)len, f) != (size_t)len) {
			error("cannot read mpivars' output");
			free(out);
			out = NULL;
		}
	}
	if (f)
		fclose(f);
	unlink(tmpl);
	strvec_clear(&av);
	return out;
}

int mpich_algorithms(const char *collective, struct strvec *names)
{
	char *text = run_mpivars();
	int ret;

	if (!text)
		return -1;
	ret = mpich_parse_mpivars(text, collective, names);
	free(text);
	return ret;
}
