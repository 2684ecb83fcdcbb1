/*
 * tuner/verify/verify.h: the parts of `sweetspot verify` that launch nothing: the
 * tuned settings an exported file stands for (the environment of launch
 * B), the figures read from a launch's output, and the decision per
 * figure, with the statistics recommend uses (Mann-Whitney, Hodges-Lehmann,
 * Holm over the figures, tuner/decide/stats.h). cmd_verify.c launches A and B.
 */
#ifndef SWEETSPOT_VERIFY_H
#define SWEETSPOT_VERIFY_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "argv.h"
#include "strvec.h"

/* What an exported file is, read from its content. */
enum verify_kind {
	VERIFY_OMPI_RULES, /* coll/tuned rules, classic or JSON */
	VERIFY_ENV,	   /* "export NAME=value" lines (env, mpich formats) */
	VERIFY_MCA_PARAMS, /* "name = value" lines of mca-params.conf */
	VERIFY_MPMD,	   /* an MPMD recipe's folder (export --format mpmd) */
};

const char *verify_kind_name(enum verify_kind k);

/* The variables that make a launch run path's settings, appended to env
 * ("NAME=value"), and what path is in *kind. A rules file is named by its
 * absolute path. 0, or -1 after error() (missing, unreadable, empty, a
 * line that is none of the forms: file:line). */
int verify_settings(const char *path, struct strvec *env, enum verify_kind *kind);

/* An MPMD recipe (the folder export --format mpmd writes): B runs the
 * program on its layout. The environment verify_settings() gives B is
 * SWEETSPOT_RECIPE=<its folder>, for the program to know. */
struct verify_recipe {
	char *dir;	     /* absolute */
	struct strvec hosts; /* each rank's host, in rank order (slurm.hostfile) */
};

/* Whether path is a recipe's folder (one with a slurm.hostfile). */
int verify_recipe_is(const char *path);
/* 0, or -1 after error() (no slurm.hostfile, or one without ranks). */
int verify_recipe_load(const char *path, struct verify_recipe *r);
void verify_recipe_release(struct verify_recipe *r);
/* 0 when every word of prog can go in the recipe's files (no blank,
 * quote, backslash or '%'), else -1 after error(). */
int verify_recipe_check_words(const struct strvec *prog);
/* Writes into the folder out the recipe's files for launcher l: its
 * program file (appfile, multi-prog.conf, config, configfile.hydra) with
 * prog (program and arguments) in the place of every context's, and its
 * hostfiles and rankfile as they are. 0, or -1 after error(). */
int verify_recipe_write(const struct verify_recipe *r, enum launcher l, const struct strvec *prog,
			const char *out);
/* Where the ranks ran, from the log of `sweetspot-loop --where` ("where
 * RANK HOST CPUS" rows; appended to ran as "HOST CPUS", in rank order),
 * against the recipe: 0 when every rank ran on its host, 1 when not (why
 * says the first difference), -1 after error(). */
int verify_recipe_where(const struct verify_recipe *r, const char *log, struct strvec *ran,
			char *why, size_t len);

/* An Open MPI classic rules file (the form `export --format ompi-rules`
 * writes, with or without the rule-file-version-2 header), read as
 * coll/tuned reads it. */
struct verify_rule {
	int coll;      /* coll/tuned id */
	unsigned comm; /* communicator size the block starts at */
	uint64_t msg;  /* message size the rule starts at */
	int alg;       /* 0: Open MPI's own choice */
};

struct verify_rules {
	struct verify_rule *v;
	size_t n;
	int version2; /* the header: 5 columns (reqs) */
};

/* 0 and *out (release it), 1 when path is not a classic rules file (JSON
 * rules: nothing filled), -1 after error() with file:line. */
int verify_rules_load(const char *path, struct verify_rules *out);
void verify_rules_release(struct verify_rules *r);
/* The algorithm the rules give collective coll on comm ranks at message
 * size msg: the last block at or below comm, in it the last rule at or
 * below msg; 0 (Open MPI's own choice) when none applies. */
int verify_rules_alg(const struct verify_rules *r, int coll, unsigned comm, uint64_t msg);

/* The figures a launch gives: every line of its output the metric matches
 * (the last capture group is the number; earlier groups, when there are,
 * name it, else its place among the matches does). */
struct verify_metric {
	regex_t re;
	size_t groups; /* capture groups, >= 1 */
	int compiled;
};

/* Compiles src (POSIX extended). 0, or -1 after error() naming the
 * problem (no capture group, a bad expression). */
int verify_metric_compile(struct verify_metric *m, const char *src);
void verify_metric_release(struct verify_metric *m);

/* The figures of one launch's log (lines that start "# command:" are
 * sweetspot's and skipped): names (the caller's strvec, appended) and
 * values (*vals, malloc'd, *n of them). 0 (n may be 0), or -1 after
 * error() when the log cannot be read or a match is not a number. */
int verify_read_figures(const struct verify_metric *m, const char *log, struct strvec *names,
			double **vals, size_t *n);

/* One figure's samples (one value per launch) and its answer. */
struct verify_figure {
	char *name;
	double *a, *b; /* without (A) and with (B) the settings */
	size_t na, nb, alloc_a, alloc_b;
	/* filled by verify_decide() */
	double med_a, a_lo, a_hi, med_b, b_lo, b_hi; /* medians, 95% CIs */
	double ratio, r_lo, r_hi;		     /* B/A (Hodges-Lehmann of the logs), 95% CI */
	double p, p_holm;			     /* two-sided; Holm over figures */
	int pairs;	     /* set by the caller: the i-th A and B launched as a pair */
	int paired;	     /* 1: A and B in pairs, B/A and p from the pairs' ratios
		     * (signed rank); 0: Mann-Whitney of the two samples */
	const char *verdict; /* "faster", "slower", "no difference" (the CI
					 * within the practical threshold), "no
					 * difference shown" (undecided) */
	long more_launches;  /* undecided: launches a decision would take
					 * beyond those made, estimated; -1 unknown */
};

/* Appends one value to a figure's A (side 0) or B (side 1) sample. */
void verify_figure_add(struct verify_figure *f, int side, double v);
void verify_figures_free(struct verify_figure *f, size_t n);

/* Decides every figure: higher (larger is better), alpha, and the
 * practical threshold delta (a fraction: |B/A - 1| below it is no
 * difference). Returns the number still undecided, or -1 after error()
 * (a figure with fewer than 2 values on a side). */
int verify_decide(struct verify_figure *f, size_t n, int higher, double alpha, double delta);

#endif
