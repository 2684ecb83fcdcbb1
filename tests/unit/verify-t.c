/*
 * tests/unit/verify-t.c: what `sweetspot verify` decides without launching
 * (tuner/verify/verify.c): the environment an exported file stands for, the rules
 * a classic Open MPI rules file gives, the figures of a launch's output,
 * and the verdicts.
 */
#include "tap.h"
#include "testfs.h"
#include "strvec.h"
#include "verify.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/verify-t.XXXXXX";

/* dir/name with text in it; the path is static until the next call. */
static const char *file(const char *name, const char *text)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

static void test_settings(void)
{
	struct strvec env = STRVEC_INIT;
	enum verify_kind k;
	const char *p;
	char want[300];

	p = file("rules", "# comment\n1\n7\n1\n4\n1\n0 1 0 0\n");
	ok(!verify_settings(p, &env, &k) && k == VERIFY_OMPI_RULES && env.nr == 2,
	   "a classic rules file: two variables");
	snprintf(want, sizeof(want), "OMPI_MCA_coll_tuned_dynamic_rules_filename=%s", p);
	is_str(env.nr == 2 ? env.v[1] : "", want, "... naming it by its absolute path");
	strvec_clear(&env);
	p = file("env", "# sweetspot env\nexport A=1\nexport B='x y'\\''z'\nC=\"q\"\n\n");
	ok(!verify_settings(p, &env, &k) && k == VERIFY_ENV && env.nr == 3 &&
		   !strcmp(env.v[0], "A=1") && !strcmp(env.v[1], "B=x y'z") &&
		   !strcmp(env.v[2], "C=q"),
	   "an env file: each variable, unquoted as the shell would");
	strvec_clear(&env);
	p = file("mca",
		 "coll_tuned_use_dynamic_rules = 1\ncoll_tuned_dynamic_rules_filename = /r\n");
	ok(!verify_settings(p, &env, &k) && k == VERIFY_MCA_PARAMS && env.nr == 2 &&
		   !strcmp(env.v[1], "OMPI_MCA_coll_tuned_dynamic_rules_filename=/r"),
	   "an mca-params file: OMPI_MCA_ variables");
	strvec_clear(&env);
	p = file("bad", "export A=1\nexport 9B=2\n");
	ok(verify_settings(p, &env, &k) && env.nr == 0, "a bad line: refused, nothing kept");
	p = file("empty", "# nothing\n\n");
	ok(verify_settings(p, &env, &k), "no setting: refused");
	ok(verify_settings("/nonexistent/file", &env, &k), "a missing file: refused");
	strvec_clear(&env);
}

static void test_rules(void)
{
	struct verify_rules r;

	/* bcast (7): from 4 ranks, alg 6 from 0 bytes, 1 from 64K; allreduce
	 * (2): from 2 ranks, alg 4. */
	ok(!verify_rules_load(file("r", "2 # collectives\n7\n1\n4 2\n0 6 0 0\n65536 1 0 0\n"
					"2\n1\n2\n1\n0 4 0 0\n"),
			      &r) &&
		   r.n == 3,
	   "classic rules: 3 rules");
	is_int(verify_rules_alg(&r, 7, 4, 1024), 6, "bcast 4 ranks 1K: 6");
	is_int(verify_rules_alg(&r, 7, 8, 65536), 1, "bcast 8 ranks 64K: the block at 4, 1");
	is_int(verify_rules_alg(&r, 7, 2, 1024), 0, "bcast 2 ranks: no block, Open MPI's own");
	is_int(verify_rules_alg(&r, 2, 16, 1 << 20), 4, "allreduce: 4");
	is_int(verify_rules_alg(&r, 3, 4, 1024), 0, "a collective without rules: 0");
	verify_rules_release(&r);
	ok(!verify_rules_load(file("r2", "rule-file-version-2\n1\n7\n1\n4\n1\n0 6 0 0 0\n"), &r) &&
		   r.version2 && r.n == 1 && verify_rules_alg(&r, 7, 4, 1) == 6,
	   "rule-file-version-2: 5 columns");
	verify_rules_release(&r);
	is_int(verify_rules_load(file("j", "  {\"rule_file_version\": 3}\n"), &r), 1,
	       "JSON rules: 1");
	is_int(verify_rules_load(file("bad", "1\n7\n1\n4\n1\n0 x 0 0\n"), &r), -1, "a word: -1");
	is_int(verify_rules_load(file("short", "1\n7\n1\n4\n2\n0 6 0 0\n"), &r), -1,
	       "cut short: -1");
}

static void test_figures(void)
{
	struct verify_metric m;
	struct strvec names = STRVEC_INIT;
	double *v = NULL;
	size_t n = 0;
	const char *log = file("log", "# command: size 1: 9 us\nbcast 1024 3.5 2.5\n"
				      "noise\nbcast 4096 7.25 6.5\n");

	ok(verify_metric_compile(&m, "^[a-z]+ [0-9]+"), "no capture group: refused");
	ok(verify_metric_compile(&m, "(["), "a bad expression: refused");
	ok(!verify_metric_compile(&m, "^([a-z]+ [0-9]+) [0-9.]+ ([0-9.]+)$"), "two groups");
	ok(!verify_read_figures(&m, log, &names, &v, &n) && n == 2 && v[0] == 2.5 && v[1] == 6.5 &&
		   !strcmp(names.v[0], "bcast 1024") && !strcmp(names.v[1], "bcast 4096"),
	   "the last group the number, the first its name; the command line skipped");
	verify_metric_release(&m);
	free(v);
	strvec_clear(&names);
	ok(!verify_metric_compile(&m, "^bcast  *([0-9.]+)") &&
		   !verify_read_figures(&m, log, &names, &v, &n) && n == 2 && v[0] == 1024 &&
		   !strcmp(names.v[0], "bcast"),
	   "one group: named by the text before it");
	verify_metric_release(&m);
	free(v);
	strvec_clear(&names);
	ok(!verify_metric_compile(&m, "^(noise)") && verify_read_figures(&m, log, &names, &v, &n),
	   "a match that is not a number: refused");
	verify_metric_release(&m);
	free(v);
	strvec_clear(&names);
}

static void add(struct verify_figure *f, const double *a, const double *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		verify_figure_add(f, 0, a[i]);
		verify_figure_add(f, 1, b[i]);
	}
}

static void test_decide(void)
{
	double a[10] = { 10, 10.2, 9.9, 10.1, 10.05, 9.95, 10.15, 9.85, 10.02, 9.98 },
	       fast[10] = { 5, 5.1, 4.9, 5.05, 4.95, 5.02, 5.08, 4.93, 5.01, 4.99 },
	       same[10] = { 10, 10.2, 9.9, 10.1, 10.05, 9.95, 10.15, 9.85, 10.02, 9.98 },
	       wide[10] = { 5, 20, 8, 14, 9, 12, 25, 6, 11, 7 },
	       /* a machine that drifts from pair to pair, 3x in all: B 1%
		* slower than A in each pair */
		drift_a[10] = { 10, 20, 15, 30, 12, 25, 18, 11, 28, 16 }, drift_b[10];
	struct verify_figure *f = calloc(5, sizeof(*f));
	int u;

	for (int i = 0; i < 10; i++)
		drift_b[i] = drift_a[i] * (1.01 + 0.002 * (i % 3));
	for (int i = 0; i < 5; i++) {
		f[i].name = strdup("x");
		f[i].pairs = 1;
	}
	add(&f[0], a, fast, 10);
	add(&f[1], fast, a, 10);
	add(&f[2], a, same, 10);
	add(&f[3], a, wide, 10);
	add(&f[4], drift_a, drift_b, 10);
	u = verify_decide(f, 5, 0, 0.05, 0.05);
	is_int(u, 1, "one figure undecided");
	is_str(f[0].verdict, "faster", "B half the time: faster");
	ok(fabs(f[0].ratio - 0.5) < 0.02 && f[0].r_lo <= f[0].ratio && f[0].ratio <= f[0].r_hi,
	   "B/A 0.5 within its CI (%.3f [%.3f, %.3f])", f[0].ratio, f[0].r_lo, f[0].r_hi);
	ok(f[0].p_holm >= f[0].p, "Holm's p is not below the raw p");
	is_str(f[1].verdict, "slower", "B twice the time: slower");
	is_str(f[2].verdict, "no difference", "the same values: no difference");
	is_str(f[3].verdict, "no difference shown", "a wide B: undecided");
	ok(f[3].more_launches != 0, "... with the launches a decision would take (%ld)",
	   f[3].more_launches);
	ok(f[4].paired && !strcmp(f[4].verdict, "no difference") && f[4].ratio > 1.005 &&
		   f[4].ratio < 1.02,
	   "a drifting machine, B 1%% slower in every pair: paired, no difference (%s, %.3f)",
	   f[4].verdict, f[4].ratio);
	is_int(verify_decide(f, 2, 1, 0.05, 0.05), 0, "--higher: decided");
	is_str(f[0].verdict, "slower", "--higher: smaller B is slower");
	/* Unpaired (a launch of one side missing): the two samples apart. */
	verify_figure_add(&f[2], 0, 10);
	ok(verify_decide(&f[2], 1, 0, 0.05, 0.05) >= 0 && !f[2].paired,
	   "11 A against 10 B: the samples compared apart (Mann-Whitney)");
	verify_figures_free(f, 5);
}

int main(void)
{
	plan(35);
	if (!mkdtemp(dir))
		return 1;
	test_settings();
	test_rules();
	test_figures();
	test_decide();
	test_rm_tree(dir);
	return done_testing();
}
