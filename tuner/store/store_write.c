/*
 * tuner/store/store_write.c: every write to the results database: runs, launches
 * with their points (one transaction each), batch jobs. The store is the
 * only module that writes it.
 */
#include "record.h"
#include "store_write.h"
#include "store_priv.h"
#include "timestamp.h"
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

int store_run_begin(struct store *st, struct store_run *r)
{
	sqlite3_stmt *stmt = NULL;
	int ret = -1;

	if (store_need_writable(st))
		return -1;
	if (!r->started)
		r->started = timestamp_now_iso();
	if (store_prepare(
		    st,
		    "INSERT INTO runs (spec_path, spec_hash, started, host, launcher, "
		    "sweetspot_version, ompi_version, slurm_version, status, planned_launches, "
		    "planned_points) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'running', ?9, ?10)",
		    &stmt))
		return -1;
	store_bind_text(stmt, 1, r->spec_path);
	store_bind_text(stmt, 2, r->spec_hash);
	store_bind_text(stmt, 3, r->started);
	store_bind_text(stmt, 4, r->host);
	store_bind_text(stmt, 5, r->launcher);
	store_bind_text(stmt, 6, r->sweetspot_version);
	store_bind_text(stmt, 7, r->ompi_version);
	store_bind_text(stmt, 8, r->slurm_version);
	sqlite3_bind_int64(stmt, 9, r->planned_launches);
	sqlite3_bind_int64(stmt, 10, r->planned_points);
	/* A lone INSERT is its own transaction in SQLite (autocommit). */
	if (sqlite3_step(stmt) != SQLITE_DONE) {
		store_sql_error(st, "cannot record the run");
		goto out;
	}
	r->id = sqlite3_last_insert_rowid(st->db);
	free(r->status);
	r->status = xstrdup("running");
	ret = 0;
out:
	sqlite3_finalize(stmt);
	return ret;
}

int store_run_end(struct store *st, long long run, const char *status)
{
	sqlite3_stmt *stmt = NULL;
	char *now = timestamp_now_iso();
	int ret = -1;

	if (store_need_writable(st) ||
	    store_prepare(st, "UPDATE runs SET status = ?1, finished = ?2 WHERE id = ?3", &stmt))
		goto out;
	sqlite3_bind_text(stmt, 1, status, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(stmt, 2, now, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(stmt, 3, run);
	if (sqlite3_step(stmt) != SQLITE_DONE)
		store_sql_error(st, "cannot record the end of the run");
	else
		ret = 0;
out:
	sqlite3_finalize(stmt);
	free(now);
	return ret;
}

/* ---- launches ------------------------------------------------------------ */

static int insert_launch(struct store *st, struct store_launch *l)
{
	sqlite3_stmt *stmt = NULL;
	int ret = -1;

	if (store_prepare(
		    st,
		    "INSERT INTO launches (run, layout, nodes, ppn, workers, wpn, placement, "
		    "repetition, argv, exit_status, timed_out, reason, log_path, wall_s, started, "
		    "finished, ok) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
		    "?14, ?15, ?16, ?17)",
		    &stmt))
		return -1;
	sqlite3_bind_int64(stmt, 1, l->run);
	store_bind_text(stmt, 2, l->layout.id);
	store_bind_int(stmt, 3, l->layout.nodes);
	store_bind_int(stmt, 4, l->layout.ppn);
	store_bind_int(stmt, 5, l->layout.workers);
	store_bind_int(stmt, 6, l->layout.wpn);
	store_bind_text(stmt, 7, l->layout.placement);
	sqlite3_bind_int(stmt, 8, l->repetition);
	store_bind_text(stmt, 9, l->argv ? l->argv : "");
	sqlite3_bind_int(stmt, 10, l->exit_status);
	sqlite3_bind_int(stmt, 11, !!l->timed_out);
	store_bind_text(stmt, 12, l->reason);
	store_bind_text(stmt, 13, l->log_path);
	store_bind_double(stmt, 14, l->wall_s);
	store_bind_text(stmt, 15, l->started);
	store_bind_text(stmt, 16, l->finished);
	sqlite3_bind_int(stmt, 17, !!l->ok);
	if (sqlite3_step(stmt) != SQLITE_DONE) {
		store_sql_error(st, "cannot record the launch");
		goto out;
	}
	l->id = sqlite3_last_insert_rowid(st->db);
	ret = 0;
out:
	sqlite3_finalize(stmt);
	return ret;
}

/* Binds p's field f at parameter i (NULL strings, NaN reals and negative
 * integers as NULL: "not reported"; '' and 0 for the identity's columns,
 * which are NOT NULL because SQLite's UNIQUE holds NULLs distinct). */
static void bind_field(sqlite3_stmt *stmt, int i, const struct store_point *p,
		       const struct rec_field *f)
{
	const void *at = rec_at(p, f);

	switch (f->type) {
	case REC_TEXT:
	case REC_ARRAY: {
		const char *s = *(const char *const *)at;

		store_bind_text(stmt, i, s || !(f->flags & REC_NOTNULL) ? s : "");
		break;
	}
	case REC_INT:
		store_bind_int(stmt, i, *(const int *)at);
		break;
	case REC_LL:
		store_bind_int(stmt, i, *(const long long *)at);
		break;
	case REC_U64:
		sqlite3_bind_int64(stmt, i, (sqlite3_int64) * (const uint64_t *)at);
		break;
	case REC_UINT:
		sqlite3_bind_int64(stmt, i, *(const unsigned *)at);
		break;
	case REC_REAL:
		store_bind_double(stmt, i, *(const double *)at);
		break;
	case REC_BOOL:
		sqlite3_bind_int(stmt, i, !!*(const int *)at);
		break;
	case REC_TRI:
		store_bind_int(stmt, i, *(const int *)at > 0 ? 1 : *(const int *)at < 0 ? 0 : -1);
		break;
	}
}

/* Every column of rec_fields (record.h) but the row id, from the point and
 * its launch: the launch says which run, layout and repetition it is. */
static int insert_points(struct store *st, const struct store_launch *l,
			 const struct store_point *pts, size_t n)
{
	sqlite3_stmt *stmt = NULL;
	size_t ncols;
	char *cols = rec_names(REC_COLUMN, REC_ROWID, &ncols), *sql, *q = xmalloc(6 * ncols + 1);
	int ret = -1;

	q[0] = 0;
	for (size_t k = 1; k <= ncols; k++)
		sprintf(q + strlen(q), "%s?%zu", k > 1 ? ", " : "", k);
	sql = xasprintf("INSERT INTO points (%s) VALUES (%s)", cols, q);
	free(cols);
	free(q);
	if (store_prepare(st, sql, &stmt))
		goto out;
	for (size_t i = 0; i < n; i++) {
		struct store_point p = pts[i];
		int k = 1;

		p.run = l->run;
		p.launch = l->id;
		p.layout = l->layout.id;
		p.repetition = l->repetition;
		p.wpn = l->layout.wpn;
		p.placement = l->layout.placement;
		p.nodes = p.nodes >= 0 ? p.nodes : (int)l->layout.nodes;
		p.ppn = p.ppn >= 0 ? p.ppn : (int)l->layout.ppn;
		sqlite3_reset(stmt);
		sqlite3_clear_bindings(stmt);
		for (size_t f = 0; f < rec_nfields; f++)
			if ((rec_fields[f].flags & REC_COLUMN) &&
			    !(rec_fields[f].flags & REC_ROWID))
				bind_field(stmt, k++, &p, &rec_fields[f]);
		if (sqlite3_step(stmt) != SQLITE_DONE) {
			error("%s: cannot store point %zu of launch %s r%d (%s %s %s %llu): %s",
			      st->path, i + 1, l->layout.id, l->repetition, p.key.collective,
			      p.key.algorithm, p.key.assignment, (unsigned long long)p.key.bytes,
			      sqlite3_errmsg(st->db));
			goto out;
		}
	}
	ret = 0;
out:
	sqlite3_finalize(stmt);
	free(sql);
	return ret;
}

int store_launch_record(struct store *st, struct store_launch *l, const struct store_point *pts,
			size_t n)
{
	sqlite3_stmt *stmt = NULL;

	if (store_need_writable(st) || store_exec(st, "BEGIN IMMEDIATE"))
		return -1;
	/* A retried launch replaces what an earlier attempt stored. */
	if (store_prepare(st,
			  "DELETE FROM points WHERE run = ?1 AND layout = ?2 AND repetition = ?3",
			  &stmt))
		goto fail;
	sqlite3_bind_int64(stmt, 1, l->run);
	sqlite3_bind_text(stmt, 2, l->layout.id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(stmt, 3, l->repetition);
	if (sqlite3_step(stmt) != SQLITE_DONE) {
		store_sql_error(st, "cannot replace earlier points");
		goto fail;
	}
	sqlite3_finalize(stmt);
	stmt = NULL;
	if (insert_launch(st, l) || insert_points(st, l, pts, n) || store_exec(st, "COMMIT"))
		goto fail;
	return 0;
fail:
	sqlite3_finalize(stmt);
	/* SQLite rolls back by itself after some errors (a full disk, out
	 * of memory): a ROLLBACK then would only say there is nothing to
	 * undo, and hide the error that matters. */
	if (!sqlite3_get_autocommit(st->db) && store_exec(st, "ROLLBACK"))
		error("%s: the launch's transaction may be left open; no part of it is stored",
		      st->path);
	return -1;
}

int store_job_record(struct store *st, const struct store_job *j, long long *id)
{
	sqlite3_stmt *stmt = NULL;
	char *now = timestamp_now_iso();
	int ret = -1;

	if (store_need_writable(st) ||
	    store_prepare(
		    st,
		    "INSERT INTO jobs (spec_path, spec_hash, job_id, chunk, chunks, after, "
		    "script, submitted, exit_status) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
		    &stmt))
		goto out;
	store_bind_text(stmt, 1, j->spec_path);
	store_bind_text(stmt, 2, j->spec_hash);
	store_bind_text(stmt, 3, j->job_id ? j->job_id : "");
	sqlite3_bind_int(stmt, 4, j->chunk);
	sqlite3_bind_int(stmt, 5, j->chunks);
	store_bind_text(stmt, 6, j->after);
	store_bind_text(stmt, 7, j->script);
	store_bind_text(stmt, 8, now);
	if (j->exit_status < 0)
		sqlite3_bind_null(stmt, 9);
	else
		sqlite3_bind_int(stmt, 9, j->exit_status);
	if (sqlite3_step(stmt) != SQLITE_DONE) {
		store_sql_error(st, "cannot record the job");
	} else {
		if (id)
			*id = sqlite3_last_insert_rowid(st->db);
		ret = 0;
	}
out:
	sqlite3_finalize(stmt);
	free(now);
	return ret;
}

int store_job_finished(struct store *st, const char *job_id, int exit_status)
{
	sqlite3_stmt *stmt = NULL;
	int ret = -1;

	if (store_need_writable(st) ||
	    store_prepare(st, "UPDATE jobs SET exit_status = ?1 WHERE job_id = ?2", &stmt))
		return -1;
	sqlite3_bind_int(stmt, 1, exit_status);
	sqlite3_bind_text(stmt, 2, job_id, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(stmt) != SQLITE_DONE)
		store_sql_error(st, "cannot record the job's end");
	else
		ret = 0;
	sqlite3_finalize(stmt);
	return ret;
}

int store_job_set_id(struct store *st, long long id, const char *job_id)
{
	sqlite3_stmt *stmt = NULL;
	int ret = -1;

	if (store_need_writable(st) ||
	    store_prepare(st,
			  job_id ? "UPDATE jobs SET job_id = ?2 WHERE id = ?1" :
				   "DELETE FROM jobs WHERE id = ?1",
			  &stmt))
		return -1;
	sqlite3_bind_int64(stmt, 1, id);
	if (job_id)
		sqlite3_bind_text(stmt, 2, job_id, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(stmt) != SQLITE_DONE)
		store_sql_error(st, "cannot record the job's id");
	else
		ret = 0;
	sqlite3_finalize(stmt);
	return ret;
}
