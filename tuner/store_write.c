/*
 * tuner/store_write.c: every write to the results database: runs, launches
 * with their points (one transaction each), batch jobs. The store is the
 * only module that writes it.
 */
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
	if (store_prepare(st, "INSERT INTO runs (spec_path, spec_hash, started, host, launcher, "
		    "sweetspot_version, ompi_version, slurm_version, status, planned_launches, "
		    "planned_points) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'running', ?9, ?10)", &stmt))
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

	if (store_prepare(st, "INSERT INTO launches (run, layout, nodes, ppn, workers, wpn, placement, "
		    "repetition, argv, exit_status, timed_out, reason, log_path, wall_s, started, "
		    "finished, ok) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
		    "?14, ?15, ?16, ?17)", &stmt))
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

/* The schema 3 columns from index i on: the identity ones never NULL
 * (see store_db.c), the measured ones NULL when absent. */
static void bind_axes(sqlite3_stmt *stmt, int i, const struct store_point *p)
{
	store_bind_text(stmt, i++, p->dtype ? p->dtype : "");
	store_bind_text(stmt, i++, p->op ? p->op : "");
	sqlite3_bind_int64(stmt, i++, p->chunk > 0 ? p->chunk : 0);
	sqlite3_bind_int(stmt, i++, p->window > 0 ? p->window : 0);
	sqlite3_bind_int(stmt, i++, p->radix > 0 ? p->radix : 0);
	store_bind_double(stmt, i++, p->algbw);
	store_bind_double(stmt, i++, p->busbw);
	store_bind_double(stmt, i++, p->p2p_bw);
	store_bind_double(stmt, i++, p->ref_us_median);
	store_bind_double(stmt, i++, p->compute_us_median);
	store_bind_double(stmt, i++, p->oe_measured_median);
	store_bind_double(stmt, i++, p->calib_error);
	store_bind_int(stmt, i, p->calibrated > 0 ? 1 : p->calibrated < 0 ? 0 : -1);
}

static int insert_points(struct store *st, const struct store_launch *l,
			 const struct store_point *pts, size_t n)
{
	sqlite3_stmt *stmt = NULL;
	int ret = -1;

	if (store_prepare(st, "INSERT INTO points (run, launch, layout, repetition, wpn, placement, "
		    "schema, mode, collective, algorithm, assignment, bytes, hosts, workers, nodes, "
		    "ppn, iterations, warmup, transport, device, host_source, ref_us, comm_us, "
		    "compute_us, total_us, oe_paper, oe_measured, overlap, total_us_min, "
		    "total_us_median, total_us_max, valid, rank_hosts, raw, ranks, bad_rank, "
		    "bad_source, bad_offset, dtype, op, chunk, window, radix, algbw, busbw, p2p_bw, "
		    "ref_us_median, compute_us_median, oe_measured_median, calib_error, calibrated) "
		    "VALUES (?1, ?2, ?3, ?4, "
		    "?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, "
		    "?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34, ?35, ?36, ?37, "
		    "?38, ?39, ?40, ?41, ?42, ?43, ?44, ?45, ?46, ?47, ?48, ?49, ?50, ?51)", &stmt))
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct store_point *p = &pts[i];

		sqlite3_reset(stmt);
		sqlite3_clear_bindings(stmt);
		sqlite3_bind_int64(stmt, 1, l->run);
		sqlite3_bind_int64(stmt, 2, l->id);
		store_bind_text(stmt, 3, l->layout.id);
		sqlite3_bind_int(stmt, 4, l->repetition);
		store_bind_int(stmt, 5, l->layout.wpn);
		store_bind_text(stmt, 6, l->layout.placement);
		store_bind_int(stmt, 7, p->schema);
		store_bind_text(stmt, 8, p->mode ? p->mode : "");
		store_bind_text(stmt, 9, p->collective);
		store_bind_text(stmt, 10, p->algorithm);
		store_bind_text(stmt, 11, p->assignment);
		sqlite3_bind_int64(stmt, 12, (sqlite3_int64)p->bytes);
		store_bind_int(stmt, 13, p->hosts);
		store_bind_int(stmt, 14, p->workers);
		store_bind_int(stmt, 15, p->nodes >= 0 ? p->nodes : l->layout.nodes);
		store_bind_int(stmt, 16, p->ppn >= 0 ? p->ppn : l->layout.ppn);
		store_bind_int(stmt, 17, p->iterations);
		store_bind_int(stmt, 18, p->warmup);
		store_bind_text(stmt, 19, p->transport);
		store_bind_text(stmt, 20, p->device);
		store_bind_text(stmt, 21, p->host_source);
		store_bind_double(stmt, 22, p->ref_us);
		store_bind_double(stmt, 23, p->comm_us);
		store_bind_double(stmt, 24, p->compute_us);
		store_bind_double(stmt, 25, p->total_us);
		store_bind_double(stmt, 26, p->oe_paper);
		store_bind_double(stmt, 27, p->oe_measured);
		store_bind_double(stmt, 28, p->overlap);
		store_bind_double(stmt, 29, p->total_us_min);
		store_bind_double(stmt, 30, p->total_us_median);
		store_bind_double(stmt, 31, p->total_us_max);
		sqlite3_bind_int(stmt, 32, !!p->valid);
		store_bind_text(stmt, 33, p->rank_hosts);
		store_bind_text(stmt, 34, p->raw ? p->raw : "");
		store_bind_int(stmt, 35, p->ranks);
		store_bind_int(stmt, 36, p->bad_rank);
		store_bind_int(stmt, 37, p->bad_source);
		store_bind_int(stmt, 38, p->bad_offset);
		bind_axes(stmt, 39, p);
		if (sqlite3_step(stmt) != SQLITE_DONE) {
			error("%s: cannot store point %zu of launch %s r%d (%s %s %s %llu): %s",
			      st->path, i + 1, l->layout.id, l->repetition, p->collective,
			      p->algorithm, p->assignment, (unsigned long long)p->bytes,
			      sqlite3_errmsg(st->db));
			goto out;
		}
	}
	ret = 0;
out:
	sqlite3_finalize(stmt);
	return ret;
}

int store_launch_record(struct store *st, struct store_launch *l,
			const struct store_point *pts, size_t n)
{
	sqlite3_stmt *stmt = NULL;

	if (store_need_writable(st) || store_exec(st, "BEGIN IMMEDIATE"))
		return -1;
	/* A retried launch replaces what an earlier attempt stored. */
	if (store_prepare(st, "DELETE FROM points WHERE run = ?1 AND layout = ?2 AND repetition = ?3", &stmt))
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
	    store_prepare(st, "INSERT INTO jobs (spec_path, spec_hash, job_id, chunk, chunks, after, "
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
	    store_prepare(st, job_id ? "UPDATE jobs SET job_id = ?2 WHERE id = ?1"
				     : "DELETE FROM jobs WHERE id = ?1", &stmt))
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
