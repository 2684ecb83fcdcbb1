/*
 * tuner/cmd/cmd_results.c: `sweetspot results`, the measurements of a run as a
 * tidy table (one row per point and repetition) for people, CSV for
 * spreadsheets and R, or JSON for scripts. Points recorded as invalid are
 * not results: they appear only with --all, flagged in the valid column.
 * Points whose compute phase missed its reference (calibrated false) are
 * shown, flagged: recommend leaves them out. A reduction's dtype and op
 * get table columns when some point has them; CSV and JSON carry every
 * field.
 */
#include "cli.h"
#include "cmds.h"
#include "error.h"
#include "parse.h"
#include "record.h"
#include "store.h"
#include "strvec.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum results_format { FMT_TABLE, FMT_CSV, FMT_JSON };

enum { OPT_DB, OPT_CSV, OPT_JSON, OPT_RUN, OPT_ALL, NOPTS };

static const struct cli_option results_options[NOPTS + 1] = {
	[OPT_DB] = CLI_OPTION_DB,
	[OPT_CSV] = { "csv", 0, NULL, "comma-separated values with a header line" },
	[OPT_JSON] = { "json", 0, NULL, "a JSON array of objects with every field of each record" },
	[OPT_RUN] = { "run", 0, "ID", "this run (default: the latest)" },
	[OPT_ALL] = { "all", 0, NULL, "include points recorded as invalid (valid = 0)" },
	[NOPTS] = { NULL, 0, NULL, NULL },
};

static const struct cli_command results_cli = {
	"results",
	"[--db FILE] [--csv | --json] [--run ID] [--all]",
	"Print the measurements of a run, one row per point and repetition.",
	results_options,
	"Exit status: 0 success, 1 failure, 2 bad usage or no such database or run.",
};

struct results_out {
	enum results_format fmt;
	json_t *array;
	int rows;
	int axes; /* the table shows dtype and op */
	long long uncalibrated;
};

/* Whether some point of the run has a dtype (the table's extra columns),
 * and how many are flagged uncalibrated. */
static int scan_point(const struct store_point *p, void *data)
{
	struct results_out *out = data;

	out->axes |= point_has(p->key.dtype);
	out->uncalibrated += p->calibrated < 0;
	return 0;
}

static const char *calibrated_name(int c)
{
	return c > 0 ? "yes" : c < 0 ? "no" : "";
}

static void fmt_double(char *buf, size_t len, double v, const char *none)
{
	if (isnan(v))
		snprintf(buf, len, "%s", none);
	else
		snprintf(buf, len, "%.2f", v);
}

static void csv_field(const char *s, int last)
{
	if (strpbrk(s, ",\"\n")) {
		putchar('"');
		for (; *s; s++) {
			if (*s == '"')
				putchar('"');
			putchar(*s);
		}
		putchar('"');
	} else {
		fputs(s, stdout);
	}
	putchar(last ? '\n' : ',');
}

static json_t *json_real_or_null(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

static json_t *json_int_or_null(long long v)
{
	return v < 0 ? json_null() : json_integer(v);
}

/* Field f of p for --json (record.h: null where it is not reported or
 * does not apply). */
static json_t *field_json(const struct store_point *p, const struct rec_field *f)
{
	const void *at = rec_at(p, f);
	const char *str = (f->type == REC_TEXT || f->type == REC_ARRAY) ? *(const char *const *)at :
									  NULL;
	uint64_t u = f->type == REC_U64	 ? *(const uint64_t *)at :
		     f->type == REC_UINT ? *(const unsigned *)at :
					   0;
	json_t *v;

	switch (f->type) {
	case REC_TEXT:
		return (f->flags & REC_ZERO_NULL) && !point_has(str) ? json_null() :
								       json_string(str ? str : "");
	case REC_ARRAY:
		v = str ? json_loads(str, 0, NULL) : NULL;
		return v ? v : json_array();
	case REC_INT:
		return json_int_or_null(*(const int *)at);
	case REC_LL:
		return json_int_or_null(*(const long long *)at);
	case REC_U64:
	case REC_UINT:
		return (f->flags & REC_ZERO_NULL) && !u ? json_null() : json_integer((json_int_t)u);
	case REC_REAL:
		return json_real_or_null(*(const double *)at);
	case REC_BOOL:
		return json_boolean(*(const int *)at);
	case REC_TRI:
		return *(const int *)at ? json_boolean(*(const int *)at > 0) : json_null();
	}
	return json_null();
}

/* Every --json field of the table (record.h), in its order. */
static json_t *point_json(const struct store_point *p)
{
	json_t *o = json_object();

	for (size_t i = 0; i < rec_nfields; i++) {
		const struct rec_field *f = &rec_fields[i];

		if ((f->flags & REC_JSON) && (!(f->flags & REC_INVALID) || !p->valid))
			json_object_set_new(o, f->name, field_json(p, f));
	}
	return o;
}

/* Field f of p as --csv writes it: "" where it is not reported or does
 * not apply. */
static const char *field_csv(const struct store_point *p, const struct rec_field *f, char *buf,
			     size_t len)
{
	const void *at = rec_at(p, f);

	buf[0] = 0;
	switch (f->type) {
	case REC_TEXT:
	case REC_ARRAY:
		return *(const char *const *)at ? *(const char *const *)at : "";
	case REC_INT:
		snprintf(buf, len, "%d", *(const int *)at);
		break;
	case REC_LL:
		snprintf(buf, len, "%lld", *(const long long *)at);
		break;
	case REC_U64:
		if (*(const uint64_t *)at || !(f->flags & REC_ZERO_NULL))
			snprintf(buf, len, "%llu", (unsigned long long)*(const uint64_t *)at);
		break;
	case REC_UINT:
		if (*(const unsigned *)at || !(f->flags & REC_ZERO_NULL))
			snprintf(buf, len, "%u", *(const unsigned *)at);
		break;
	case REC_REAL:
		fmt_double(buf, len, *(const double *)at, "");
		break;
	case REC_BOOL:
		return *(const int *)at ? "1" : "0";
	case REC_TRI:
		return calibrated_name(*(const int *)at);
	}
	return buf;
}

/* The index of the table's last CSV field: the end of a row. */
static size_t csv_last(void)
{
	size_t last = 0;

	for (size_t i = 0; i < rec_nfields; i++)
		if (rec_fields[i].flags & REC_CSV)
			last = i;
	return last;
}

/* The --csv header: the table's CSV fields (record.h), in its order. */
static void csv_header(void)
{
	size_t last = csv_last();

	for (size_t i = 0; i < rec_nfields; i++)
		if (rec_fields[i].flags & REC_CSV)
			csv_field(rec_fields[i].name, i == last);
}

static int print_point(const struct store_point *p, void *data)
{
	struct results_out *out = data;
	char bytes[32], workers[16], wpn[16], rep[16], oem[32], oep[32], tot[32];

	out->rows++;
	if (out->fmt == FMT_JSON) {
		json_array_append_new(out->array, point_json(p));
		return 0;
	}
	snprintf(bytes, sizeof(bytes), "%llu", (unsigned long long)p->key.bytes);
	snprintf(workers, sizeof(workers), "%d", p->workers);
	snprintf(wpn, sizeof(wpn), "%d", p->wpn);
	snprintf(rep, sizeof(rep), "%d", p->repetition);
	fmt_double(oem, sizeof(oem), p->oe_measured, out->fmt == FMT_CSV ? "" : "-");
	fmt_double(oep, sizeof(oep), p->oe_paper, out->fmt == FMT_CSV ? "" : "-");
	fmt_double(tot, sizeof(tot), p->total_us, out->fmt == FMT_CSV ? "" : "-");
	if (out->fmt == FMT_CSV) {
		size_t last = csv_last();

		for (size_t i = 0; i < rec_nfields; i++) {
			char buf[64];

			if (rec_fields[i].flags & REC_CSV)
				csv_field(field_csv(p, &rec_fields[i], buf, sizeof(buf)),
					  i == last);
		}
		return 0;
	}
	printf("%-28s %-10s %-9s %-10s %9s ", p->layout, p->key.collective, p->key.algorithm,
	       p->key.assignment, format_size(p->key.bytes, bytes, sizeof(bytes)));
	if (out->axes)
		printf("%-6s %-4s ", point_has(p->key.dtype) ? p->key.dtype : "-",
		       point_has(p->key.op) ? p->key.op : "-");
	printf("%7s %4s %-9s %3s %11s %8s %12s %5s%s\n", workers, wpn, p->placement, rep, oem, oep,
	       tot, p->valid ? "yes" : "NO", p->calibrated < 0 ? "  uncalibrated" : "");
	return 0;
}

struct results_args {
	const char *db;
	enum results_format fmt;
	uint64_t run;
	int flags;
};

/* CLI_END when the command goes on, else CLI_HELP or CLI_BAD. */
static int results_args(int argc, char **argv, struct results_args *a)
{
	struct cli c;
	int o;

	cli_begin(&c, &results_cli, argc, argv);
	while ((o = cli_next(&c)) >= 0) {
		switch (o) {
		case OPT_DB:
			a->db = c.arg;
			break;
		case OPT_CSV:
		case OPT_JSON:
			if (a->fmt != FMT_TABLE) {
				cli_usage_error(&results_cli,
						"--csv and --json exclude each other");
				return CLI_BAD;
			}
			a->fmt = o == OPT_CSV ? FMT_CSV : FMT_JSON;
			break;
		case OPT_RUN:
			if (cli_uint(&c, 1, INT64_MAX, &a->run))
				return CLI_BAD;
			break;
		case OPT_ALL:
			a->flags = STORE_ALL_POINTS;
			break;
		}
	}
	if (o != CLI_END)
		return o;
	return cli_operands(&c, 0, 0, "argument") ? CLI_BAD : CLI_END;
}

static void print_header(const struct results_out *out)
{
	if (out->fmt == FMT_CSV)
		csv_header();
	if (out->fmt != FMT_TABLE)
		return;
	printf("%-28s %-10s %-9s %-10s %9s ", "layout", "collective", "algorithm", "assignment",
	       "bytes");
	if (out->axes)
		printf("%-6s %-4s ", "dtype", "op");
	printf("%7s %4s %-9s %3s %11s %8s %12s %5s\n", "workers", "wpn", "placement", "rep",
	       "oe_measured", "oe_paper", "total_us", "valid");
}

/* The table's last line: what the run holds besides the rows shown. */
static void print_summary(struct store *st, const struct store_run *run, int flags,
			  long long uncalibrated)
{
	long long launches = 0, failed = 0, points = 0, invalid = 0;

	store_run_counts(st, run->id, &launches, &failed, &points, &invalid);
	printf("# run %lld (%s, %s): %s; %lld of %lld launches recorded, %lld failed; "
	       "%lld points, %lld invalid%s\n",
	       run->id, run->spec_path, run->started, run->status, launches, run->planned_launches,
	       failed, points, invalid,
	       invalid && flags == STORE_VALID_ONLY ? " (not shown; --all shows them)" : "");
	if (uncalibrated)
		printf("# %lld point%s uncalibrated: the compute phase missed its reference; "
		       "recommend leaves %s out\n",
		       uncalibrated, uncalibrated == 1 ? "" : "s",
		       uncalibrated == 1 ? "it" : "them");
}

int cmd_results(int argc, char **argv)
{
	struct results_args a = { STORE_DEFAULT_PATH, FMT_TABLE, 0, STORE_VALID_ONLY };
	struct results_out out = { FMT_TABLE, NULL, 0, 0, 0 };
	struct store *st = NULL;
	struct store_run run = { 0 };
	int found, status = EXIT_USAGE;

	found = results_args(argc, argv, &a);
	if (found != CLI_END)
		return cli_status(found);
	out.fmt = a.fmt;
	if (store_open(a.db, STORE_RDONLY, &st))
		return EXIT_USAGE;
	found = a.run ? store_get_run(st, (long long)a.run, &run) :
			store_latest_run(st, NULL, &run);
	if (found < 0) {
		status = 1;
		goto out;
	}
	if (!found) {
		if (a.run)
			error("%s: no run %llu", a.db, (unsigned long long)a.run);
		else
			error("%s: no run recorded yet", a.db);
		goto out;
	}
	if (out.fmt == FMT_JSON)
		out.array = json_array();
	if (store_foreach_point(st, run.id, a.flags, scan_point, &out)) {
		status = 1;
		goto out;
	}
	print_header(&out);
	if (store_foreach_point(st, run.id, a.flags, print_point, &out)) {
		status = 1;
		goto out;
	}
	if (out.fmt == FMT_JSON) {
		json_dumpf(out.array, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
		putchar('\n');
	} else if (out.fmt == FMT_TABLE) {
		print_summary(st, &run, a.flags, out.uncalibrated);
	}
	status = 0;
out:
	json_decref(out.array);
	store_run_release(&run);
	store_close(st);
	return status;
}
