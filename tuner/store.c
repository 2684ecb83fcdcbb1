/*
 * tuner/store.c: the results database (see store.h). Every write is one
 * transaction; the database is in WAL mode with foreign keys on, so a reader
 * (results, recommend) never blocks a sweep and a sweep killed at any moment
 * leaves a consistent file. Opening checks the schema version before anything
 * is written, so a database we do not understand is never changed.
 */
#include "store.h"
#include "error.h"
#include "strvec.h"

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

struct store {
	sqlite3 *db;
	char *path;
	int writable;
};

/* Batch jobs that `sweetspot submit` queued (one per chunk of a sweep). */
#define JOBS_SQL \
	"CREATE TABLE IF NOT EXISTS jobs (" \
	" id INTEGER PRIMARY KEY," \
	" spec_path TEXT NOT NULL," \
	" spec_hash TEXT NOT NULL," \
	" job_id TEXT NOT NULL," \
	" chunk INTEGER NOT NULL," \
	" chunks INTEGER NOT NULL," \
	" after TEXT," \
	" script TEXT NOT NULL," \
	" submitted TEXT NOT NULL," \
	" exit_status INTEGER);"

static const char schema_sql[] =
	"CREATE TABLE runs ("
	" id INTEGER PRIMARY KEY,"
	" spec_path TEXT NOT NULL,"
	" spec_hash TEXT NOT NULL,"
	" started TEXT NOT NULL,"
	" finished TEXT,"
	" host TEXT NOT NULL,"
	" launcher TEXT,"
	" sweetspot_version TEXT,"
	" ompi_version TEXT,"
	" slurm_version TEXT,"
	" status TEXT NOT NULL DEFAULT 'running'"
	"  CHECK (status IN ('running', 'done', 'failed')),"
	" planned_launches INTEGER NOT NULL DEFAULT 0,"
	" planned_points INTEGER NOT NULL DEFAULT 0);"
	"CREATE TABLE launches ("
	" id INTEGER PRIMARY KEY,"
	" run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	" layout TEXT NOT NULL,"
	" nodes INTEGER, ppn INTEGER, workers INTEGER, wpn INTEGER, placement TEXT,"
	" repetition INTEGER NOT NULL,"
	" argv TEXT NOT NULL,"
	" exit_status INTEGER NOT NULL,"
	" timed_out INTEGER NOT NULL DEFAULT 0,"
	" reason TEXT,"
	" log_path TEXT,"
	" wall_s REAL,"
	" started TEXT,"
	" finished TEXT,"
	" ok INTEGER NOT NULL);"
	"CREATE INDEX launches_by_layout ON launches(run, layout, repetition);"
	"CREATE TABLE points ("
	" id INTEGER PRIMARY KEY,"
	" run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	" launch INTEGER NOT NULL REFERENCES launches(id) ON DELETE CASCADE,"
	" layout TEXT NOT NULL,"
	" repetition INTEGER NOT NULL,"
	" wpn INTEGER,"
	" placement TEXT,"
	" schema INTEGER,"
	" mode TEXT NOT NULL DEFAULT '',"
	" collective TEXT NOT NULL,"
	" algorithm TEXT NOT NULL,"
	" assignment TEXT NOT NULL,"
	" bytes INTEGER NOT NULL,"
	" ranks INTEGER, hosts INTEGER, workers INTEGER, nodes INTEGER, ppn INTEGER,"
	" iterations INTEGER, warmup INTEGER,"
	" transport TEXT, device TEXT, host_source TEXT,"
	" ref_us REAL, comm_us REAL, compute_us REAL, total_us REAL,"
	" oe_paper REAL, oe_measured REAL, overlap REAL,"
	" total_us_min REAL, total_us_median REAL, total_us_max REAL,"
	" valid INTEGER NOT NULL,"
	" bad_rank INTEGER, bad_source INTEGER, bad_offset INTEGER,"
	" rank_hosts TEXT,"
	" raw TEXT NOT NULL,"
	" UNIQUE (run, layout, repetition, collective, algorithm, assignment, bytes, mode));"
	JOBS_SQL;

static void store_sql_error(struct store *st, const char *what)
{
	error("%s: %s: %s", st->path, what, sqlite3_errmsg(st->db));
}

static int exec(struct store *st, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		error("%s: %s", st->path, msg ? msg : sqlite3_errmsg(st->db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static int prepare(struct store *st, const char *sql, sqlite3_stmt **stmt)
{
	if (sqlite3_prepare_v2(st->db, sql, -1, stmt, NULL) != SQLITE_OK) {
		store_sql_error(st, "cannot prepare a query");
		return -1;
	}
	return 0;
}

/* One integer from a query (PRAGMA user_version, counts). */
static int query_int(struct store *st, const char *sql, long long *out)
{
	sqlite3_stmt *stmt = NULL;
	int rc;

	if (prepare(st, sql, &stmt))
		return -1;
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(stmt, 0);
	else if (rc != SQLITE_DONE)
		store_sql_error(st, "cannot read");
	sqlite3_finalize(stmt);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

/* mkdir -p of path's folder, for a new database under results/. */
static int make_parent(const char *path)
{
	char *dir = xstrdup(path), *p;
	int ret = 0;

	for (p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0777) && errno != EEXIST) {
			ret = error("cannot create folder %s: %s", dir, strerror(errno));
			break;
		}
		*p = '/';
	}
	free(dir);
	return ret;
}

void store_close(struct store *st)
{
	if (!st)
		return;
	sqlite3_close(st->db);
	free(st->path);
	free(st);
}

/* Schema 1 lacked the kernel's ranks and the where-it-went-wrong fields of
 * an invalid record; 2 has them as columns. */
static const char migrate_1_2[] =
	"BEGIN IMMEDIATE;"
	"ALTER TABLE points ADD COLUMN ranks INTEGER;"
	"ALTER TABLE points ADD COLUMN bad_rank INTEGER;"
	"ALTER TABLE points ADD COLUMN bad_source INTEGER;"
	"ALTER TABLE points ADD COLUMN bad_offset INTEGER;"
	"PRAGMA user_version = 2;"
	"COMMIT;";

/* Checks user_version and that the tables are ours. Returns 0 with *fresh set
 * when the file is empty (a new database), or -1 after error(). */
static int check_schema(struct store *st, int *fresh, long long *versionp)
{
	long long version = 0, tables = 0;

	*fresh = 0;
	*versionp = 0;
	if (query_int(st, "PRAGMA user_version", &version))
		return -1;
	if (version > STORE_SCHEMA_VERSION)
		return error("%s: written by a newer sweetspot (schema %lld; this one reads up to %d); "
			     "left untouched", st->path, version, STORE_SCHEMA_VERSION);
	if (query_int(st, "SELECT count(*) FROM sqlite_master", &tables))
		return -1;
	if (version == 0 && tables == 0) {
		*fresh = 1;
		return 0;
	}
	if (version == 0)
		return error("%s: not a sweetspot database (it has tables but no schema version)",
			     st->path);
	*versionp = version;
	return 0;
}

int store_open(const char *path, int flags, struct store **out)
{
	struct store *st = xcalloc(1, sizeof(*st));
	struct stat sb;
	int exists, fresh = 0, rc;
	long long version = 0;
	int oflags = SQLITE_OPEN_FULLMUTEX;

	*out = NULL;
	st->path = xstrdup(path);
	st->writable = flags & STORE_CREATE;
	exists = stat(path, &sb) == 0;
	if (!exists && !st->writable) {
		error("%s: no such database (run 'sweetspot run SPEC' first)", path);
		goto fail;
	}
	if (exists && !S_ISREG(sb.st_mode)) {
		error("%s: not a regular file", path);
		goto fail;
	}
	if (exists && access(path, st->writable ? R_OK | W_OK : R_OK)) {
		error("%s: cannot %s: %s", path, st->writable ? "write" : "read", strerror(errno));
		goto fail;
	}
	if (!exists && make_parent(path))
		goto fail;
	oflags |= st->writable ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
	rc = sqlite3_open_v2(path, &st->db, oflags, NULL);
	if (rc != SQLITE_OK) {
		error("%s: cannot open: %s", path, st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc));
		goto fail;
	}
	/* A sweep and a reader may overlap: wait for the other's transaction. */
	sqlite3_busy_timeout(st->db, 30000);
	if (check_schema(st, &fresh, &version))
		goto fail;
	if (version && version < STORE_SCHEMA_VERSION && !st->writable) {
		error("%s: schema %lld, older than this sweetspot's %d: any 'sweetspot run' on it "
		      "upgrades it", path, version, STORE_SCHEMA_VERSION);
		goto fail;
	}
	if (fresh && !st->writable) {
		error("%s: empty, not a sweetspot database", path);
		goto fail;
	}
	if (exec(st, "PRAGMA foreign_keys = ON"))
		goto fail;
	if (st->writable) {
		if (exec(st, "PRAGMA journal_mode = WAL") || exec(st, "PRAGMA synchronous = NORMAL"))
			goto fail;
		if (!fresh && exec(st, JOBS_SQL))
			goto fail;
		if (version == 1 && exec(st, migrate_1_2)) {
			exec(st, "ROLLBACK");
			goto fail;
		}
		if (fresh) {
			char *sql = xasprintf("BEGIN IMMEDIATE; %s PRAGMA user_version = %d; COMMIT;",
					      schema_sql, STORE_SCHEMA_VERSION);

			rc = exec(st, sql);
			free(sql);
			if (rc) {
				exec(st, "ROLLBACK");
				goto fail;
			}
		}
	}
	*out = st;
	return 0;
fail:
	store_close(st);
	return -1;
}

/* ---- small helpers -------------------------------------------------------- */

static char *now_iso(void)
{
	char buf[32];
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return xstrdup(buf);
}

static char *col_strdup(sqlite3_stmt *stmt, int i)
{
	const unsigned char *s = sqlite3_column_text(stmt, i);

	return s ? xstrdup((const char *)s) : NULL;
}

static void bind_text(sqlite3_stmt *stmt, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(stmt, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(stmt, i);
}

/* NaN and negative sentinels go in as NULL, so SQL sees "not reported". */
static void bind_double(sqlite3_stmt *stmt, int i, double v)
{
	if (isnan(v))
		sqlite3_bind_null(stmt, i);
	else
		sqlite3_bind_double(stmt, i, v);
}

static void bind_int(sqlite3_stmt *stmt, int i, long long v)
{
	if (v < 0)
		sqlite3_bind_null(stmt, i);
	else
		sqlite3_bind_int64(stmt, i, v);
}

static int need_writable(struct store *st)
{
	if (!st->writable)
		return error("%s: opened read-only", st->path);
	return 0;
}

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

#define RUN_COLUMNS "id, spec_path, spec_hash, started, finished, host, launcher, " \
	"sweetspot_version, ompi_version, slurm_version, status, planned_launches, planned_points"

static void run_from_row(sqlite3_stmt *stmt, struct store_run *r)
{
	r->id = sqlite3_column_int64(stmt, 0);
	r->spec_path = col_strdup(stmt, 1);
	r->spec_hash = col_strdup(stmt, 2);
	r->started = col_strdup(stmt, 3);
	r->finished = col_strdup(stmt, 4);
	r->host = col_strdup(stmt, 5);
	r->launcher = col_strdup(stmt, 6);
	r->sweetspot_version = col_strdup(stmt, 7);
	r->ompi_version = col_strdup(stmt, 8);
	r->slurm_version = col_strdup(stmt, 9);
	r->status = col_strdup(stmt, 10);
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
		if (prepare(st, "SELECT " RUN_COLUMNS " FROM runs WHERE spec_path = ?1 "
			    "ORDER BY id DESC LIMIT 1", &stmt))
			return -1;
		sqlite3_bind_text(stmt, 1, spec_path, -1, SQLITE_TRANSIENT);
	} else if (prepare(st, "SELECT " RUN_COLUMNS " FROM runs ORDER BY id DESC LIMIT 1", &stmt)) {
		return -1;
	}
	return get_one_run(st, stmt, r);
}

int store_get_run(struct store *st, long long id, struct store_run *r)
{
	sqlite3_stmt *stmt = NULL;

	if (prepare(st, "SELECT " RUN_COLUMNS " FROM runs WHERE id = ?1", &stmt))
		return -1;
	sqlite3_bind_int64(stmt, 1, id);
	return get_one_run(st, stmt, r);
}

int store_run_begin(struct store *st, struct store_run *r)
{
	sqlite3_stmt *stmt = NULL;
	int ret = -1;

	if (need_writable(st))
		return -1;
	if (!r->started)
		r->started = now_iso();
	if (prepare(st, "INSERT INTO runs (spec_path, spec_hash, started, host, launcher, "
		    "sweetspot_version, ompi_version, slurm_version, status, planned_launches, "
		    "planned_points) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'running', ?9, ?10)", &stmt))
		return -1;
	bind_text(stmt, 1, r->spec_path);
	bind_text(stmt, 2, r->spec_hash);
	bind_text(stmt, 3, r->started);
	bind_text(stmt, 4, r->host);
	bind_text(stmt, 5, r->launcher);
	bind_text(stmt, 6, r->sweetspot_version);
	bind_text(stmt, 7, r->ompi_version);
	bind_text(stmt, 8, r->slurm_version);
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
	char *now = now_iso();
	int ret = -1;

	if (need_writable(st) ||
	    prepare(st, "UPDATE runs SET status = ?1, finished = ?2 WHERE id = ?3", &stmt))
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

/* ---- kernel records ------------------------------------------------------ */

static const char *json_str_dup(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return xstrdup(json_is_string(v) ? json_string_value(v) : "");
}

static double json_num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static long long json_int(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (json_is_integer(v))
		return json_integer_value(v);
	return -1;
}

void store_point_release(struct store_point *p)
{
	free((char *)p->layout);
	free((char *)p->placement);
	free((char *)p->mode);
	free((char *)p->collective);
	free((char *)p->algorithm);
	free((char *)p->assignment);
	free((char *)p->transport);
	free((char *)p->device);
	free((char *)p->host_source);
	free((char *)p->rank_hosts);
	free((char *)p->raw);
	memset(p, 0, sizeof(*p));
}

int store_parse_record(const char *line, struct store_point *p, char *err, size_t errlen)
{
	static const char *const required_str[] = { "collective", "algorithm", "assignment" };
	json_error_t jerr;
	json_t *o, *v;
	long long bytes;
	int ret = -1;

	memset(p, 0, sizeof(*p));
	o = json_loads(line, JSON_REJECT_DUPLICATES, &jerr);
	if (!o) {
		snprintf(err, errlen, "not JSON (column %d: %s)", jerr.column, jerr.text);
		return -1;
	}
	if (!json_is_object(o)) {
		snprintf(err, errlen, "not a JSON object");
		goto out;
	}
	for (size_t i = 0; i < sizeof(required_str) / sizeof(*required_str); i++) {
		v = json_object_get(o, required_str[i]);
		if (!json_is_string(v) || !*json_string_value(v)) {
			snprintf(err, errlen, "no \"%s\" string", required_str[i]);
			goto out;
		}
	}
	bytes = json_int(o, "bytes");
	if (bytes <= 0) {
		snprintf(err, errlen, "no positive integer \"bytes\"");
		goto out;
	}
	v = json_object_get(o, "valid");
	if (!json_is_boolean(v)) {
		snprintf(err, errlen, "no boolean \"valid\"");
		goto out;
	}
	p->valid = json_is_true(v);
	p->total_us = json_num(o, "total_us");
	/* An invalid point may lack times; a valid one must have them. */
	if (p->valid && isnan(p->total_us)) {
		snprintf(err, errlen, "no number \"total_us\"");
		goto out;
	}
	p->bytes = (uint64_t)bytes;
	p->schema = (int)json_int(o, "schema");
	p->mode = json_str_dup(o, "mode");
	p->collective = json_str_dup(o, "collective");
	p->algorithm = json_str_dup(o, "algorithm");
	p->assignment = json_str_dup(o, "assignment");
	p->transport = json_str_dup(o, "transport");
	p->device = json_str_dup(o, "device");
	p->host_source = json_str_dup(o, "host_source");
	p->ranks = (int)json_int(o, "ranks");
	p->bad_rank = (int)json_int(o, "bad_rank");
	p->bad_source = (int)json_int(o, "bad_source");
	p->bad_offset = json_int(o, "bad_offset");
	p->hosts = (int)json_int(o, "hosts");
	p->workers = (int)json_int(o, "workers");
	p->nodes = (int)json_int(o, "nodes");
	p->ppn = (int)json_int(o, "ppn");
	p->iterations = (int)json_int(o, "iterations");
	p->warmup = (int)json_int(o, "warmup");
	p->ref_us = json_num(o, "ref_us");
	p->comm_us = json_num(o, "comm_us");
	p->compute_us = json_num(o, "compute_us");
	p->oe_paper = json_num(o, "oe_paper");
	p->oe_measured = json_num(o, "oe_measured");
	p->overlap = json_num(o, "overlap");
	p->total_us_min = json_num(o, "total_us_min");
	p->total_us_median = json_num(o, "total_us_median");
	p->total_us_max = json_num(o, "total_us_max");
	v = json_object_get(o, "rank_hosts");
	p->rank_hosts = json_is_array(v) ? json_dumps(v, JSON_COMPACT) : xstrdup("[]");
	p->raw = xstrdup(line);
	p->layout = xstrdup("");
	p->placement = xstrdup("");
	p->wpn = -1;
	ret = 0;
out:
	if (ret)
		store_point_release(p);
	json_decref(o);
	return ret;
}

/* ---- launches ------------------------------------------------------------ */

static int insert_launch(struct store *st, struct store_launch *l)
{
	sqlite3_stmt *stmt = NULL;
	int ret = -1;

	if (prepare(st, "INSERT INTO launches (run, layout, nodes, ppn, workers, wpn, placement, "
		    "repetition, argv, exit_status, timed_out, reason, log_path, wall_s, started, "
		    "finished, ok) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
		    "?14, ?15, ?16, ?17)", &stmt))
		return -1;
	sqlite3_bind_int64(stmt, 1, l->run);
	bind_text(stmt, 2, l->layout.id);
	bind_int(stmt, 3, l->layout.nodes);
	bind_int(stmt, 4, l->layout.ppn);
	bind_int(stmt, 5, l->layout.workers);
	bind_int(stmt, 6, l->layout.wpn);
	bind_text(stmt, 7, l->layout.placement);
	sqlite3_bind_int(stmt, 8, l->repetition);
	bind_text(stmt, 9, l->argv ? l->argv : "");
	sqlite3_bind_int(stmt, 10, l->exit_status);
	sqlite3_bind_int(stmt, 11, !!l->timed_out);
	bind_text(stmt, 12, l->reason);
	bind_text(stmt, 13, l->log_path);
	bind_double(stmt, 14, l->wall_s);
	bind_text(stmt, 15, l->started);
	bind_text(stmt, 16, l->finished);
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

static int insert_points(struct store *st, const struct store_launch *l,
			 const struct store_point *pts, size_t n)
{
	sqlite3_stmt *stmt = NULL;
	int ret = -1;

	if (prepare(st, "INSERT INTO points (run, launch, layout, repetition, wpn, placement, "
		    "schema, mode, collective, algorithm, assignment, bytes, hosts, workers, nodes, "
		    "ppn, iterations, warmup, transport, device, host_source, ref_us, comm_us, "
		    "compute_us, total_us, oe_paper, oe_measured, overlap, total_us_min, "
		    "total_us_median, total_us_max, valid, rank_hosts, raw, ranks, bad_rank, "
		    "bad_source, bad_offset) VALUES (?1, ?2, ?3, ?4, "
		    "?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, "
		    "?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34, ?35, ?36, ?37, "
		    "?38)", &stmt))
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct store_point *p = &pts[i];

		sqlite3_reset(stmt);
		sqlite3_clear_bindings(stmt);
		sqlite3_bind_int64(stmt, 1, l->run);
		sqlite3_bind_int64(stmt, 2, l->id);
		bind_text(stmt, 3, l->layout.id);
		sqlite3_bind_int(stmt, 4, l->repetition);
		bind_int(stmt, 5, l->layout.wpn);
		bind_text(stmt, 6, l->layout.placement);
		bind_int(stmt, 7, p->schema);
		bind_text(stmt, 8, p->mode ? p->mode : "");
		bind_text(stmt, 9, p->collective);
		bind_text(stmt, 10, p->algorithm);
		bind_text(stmt, 11, p->assignment);
		sqlite3_bind_int64(stmt, 12, (sqlite3_int64)p->bytes);
		bind_int(stmt, 13, p->hosts);
		bind_int(stmt, 14, p->workers);
		bind_int(stmt, 15, p->nodes >= 0 ? p->nodes : l->layout.nodes);
		bind_int(stmt, 16, p->ppn >= 0 ? p->ppn : l->layout.ppn);
		bind_int(stmt, 17, p->iterations);
		bind_int(stmt, 18, p->warmup);
		bind_text(stmt, 19, p->transport);
		bind_text(stmt, 20, p->device);
		bind_text(stmt, 21, p->host_source);
		bind_double(stmt, 22, p->ref_us);
		bind_double(stmt, 23, p->comm_us);
		bind_double(stmt, 24, p->compute_us);
		bind_double(stmt, 25, p->total_us);
		bind_double(stmt, 26, p->oe_paper);
		bind_double(stmt, 27, p->oe_measured);
		bind_double(stmt, 28, p->overlap);
		bind_double(stmt, 29, p->total_us_min);
		bind_double(stmt, 30, p->total_us_median);
		bind_double(stmt, 31, p->total_us_max);
		sqlite3_bind_int(stmt, 32, !!p->valid);
		bind_text(stmt, 33, p->rank_hosts);
		bind_text(stmt, 34, p->raw ? p->raw : "");
		bind_int(stmt, 35, p->ranks);
		bind_int(stmt, 36, p->bad_rank);
		bind_int(stmt, 37, p->bad_source);
		bind_int(stmt, 38, p->bad_offset);
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

	if (need_writable(st) || exec(st, "BEGIN IMMEDIATE"))
		return -1;
	/* A retried launch replaces what an earlier attempt stored. */
	if (prepare(st, "DELETE FROM points WHERE run = ?1 AND layout = ?2 AND repetition = ?3", &stmt))
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
	if (insert_launch(st, l) || insert_points(st, l, pts, n) || exec(st, "COMMIT"))
		goto fail;
	return 0;
fail:
	sqlite3_finalize(stmt);
	exec(st, "ROLLBACK");
	return -1;
}

int store_launch_done(struct store *st, long long run, const char *layout,
		      int repetition, int retry_failed)
{
	sqlite3_stmt *stmt = NULL;
	int rc;

	if (prepare(st, retry_failed
		    ? "SELECT 1 FROM launches WHERE run = ?1 AND layout = ?2 AND repetition = ?3 AND ok"
		    : "SELECT 1 FROM launches WHERE run = ?1 AND layout = ?2 AND repetition = ?3",
		    &stmt))
		return -1;
	sqlite3_bind_int64(stmt, 1, run);
	sqlite3_bind_text(stmt, 2, layout, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(stmt, 3, repetition);
	rc = sqlite3_step(stmt);
	sqlite3_finalize(stmt);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	store_sql_error(st, "cannot read launches");
	return -1;
}

int store_run_counts(struct store *st, long long run, long long *launches,
		     long long *failed, long long *points, long long *invalid)
{
	sqlite3_stmt *stmt = NULL;
	int ret = -1;

	/* The latest attempt of each layout and repetition decides. */
	if (prepare(st, "SELECT count(*), coalesce(sum(NOT ok), 0), "
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

#define POINT_COLUMNS "id, run, launch, layout, repetition, wpn, placement, schema, mode, " \
	"collective, algorithm, assignment, bytes, hosts, workers, nodes, ppn, iterations, " \
	"warmup, transport, device, host_source, ref_us, comm_us, compute_us, total_us, " \
	"oe_paper, oe_measured, overlap, total_us_min, total_us_median, total_us_max, valid, " \
	"rank_hosts, raw, ranks, bad_rank, bad_source, bad_offset"

static const char *col_text(sqlite3_stmt *stmt, int i)
{
	const unsigned char *s = sqlite3_column_text(stmt, i);

	return s ? (const char *)s : "";
}

static double col_double(sqlite3_stmt *stmt, int i)
{
	return sqlite3_column_type(stmt, i) == SQLITE_NULL ? NAN : sqlite3_column_double(stmt, i);
}

static int col_int(sqlite3_stmt *stmt, int i)
{
	return sqlite3_column_type(stmt, i) == SQLITE_NULL ? -1 : sqlite3_column_int(stmt, i);
}

static void point_from_row(sqlite3_stmt *stmt, struct store_point *p)
{
	int i = 0;

	p->id = sqlite3_column_int64(stmt, i++);
	p->run = sqlite3_column_int64(stmt, i++);
	p->launch = sqlite3_column_int64(stmt, i++);
	p->layout = col_text(stmt, i++);
	p->repetition = col_int(stmt, i++);
	p->wpn = col_int(stmt, i++);
	p->placement = col_text(stmt, i++);
	p->schema = col_int(stmt, i++);
	p->mode = col_text(stmt, i++);
	p->collective = col_text(stmt, i++);
	p->algorithm = col_text(stmt, i++);
	p->assignment = col_text(stmt, i++);
	p->bytes = (uint64_t)sqlite3_column_int64(stmt, i++);
	p->hosts = col_int(stmt, i++);
	p->workers = col_int(stmt, i++);
	p->nodes = col_int(stmt, i++);
	p->ppn = col_int(stmt, i++);
	p->iterations = col_int(stmt, i++);
	p->warmup = col_int(stmt, i++);
	p->transport = col_text(stmt, i++);
	p->device = col_text(stmt, i++);
	p->host_source = col_text(stmt, i++);
	p->ref_us = col_double(stmt, i++);
	p->comm_us = col_double(stmt, i++);
	p->compute_us = col_double(stmt, i++);
	p->total_us = col_double(stmt, i++);
	p->oe_paper = col_double(stmt, i++);
	p->oe_measured = col_double(stmt, i++);
	p->overlap = col_double(stmt, i++);
	p->total_us_min = col_double(stmt, i++);
	p->total_us_median = col_double(stmt, i++);
	p->total_us_max = col_double(stmt, i++);
	p->valid = sqlite3_column_int(stmt, i++);
	p->rank_hosts = col_text(stmt, i++);
	p->raw = col_text(stmt, i++);
	p->ranks = col_int(stmt, i++);
	p->bad_rank = col_int(stmt, i++);
	p->bad_source = col_int(stmt, i++);
	p->bad_offset = sqlite3_column_type(stmt, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(stmt, i);
	i++;
}

int store_foreach_point(struct store *st, long long run, int flags,
			int (*fn)(const struct store_point *p, void *data), void *data)
{
	sqlite3_stmt *stmt = NULL;
	struct store_point p;
	int rc, ret = 0;

	/* The order a person reads a sweep in: layouts in the plan's (launch)
	 * order, then the point's own fields. */
	if (prepare(st, "SELECT " POINT_COLUMNS " FROM points WHERE run = ?1 AND (valid OR ?2) "
		    "ORDER BY (SELECT min(id) FROM launches WHERE run = points.run AND "
		    "layout = points.layout), collective, algorithm, assignment, bytes, mode, "
		    "repetition", &stmt))
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
	*q = *p;
	q->layout = xstrdup(p->layout);
	q->placement = xstrdup(p->placement);
	q->mode = xstrdup(p->mode);
	q->collective = xstrdup(p->collective);
	q->algorithm = xstrdup(p->algorithm);
	q->assignment = xstrdup(p->assignment);
	q->transport = xstrdup(p->transport);
	q->device = xstrdup(p->device);
	q->host_source = xstrdup(p->host_source);
	q->rank_hosts = xstrdup(p->rank_hosts);
	q->raw = xstrdup(p->raw);
	return 0;
}

int store_load_points(struct store *st, long long run, int flags,
		      struct store_point **out, size_t *n)
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

int store_job_record(struct store *st, const struct store_job *j)
{
	sqlite3_stmt *stmt = NULL;
	char *now = now_iso();
	int ret = -1;

	if (need_writable(st) ||
	    prepare(st, "INSERT INTO jobs (spec_path, spec_hash, job_id, chunk, chunks, after, "
		    "script, submitted, exit_status) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
		    &stmt))
		goto out;
	bind_text(stmt, 1, j->spec_path);
	bind_text(stmt, 2, j->spec_hash);
	bind_text(stmt, 3, j->job_id);
	sqlite3_bind_int(stmt, 4, j->chunk);
	sqlite3_bind_int(stmt, 5, j->chunks);
	bind_text(stmt, 6, j->after);
	bind_text(stmt, 7, j->script);
	bind_text(stmt, 8, now);
	if (j->exit_status < 0)
		sqlite3_bind_null(stmt, 9);
	else
		sqlite3_bind_int(stmt, 9, j->exit_status);
	if (sqlite3_step(stmt) != SQLITE_DONE)
		store_sql_error(st, "cannot record the job");
	else
		ret = 0;
out:
	sqlite3_finalize(stmt);
	free(now);
	return ret;
}

int store_job_finished(struct store *st, const char *job_id, int exit_status)
{
	sqlite3_stmt *stmt = NULL;
	int ret = -1;

	if (need_writable(st) ||
	    prepare(st, "UPDATE jobs SET exit_status = ?1 WHERE job_id = ?2", &stmt))
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
