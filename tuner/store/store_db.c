/*
 * tuner/store/store_db.c: opening the results database (see store.h): the schema,
 * its version in PRAGMA user_version and the upgrades from older versions,
 * and the SQLite helpers the other store files share (store_priv.h). Every
 * write is one transaction; the database is in WAL mode with foreign keys on,
 * so a reader (results, recommend) never blocks a sweep and a sweep killed at
 * any moment leaves a consistent file. Opening checks the schema version
 * before anything is written, so a database we do not understand is never
 * changed.
 */
#include "store_priv.h"
#include "files.h"
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

/* Batch jobs that `sweetspot submit` queued (one per chunk of a sweep). */
#define JOBS_SQL                            \
	"CREATE TABLE IF NOT EXISTS jobs (" \
	" id INTEGER PRIMARY KEY,"          \
	" spec_path TEXT NOT NULL,"         \
	" spec_hash TEXT NOT NULL,"         \
	" job_id TEXT NOT NULL,"            \
	" chunk INTEGER NOT NULL,"          \
	" chunks INTEGER NOT NULL,"         \
	" after TEXT,"                      \
	" script TEXT NOT NULL,"            \
	" submitted TEXT NOT NULL,"         \
	" exit_status INTEGER);"

/* The points of schema 3. The axes beside the layout's are part of the
 * key, and NOT NULL ('' and 0 where they do not apply) because SQLite's
 * UNIQUE holds NULLs distinct. */
#define POINTS_SQL(name)                                                                    \
	"CREATE TABLE " name " ("                                                           \
	" id INTEGER PRIMARY KEY,"                                                          \
	" run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"                      \
	" launch INTEGER NOT NULL REFERENCES launches(id) ON DELETE CASCADE,"               \
	" layout TEXT NOT NULL,"                                                            \
	" repetition INTEGER NOT NULL,"                                                     \
	" wpn INTEGER,"                                                                     \
	" placement TEXT,"                                                                  \
	" schema INTEGER,"                                                                  \
	" mode TEXT NOT NULL DEFAULT '',"                                                   \
	" collective TEXT NOT NULL,"                                                        \
	" algorithm TEXT NOT NULL,"                                                         \
	" assignment TEXT NOT NULL,"                                                        \
	" bytes INTEGER NOT NULL,"                                                          \
	" ranks INTEGER, hosts INTEGER, workers INTEGER, nodes INTEGER, ppn INTEGER,"       \
	" iterations INTEGER, warmup INTEGER,"                                              \
	" transport TEXT, device TEXT, host_source TEXT,"                                   \
	" ref_us REAL, comm_us REAL, compute_us REAL, total_us REAL,"                       \
	" oe_paper REAL, oe_measured REAL, overlap REAL,"                                   \
	" total_us_min REAL, total_us_median REAL, total_us_max REAL,"                      \
	" valid INTEGER NOT NULL,"                                                          \
	" bad_rank INTEGER, bad_source INTEGER, bad_offset INTEGER,"                        \
	" rank_hosts TEXT,"                                                                 \
	" raw TEXT NOT NULL," POINTS_V3_COLUMNS ","                                         \
	" UNIQUE (run, layout, repetition, collective, algorithm, assignment, bytes, mode," \
	"  dtype, op, chunk, window, radix));"

/* Schema 3's columns, as the table has them and as 2 -> 3 adds them. */
#define POINTS_V3_COLUMNS                                                       \
	" dtype TEXT NOT NULL DEFAULT '',"                                      \
	" op TEXT NOT NULL DEFAULT '',"                                         \
	" chunk INTEGER NOT NULL DEFAULT 0,"                                    \
	" window INTEGER NOT NULL DEFAULT 0,"                                   \
	" radix INTEGER NOT NULL DEFAULT 0,"                                    \
	" algbw REAL, busbw REAL, p2p_bw REAL,"                                 \
	" ref_us_median REAL, compute_us_median REAL, oe_measured_median REAL," \
	" calib_error REAL, calibrated INTEGER"

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
	"CREATE INDEX launches_by_layout ON launches(run, layout, repetition);" POINTS_SQL("points")
		JOBS_SQL;

void store_sql_error(struct store *st, const char *what)
{
	error("%s: %s: %s", st->path, what, sqlite3_errmsg(st->db));
}

int store_exec(struct store *st, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		error("%s: %s", st->path, msg ? msg : sqlite3_errmsg(st->db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

int store_prepare(struct store *st, const char *sql, sqlite3_stmt **stmt)
{
	if (sqlite3_prepare_v2(st->db, sql, -1, stmt, NULL) != SQLITE_OK) {
		store_sql_error(st, "cannot prepare a query");
		return -1;
	}
	return 0;
}

/* One integer from a query (PRAGMA user_version, counts). */
int store_query_int(struct store *st, const char *sql, long long *out)
{
	sqlite3_stmt *stmt = NULL;
	int rc;

	if (store_prepare(st, sql, &stmt))
		return -1;
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(stmt, 0);
	else if (rc != SQLITE_DONE)
		store_sql_error(st, "cannot read");
	sqlite3_finalize(stmt);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
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
static const char migrate_1_2[] = "BEGIN IMMEDIATE;"
				  "ALTER TABLE points ADD COLUMN ranks INTEGER;"
				  "ALTER TABLE points ADD COLUMN bad_rank INTEGER;"
				  "ALTER TABLE points ADD COLUMN bad_source INTEGER;"
				  "ALTER TABLE points ADD COLUMN bad_offset INTEGER;"
				  "PRAGMA user_version = 2;"
				  "COMMIT;";

/* Schema 3 adds the reductions' and schedules' axes, the bandwidths and
 * the calibration: columns added, then filled from each point's raw record
 * (a reduction stored under schema 2 had them only there). The axes join
 * the UNIQUE key, which ALTER TABLE cannot change, so the table is then
 * copied into one with the new key (SQLite's documented way). */
/* Every column by name: a schema 2 table that came from 1 has ranks and
 * the bad_* columns last, a fresh one in the middle. */
#define POINTS_V3_NAMES                                                                            \
	"id, run, launch, layout, repetition, wpn, placement, schema, mode, collective, "          \
	"algorithm, assignment, bytes, ranks, hosts, workers, nodes, ppn, iterations, warmup, "    \
	"transport, device, host_source, ref_us, comm_us, compute_us, total_us, oe_paper, "        \
	"oe_measured, overlap, total_us_min, total_us_median, total_us_max, valid, bad_rank, "     \
	"bad_source, bad_offset, rank_hosts, raw, dtype, op, chunk, window, radix, algbw, busbw, " \
	"p2p_bw, ref_us_median, compute_us_median, oe_measured_median, calib_error, calibrated"

static const char migrate_2_3[] = "BEGIN IMMEDIATE;"
				  "ALTER TABLE points ADD COLUMN dtype TEXT NOT NULL DEFAULT '';"
				  "ALTER TABLE points ADD COLUMN op TEXT NOT NULL DEFAULT '';"
				  "ALTER TABLE points ADD COLUMN chunk INTEGER NOT NULL DEFAULT 0;"
				  "ALTER TABLE points ADD COLUMN window INTEGER NOT NULL DEFAULT 0;"
				  "ALTER TABLE points ADD COLUMN radix INTEGER NOT NULL DEFAULT 0;"
				  "ALTER TABLE points ADD COLUMN algbw REAL;"
				  "ALTER TABLE points ADD COLUMN busbw REAL;"
				  "ALTER TABLE points ADD COLUMN p2p_bw REAL;"
				  "ALTER TABLE points ADD COLUMN ref_us_median REAL;"
				  "ALTER TABLE points ADD COLUMN compute_us_median REAL;"
				  "ALTER TABLE points ADD COLUMN oe_measured_median REAL;"
				  "ALTER TABLE points ADD COLUMN calib_error REAL;"
				  "ALTER TABLE points ADD COLUMN calibrated INTEGER;"
				  "UPDATE points SET"
				  " dtype = coalesce(json_extract(raw, '$.dtype'), ''),"
				  " op = coalesce(json_extract(raw, '$.op'), ''),"
				  " chunk = coalesce(json_extract(raw, '$.chunk'), 0),"
				  " window = coalesce(json_extract(raw, '$.window'), 0),"
				  " radix = coalesce(json_extract(raw, '$.radix'), 0),"
				  " algbw = json_extract(raw, '$.algbw'),"
				  " busbw = json_extract(raw, '$.busbw'),"
				  " p2p_bw = json_extract(raw, '$.p2p_bw')"
				  " WHERE json_valid(raw);" POINTS_SQL(
					  "points_v3") "INSERT INTO points_v3 (" POINTS_V3_NAMES
						       ") SELECT " POINTS_V3_NAMES " FROM points;"
						       "DROP TABLE points;"
						       "ALTER TABLE points_v3 RENAME TO points;"
						       "PRAGMA user_version = 3;"
						       "COMMIT;";

/* Checks user_version and that the tables are ours. Returns 0 with *fresh set
 * when the file is empty (a new database), or -1 after error(). */
static int check_schema(struct store *st, int *fresh, long long *versionp)
{
	long long version = 0, tables = 0;

	*fresh = 0;
	*versionp = 0;
	if (store_query_int(st, "PRAGMA user_version", &version))
		return -1;
	if (version > STORE_SCHEMA_VERSION)
		return error(
			"%s: written by a newer sweetspot (schema %lld; this one reads up to %d); "
			"left untouched",
			st->path, version, STORE_SCHEMA_VERSION);
	if (store_query_int(st, "SELECT count(*) FROM sqlite_master", &tables))
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

/* Creates the tables of a new database. Two sweeps started together on a
 * new file both find it empty: the write lock (BEGIN IMMEDIATE) orders
 * them, and the second, finding the tables there once it holds it,
 * creates nothing. 0, or -1 after error() with nothing written. */
static int create_schema(struct store *st)
{
	long long tables = 0;
	char *sql;
	int rc;

	if (store_exec(st, "BEGIN IMMEDIATE"))
		return -1;
	if (store_query_int(st, "SELECT count(*) FROM sqlite_master", &tables))
		goto fail;
	if (tables)
		return store_exec(st, "COMMIT");
	sql = xasprintf("%s PRAGMA user_version = %d;", schema_sql, STORE_SCHEMA_VERSION);
	rc = store_exec(st, sql);
	free(sql);
	if (rc || store_exec(st, "COMMIT"))
		goto fail;
	return 0;
fail:
	if (!sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

/* WAL mode. Switching to it takes the file for a moment, and SQLite says
 * "locked" at once (no busy handler) while another process opens the same
 * new file: try again for as long as the busy timeout. 0 or -1. */
static int set_wal(struct store *st)
{
	int rc = SQLITE_BUSY;

	for (int i = 0; i < 300 && rc == SQLITE_BUSY; i++) {
		rc = sqlite3_exec(st->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
		if (rc == SQLITE_BUSY)
			sqlite3_sleep(100);
	}
	if (rc != SQLITE_OK) {
		store_sql_error(st, "cannot use WAL mode");
		return -1;
	}
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
	if (!exists && files_mkdir_parents(path))
		goto fail;
	oflags |= st->writable ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
	rc = sqlite3_open_v2(path, &st->db, oflags, NULL);
	if (rc != SQLITE_OK) {
		error("%s: cannot open: %s", path,
		      st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc));
		goto fail;
	}
	/* A sweep and a reader may overlap: wait for the other's transaction. */
	sqlite3_busy_timeout(st->db, 30000);
	/* One read transaction: the version and the tables from one snapshot,
	 * not from either side of another process's creating them. */
	if (store_exec(st, "BEGIN") || check_schema(st, &fresh, &version) ||
	    store_exec(st, "COMMIT"))
		goto fail;
	if (version && version < STORE_SCHEMA_VERSION && !st->writable) {
		error("%s: schema %lld, older than this sweetspot's %d: any 'sweetspot run' on it "
		      "upgrades it",
		      path, version, STORE_SCHEMA_VERSION);
		goto fail;
	}
	if (fresh && !st->writable) {
		error("%s: empty, not a sweetspot database", path);
		goto fail;
	}
	if (store_exec(st, "PRAGMA foreign_keys = ON"))
		goto fail;
	if (st->writable) {
		if (set_wal(st) || store_exec(st, "PRAGMA synchronous = NORMAL"))
			goto fail;
		if (!fresh && store_exec(st, JOBS_SQL))
			goto fail;
		if (version == 1 && store_exec(st, migrate_1_2)) {
			if (!sqlite3_get_autocommit(st->db))
				sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
			goto fail;
		}
		if (version && version <= 2 && store_exec(st, migrate_2_3)) {
			if (!sqlite3_get_autocommit(st->db))
				sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
			goto fail;
		}
		if (fresh && create_schema(st))
			goto fail;
	}
	*out = st;
	return 0;
fail:
	store_close(st);
	return -1;
}

/* ---- small helpers -------------------------------------------------------- */

char *store_col_strdup(sqlite3_stmt *stmt, int i)
{
	const unsigned char *s = sqlite3_column_text(stmt, i);

	return s ? xstrdup((const char *)s) : NULL;
}

void store_bind_text(sqlite3_stmt *stmt, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(stmt, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(stmt, i);
}

/* NaN and negative sentinels go in as NULL, so SQL sees "not reported". */
void store_bind_double(sqlite3_stmt *stmt, int i, double v)
{
	if (isnan(v))
		sqlite3_bind_null(stmt, i);
	else
		sqlite3_bind_double(stmt, i, v);
}

void store_bind_int(sqlite3_stmt *stmt, int i, long long v)
{
	if (v < 0)
		sqlite3_bind_null(stmt, i);
	else
		sqlite3_bind_int64(stmt, i, v);
}

int store_need_writable(struct store *st)
{
	if (!st->writable)
		return error("%s: opened read-only", st->path);
	return 0;
}

const char *store_col_text(sqlite3_stmt *stmt, int i)
{
	const unsigned char *s = sqlite3_column_text(stmt, i);

	return s ? (const char *)s : "";
}

double store_col_double(sqlite3_stmt *stmt, int i)
{
	return sqlite3_column_type(stmt, i) == SQLITE_NULL ? NAN : sqlite3_column_double(stmt, i);
}

int store_col_int(sqlite3_stmt *stmt, int i)
{
	return sqlite3_column_type(stmt, i) == SQLITE_NULL ? -1 : sqlite3_column_int(stmt, i);
}
