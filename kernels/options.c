/*
 * kernels/options.c: parsing and checking sweetspot-kernel's options. Lists
 * (collectives, algorithms, assignments) are comma separated words; sizes go
 * through common/parse.c. Every error is one sentence in the caller's buffer;
 * main() decides who prints it (rank 0) and exits 2.
 */
#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "parse.h"
#include "reduce.h"

const char *const mode_names[3] = { "offload", "mpi", "bw" };

/* A comma list of words from names[n] into a bit mask; what names it. */
static int parse_words(const char *s, const char *const *names, int n, const char *what,
		       unsigned *out, char *err, size_t errlen)
{
	const char *p = s;

	*out = 0;
	if (!*s) {
		snprintf(err, errlen, "empty %s list", what);
		return -1;
	}
	while (1) {
		size_t len = strcspn(p, ",");
		int i;

		for (i = 0; i < n; i++)
			if (strlen(names[i]) == len && !strncmp(p, names[i], len))
				break;
		if (i == n) {
			char list[128] = "";

			for (int j = 0; j < n; j++) {
				strcat(list, j ? ", " : "");
				strcat(list, names[j]);
			}
			snprintf(err, errlen, "unknown %s '%.*s' (one of: %s)", what, (int)len, p,
				 list);
			return -1;
		}
		*out |= 1u << i;
		if (!p[len])
			break;
		p += len + 1;
	}
	return 0;
}

int kopts_parse_faults(const char *s, unsigned *out, char *err, size_t errlen)
{
	static const char *const names[] = { "flip-byte", "hang", "bad-rkey" };
	unsigned bits;

	*out = 0;
	if (!s || !*s)
		return 0;
	if (parse_words(s, names, 3, "fault in SWEETSPOT_FAULT", &bits, err, errlen))
		return -1;
	*out = (bits & 1 ? FAULT_FLIP_BYTE : 0) | (bits & 2 ? FAULT_HANG : 0) |
	       (bits & 4 ? FAULT_BAD_RKEY : 0);
	return 0;
}

static int parse_int_opt(const char *name, const char *s, uint64_t min, uint64_t max, int *out,
			 char *err, size_t errlen)
{
	char why[160];
	uint64_t v;

	if (parse_uint(s, min, max, &v, why, sizeof(why))) {
		snprintf(err, errlen, "%s: %s", name, why);
		return -1;
	}
	*out = (int)v;
	return 0;
}

enum {
	OPT_PPN = 256,
	OPT_NO_VALIDATE,
	OPT_MODE,
	OPT_DEVICE,
	OPT_IB_PORT,
	OPT_GID_INDEX,
	OPT_WINDOW,
	OPT_DTYPE,
	OPT_OP,
	OPT_CHUNK,
	OPT_CALIB_TOL,
	OPT_RADIX,
	OPT_BURST,
	OPT_BATCH_MS,
	OPT_MIN_TIME
};

/* The options, in the order of --help and of the man page: the one list of
 * them. getopt's tables and --help are made from it; -c and -a list the
 * kernel's collectives and algorithms (coll.c) after their text. */
static const struct kopt {
	const char *name; /* long name */
	int key;	  /* short letter, or OPT_* */
	const char *arg;  /* the value's name; NULL: takes none */
	const char *help; /* lines for people, '\n' between them */
} kopt_table[] = {
	{ "collective", 'c', "LIST", "collectives to measure (default bcast):" },
	{ "algorithm", 'a', "LIST",
	  "algorithms; default: those that apply but the\n"
	  "worker schedules (*), which run when listed; for\n"
	  "reductions a schedule is assigned with that\n"
	  "schedule as the workers' combine:" },
	{ "radix", OPT_RADIX, "LIST", "knomial: tree radix, 2..8" },
	{ "assignment", 'A', "LIST", "block,cyclic,locality (default block)" },
	{ "workers", 'w', "N", "worker ranks, 1 <= N <= hosts (default 1)" },
	{ "sizes", 'm', "LIST|RANGE",
	  "bytes, e.g. 256K,24K,1000 or 256K:4M (a range:\n"
	  "powers of two) (default 1M)" },
	{ "dtype", OPT_DTYPE, "LIST",
	  "reductions' element types: int32,int64,uint32,\n"
	  "uint64,float,double; each must divide every size\n"
	  "(default int32)" },
	{ "op", OPT_OP, "LIST",
	  "sum,prod,min,max,band,bor,bxor,land,lor,lxor\n"
	  "(bitwise and logical: integer dtypes only)\n"
	  "(default sum)" },
	{ "chunk", OPT_CHUNK, "LIST", "pipelined algorithms: bytes per step" },
	{ "window", OPT_WINDOW, "LIST", "pipelined algorithms: chunks in flight" },
	{ "iterations", 'i', "N", "timed iterations per point (default 100)" },
	{ "warmup", 'x', "N", "untimed iterations first (default 10)" },
	{ "min-time", OPT_MIN_TIME, "MS",
	  "offload: each phase of a point runs at least -i\n"
	  "iterations and at least MS ms, barriers counted\n"
	  "(at most 100000 iterations; default 0: -i alone)" },
	{ "batch-ms", OPT_BATCH_MS, "N",
	  "mpi: calls are timed in batches of at least N\n"
	  "ms, -i calls in all at least (default 20)" },
	{ "transport", 't', "NAME", "rma | verbs | auto (verbs when a device exists)" },
	{ "device", OPT_DEVICE, "NAME",
	  "verbs device (default: the first with an active\n"
	  "port)" },
	{ "ib-port", OPT_IB_PORT, "N", "its port (default 1)" },
	{ "gid-index", OPT_GID_INDEX, "N",
	  "RoCE GID (default: the first RoCE v2 one,\n"
	  "IPv4-mapped preferred)" },
	{ "ppn", OPT_PPN, "N",
	  "host ranks per node (for locality); default: from\n"
	  "the ranks' host names" },
	{ "mode", OPT_MODE, "MODE",
	  "offload (default) | mpi (host-only MPI\n"
	  "collectives) | bw (transport write bandwidth,\n"
	  "rank 0 to rank 1)" },
	{ "burst", OPT_BURST, "N",
	  "--mode bw: writes posted before each wait\n"
	  "(default 1)" },
	{ "calib-tolerance", OPT_CALIB_TOL, "FRAC",
	  "how far (|compute - ref| / ref, medians) the\n"
	  "dummy compute may miss the reference before it\n"
	  "is calibrated again, up to 3 times (default 0.10)" },
	{ "no-validate", OPT_NO_VALIDATE, NULL, "skip the byte check (it is on by default)" },
	{ "output", 'o', "FILE", "JSON lines (default stdout)" },
	{ "help", 'h', NULL, "this text" },
	{ "version", 'V', NULL, "the version" },
};

#define KOPT_N	 (sizeof(kopt_table) / sizeof(kopt_table[0]))
/* The column where an option's text starts. */
#define KOPT_COL 26

/* The defaults that are the collectives' (coll.h), as --help shows them. */
static void axis_default(int key, char *buf, size_t len)
{
	*buf = 0;
	if (key == OPT_CHUNK)
		snprintf(buf, len, " (default %zuK)", COLL_DEFAULT_CHUNK >> 10);
	else if (key == OPT_WINDOW)
		snprintf(buf, len, " (default %d)", COLL_DEFAULT_WINDOW);
	else if (key == OPT_RADIX)
		snprintf(buf, len, " (default %d)", COLL_DEFAULT_RADIX);
}

/* -a's list: each collective with its algorithms, schedules starred. */
static void usage_algorithms(FILE *f)
{
	for (int c = 0; c < COLL_N; c++) {
		fprintf(f, "%*s%s:", KOPT_COL + 2, "", coll_names[c]);
		for (int a = 0; a < ALG_N; a++)
			if (alg_applies(c, a))
				fprintf(f, " %s%s", alg_names[a], alg_is_default(a) ? "" : "*");
		fputc('\n', f);
	}
}

void kopts_usage(FILE *f)
{
	fputs("usage: sweetspot-kernel [options]   (launched with mpirun or srun; the\n"
	      "       W workers are the highest ranks, the other ranks are hosts)\n",
	      f);
	for (size_t i = 0; i < KOPT_N; i++) {
		const struct kopt *k = &kopt_table[i];
		const char *p = k->help;
		char head[64], def[32];
		int n;

		if (k->key < 256)
			n = snprintf(head, sizeof(head), "  -%c, --%s", k->key, k->name);
		else
			n = snprintf(head, sizeof(head), "      --%s", k->name);
		if (k->arg)
			n += snprintf(head + n, sizeof(head) - (size_t)n, " %s", k->arg);
		fprintf(f, "%-*s%s", KOPT_COL - 1, head, n >= KOPT_COL - 1 ? "\n" : " ");
		if (n >= KOPT_COL - 1)
			fprintf(f, "%*s", KOPT_COL, "");
		for (;;) {
			size_t len = strcspn(p, "\n");

			fwrite(p, 1, len, f);
			if (!p[len])
				break;
			fprintf(f, "\n%*s", KOPT_COL, "");
			p += len + 1;
		}
		axis_default(k->key, def, sizeof(def));
		fprintf(f, "%s\n", def);
		if (k->key == 'c') {
			fprintf(f, "%*s", KOPT_COL + 2, "");
			for (int c = 0; c < COLL_N; c++)
				fprintf(f, "%s%s", c ? "," : "", coll_names[c]);
			fputc('\n', f);
		} else if (k->key == 'a') {
			usage_algorithms(f);
		}
	}
	fputs("Environment: SWEETSPOT_FAULT=flip-byte,hang,bad-rkey (tests), SLURMD_NODENAME and\n"
	      "SWEETSPOT_HOSTNAME (host names reported instead of gethostname()).\n",
	      f);
}

/* getopt_long's tables, from kopt_table. */
static void kopt_getopt(struct option *lo, char *shortopts)
{
	char *s = shortopts;

	*s++ = ':';
	for (size_t i = 0; i < KOPT_N; i++) {
		const struct kopt *k = &kopt_table[i];

		lo[i] = (struct option){ k->name, k->arg ? required_argument : no_argument, NULL,
					 k->key };
		if (k->key < 256) {
			*s++ = (char)k->key;
			if (k->arg)
				*s++ = ':';
		}
	}
	lo[KOPT_N] = (struct option){ NULL, 0, NULL, 0 };
	*s = 0;
}

static int parse_sizes_opt(const char *s, struct kopts *o, char *err, size_t errlen)
{
	char why[200];

	/* Any byte count in a list (a reduction's dtype must divide it, see
	 * check_reduction); ranges are powers of two. */
	if (parse_sizes(s, 0, o->sizes, KOPTS_MAX_SIZES, &o->nsizes, why, sizeof(why))) {
		snprintf(err, errlen, "--sizes: %s", why);
		return -1;
	}
	for (size_t i = 0; i < o->nsizes; i++)
		if (o->sizes[i] > KOPTS_MAX_BYTES) {
			snprintf(err, errlen, "--sizes: %llu bytes is more than the 1G limit",
				 (unsigned long long)o->sizes[i]);
			return -1;
		}
	return 0;
}

/* A fraction: a plain decimal number from 0 to 1000 (strtod with an end
 * pointer and a range check: no "nan", no "inf", nothing after it). */
static int parse_frac_opt(const char *name, const char *s, double *out, char *err, size_t errlen)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!*s || *end || errno == ERANGE || !isfinite(v) ||
	    strspn(s, "0123456789.") != strlen(s)) {
		snprintf(err, errlen, "%s: '%s' is not a number like 0.1", name, s);
		return -1;
	}
	if (v > 1000) {
		snprintf(err, errlen, "%s: %s is out of range (0 to 1000)", name, s);
		return -1;
	}
	*out = v;
	return 0;
}

/* A comma list of values of one point axis (--chunk, --window, --radix):
 * each parsed by one(), no more than KOPTS_MAX_AXIS, none twice. */
static int parse_axis(const char *name, const char *s, uint64_t *out, size_t *n,
		      int (*one)(const char *, uint64_t *, char *, size_t), char *err,
		      size_t errlen)
{
	char why[200], word[64];
	const char *p = s;

	*n = 0;
	for (;;) {
		size_t len = strcspn(p, ",");

		if (!len || len >= sizeof(word)) {
			snprintf(err, errlen, "%s: '%s' is not a comma list of values", name, s);
			return -1;
		}
		if (*n == KOPTS_MAX_AXIS) {
			snprintf(err, errlen, "%s: more than %d values", name, KOPTS_MAX_AXIS);
			return -1;
		}
		memcpy(word, p, len);
		word[len] = 0;
		if (one(word, &out[*n], why, sizeof(why))) {
			snprintf(err, errlen, "%s: %s", name, why);
			return -1;
		}
		for (size_t i = 0; i < *n; i++)
			if (out[i] == out[*n]) {
				snprintf(err, errlen, "%s: %s is listed twice", name, word);
				return -1;
			}
		(*n)++;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

static int one_chunk(const char *s, uint64_t *v, char *why, size_t len)
{
	if (parse_size(s, v, why, len))
		return -1;
	if (*v > KOPTS_MAX_BYTES) {
		snprintf(why, len, "%llu bytes is more than the 1G limit", (unsigned long long)*v);
		return -1;
	}
	return 0;
}

static int one_window(const char *s, uint64_t *v, char *why, size_t len)
{
	return parse_uint(s, 1, 4096, v, why, len);
}

static int one_radix(const char *s, uint64_t *v, char *why, size_t len)
{
	return parse_uint(s, 2, 8, v, why, len);
}

/* --window and --radix into their int arrays (and window, the first). */
static int parse_int_axis(const char *name, const char *s, int *out, size_t *n,
			  int (*one)(const char *, uint64_t *, char *, size_t), char *err,
			  size_t errlen)
{
	uint64_t v[KOPTS_MAX_AXIS];

	if (parse_axis(name, s, v, n, one, err, errlen))
		return -1;
	for (size_t i = 0; i < *n; i++)
		out[i] = (int)v[i];
	return 0;
}

/* Nonzero when some listed collective has the property is(). */
static int kopts_any(const struct kopts *o, int (*is)(enum coll))
{
	for (int c = 0; c < COLL_N; c++)
		if ((o->colls & (1u << c)) && is(c))
			return 1;
	return 0;
}

/* The reductions' own rules: every listed op applies to a listed dtype,
 * every size is whole elements of every listed dtype (both modes). */
static int check_reduction(const struct kopts *o, char *err, size_t errlen)
{
	if (!kopts_any(o, coll_is_reduction))
		return 0;
	for (int op = 0; op < RO_N; op++) {
		int any = 0;

		for (int dt = 0; dt < DT_N; dt++)
			any |= (o->redops & (1u << op)) && (o->dtypes & (1u << dt)) &&
			       redop_applies(dt, op);
		if ((o->redops & (1u << op)) && !any) {
			snprintf(err, errlen,
				 "--op %s applies to integer types only, not to the listed dtypes",
				 redop_names[op]);
			return -1;
		}
	}
	for (int dt = 0; dt < DT_N; dt++)
		for (size_t i = 0; i < o->nsizes && (o->dtypes & (1u << dt)); i++)
			if (o->sizes[i] % dtype_size(dt)) {
				snprintf(err, errlen,
					 "--sizes: %llu bytes is not a whole number of %s elements",
					 (unsigned long long)o->sizes[i], dtype_names[dt]);
				return -1;
			}
	return 0;
}

static int parse_mode_opt(const char *s, struct kopts *o, char *err, size_t errlen)
{
	unsigned bits;

	if (parse_words(s, mode_names, 3, "mode", &bits, err, errlen))
		return -1;
	if (bits & (bits - 1)) {
		snprintf(err, errlen, "--mode takes one mode, not '%s'", s);
		return -1;
	}
	o->mode = bits == 1 ? MODE_OFFLOAD : bits == 2 ? MODE_MPI : MODE_BW;
	return 0;
}

/* The options that take a number or a word of their own. */
static int parse_value_opt(int c, const char *arg, struct kopts *o, char *err, size_t errlen)
{
	switch (c) {
	case 'w':
		if (!strcmp(arg, "0")) {
			snprintf(err, errlen, "--workers 0: at least one worker is needed");
			return -1;
		}
		return parse_int_opt("--workers", arg, 1, 1 << 20, &o->workers, err, errlen);
	case 'i':
		return parse_int_opt("--iterations", arg, 1, 100000000, &o->iterations, err,
				     errlen);
	case 'x':
		return parse_int_opt("--warmup", arg, 0, 100000000, &o->warmup, err, errlen);
	case OPT_BATCH_MS:
		return parse_int_opt("--batch-ms", arg, 1, 60000, &o->batch_ms, err, errlen);
	case OPT_MIN_TIME:
		return parse_int_opt("--min-time", arg, 0, 600000, &o->min_time_ms, err, errlen);
	case OPT_PPN:
		return parse_int_opt("--ppn", arg, 1, 1 << 20, &o->ppn, err, errlen);
	case OPT_RADIX:
		return parse_int_axis("--radix", arg, o->radixes, &o->nradixes, one_radix, err,
				      errlen);
	case OPT_WINDOW:
		return parse_int_axis("--window", arg, o->windows, &o->nwindows, one_window, err,
				      errlen);
	case OPT_BURST:
		return parse_int_opt("--burst", arg, 1, 4096, &o->burst, err, errlen);
	case OPT_IB_PORT:
		return parse_int_opt("--ib-port", arg, 1, 255, &o->ib_port, err, errlen);
	case OPT_GID_INDEX:
		return parse_int_opt("--gid-index", arg, 0, 65535, &o->gid_index, err, errlen);
	case OPT_CHUNK:
		return parse_axis("--chunk", arg, o->chunks, &o->nchunks, one_chunk, err, errlen);
	case OPT_CALIB_TOL:
		return parse_frac_opt("--calib-tolerance", arg, &o->calib_tolerance, err, errlen);
	case 't':
		if (strcmp(arg, "rma") && strcmp(arg, "verbs") && strcmp(arg, "auto")) {
			snprintf(err, errlen, "unknown transport '%s' (one of: rma, verbs, auto)",
				 arg);
			return -1;
		}
		snprintf(o->transport, sizeof(o->transport), "%s", arg);
		return 0;
	case OPT_DEVICE:
		if (!*arg || strlen(arg) >= 64) {
			snprintf(err, errlen, "--device: '%s' is not a device name", arg);
			return -1;
		}
		o->device = arg;
		return 0;
	case 'o':
		if (!*arg) {
			snprintf(err, errlen, "--output: empty file name");
			return -1;
		}
		o->output = arg;
		return 0;
	}
	snprintf(err, errlen, "internal: option %d has no parser", c);
	return -1;
}

/* One option from getopt_long: 0, or -1 with the reason in err. */
static int parse_one(int c, const char *arg, char **argv, struct kopts *o, char *err, size_t errlen)
{
	switch (c) {
	case 'c':
		return parse_words(arg, coll_names, COLL_N, "collective", &o->colls, err, errlen);
	case 'a':
		return parse_words(arg, alg_names, ALG_N, "algorithm", &o->algs, err, errlen);
	case 'A':
		return parse_words(arg, asg_names, ASG_N, "assignment", &o->asgs, err, errlen);
	case 'm':
		return parse_sizes_opt(arg, o, err, errlen);
	case OPT_MODE:
		return parse_mode_opt(arg, o, err, errlen);
	case OPT_DTYPE:
		return parse_words(arg, dtype_names, DT_N, "dtype", &o->dtypes, err, errlen);
	case OPT_OP:
		return parse_words(arg, redop_names, RO_N, "op", &o->redops, err, errlen);
	case OPT_NO_VALIDATE:
		o->validate = 0;
		return 0;
	case 'h':
		o->help = 1;
		return 0;
	case 'V':
		o->version = 1;
		return 0;
	case ':':
		snprintf(err, errlen, "option '%s' needs a value", argv[optind - 1]);
		return -1;
	case '?':
		if (optopt)
			snprintf(err, errlen, "unknown option '-%c' (see --help)", optopt);
		else
			snprintf(err, errlen, "unknown option '%s' (see --help)", argv[optind - 1]);
		return -1;
	}
	return parse_value_opt(c, arg, o, err, errlen);
}

/* Each listed collective needs one listed algorithm of its own, and each
 * listed algorithm must serve one listed collective. */
static int check_algs(const struct kopts *o, char *err, size_t errlen)
{
	for (int cc = 0; cc < COLL_N; cc++) {
		char list[128] = "";
		int any = 0;

		if (!(o->colls & (1u << cc)))
			continue;
		for (int a = 0; a < ALG_N; a++) {
			any |= (o->algs & (1u << a)) && alg_applies(cc, a);
			if (alg_applies(cc, a)) {
				strcat(list, *list ? " or " : "");
				strcat(list, alg_names[a]);
			}
		}
		if (!any) {
			snprintf(err, errlen, "no listed algorithm applies to %s (%s)",
				 coll_names[cc], list);
			return -1;
		}
	}
	for (int a = 0; a < ALG_N; a++) {
		int any = 0;

		if (!(o->algs & (1u << a)))
			continue;
		for (int cc = 0; cc < COLL_N; cc++)
			any |= (o->colls & (1u << cc)) && alg_applies(cc, a);
		if (!any) {
			snprintf(err, errlen,
				 "algorithm %s applies to none of the listed collectives",
				 alg_names[a]);
			return -1;
		}
	}
	return 0;
}

int kopts_parse(int argc, char **argv, struct kopts *o, char *err, size_t errlen)
{
	struct option lo[KOPT_N + 1];
	char shortopts[2 * KOPT_N + 2];
	int c;

	kopt_getopt(lo, shortopts);
	*o = (struct kopts){
		.mode = MODE_OFFLOAD,
		.colls = 1u << COLL_BCAST,
		.algs = 0,
		.asgs = 1u << ASG_BLOCK,
		.workers = 1,
		.sizes = { 1u << 20 },
		.nsizes = 1,
		.iterations = 100,
		.warmup = 10,
		.transport = "auto",
		.ppn = 0,
		.validate = 1,
		.output = NULL,
		.device = NULL,
		.ib_port = 1,
		.gid_index = -1,
		.burst = 1,
		.dtypes = 1u << DT_INT32,
		.redops = 1u << RO_SUM,
		.chunks = { COLL_DEFAULT_CHUNK },
		.nchunks = 1,
		.calib_tolerance = 0.10,
		.radixes = { COLL_DEFAULT_RADIX },
		.nradixes = 1,
		.batch_ms = 20,
	};
	opterr = 0; /* every rank parses: the messages are ours, printed once */
	/* 0, not 1: glibc then reinitialises completely, forgetting a position
	 * inside a cluster of short options (-hh:h) an earlier error left. */
	optind = 0;
	while ((c = getopt_long(argc, argv, shortopts, lo, NULL)) != -1)
		if (parse_one(c, optarg, argv, o, err, errlen))
			return -1;
	if (optind < argc) {
		snprintf(err, errlen, "unexpected argument '%s' (see --help)", argv[optind]);
		return -1;
	}
	/* --window was bw's writes in flight once: it is the pipelined
	 * points' chunks in flight now, and bw's is --burst. */
	if (o->mode == MODE_BW && o->nwindows) {
		snprintf(err, errlen,
			 "--window is the chunks in flight of pipelined points; "
			 "--mode bw takes --burst N (writes posted before each wait)");
		return -1;
	}
	if (!o->nwindows) {
		o->windows[0] = COLL_DEFAULT_WINDOW;
		o->nwindows = 1;
	}
	if (check_reduction(o, err, errlen))
		return -1;
	if (o->algs && o->mode == MODE_OFFLOAD)
		return check_algs(o, err, errlen);
	return 0;
}

int kopts_check_size(const struct kopts *o, int size, char *err, size_t errlen)
{
	int hosts = size - o->workers;
	uint64_t send;

	if (o->mode == MODE_BW) {
		if (size < 2) {
			snprintf(err, errlen, "--mode bw needs at least 2 ranks, not %d", size);
			return -1;
		}
		return 0;
	}
	if (o->mode == MODE_MPI) {
		if (o->ppn > size) {
			snprintf(err, errlen, "--ppn %d is more than the %d ranks", o->ppn, size);
			return -1;
		}
		return 0;
	}
	/* As many workers as hosts at most (DPU-Bench runs that many): W <= H
	 * is W <= (H + W) / 2, so one check says both. */
	if (o->workers > hosts) {
		snprintf(err, errlen,
			 "--workers %d leaves %d host rank%s of %d: workers must be at most as "
			 "many as hosts",
			 o->workers, hosts > 0 ? hosts : 0, hosts == 1 ? "" : "s", size);
		return -1;
	}
	if (o->ppn > hosts) {
		snprintf(err, errlen, "--ppn %d is more than the %d host ranks", o->ppn, hosts);
		return -1;
	}
	if (kopts_region_bytes(o, hosts, &send) > (16ull << 30)) {
		snprintf(err, errlen,
			 "the largest size times %d hosts needs more than 16G per rank", hosts);
		return -1;
	}
	return 0;
}

void kopts_region(const struct kopts *o, int hosts, struct sched_region *r)
{
	uint64_t mmax = 0, most = 0;
	unsigned all = 0;

	for (size_t i = 0; i < o->nsizes; i++)
		if (o->sizes[i] > mmax)
			mmax = o->sizes[i];
	for (int c = 0; c < COLL_N; c++)
		all |= o->colls & (1u << c) ? coll_region_all(c) : 0;
	if (kopts_any(o, coll_is_reduction))
		for (size_t c = 0; c < o->nchunks; c++)
			for (size_t w = 0; w < o->nwindows; w++) {
				uint64_t b = sched_scratch_bytes(hosts, o->workers, mmax,
								 o->chunks[c], o->windows[w]);

				most = b > most ? b : most;
			}
	sched_region(hosts, o->workers, mmax, all, most, r);
}

uint64_t kopts_region_bytes(const struct kopts *o, int hosts, uint64_t *send_area)
{
	struct sched_region r;

	kopts_region(o, hosts, &r);
	*send_area = r.send;
	return r.bytes;
}
