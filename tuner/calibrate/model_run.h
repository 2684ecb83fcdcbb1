/*
 * tuner/calibrate/model_run.h: the model against a spec (model_run.c): calibration
 * launches through the sweep engine, and predictions of a layout's points.
 */
#ifndef SWEETSPOT_MODEL_RUN_H
#define SWEETSPOT_MODEL_RUN_H

#include "model.h"
#include "plan.h"
#include "runner.h"
#include "spec.h"
#include "store.h"

/* Cores a host node has: this machine's when the spec's one node is it,
 * else one per host rank and reserved core. */
int model_host_cores(const struct spec *s);
void model_env_of(const struct spec *s, struct model_env *env);

/* Calibrates for the spec at path: at most three launches (resumed when
 * the run SPEC:model holds them), the fit, and the parameters stored
 * under key (spec_run_key of path).
 * 0, or -1 after error(). */
int model_calibrate(const char *path, const char *key, const char *db, enum launcher launcher,
		    struct store *st, struct model_params *p);

/* Fits the parameters on the launches of run, launching nothing, and
 * stores them under key: the spec's calibration run (SPEC:model: after the
 * model changed, or to compare two models on the same launches) or one of
 * its measured sweeps (to predict another run of the same grid from one).
 * 0, or -1 after error() (also when run is no run of the spec). */
int model_refit(const char *path, const char *key, struct store *st, long long run,
		struct model_params *p);

/* Predicts every point of layout l under spec s (the plan's points, each
 * with its own axes) and hands each to fn (nonzero stops). 0 or -1. */
int model_predict_layout(const struct model_params *p, const struct spec *s, const struct layout *l,
			 const struct model_env *env,
			 int (*fn)(const struct model_obs *o, const struct model_pred *pr,
				   void *data),
			 void *data);

/* Every point of plan p predicted with the parameters stored for the spec
 * at path (hash s->hash), as store points (transport "model", one
 * "repetition") that the caller frees with store_points_free(): 1 with
 * *pts and *n, 0 when the database holds no parameters for the spec
 * (nothing said), -1 after error(). */
int model_predicted_points(const char *path, const struct spec *s, const struct plan *p,
			   struct store *st, struct store_point **pts, size_t *n);

/* --check: predictions against the latest run of path (label NULL: its
 * sweep; "smpi": its SimGrid run, every rank on a core of its own), or
 * against run `against` when it is not 0 (a run of the same kind, else an
 * error), per collective, and the sweet spots; text or JSON on stdout. The
 * exit status. */
int model_check(const char *path, struct store *st, const struct spec *s,
		const struct model_params *mp, int json, const char *label, long long against);

/* `search --strategy model` (model_search.c): the model predicts the
 * whole grid and only its top candidates are measured. Per decision group
 * (collective, bytes) a layout's prediction is its best (algorithm,
 * assignment); the candidates are the predicted best layout and those
 * whose predicted OE is within MODEL_SEARCH_Z standard deviations of the
 * difference (the two predictions' sds combined) of it, best first, at
 * most MODEL_SEARCH_CAP per group; the union over groups is measured. */
#define MODEL_SEARCH_CAP 3
#define MODEL_SEARCH_Z	 1.0

/* One decision group as the model sees it. */
struct model_search_group {
	/* The question (collective, bytes, dtype and op as recommend decides;
	 * no configuration): strings borrowed from the search space. */
	struct point key;
	long best;	      /* predicted best layout; -1: none */
	double oe, sd;	      /* its predicted oe_measured and sd */
	unsigned ncandidates; /* layouts it puts forward */
};

struct model_search {
	struct model_params params;
	int reused;		       /* the database held the parameters */
	unsigned calibration_launches; /* launches calibrating made here */
	unsigned char *only;	       /* per search layout: a candidate; owned */
	size_t ncandidates;
	struct model_search_group *groups; /* owned */
	size_t ngroups;
};

/* The parameters of the spec at path (stored ones, else a calibration
 * into db with launcher l), then the candidates among sp's layouts (those
 * of p, in the same order). 0 with *ms filled (release it), or -1 after
 * error(). */
int model_search_prepare(const char *path, const char *db, enum launcher l, const struct spec *s,
			 const struct plan *p, const struct search_space *sp,
			 struct model_search *ms);
void model_search_release(struct model_search *ms);

/* The surrogate's prior for the adaptive search (search.h, search_opts
 * prior): when db holds the model's parameters for the spec at path, every
 * (layout, group) of sp predicted, into *prior (layouts x groups, NAN where
 * a point has no prediction; the caller frees it) and 1; 0 when it holds
 * none (no calibration is made for a prior); -1 after error(). */
int model_search_prior(const char *path, const char *db, const struct spec *s, const struct plan *p,
		       const struct search_space *sp, double **prior);

/* SimGrid SMPI (model_smpi.c). The SMPI build of the kernel beside
 * host_bin: DIR/smpi/NAME (the caller frees it). */
char *model_smpi_kernel(const char *host_bin);
/* Whether that binary simulates its dummy compute (names
 * smpi_execute_flops), so that its simulated times are deterministic. */
int model_smpi_deterministic(const char *kernel);
/* smpirun's --cfg entries. */
void model_smpi_cfg(int deterministic, struct strvec *cfg);
/* Runs layouts ls (their points set) under smpirun on the platform of p,
 * one launch each, into the run "SPEC:smpi" of db (continued when it
 * holds some); dry: prints the commands only. 0, or -1 after error()
 * (also when a launch failed or a point was invalid). */
int model_smpi_run(const char *path, const char *db, struct store *st, const struct spec *s,
		   const struct layout *ls, size_t nl, const struct model_params *p, int dry);

#endif
