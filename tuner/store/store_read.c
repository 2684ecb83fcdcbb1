/*
 * tuner/store/store_read.c: the queries of the results database: runs, whether a
 * launch is done, counts, and every point of a run in a stable order.
 */
#include "record.h"
#include "store_priv.h"
#include "error.h"
#include "xalloc.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- runs ---------------------------------------------------------------- */

void store_run_release(struct store_run *r)
{
	free(r->spec_path);
	free(r->spec_hash);
	free(r->started);
	free(r->finished);
	free(r->host);
	free(r->launcher);
	free(r->sweetspot_version);
	free(r->ompi_version);
	free(r->slurm_version);
	free(r->status);
	memset(r, 0, sizeof(*r));
}

#define RUN_COLUMNS                                                     \
	"id, spec_path, spec_hash, started, finished, host, launcher, " \
	"sweetspot_version, ompi_version, slurm_version, status, planned_launches, planned_points"

static void run_from_row(sqlite3_stmt *stmt, struct store_run *r)
{
	r->id = sqlite3_column_int64(stmt, 0);
	r->spec_path = store_col_strdup(stmt, 1);
	r->spec_hash = store_col_strdup(stmt, 2);
	r->started = store_col_strdup(stmt, 3);
	r->finished = store_col_strdup(stmt, 4);
	r->host = store_col_strdup(stmt, 5);
	r->launcher = store_col_strdup(stmt, 6);
	r->sweetspot_version = store_col_strdup(stmt, 7);
	r->ompi_version = store_col_strdup(stmt, 8);
	r->slurm_version = store_col_strdup(stmt, 9);
	r->status = store_col_strdup(stmt, 10);
	r->planned_launches = sqlite3_column_int64(stmt, 11);
	r->planned_points = sqlite3_column_int64(stmt, 12);
}

static int get_one_run(struct store *st, sqlite3_stmt *stmt, struct store_run *r)
{
	int rc = sqlite3_step(stmt), ret;

	memset(r, 0, sizeof(*r));
	if (rc == SQLITE_ROW) {
		run_from_row(stmt, r);
		ret = 1;
	} else if (rc == SQLITE_DONE) {
		ret = 0;
	} else {
		store_sql_error(st, "cannot read runs");
		ret = -1;
	}
	sqlite3_finalize(stmt);
	return ret;
}

int store_latest_run(struct store *st, const char *spec_path, struct store_run *r)
{
	sqlite3_stmt *stmt = NULL;

	if (spec_path) {
		if (store_prepare(st,
				  "SELECT " RUN_COLUMNS " FROM runs WHERE spec_path = ?1 "
				  "ORDER BY id DESC LIMIT 1",
				  &stmt))
			return -1;
		sqlite3_bind_text(stmt, 1, spec_path, -1, SQLITE_TRANSIENT);
	} else if (store_prepare(st, "SELECT " RUN_COLUMNS " FROM runs ORDER BY id DESC LIMIT 1",
				 &stmt)) {
		return -1;
	}
	return get_one_run(st, stmt, r);
}

int store_get_run(struct store *st, long long id, struct store_run *r)
{
	sqlite3_stmt *stmt = NULL;

	if (store_prepare(st, "SELECT " RUN_COLUMNS " FROM runs WHERE id = ?1", &stmt))
		return -1;
	sqlite3_bind_int64(stmt, 1, id);
	return get_one_run(st, stmt, r);
}

/* A query of the launches table with the run as ?1 and the layout as ?2. */
static int launch_query(struct store *st, const char *sql, long long run, const char *layout,
			sqlite3_stmt **stmt)
{
	if (store_prepare(st, sql, stmt))
		return -1;
	sqlite3_bind_int64(*stmt, 1, run);
	sqlite3_bind_text(*stmt, 2, layout, -1, SQLITE_TRANSIENT);
	return 0;
}

/* One step of a query of the launches table: 1 with a row to read, 0
 * when there is none, -1 after error(). */
static int launch_step(struct store *st, sqlite3_stmt *stmt)
{
	int rc = sqlite3_step(stmt);

	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	store_sql_error(st, "cannot read launches");
	return -1;
}

int store_launch_done(struct store *st, long long run, const char *layout, int repetition,
		      int retry_failed)
{
	sqlite3_stmt *stmt = NULL;
	int rc;

	if (launch_query(st,
			 retry_failed ? "SELECT 1 FROM launches WHERE run = ?1 AND layout = ?2 AND "
					"repetition = ?3 AND ok" :
					"SELECT 1 FROM launches WHERE run = ?1 AND layout = ?2 AND "
					"repetition = ?3",
			 run, layout, &stmt))
		return -1;
	sqlite3_bind_int(stmt, 3, repetition);
	rc = launch_step(st, stmt);
	sqlite3_finalize(stmt);
	return rc;
}

int store_launch_command(struct store *st, long long run, const char *layout, char **out)
{
	sqlite3_stmt *stmt = NULL;
	int ret;

	*out = NULL;
	if (launch_query(st,
			 "SELECT argv FROM launches WHERE run = ?1 AND layout = ?2 AND ok"
			 " ORDER BY id DESC LIMIT 1",
			 run, layout, &stmt))
		return -1;
	if ((ret = launch_step(st, stmt)) > 0)
		*out = xstrdup(store_col_text(stmt, 0));
	sqlite3_finalize(stmt);
	return ret;
}

int store_foreach_launch(struct store *st, long long run,
			 int (*fn)(const struct store_launch *l, void *data), void *data)
{
	sqlite3_stmt *stmt = NULL;
	int rc, ret = 0;

	if (store_prepare(st,
			  "SELECT id, layout, repetition, exit_status, timed_out, reason, "
			  "log_path, wall_s, ok FROM launches WHERE run = ?1 ORDER BY id",
			  &stmt))
		return -1;
	sqlite3_bind_int64(stmt, 1, run);
	while (!ret && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		struct store_launch l = { 0 };

		l.id = sqlite3_column_int64(stmt, 0);
		l.run = run;
		l.layout.id = store_col_text(stmt, 1);
		l.repetition = store_col_int(stmt, 2);
		l.exit_status = store_col_int(stmt, 3);
		l.timed_out = store_col_int(stmt, 4) > 0;
		l.reason = sqlite3_column_type(stmt, 5) == SQLITE_NULL ? NULL :
									 store_col_text(stmt, 5);
		l.log_path = store_col_text(stmt, 6);
		l.wall_s = store_col_double(stmt, 7);
		l.ok = store_col_int(stmt, 8) > 0;
		ret = fn(&l, data);
	}
	if (!ret && rc != SQLITE_DONE) {
		store_sql_error(st, "cannot read launches");
		ret = -1;
	}
	sqlite3_finalize(stmt);
	return ret;
}

int store_launch_get(struct store *st, long long run, const char *layout, int repetition, int *ok,
		     double *wall_s, char **log)
{
	sqlite3_stmt *stmt = NULL;
	int ret;

	if (launch_query(st,
			 "SELECT ok, wall_s, log_path FROM launches WHERE run = ?1 AND"
			 " layout = ?2 AND repetition = ?3 ORDER BY id DESC LIMIT 1",
			 run, layout, &stmt))
		return -1;
	sqlite3_bind_int(stmt, 3, repetition);
	if ((ret = launch_step(st, stmt)) > 0) {
		*ok = sqlite3_column_int(stmt, 0);
		*wall_s = sqlite3_column_double(stmt, 1);
		*log = xstrdup(store_col_text(stmt, 2));
	}
	sqlite3_finalize(stmt);
	return ret;
}

int store_run_counts(struct store *st, long long run, long long *launches, long long *failed,
		     long long *points, long long *invalid)
{
	sqlite3_stmt *stmt = NULL;
	int ret = -1;

	/* The latest attempt of each layout and repetition decides. */
	if (store_prepare(
		    st,
		    "SELECT count(*), coalesce(sum(NOT ok), 0), "
		    " (SELECT count(*) FROM points WHERE run = ?1),"
		    " (SELECT count(*) FROM points WHERE run = ?1 AND NOT valid)"
		    " FROM launches l WHERE run = ?1 AND id = (SELECT max(id) FROM launches"
		    "  WHERE run = l.run AND layout = l.layout AND repetition = l.repetition)",
		    &stmt))
		return -1;
	sqlite3_bind_int64(stmt, 1, run);
	if (sqlite3_step(stmt) != SQLITE_ROW) {
		store_sql_error(st, "cannot count");
		goto out;
	}
	if (launches)
		*launches = sqlite3_column_int64(stmt, 0);
	if (failed)
		*failed = sqlite3_column_int64(stmt, 1);
	if (points)
		*points = sqlite3_column_int64(stmt, 2);
	if (invalid)
		*invalid = sqlite3_column_int64(stmt, 3);
	ret = 0;
out:
	sqlite3_finalize(stmt);
	return ret;
}

/* ---- reading points ------------------------------------------------------ */

/* One row of the points table, its columns in rec_fields' order (record.h),
 * into p: NULL reads as "" (text), NaN (reals) and -1 (integers). */
static void point_from_row(sqlite3_stmt *stmt, struct store_point *p)
{
	int i = 0;

	for (size_t k = 0; k < rec_nfields; k++) {
		const struct rec_field *f = &rec_fields[k];
		void *at = rec_at(p, f);

		if (!(f->flags & REC_COLUMN))
			continue;
		switch (f->type) {
		case REC_TEXT:
		case REC_ARRAY:
			*(const char **)at = store_col_text(stmt, i);
			break;
		case REC_INT:
			*(int *)at = store_col_int(stmt, i);
			break;
		case REC_LL:
			*(long long *)at = sqlite3_column_type(stmt, i) == SQLITE_NULL ?
						   -1 :
						   sqlite3_column_int64(stmt, i);
			break;
		case REC_U64:
			*(uint64_t *)at = (uint64_t)sqlite3_column_int64(stmt, i);
			break;
		case REC_UINT:
			*(unsigned *)at = (unsigned)sqlite3_column_int(stmt, i);
			break;
		case REC_REAL:
			*(double *)at = store_col_double(stmt, i);
			break;
		case REC_BOOL:
			*(int *)at = sqlite3_column_int(stmt, i);
			break;
		case REC_TRI: /* stored 1, 0 or NULL */
			*(int *)at = store_col_int(stmt, i) < 0 ? 0 :
				     store_col_int(stmt, i)	? 1 :
								  -1;
			break;
		}
		i++;
	}
}

int store_foreach_point(struct store *st, long long run, int flags,
			int (*fn)(const struct store_point *p, void *data), void *data)
{
	sqlite3_stmt *stmt = NULL;
	struct store_point p;
	int rc, ret = 0;

	/* The order a person reads a sweep in: layouts in the plan's (launch)
	 * order, then the point's own fields. */
	char *cols = rec_names(REC_COLUMN, 0, NULL), *sql;

	sql = xasprintf("SELECT %s FROM points WHERE run = ?1 AND (valid OR ?2) "
			"ORDER BY (SELECT min(id) FROM launches WHERE run = points.run AND "
			"layout = points.layout), collective, algorithm, assignment, bytes, dtype, "
			"op, chunk, window, radix, mode, repetition",
			cols);
	free(cols);
	rc = store_prepare(st, sql, &stmt);
	free(sql);
	if (rc)
		return -1;
	sqlite3_bind_int64(stmt, 1, run);
	sqlite3_bind_int(stmt, 2, !!(flags & STORE_ALL_POINTS));
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		memset(&p, 0, sizeof(p));
		point_from_row(stmt, &p);
		ret = fn(&p, data);
		if (ret)
			break;
	}
	if (!ret && rc != SQLITE_DONE) {
		store_sql_error(st, "cannot read points");
		ret = -1;
	}
	sqlite3_finalize(stmt);
	return ret;
}

struct load_state {
	struct store_point *v;
	size_t n, alloc;
};

static int load_one(const struct store_point *p, void *data)
{
	struct load_state *ls = data;
	struct store_point *q;

	if (ls->n == ls->alloc) {
		ls->alloc = ls->alloc ? 2 * ls->alloc : 64;
		ls->v = xrealloc(ls->v, ls->alloc * sizeof(*ls->v));
	}
	q = &ls->v[ls->n++];
	store_point_copy(q, p);
	return 0;
}

int store_load_points(struct store *st, long long run, int flags, struct store_point **out,
		      size_t *n)
{
	struct load_state ls = { NULL, 0, 0 };

	*out = NULL;
	*n = 0;
	if (store_foreach_point(st, run, flags, load_one, &ls)) {
		store_points_free(ls.v, ls.n);
		return -1;
	}
	*out = ls.v;
	*n = ls.n;
	return 0;
}

void store_points_free(struct store_point *pts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		store_point_release(&pts[i]);
	free(pts);
}

int store_jobs_open(struct store *st, const char *spec_path, struct store_job_row **out, size_t *n)
{
	sqlite3_stmt *stmt = NULL;
	size_t alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (store_prepare(st,
			  "SELECT id, job_id, script FROM jobs WHERE spec_path = ?1 AND "
			  "exit_status IS NULL ORDER BY id",
			  &stmt))
		return -1;
	sqlite3_bind_text(stmt, 1, spec_path, -1, SQLITE_TRANSIENT);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		if (*n == alloc) {
			alloc = alloc ? 2 * alloc : 8;
			*out = xrealloc(*out, alloc * sizeof(**out));
		}
		(*out)[*n].id = sqlite3_column_int64(stmt, 0);
		(*out)[*n].job_id = xstrdup(store_col_text(stmt, 1));
		(*out)[*n].script = xstrdup(store_col_text(stmt, 2));
		(*n)++;
	}
	sqlite3_finalize(stmt);
	if (rc != SQLITE_DONE) {
		store_job_rows_free(*out, *n);
		*out = NULL;
		*n = 0;
		store_sql_error(st, "cannot read the jobs");
		return -1;
	}
	return 0;
}

void store_job_rows_free(struct store_job_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].job_id);
		free(rows[i].script);
	}
	free(rows);
}
