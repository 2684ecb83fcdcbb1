/*
 * tuner/cmd_results.c: `sweetspot results`, the measurements of a run as a
 * tidy table (one row per point and repetition) for people, CSV for
 * spreadsheets and R, or JSON for scripts. Points recorded as invalid are
 * not results: they appear only with --all, flagged in the valid column.
 */
#include "cmds.h"
#include "error.h"
#include "parse.h"
#include "store.h"
#include "strvec.h"

#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum results_format { FMT_TABLE, FMT_CSV, FMT_JSON };

static void results_usage(FILE *f)
{
	fputs("usage: sweetspot results [--db FILE] [--csv | --json] [--run ID] [--all]\n\n"
	      "Print the measurements of a run, one row per point and repetition.\n\n"
	      "  --db FILE   the results database (default " STORE_DEFAULT_PATH ")\n"
	      "  --csv       comma-separated values with a header line\n"
	      "  --json      a JSON array of objects with every field of each record\n"
	      "  --run ID    this run (default: the latest)\n"
	      "  --all       include points recorded as invalid (valid = 0)\n"
	      "  -h, --help  this text\n", f);
}

static const char *const columns[] = {
	"layout", "collective", "algorithm", "assignment", "bytes", "workers", "wpn",
	"placement", "repetition", "oe_measured", "oe_paper", "total_us", "valid", NULL
};

struct results_out {
	enum results_format fmt;
	json_t *array;
	int rows;
};

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
	hosts = json_loads(p->rank_hosts, 0, NULL);
	json_object_set_new(o, "rank_hosts", hosts ? hosts : json_array());
	json_object_set_new(o, "host_source", json_string(p->host_source));
	return o;
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
	snprintf(bytes, sizeof(bytes), "%llu", (unsigned long long)p->bytes);
	snprintf(workers, sizeof(workers), "%d", p->workers);
	snprintf(wpn, sizeof(wpn), "%d", p->wpn);
	snprintf(rep, sizeof(rep), "%d", p->repetition);
	fmt_double(oem, sizeof(oem), p->oe_measured, out->fmt == FMT_CSV ? "" : "-");
	fmt_double(oep, sizeof(oep), p->oe_paper, out->fmt == FMT_CSV ? "" : "-");
	fmt_double(tot, sizeof(tot), p->total_us, out->fmt == FMT_CSV ? "" : "-");
	if (out->fmt == FMT_CSV) {
		const char *f[] = { p->layout, p->collective, p->algorithm, p->assignment, bytes,
				    workers, wpn, p->placement, rep, oem, oep, tot,
				    p->valid ? "1" : "0" };

		for (size_t i = 0; i < sizeof(f) / sizeof(*f); i++)
			csv_field(f[i], i + 1 == sizeof(f) / sizeof(*f));
		return 0;
	}
	printf("%-28s %-10s %-9s %-10s %9s %7s %4s %-9s %3s %11s %8s %12s %5s\n",
	       p->layout, p->collective, p->algorithm, p->assignment,
	       format_size(p->bytes, bytes, sizeof(bytes)), workers, wpn, p->placement, rep,
	       oem, oep, tot, p->valid ? "yes" : "NO");
	return 0;
}

int cmd_results(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "csv", no_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "run", required_argument, NULL, 'r' },
		{ "all", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *db = STORE_DEFAULT_PATH;
	struct results_out out = { FMT_TABLE, NULL, 0 };
	struct store *st = NULL;
	struct store_run run = { 0 };
	uint64_t run_id = 0;
	int flags = STORE_VALID_ONLY, c, found, status = EXIT_USAGE;
	char err[256];

	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			db = optarg;
			break;
		case 'c':
		case 'j':
			if (out.fmt != FMT_TABLE) {
				error("results: --csv and --json exclude each other");
				return EXIT_USAGE;
			}
			out.fmt = c == 'c' ? FMT_CSV : FMT_JSON;
			break;
		case 'r':
			if (parse_uint(optarg, 1, INT64_MAX, &run_id, err, sizeof(err))) {
				error("results: --run: %s", err);
				return EXIT_USAGE;
			}
			break;
		case 'a':
			flags = STORE_ALL_POINTS;
			break;
		case 'h':
			results_usage(stdout);
			return 0;
		default:
			error("results: unknown option '%s'", argv[optind - 1]);
			results_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		error("results: unexpected argument '%s'", argv[optind]);
		results_usage(stderr);
		return EXIT_USAGE;
	}
	if (store_open(db, STORE_RDONLY, &st))
		return EXIT_USAGE;
	found = run_id ? store_get_run(st, (long long)run_id, &run) : store_latest_run(st, NULL, &run);
	if (found < 0) {
		status = 1;
		goto out;
	}
	if (!found) {
		if (run_id)
			error("%s: no run %llu", db, (unsigned long long)run_id);
		else
			error("%s: no run recorded yet", db);
		goto out;
	}
	if (out.fmt == FMT_JSON)
		out.array = json_array();
	else if (out.fmt == FMT_CSV)
		for (int i = 0; columns[i]; i++)
			csv_field(columns[i], !columns[i + 1]);
	else
		printf("%-28s %-10s %-9s %-10s %9s %7s %4s %-9s %3s %11s %8s %12s %5s\n",
		       "layout", "collective", "algorithm", "assignment", "bytes", "workers",
		       "wpn", "placement", "rep", "oe_measured", "oe_paper", "total_us", "valid");
	if (store_foreach_point(st, run.id, flags, print_point, &out)) {
		status = 1;
		goto out;
	}
	if (out.fmt == FMT_JSON) {
		json_dumpf(out.array, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
		putchar('\n');
	} else if (out.fmt == FMT_TABLE) {
		long long launches = 0, failed = 0, points = 0, invalid = 0;

		store_run_counts(st, run.id, &launches, &failed, &points, &invalid);
		printf("# run %lld (%s, %s): %s; %lld of %lld launches recorded, %lld failed; "
		       "%lld points, %lld invalid%s\n", run.id, run.spec_path, run.started,
		       run.status, launches, run.planned_launches, failed, points, invalid,
		       invalid && flags == STORE_VALID_ONLY ? " (not shown; --all shows them)" : "");
	}
	status = 0;
out:
	json_decref(out.array);
	store_run_release(&run);
	store_close(st);
	return status;
}
