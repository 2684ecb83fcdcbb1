/*
 * tuner/cmd_results.c: `sweetspot results`, the measurements of a run as a
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
	[OPT_DB] = { "db", 0, "FILE", "the results database (default " STORE_DEFAULT_PATH ")" },
	[OPT_CSV] = { "csv", 0, NULL, "comma-separated values with a header line" },
	[OPT_JSON] = { "json", 0, NULL, "a JSON array of objects with every field of each record" },
	[OPT_RUN] = { "run", 0, "ID", "this run (default: the latest)" },
	[OPT_ALL] = { "all", 0, NULL, "include points recorded as invalid (valid = 0)" },
	[NOPTS] = { NULL, 0, NULL, NULL },
};

static const struct cli_command results_cli = {
	"results", "[--db FILE] [--csv | --json] [--run ID] [--all]",
	"Print the measurements of a run, one row per point and repetition.",
	results_options,
	"Exit status: 0 success, 1 failure, 2 bad usage or no such database or run.",
};

static const char *const columns[] = {
	"layout", "collective", "algorithm", "assignment", "bytes", "workers", "wpn",
	"placement", "repetition", "oe_measured", "oe_paper", "total_us", "valid", "dtype", "op",
	"chunk", "window", "radix", "algbw", "busbw", "p2p_bw", "calibrated", NULL
};

struct results_out {
	enum results_format fmt;
	json_t *array;
	int rows;
	int axes;		/* the table shows dtype and op */
	long long uncalibrated;
};

/* Whether some point of the run has a dtype (the table's extra columns),
 * and how many are flagged uncalibrated. */
static int scan_point(const struct store_point *p, void *data)
{
	struct results_out *out = data;

	out->axes |= p->dtype && *p->dtype;
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

static json_t *point_json(const struct store_point *p)
{
	json_t *o = json_object(), *hosts;

	json_object_set_new(o, "run", json_integer(p->run));
	json_object_set_new(o, "launch", json_integer(p->launch));
	json_object_set_new(o, "layout", json_string(p->layout));
	json_object_set_new(o, "collective", json_string(p->collective));
	json_object_set_new(o, "algorithm", json_string(p->algorithm));
	json_object_set_new(o, "assignment", json_string(p->assignment));
	json_object_set_new(o, "mode", json_string(p->mode));
	json_object_set_new(o, "bytes", json_integer((json_int_t)p->bytes));
	json_object_set_new(o, "hosts", json_int_or_null(p->hosts));
	json_object_set_new(o, "workers", json_int_or_null(p->workers));
	json_object_set_new(o, "wpn", json_int_or_null(p->wpn));
	json_object_set_new(o, "placement", json_string(p->placement));
	json_object_set_new(o, "nodes", json_int_or_null(p->nodes));
	json_object_set_new(o, "ppn", json_int_or_null(p->ppn));
	json_object_set_new(o, "repetition", json_integer(p->repetition));
	json_object_set_new(o, "iterations", json_int_or_null(p->iterations));
	json_object_set_new(o, "warmup", json_int_or_null(p->warmup));
	json_object_set_new(o, "transport", json_string(p->transport));
	json_object_set_new(o, "device", json_string(p->device));
	json_object_set_new(o, "ref_us", json_real_or_null(p->ref_us));
	json_object_set_new(o, "comm_us", json_real_or_null(p->comm_us));
	json_object_set_new(o, "compute_us", json_real_or_null(p->compute_us));
	json_object_set_new(o, "total_us", json_real_or_null(p->total_us));
	json_object_set_new(o, "total_us_min", json_real_or_null(p->total_us_min));
	json_object_set_new(o, "total_us_median", json_real_or_null(p->total_us_median));
	json_object_set_new(o, "total_us_max", json_real_or_null(p->total_us_max));
	json_object_set_new(o, "oe_measured", json_real_or_null(p->oe_measured));
	json_object_set_new(o, "oe_paper", json_real_or_null(p->oe_paper));
	json_object_set_new(o, "overlap", json_real_or_null(p->overlap));
	json_object_set_new(o, "ranks", json_int_or_null(p->ranks));
	json_object_set_new(o, "valid", json_boolean(p->valid));
	if (!p->valid) {
		json_object_set_new(o, "bad_rank", json_int_or_null(p->bad_rank));
		json_object_set_new(o, "bad_source", json_int_or_null(p->bad_source));
		json_object_set_new(o, "bad_offset", json_int_or_null(p->bad_offset));
	}
	json_object_set_new(o, "dtype", *p->dtype ? json_string(p->dtype) : json_null());
	json_object_set_new(o, "op", *p->op ? json_string(p->op) : json_null());
	json_object_set_new(o, "chunk", p->chunk > 0 ? json_integer(p->chunk) : json_null());
	json_object_set_new(o, "window", p->window > 0 ? json_integer(p->window) : json_null());
	json_object_set_new(o, "radix", p->radix > 0 ? json_integer(p->radix) : json_null());
	json_object_set_new(o, "algbw", json_real_or_null(p->algbw));
	json_object_set_new(o, "busbw", json_real_or_null(p->busbw));
	json_object_set_new(o, "p2p_bw", json_real_or_null(p->p2p_bw));
	json_object_set_new(o, "ref_us_median", json_real_or_null(p->ref_us_median));
	json_object_set_new(o, "compute_us_median", json_real_or_null(p->compute_us_median));
	json_object_set_new(o, "oe_measured_median", json_real_or_null(p->oe_measured_median));
	json_object_set_new(o, "calib_error", json_real_or_null(p->calib_error));
	json_object_set_new(o, "calibrated", p->calibrated ? json_boolean(p->calibrated > 0) : json_null());
	hosts = json_loads(p->rank_hosts, 0, NULL);
	json_object_set_new(o, "rank_hosts", hosts ? hosts : json_array());
	json_object_set_new(o, "host_source", json_string(p->host_source));
	return o;
}

static int print_point(const struct store_point *p, void *data)
{
	struct results_out *out = data;
	char bytes[32], workers[16], wpn[16], rep[16], oem[32], oep[32], tot[32];
	char chunk[24], window[16], radix[16], algbw[32], busbw[32], p2p[32];

	out->rows++;
	if (out->fmt == FMT_JSON) {
		json_array_append_new(out->array, point_json(p));
		return 0;
	}
	snprintf(bytes, sizeof(bytes), "%llu", (unsigned long long)p->bytes);
	snprintf(workers, sizeof(workers), "%d", p->workers);
	snprintf(wpn, sizeof(wpn), "%d", p->wpn);
	snprintf(rep, sizeof(rep), "%d", p->repetition);
	fmt_double(oem, sizeof(oem), p->oe_measured, out->fmt == FMT_CSV ? "" : "-");
	fmt_double(oep, sizeof(oep), p->oe_paper, out->fmt == FMT_CSV ? "" : "-");
	fmt_double(tot, sizeof(tot), p->total_us, out->fmt == FMT_CSV ? "" : "-");
	if (out->fmt == FMT_CSV) {
		snprintf(chunk, sizeof(chunk), "%lld", p->chunk);
		snprintf(window, sizeof(window), "%d", p->window);
		snprintf(radix, sizeof(radix), "%d", p->radix);
		fmt_double(algbw, sizeof(algbw), p->algbw, "");
		fmt_double(busbw, sizeof(busbw), p->busbw, "");
		fmt_double(p2p, sizeof(p2p), p->p2p_bw, "");
		const char *f[] = { p->layout, p->collective, p->algorithm, p->assignment, bytes,
				    workers, wpn, p->placement, rep, oem, oep, tot,
				    p->valid ? "1" : "0", p->dtype, p->op, p->chunk > 0 ? chunk : "",
				    p->window > 0 ? window : "", p->radix > 0 ? radix : "", algbw, busbw,
				    p2p, calibrated_name(p->calibrated) };

		for (size_t i = 0; i < sizeof(f) / sizeof(*f); i++)
			csv_field(f[i], i + 1 == sizeof(f) / sizeof(*f));
		return 0;
	}
	printf("%-28s %-10s %-9s %-10s %9s ", p->layout, p->collective, p->algorithm,
	       p->assignment, format_size(p->bytes, bytes, sizeof(bytes)));
	if (out->axes)
		printf("%-6s %-4s ", *p->dtype ? p->dtype : "-", *p->op ? p->op : "-");
	printf("%7s %4s %-9s %3s %11s %8s %12s %5s%s\n", workers, wpn, p->placement, rep,
	       oem, oep, tot, p->valid ? "yes" : "NO", p->calibrated < 0 ? "  uncalibrated" : "");
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
				cli_usage_error(&results_cli, "--csv and --json exclude each other");
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
		for (int i = 0; columns[i]; i++)
			csv_field(columns[i], !columns[i + 1]);
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
	       "%lld points, %lld invalid%s\n", run->id, run->spec_path, run->started,
	       run->status, launches, run->planned_launches, failed, points, invalid,
	       invalid && flags == STORE_VALID_ONLY ? " (not shown; --all shows them)" : "");
	if (uncalibrated)
		printf("# %lld point%s uncalibrated: the compute phase missed its reference; "
		       "recommend leaves %s out\n", uncalibrated, uncalibrated == 1 ? "" : "s",
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
	found = a.run ? store_get_run(st, (long long)a.run, &run) : store_latest_run(st, NULL, &run);
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
