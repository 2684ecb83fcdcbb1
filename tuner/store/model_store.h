/*
 * tuner/store/model_store.h: the model's calibrated parameters in the results
 * database (store_model.c, a table of its own, model_params, created on
 * first write): one row per calibration, with the run its launches were
 * stored in and the fit's quality.
 */
#ifndef SWEETSPOT_MODEL_STORE_H
#define SWEETSPOT_MODEL_STORE_H

#include "model.h"
#include "store.h"

/* Records p for spec_path (hash) and transport, calibrated from run. 0 or -1. */
int store_model_save(struct store *st, const char *spec_path, const char *spec_hash, long long run,
		     const char *transport, const struct model_params *p);

/* The latest parameters of spec_path with spec_hash: 1 with *p and *run,
 * 0 when there are none (or no table yet), -1 after error(). */
int store_model_load(struct store *st, const char *spec_path, const char *spec_hash,
		     struct model_params *p, long long *run);

#endif
