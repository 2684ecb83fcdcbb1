/*
 * tuner/store/store_model.c: the model_params table (model_store.h). Its own
 * table, created where it is first written, so the store's schema and
 * version stay as store_db.c keeps them; a database without it simply has
 * no calibration yet.
 */
#include "model_store.h"
#include "store_priv.h"
#include "timestamp.h"
#include "error.h"

#include <stdlib.h>
#include <string.h>

#define MODEL_COLS                                                                         \
	"L, g_read, g_write, g_share, net_L, net_g_read, net_g_write, net_g_share, "       \
	"pcie_L, pcie_g_read, pcie_g_write, pcie_g_share, o, g_reduce, g_copy, poll, t0, " \
	"resid, noise, r2, npoints, calibrated"

static const char model_schema[] =
	"CREATE TABLE IF NOT EXISTS model_params ("
	" id INTEGER PRIMARY KEY, spec_path TEXT NOT NULL, spec_hash TEXT NOT NULL,"
	" run INTEGER, transport TEXT, created TEXT NOT NULL,"
	" L REAL, g_read REAL, g_write REAL, g_share REAL,"
	" net_L REAL, net_g_read REAL, net_g_write REAL, net_g_share REAL,"
	" pcie_L REAL, pcie_g_read REAL, pcie_g_write REAL, pcie_g_share REAL,"
	" o REAL, g_reduce REAL, g_copy REAL, poll REAL, t0 REAL,"
	" resid REAL, noise REAL, r2 REAL, npoints INTEGER, calibrated INTEGER)";

/* The parameters in column order. */
static void param_ptrs(struct model_params *p, double **v)
{
	int i = 0;

	for (int k = 0; k < PATH_N; k++) {
		v[i++] = &p->path[k].L;
		v[i++] = &p->path[k].g_read;
		v[i++] = &p->path[k].g_write;
		v[i++] = &p->path[k].g_share;
	}
	v[i++] = &p->o;
	v[i++] = &p->g_reduce;
	v[i++] = &p->g_copy;
	v[i++] = &p->poll;
	v[i++] = &p->t0;
	v[i++] = &p->resid;
	v[i++] = &p->noise;
	v[i++] = &p->r2;
}

#define NREAL (4 * PATH_N + 8)

int store_model_save(struct store *st, const char *spec_path, const char *spec_hash, long long run,
		     const char *transport, const struct model_params *p)
{
	struct model_params c = *p;
	double *v[NREAL];
	sqlite3_stmt *stmt;
	char *now;
	int rc;

	if (store_need_writable(st) || store_exec(st, model_schema) ||
	    store_prepare(st,
			  "INSERT INTO model_params (spec_path, spec_hash, run, transport, "
			  "created, " MODEL_COLS
			  ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
			  &stmt))
		return -1;
	param_ptrs(&c, v);
	now = timestamp_now_iso();
	store_bind_text(stmt, 1, spec_path);
	store_bind_text(stmt, 2, spec_hash);
	store_bind_int(stmt, 3, run);
	store_bind_text(stmt, 4, transport);
	store_bind_text(stmt, 5, now);
	for (int i = 0; i < NREAL; i++)
		store_bind_double(stmt, 6 + i, *v[i]);
	store_bind_int(stmt, 6 + NREAL, p->npoints);
	store_bind_int(stmt, 7 + NREAL, p->calibrated);
	rc = sqlite3_step(stmt);
	sqlite3_finalize(stmt);
	free(now);
	if (rc != SQLITE_DONE) {
		store_sql_error(st, "recording the model's parameters");
		return -1;
	}
	return 0;
}

int store_model_load(struct store *st, const char *spec_path, const char *spec_hash,
		     struct model_params *p, long long *run)
{
	double *v[NREAL];
	sqlite3_stmt *stmt;
	long long have = 0;
	int rc;

	if (store_query_int(st, "SELECT count(*) FROM sqlite_master WHERE name = 'model_params'",
			    &have))
		return -1;
	if (!have)
		return 0;
	if (store_prepare(st,
			  "SELECT run, " MODEL_COLS " FROM model_params WHERE spec_path = ? "
			  "AND spec_hash = ? ORDER BY id DESC LIMIT 1",
			  &stmt))
		return -1;
	store_bind_text(stmt, 1, spec_path);
	store_bind_text(stmt, 2, spec_hash);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		model_params_default(p);
		param_ptrs(p, v);
		*run = sqlite3_column_int64(stmt, 0);
		for (int i = 0; i < NREAL; i++)
			*v[i] = store_col_double(stmt, 1 + i);
		p->npoints = store_col_int(stmt, 1 + NREAL);
		p->calibrated = (unsigned)store_col_int(stmt, 2 + NREAL);
	}
	sqlite3_finalize(stmt);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		store_sql_error(st, "reading the model's parameters");
		return -1;
	}
	return rc == SQLITE_ROW;
}
