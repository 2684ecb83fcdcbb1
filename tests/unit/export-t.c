/*
 * tests/unit/export-t.c: the export formats from decisions built from
 * kernel-like points: Open MPI versions, rule shapes (size 0 first, sizes
 * ascending, Open MPI's message sizes), the JSON rules' structure, the UCC
 * string, the profile round trip, and atomic writing.
 */
#include "tap.h"
#include "files.h"
#include "testfs.h"
#include "export.h"
#include "recommend.h"
#include "store.h"
#include "strvec.h"

#include <jansson.h>
#include <math.h>
#include <unistd.h>

static struct store_point mk_mpi(const char *coll, const char *alg, uint64_t bytes, int ranks,
				 double us)
{
	struct store_point p = { 0 };

	p.mode = "mpi";
	p.key.collective = coll;
	p.key.algorithm = alg;
	p.key.assignment = "";
	p.layout = "";
	p.key.bytes = bytes;
	p.hosts = ranks;
	p.valid = 1;
	p.total_us = us;
	p.raw = "";
	return p;
}

static struct store_point mk_off(const char *coll, const char *asg, uint64_t bytes,
				 const char *layout, int workers, int wpn, double oe)
{
	struct store_point p = { 0 };

	p.mode = "offload";
	p.key.collective = coll;
	p.key.algorithm = "direct";
	p.key.assignment = asg;
	p.layout = layout;
	p.placement = "dpu";
	p.key.bytes = bytes;
	p.workers = workers;
	p.wpn = wpn;
	p.nodes = 8;
	p.ppn = 8;
	p.valid = 1;
	p.oe_measured = oe;
	p.total_us = 100;
	p.ref_us = 90;
	p.compute_us = 90;
	p.raw = "";
	return p;
}

static char *to_string(int (*fn)(const struct decisions *, const struct export_opts *, FILE *),
		       const struct decisions *d, const struct export_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (fn(d, o, f)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

static int w_rules(const struct decisions *d, const struct export_opts *o, FILE *f)
{
	return export_ompi_rules(d, o, f);
}

static int w_json(const struct decisions *d, const struct export_opts *o, FILE *f)
{
	return export_ompi_json(d, o, f);
}

/* ---- UCC's TUNE grammar (src/coll_score/ucc_coll_score.c), written from
 * its parser: tokens joined by '#', fields by ':', each field the first
 * of these it parses as, each kind at most once, and a score or an @alg
 * required: coll types (comma list), memory types (comma list), score
 * (digits or inf), message ranges (comma list of start-end memunits,
 * start < end: coll_score_add_range refuses the rest), team sizes
 * ([N or N-M or N-inf, ...], M >= N), @alg. */

static int digits(const char *s, size_t n)
{
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

static int in_words(const char *s, size_t n, const char *const *w)
{
	for (; *w; w++)
		if (strlen(*w) == n && !strncmp(s, *w, n))
			return 1;
	return 0;
}

/* Each comma item of [s, s+n) satisfies fn. */
static int each(const char *s, size_t n, int (*fn)(const char *, size_t))
{
	while (n) {
		const char *c = memchr(s, ',', n);
		size_t k = c ? (size_t)(c - s) : n;

		if (!fn(s, k))
			return 0;
		n -= c ? k + 1 : k;
		s += c ? k + 1 : k;
	}
	return 1;
}

static int is_coll(const char *s, size_t n)
{
	static const char *const w[] = {
		"allgather", "allgatherv", "allreduce",	     "alltoall",	"alltoallv",
		"barrier",   "bcast",	   "fanin",	     "fanout",		"gather",
		"gatherv",   "reduce",	   "reduce_scatter", "reduce_scatterv", "scatter",
		"scatterv",  NULL
	};

	return in_words(s, n, w);
}

static int is_mem(const char *s, size_t n)
{
	static const char *const w[] = { "host", "cuda",	 "cuda-managed",
					 "rocm", "rocm-managed", NULL };

	return in_words(s, n, w);
}

/* ucs memunits: inf, or digits with an optional unit. */
static int memunits(const char *s, size_t n, unsigned long long *v)
{
	unsigned long long m = 1;

	if (n == 3 && !strncmp(s, "inf", 3)) {
		*v = ~0ull;
		return 1;
	}
	if (n && strchr("bBkKmMgGtT", s[n - 1])) {
		const char *u = strchr("bBkKmMgGtT", s[n - 1]);
		int k = (int)(u - "bBkKmMgGtT") / 2;

		while (k--)
			m *= 1024;
		n--;
	}
	if (!digits(s, n))
		return 0;
	*v = strtoull(s, NULL, 10) * m;
	return 1;
}

static int is_range(const char *s, size_t n)
{
	const char *d = memchr(s, '-', n);
	unsigned long long a, b;

	return d && memunits(s, (size_t)(d - s), &a) &&
	       memunits(d + 1, n - (size_t)(d - s) - 1, &b) && a < b;
}

static int is_team(const char *s, size_t n)
{
	const char *d = memchr(s, '-', n);

	if (!d)
		return digits(s, n);
	return digits(s, (size_t)(d - s)) &&
	       ((n - (size_t)(d - s) - 1 == 3 && !strncmp(d + 1, "inf", 3)) ||
		(digits(d + 1, n - (size_t)(d - s) - 1) &&
		 strtoul(d + 1, NULL, 10) >= strtoul(s, NULL, 10)));
}

/* One token: 1 when UCC's parser takes it; the fields' kinds in *kinds. */
static int ucc_token_ok(const char *t, size_t n, unsigned *kinds)
{
	*kinds = 0;
	while (n) {
		const char *c = memchr(t, ':', n);
		size_t k = c ? (size_t)(c - t) : n;
		unsigned kind;

		if (!(*kinds & 1) && k && each(t, k, is_coll))
			kind = 1;
		else if (!(*kinds & 2) && k && each(t, k, is_mem))
			kind = 2;
		else if (!(*kinds & 4) && ((k == 3 && !strncmp(t, "inf", 3)) || digits(t, k)))
			kind = 4;
		else if (!(*kinds & 8) && k && each(t, k, is_range))
			kind = 8;
		else if (!(*kinds & 16) && k > 2 && t[0] == '[' && t[k - 1] == ']' &&
			 each(t + 1, k - 2, is_team))
			kind = 16;
		else if (!(*kinds & 32) && k > 1 && t[0] == '@')
			kind = 32;
		else
			return 0;
		*kinds |= kind;
		n -= c ? k + 1 : k;
		t += c ? k + 1 : k;
	}
	return (*kinds & 4) || (*kinds & 32);
}

/* Every token of a TUNE value parses, and names coll, host memory, a
 * range, a team size and an algorithm. Returns the token count, -1 bad. */
static int ucc_tune_ok(const char *s)
{
	int count = 0;

	while (*s) {
		const char *h = strchr(s, '#');
		size_t n = h ? (size_t)(h - s) : strlen(s);
		unsigned kinds;

		if (!ucc_token_ok(s, n, &kinds) || kinds != (1 | 2 | 8 | 16 | 32))
			return -1;
		count++;
		s += h ? n + 1 : n;
	}
	return count;
}

static int w_env(const struct decisions *d, const struct export_opts *o, FILE *f)
{
	return export_env(d, o, f);
}

static int w_profile(const struct decisions *d, const struct export_opts *o, FILE *f)
{
	(void)o;
	return export_profile(d, f);
}

static int fail_writer(void *ctx, FILE *f)
{
	(void)ctx;
	fputs("partial", f);
	return -1;
}

static int ok_writer(void *ctx, FILE *f)
{
	fputs(ctx, f);
	return 0;
}

/* The numbers of a rules text, comments dropped, one per token. */
static size_t numbers(const char *text, long long *out, size_t max)
{
	size_t n = 0;
	const char *s = text;

	while (*s && n < max) {
		if (*s == '#') {
			while (*s && *s != '\n')
				s++;
		} else if (*s >= '0' && *s <= '9') {
			out[n++] = strtoll(s, (char **)&s, 10);
		} else {
			s++;
		}
	}
	return n;
}

int main(void)
{
	struct ompi_version v;
	struct ompi_alg_params pv[2] = {
		{ "bcast", OMPI_ANY_ALG, { 8192, 2, 3, 0, 4 } },
		{ "gather", OMPI_ANY_ALG, { 0, 5, 6, 0, -1 } },
	};
	struct ompi_params params = { pv, 2, "the test" };
	struct export_opts o = { { 4, 1, 4 }, "/x/ompi-rules.conf", 1, &params };
	struct ucc_export u;
	struct store_point pts[32];
	struct decisions d = DECISIONS_INIT, back = DECISIONS_INIT;
	size_t n = 0;
	char *rules, *js, *env1, *env2, *prof;
	long long num[64];
	size_t nn;
	json_t *root, *r;
	char path[] = "/tmp/export-t.XXXXXX";
	char *file, *tmpl;

	plan(45);
	ok(!ompi_version_parse("4.1.4", &v) && v.major == 4 && v.minor == 1 && v.release == 4,
	   "4.1.4");
	ok(!ompi_version_parse("v5.0.7rc1", &v) && v.major == 5 && v.release == 7, "v5.0.7rc1");
	ok(!ompi_version_parse("6.0", &v) && v.major == 6 && v.minor == 0, "6.0");
	ok(ompi_version_parse("4", &v) && ompi_version_parse("x.1", &v) &&
		   ompi_version_parse("4.1-", &v),
	   "not versions: 4, x.1, 4.1-");
	ok(!ompi_reads_rules_v2(&(struct ompi_version){ 4, 1, 4 }),
	   "4.1.4 reads the classic form only");
	ok(!ompi_reads_rules_v2(&(struct ompi_version){ 5, 0, 6 }), "5.0.6 too");
	ok(ompi_reads_rules_v2(&(struct ompi_version){ 5, 0, 7 }) &&
		   ompi_reads_rules_v2(&(struct ompi_version){ 6, 0, 0 }),
	   "5.0.7 and 6.0 read version 2");
	is_int(mpi_algorithm_id("tuned:6"), 6, "tuned:6 is 6");
	is_int(mpi_algorithm_id("default"), 0, "default is 0");
	is_int(mpi_algorithm_id("ring"), -1, "anything else is not an id");

	/* bcast on 4 ranks: 6 fastest at 4K, 8 at 64K and 1M; two repetitions
	 * each (the mean decides); gather on 4 ranks: 1 at 1K. */
	pts[n++] = mk_mpi("bcast", "tuned:6", 4096, 4, 10);
	pts[n++] = mk_mpi("bcast", "tuned:6", 4096, 4, 12);
	pts[n++] = mk_mpi("bcast", "tuned:8", 4096, 4, 5);
	pts[n++] = mk_mpi("bcast", "tuned:8", 4096, 4, 30);
	pts[n++] = mk_mpi("bcast", "tuned:6", 65536, 4, 50);
	pts[n++] = mk_mpi("bcast", "tuned:8", 65536, 4, 40);
	pts[n++] = mk_mpi("bcast", "tuned:6", 1 << 20, 4, 500);
	pts[n++] = mk_mpi("bcast", "tuned:8", 1 << 20, 4, 400);
	pts[n++] = mk_mpi("bcast", "default", 1 << 20, 4, 450);
	pts[n++] = mk_mpi("gather", "tuned:1", 1024, 4, 7);
	pts[n++] = mk_mpi("gather", "tuned:2", 1024, 4, 9);
	pts[n++] = mk_off("bcast", "block", 262144, "n8-ppn8-w8-wpn1-dpu", 8, 1, 97);
	pts[n++] = mk_off("bcast", "block", 262144, "n8-ppn8-w8-wpn1-dpu", 8, 1, 98);
	pts[n++] = mk_off("bcast", "block", 262144, "n8-ppn8-w16-wpn2-dpu", 16, 2, 97.5);
	pts[n++] = mk_off("bcast", "block", 1048576, "n8-ppn8-w16-wpn2-dpu", 16, 2, 99);
	pts[n++] = mk_off("bcast", "block", 1048576, "n8-ppn8-w8-wpn1-dpu", 8, 1, 99);
	pts[n] = mk_off("bcast", "cyclic", 1048576, "n8-ppn8-w4-wpn1-dpu", 4, 1, 100);
	pts[n++].valid = 0; /* invalid: must not win */
	decisions_from_points(pts, n, &d);
	d.source = xstrdup("unit");

	is_int(d.nmpi, 4, "one choice per collective, ranks and size");
	is_int(d.mpi[0].alg, 6, "4K: 6 (mean 11 us) beats 8 (mean 17.5 us)");
	ok(d.mpi[2].alg == 8 && fabs(d.mpi[2].default_us - 450) < 1e-9,
	   "1M: 8, default measured too");
	is_int(d.noff, 2, "one offload choice per group (the invalid cyclic point is no group)");
	is_str(d.off[0].layout, "n8-ppn8-w8-wpn1-dpu", "256K: mean 97.5 tie goes to fewer workers");
	is_str(d.off[1].layout, "n8-ppn8-w8-wpn1-dpu", "1M: exact tie at 99 goes to fewer workers");

	{
		struct band *b;
		size_t nb = decisions_bands(&d, "bcast", &b);

		ok(nb == 1 && b[0].lo == 262144 && b[0].hi == 1048576 && b[0].nsizes == 2 &&
			   !strcmp(b[0].best->layout, "n8-ppn8-w8-wpn1-dpu"),
		   "256K and 1M share their best: one size band");
		free(b);
	}
	rules = to_string(w_rules, &d, &o);
	nn = rules ? numbers(rules, num, 64) : 0;
	/* 2 colls; bcast 7 in 3 blocks: [1: 0 0 0 0] [4: 0 6 3 8192, 65536 8 3
	 * 8192] [5: 0 0 0 0]; gather 9: [1: 0 0 0 0] [4: 0 1 5 0] [5: 0 0 0 0]. */
	ok(nn == 45 && num[0] == 2 && num[1] == 7 && num[2] == 3 && num[3] == 1 && num[4] == 1 &&
		   num[6] == 0,
	   "bcast: sizes below 4 are Open MPI's own decision");
	ok(num[9] == 4 && num[10] == 2 && num[11] == 0 && num[12] == 6 && num[15] == 65536 &&
		   num[16] == 8,
	   "size 4 alone: size 0 first, then 64K, ascending; 1M merged into 64K's");
	ok(num[13] == 3 && num[14] == 8192 && num[17] == 3 && num[18] == 8192,
	   "bcast rules carry the chain fan-out and segment size the measurement ran with");
	ok(num[19] == 5 && num[20] == 1 && num[22] == 0, "5 and up: Open MPI's own decision");
	ok(rules && strstr(rules, "5 and up, beyond the sizes measured"),
	   "and the comment says so");
	ok(num[25] == 9 && num[33] == 4 && num[36] == 1 && num[37] == 5 && num[38] == 0,
	   "gather (9): its rule at size 0 with the tree fan-out");
	ok(rules && strncmp(rules, "rule-file-version-2", 19) &&
		   !strstr(rules, "\nrule-file-version-2"),
	   "4.1.4: no version-2 header");
	o.ompi = (struct ompi_version){ 5, 0, 7 };
	free(rules);
	rules = to_string(w_rules, &d, &o);
	ok(rules && !strncmp(rules, "rule-file-version-2\n", 20) &&
		   strstr(rules, "\n65536 8 3 8192 0"),
	   "5.0.7: version-2 header and 5 columns");

	js = to_string(w_json, &d, &o);
	root = js ? json_loads(js, 0, NULL) : NULL;
	ok(root && json_integer_value(json_object_get(root, "rule_file_version")) == 3 &&
		   !strcmp(json_string_value(json_object_get(root, "module")), "tuned"),
	   "JSON rules: version 3, module tuned");
	r = json_object_get(
		json_array_get(json_object_get(json_object_get(root, "collectives"), "bcast"), 0),
		"rules");
	ok(json_array_size(r) == 2 &&
		   json_integer_value(json_object_get(json_array_get(r, 0), "msg_size_min")) == 0 &&
		   json_integer_value(json_object_get(json_array_get(r, 0), "msg_size_max")) ==
			   65535 &&
		   json_integer_value(json_object_get(json_array_get(r, 1), "msg_size_min")) ==
			   65536 &&
		   !strcmp(json_string_value(json_object_get(json_array_get(r, 1), "msg_size_max")),
			   "inf"),
	   "JSON rules: contiguous inclusive ranges, the last to inf");
	ok(json_integer_value(json_object_get(json_array_get(r, 1), "faninout")) == 3 &&
		   json_integer_value(json_object_get(json_array_get(r, 1), "seg_size")) == 8192,
	   "JSON rules: the parameters too");
	ok(!strcmp(json_string_value(json_object_get(json_array_get(r, 0), "alg")), "binomial") &&
		   !strcmp(json_string_value(json_object_get(json_array_get(r, 1), "alg")),
			   "scatter_allgather"),
	   "JSON rules: algorithms by name");
	r = json_object_get(json_object_get(root, "collectives"), "gather");
	ok(json_integer_value(json_object_get(json_array_get(r, 0), "comm_size_min")) == 4 &&
		   json_integer_value(json_object_get(json_array_get(r, 0), "comm_size_max")) == 4,
	   "JSON rules: gather's communicator size measured, alone");
	json_decref(root);

	ok(!export_ucc_build(&d, &o, &u), "UCC settings");
	is_str(u.tune, "bcast:0-64K:host:[4]:@knomial",
	       "binomial is UCC's knomial up to 64K, end excluded");
	ok(u.vars.nr == 1 && !strcmp(u.vars.v[0], "UCC_TL_UCP_BCAST_KN_RADIX=2"),
	   "... with radix 2");
	ok(u.notes.nr == 2 && strstr(u.notes.v[0], "scatter_allgather (8) left out") &&
		   strstr(u.notes.v[1], "gather 0-inf [4] basic_linear (1) left out"),
	   "the others are left out, saying why");
	is_int(ucc_tune_ok(u.tune), 1, "every token parses with UCC's grammar");
	is_int(ucc_tune_ok("bcast:0-4K:host:[4]:@knomial#bcast:4K-inf:host:[4-inf]:@dbt"), 2,
	       "the grammar takes UCC's own example shape");
	ok(ucc_tune_ok("bcast:0-4095:host:[4]:@knomial#bcast:4K-4K:host:[4]:@dbt") < 0 &&
		   ucc_tune_ok("bcast:0-4K:cpu:[4]:@knomial") < 0 &&
		   ucc_tune_ok("bcast:0-4K:host:[8-4]:@x") < 0,
	   "and refuses an empty range, an unknown memory type, a backwards team range");
	export_ucc_release(&u);

	/* Profile round trip: written, read back, the same env file. */
	prof = to_string(w_profile, &d, &o);
	file = mkdtemp(path) ? xasprintf("%s/p.cfg", path) : NULL;
	ok(file && !files_write_atomic(file, ok_writer, prof), "profile written");
	ok(!profile_load(file, &back), "profile read back");
	ok(back.noff == d.noff && back.nmpi == d.nmpi && back.off[0].oe == d.off[0].oe &&
		   back.off[0].spread == d.off[0].spread &&
		   !strcmp(back.off[1].runner_up, d.off[1].runner_up) &&
		   back.mpi[2].default_us == d.mpi[2].default_us && isnan(back.mpi[0].default_us),
	   "every figure comes back exactly");
	env1 = to_string(w_env, &d, &o);
	env2 = to_string(w_env, &back, &o);
	ok(env1 && env2 && !strcmp(env1, env2), "env from the profile equals env from the points");
	ok(env1 && strstr(env1, "export SWEETSPOT_BCAST_WORKERS=8\n") &&
		   strstr(env1,
			  "export OMPI_MCA_coll_tuned_dynamic_rules_filename=/x/ompi-rules.conf\n"),
	   "env: the layout and the rules file");

	/* A bad profile: file:line. */
	{
		char *bad = xasprintf("%s/bad.cfg", path);
		FILE *f = fopen(bad, "w");
		struct decisions x;

		fputs("version = 1;\nmpi = ( { collective = \"bcast\"; ranks = 4; } );\n", f);
		fclose(f);
		ok(profile_load(bad, &x) == -1, "a profile entry missing settings is refused");
		unlink(bad);
		free(bad);
	}

	/* Atomic writing: a failing writer leaves no file and no temporary. */
	tmpl = xasprintf("%s/out.rules", path);
	ok(files_write_atomic(tmpl, fail_writer, NULL) == -1 && access(tmpl, F_OK) != 0,
	   "a failed write leaves nothing");
	is_int(test_dir_entries(path, "p.cfg"), 0, "not even a temporary file");
	unlink(file);
	rmdir(path);
	free(tmpl);
	free(file);
	free(rules);
	free(js);
	free(prof);
	free(env1);
	free(env2);
	decisions_release(&back);
	decisions_release(&d);
	return done_testing();
}
