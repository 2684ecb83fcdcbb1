/* tests/unit/store-t.c: the results database: schema and version checks,
 * kernel record parsing, all-or-nothing launches, no point stored twice,
 * retries replacing earlier attempts, and the read API. */
#include "tap.h"
#include "testfs.h"
#include "record.h"
#include "store_write.h"
#include "strvec.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *rec1 =
	"{\"schema\":1,\"mode\":\"offload\",\"collective\":\"bcast\",\"algorithm\":\"direct\","
	"\"assignment\":\"block\",\"bytes\":1024,\"hosts\":4,\"workers\":2,\"iterations\":5,"
	"\"warmup\":1,\"transport\":\"rma\",\"device\":\"\",\"ref_us\":10.5,\"comm_us\":8,"
	"\"compute_us\":10.4,\"total_us\":12,\"oe_paper\":100,\"oe_measured\":87.5,"
	"\"overlap\":80,\"valid\":true,\"rank_hosts\":[\"a\",\"a\",\"b\",\"b\",\"a\",\"b\"],"
	"\"total_us_min\":11,\"total_us_median\":12,\"total_us_max\":14,\"nodes\":2,\"ppn\":2,"
	"\"host_source\":\"gethostname\"}";
static const char *rec2 =
	"{\"schema\":1,\"mode\":\"offload\",\"collective\":\"bcast\",\"algorithm\":\"direct\","
	"\"assignment\":\"block\",\"bytes\":2048,\"valid\":false,\"bad_rank\":1,\"bad_source\":0,"
	"\"bad_offset\":77,\"total_us\":30}";

/* Schema 2's points table, as sweetspot 0.1 wrote it. */
#define V2_POINTS                                                                              \
	"CREATE TABLE p2 (id INTEGER PRIMARY KEY, run INTEGER NOT NULL REFERENCES runs(id),"   \
	" launch INTEGER NOT NULL REFERENCES launches(id), layout TEXT NOT NULL,"              \
	" repetition INTEGER NOT NULL, wpn INTEGER, placement TEXT, schema INTEGER,"           \
	" mode TEXT NOT NULL DEFAULT '', collective TEXT NOT NULL, algorithm TEXT NOT NULL,"   \
	" assignment TEXT NOT NULL, bytes INTEGER NOT NULL, ranks INTEGER, hosts INTEGER,"     \
	" workers INTEGER, nodes INTEGER, ppn INTEGER, iterations INTEGER, warmup INTEGER,"    \
	" transport TEXT, device TEXT, host_source TEXT, ref_us REAL, comm_us REAL,"           \
	" compute_us REAL, total_us REAL, oe_paper REAL, oe_measured REAL, overlap REAL,"      \
	" total_us_min REAL, total_us_median REAL, total_us_max REAL, valid INTEGER NOT NULL," \
	" bad_rank INTEGER, bad_source INTEGER, bad_offset INTEGER, rank_hosts TEXT,"          \
	" raw TEXT NOT NULL,"                                                                  \
	" UNIQUE (run, layout, repetition, collective, algorithm, assignment, bytes, mode));"
#define V2_NAMES                                                                                \
	"id, run, launch, layout, repetition, wpn, placement, schema, mode, collective,"        \
	" algorithm, assignment, bytes, ranks, hosts, workers, nodes, ppn, iterations, warmup," \
	" transport, device, host_source, ref_us, comm_us, compute_us, total_us, oe_paper,"     \
	" oe_measured, overlap, total_us_min, total_us_median, total_us_max, valid, bad_rank,"  \
	" bad_source, bad_offset, rank_hosts, raw"

/* A reduction's record with the calibration fields. */
static const char *rec3 =
	"{\"schema\":2,\"mode\":\"offload\",\"collective\":\"allreduce\",\"algorithm\":\"slice\","
	"\"assignment\":\"block\",\"bytes\":24576,\"valid\":true,\"total_us\":30,\"dtype\":"
	"\"double\","
	"\"op\":\"sum\",\"chunk\":4096,\"window\":2,\"algbw\":1e9,\"busbw\":1.5e9,\"p2p_bw\":3e9,"
	"\"ref_us_median\":20,\"compute_us_median\":26,\"oe_measured_median\":70,"
	"\"calib_error\":0.3,\"calibrated\":false}";

struct counter {
	int n, valid;
	double oe;
};

static int count_point(const struct store_point *p, void *data)
{
	struct counter *c = data;

	c->n++;
	c->valid += p->valid;
	if (p->key.bytes == 1024)
		c->oe = p->oe_measured;
	return 0;
}

static long long count_rows(const char *path, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *stmt;
	long long n = -1;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) == SQLITE_OK) {
		if (sqlite3_step(stmt) == SQLITE_ROW)
			n = sqlite3_column_int64(stmt, 0);
		sqlite3_finalize(stmt);
	}
	sqlite3_close(db);
	return n;
}

/* n processes open one new database at the same moment (released
 * together through a pipe); how many of them failed. */
static int open_together(const char *path, int n)
{
	int gate[2], failed = 0, status;
	char byte;

	if (pipe(gate))
		return n;
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			struct store *st = NULL;
			int rc;

			close(gate[1]);
			rc = read(gate[0], &byte, 1) == 0 ? store_open(path, STORE_CREATE, &st) :
							    -1;
			store_close(st);
			_exit(rc ? 1 : 0);
		}
		if (pid < 0)
			failed++;
	}
	close(gate[0]);
	close(gate[1]); /* every child's read returns now */
	while (wait(&status) > 0)
		failed += !WIFEXITED(status) || WEXITSTATUS(status);
	return failed;
}

int main(void)
{
	char dir[] = "/tmp/store-t.XXXXXX", err[256];
	char *path, *junk, *newer;
	struct store *st = NULL;
	struct store_run run = { 0 }, got = { 0 };
	struct store_point pts[3];
	struct store_launch l = { 0 };
	struct counter c = { 0, 0, 0 };
	struct store_point *loaded = NULL;
	size_t n = 0;
	long long launches, failed, points, invalid;
	FILE *f;
	sqlite3 *db;

	plan(59);
	if (!mkdtemp(dir))
		return 1;
	path = xasprintf("%s/sub/dir/s.db", dir);
	junk = xasprintf("%s/junk.db", dir);
	newer = xasprintf("%s/newer.db", dir);

	ok(store_open(path, STORE_RDONLY, &st) == -1 && !st,
	   "read-only open of a missing db fails");
	ok(access(path, F_OK) != 0, "and creates nothing");
	ok(store_open(path, STORE_CREATE, &st) == 0 && st, "create (with its folders)");
	is_int(count_rows(path, "PRAGMA user_version"), STORE_SCHEMA_VERSION, "schema version set");
	{
		/* The record table (record.h) and the schema (store_db.c) name
		 * the same columns: each field of the table is a column, and the
		 * table has as many column fields as the schema has columns. */
		size_t ncols, missing = 0;
		char *cols = rec_names(REC_COLUMN, 0, &ncols), *name;

		for (name = strtok(cols, ", "); name; name = strtok(NULL, ", ")) {
			char *q = xasprintf("SELECT count(*) FROM pragma_table_info('points') "
					    "WHERE name = '%s'",
					    name);

			missing += count_rows(path, q) != 1;
			free(q);
		}
		free(cols);
		is_int(missing, 0, "every column field of the record table is in the schema");
		is_int(count_rows(path, "SELECT count(*) FROM pragma_table_info('points')"), ncols,
		       "and the schema has no column the table lacks");
	}

	/* records */
	ok(record_parse(rec1, &pts[0], err, sizeof(err)) == 0, "parse a full record");
	is_str(pts[0].key.collective, "bcast", "collective");
	is_int(pts[0].key.bytes, 1024, "bytes");
	ok(fabs(pts[0].oe_measured - 87.5) < 1e-9, "oe_measured");
	is_int(pts[0].nodes, 2, "nodes");
	is_str(pts[0].rank_hosts, "[\"a\",\"a\",\"b\",\"b\",\"a\",\"b\"]",
	       "rank_hosts kept as JSON");
	ok(record_parse(rec2, &pts[1], err, sizeof(err)) == 0 && !pts[1].valid,
	   "an invalid record parses, flagged");
	ok(isnan(pts[1].oe_paper) && pts[1].hosts == -1, "absent fields are NaN / -1");
	is_int(pts[1].bad_offset, 77, "where validation failed is kept");
	ok(record_parse("{\"collective\":\"bcast\"", &pts[2], err, sizeof(err)) == -1,
	   "truncated JSON refused");
	ok(record_parse(rec3, &pts[2], err, sizeof(err)) == 0 &&
		   !strcmp(pts[2].key.dtype, "double") && !strcmp(pts[2].key.op, "sum") &&
		   pts[2].key.chunk == 4096 && pts[2].key.window == 2 && pts[2].key.radix == 0,
	   "a reduction's axes read");
	ok(pts[2].busbw == 1.5e9 && pts[2].p2p_bw == 3e9 && pts[2].algbw == 1e9 &&
		   pts[2].compute_us_median == 26 && pts[2].calib_error == 0.3 &&
		   pts[2].calibrated == -1,
	   "bandwidths and calibration read; calibrated false");
	ok(!strcmp(pts[0].key.dtype, "") && pts[0].key.chunk == 0 && pts[0].calibrated == 0 &&
		   isnan(pts[0].busbw),
	   "a bcast record has none of them");
	store_point_release(&pts[2]);
	diag("%s", err);
	ok(record_parse("{\"collective\":\"bcast\",\"algorithm\":\"direct\",\"assignment\":"
			"\"block\",\"bytes\":1,\"total_us\":1}",
			&pts[2], err, sizeof(err)) == -1,
	   "record without valid refused");
	ok(record_parse("[1,2]", &pts[2], err, sizeof(err)) == -1, "array refused");
	{
		/* Open MPI alone (--mode mpi) assigns nothing: its records say no
		 * assignment, and only that mode may leave it out. */
		static const char mpi[] =
			"{\"schema\":1,\"mode\":\"mpi\",\"collective\":\"bcast\","
			"\"algorithm\":\"tuned:6\",\"bytes\":4096,\"total_us\":3.5,\"valid\":true}";
		static const char offload[] =
			"{\"schema\":1,\"mode\":\"offload\",\"collective\":"
			"\"bcast\",\"algorithm\":\"direct\",\"bytes\":4096,\"total_us\":3.5,"
			"\"valid\":true}";
		struct store_point q;

		ok(record_parse(mpi, &q, err, sizeof(err)) == 0,
		   "an mpi record without assignment parses");
		is_str(q.key.assignment, "none", "... its assignment reads none");
		is_str(q.raw, mpi, "... and its line is kept as the kernel wrote it");
		store_point_release(&q);
		ok(record_parse(offload, &q, err, sizeof(err)) == -1 && strstr(err, "assignment"),
		   "an offloaded record without assignment is refused");
	}

	/* runs */
	run.spec_path = xstrdup("profiles/x.cfg");
	run.spec_hash = xstrdup("abc");
	run.host = xstrdup("here");
	run.planned_launches = 2;
	run.planned_points = 4;
	ok(store_run_begin(st, &run) == 0 && run.id == 1, "run recorded");
	ok(store_latest_run(st, "profiles/x.cfg", &got) == 1 && got.id == run.id &&
		   !strcmp(got.status, "running") && got.planned_points == 4,
	   "latest run of the spec");
	store_run_release(&got);
	ok(store_latest_run(st, "other.cfg", &got) == 0, "no run for another spec");

	/* launches */
	l.run = run.id;
	l.layout = (struct store_layout){ "n2-ppn2-w2-wpn1-onload", 2, 2, 2, 1, "onload" };
	l.repetition = 1;
	l.argv = "mpirun -np 6";
	l.exit_status = 1;
	l.reason = "exit status 1";
	l.ok = 0;
	is_int(store_launch_done(st, run.id, l.layout.id, 1, 0), 0, "launch not done yet");
	ok(store_launch_record(st, &l, pts, 2) == 0, "launch with 2 points recorded");
	is_int(store_launch_done(st, run.id, l.layout.id, 1, 0), 1, "launch done (any outcome)");
	is_int(store_launch_done(st, run.id, l.layout.id, 1, 1), 0,
	       "but not ok: retried with --retry-failed");
	store_foreach_point(st, run.id, STORE_VALID_ONLY, count_point, &c);
	is_int(c.n, 1, "valid only: the invalid point is not a result");
	store_foreach_point(st, run.id, STORE_ALL_POINTS, count_point,
			    &(struct counter){ 0, 0, 0 });
	ok(store_load_points(st, run.id, STORE_ALL_POINTS, &loaded, &n) == 0 && n == 2,
	   "all points: 2");
	ok(n == 2 && !strcmp(loaded[0].placement, "onload") && loaded[0].wpn == 1 &&
		   !strcmp(loaded[0].layout, "n2-ppn2-w2-wpn1-onload"),
	   "points carry the layout");
	store_points_free(loaded, n);

	/* a point twice in one launch: the whole launch is refused */
	l.repetition = 2;
	ok(store_launch_record(st, &l, (struct store_point[]){ pts[0], pts[0] }, 2) == -1,
	   "a point twice in one launch is refused");
	is_int(store_launch_done(st, run.id, l.layout.id, 2, 0), 0, "and that launch left no row");
	is_int(count_rows(path, "SELECT count(*) FROM points"), 2, "nor any point");

	/* a retry replaces the failed attempt's points */
	l.repetition = 1;
	l.exit_status = 0;
	l.reason = NULL;
	l.ok = 1;
	ok(store_launch_record(st, &l, pts, 1) == 0, "retry recorded");
	is_int(count_rows(path, "SELECT count(*) FROM points"), 1, "retry replaced the points");
	is_int(store_launch_done(st, run.id, l.layout.id, 1, 1), 1, "now ok");
	ok(store_run_counts(st, run.id, &launches, &failed, &points, &invalid) == 0 &&
		   launches == 1 && failed == 0 && points == 1 && invalid == 0,
	   "counts follow the latest attempt");
	ok(store_run_end(st, run.id, "done") == 0, "run ended");
	store_close(st);
	st = NULL;

	ok(store_open(path, STORE_RDONLY, &st) == 0, "read-only open");
	ok(store_run_begin(st, &run) == -1, "read-only refuses writes");
	ok(store_get_run(st, 1, &got) == 1 && !strcmp(got.status, "done") && got.finished,
	   "run done with a finish time");
	store_run_release(&got);
	store_close(st);
	st = NULL;

	/* a schema 1 database (made from a schema 2 one, whose points table
	 * this is, with a reduction known only to its raw record): refused
	 * read-only, upgraded 1 -> 2 -> 3 when written */
	sqlite3_open(path, &db);
	sqlite3_exec(
		db,
		"BEGIN;" V2_POINTS "INSERT INTO p2 SELECT " V2_NAMES
		" FROM points; DROP TABLE points;"
		"ALTER TABLE p2 RENAME TO points;"
		"UPDATE points SET collective = 'allreduce', algorithm = 'slice', raw = "
		"'{\"dtype\":\"double\",\"op\":\"max\",\"chunk\":4096,\"window\":2,\"busbw\":5e8}';"
		"ALTER TABLE points DROP COLUMN ranks; ALTER TABLE points DROP COLUMN bad_rank;"
		"ALTER TABLE points DROP COLUMN bad_source; ALTER TABLE points DROP COLUMN "
		"bad_offset;"
		"PRAGMA user_version = 1; COMMIT;",
		NULL, NULL, NULL);
	sqlite3_close(db);
	is_int(count_rows(path, "PRAGMA user_version"), 1, "made a schema 1 database");
	ok(store_open(path, STORE_RDONLY, &st) == -1, "read-only open of an older schema refused");
	ok(store_open(path, STORE_CREATE, &st) == 0, "opened for writing: upgraded");
	is_int(count_rows(path, "PRAGMA user_version"), STORE_SCHEMA_VERSION,
	       "now the current schema");
	is_int(count_rows(path, "SELECT count(bad_offset IS NULL) FROM points"), 1,
	       "with the new columns, and the points kept");
	is_int(count_rows(path, "SELECT count(*) FROM points WHERE dtype = 'double' AND op = 'max' "
				"AND chunk = 4096 AND window = 2 AND radix = 0 AND busbw = 5e8"),
	       1, "schema 3's columns filled from the raw record");
	/* the axes are part of the key: the same point in another dtype */
	l.repetition = 3;
	pts[2] = pts[0];
	pts[2].key.dtype = "int32";
	ok(store_launch_record(st, &l, (struct store_point[]){ pts[0], pts[2] }, 2) == 0,
	   "two points that differ only in dtype are both stored");
	store_close(st);
	st = NULL;

	/* not a database; a newer schema */
	f = fopen(junk, "w");
	fputs("hello, not sqlite at all, but long enough to be looked at by sqlite ......"
	      "..............................................................",
	      f);
	fclose(f);
	ok(store_open(junk, STORE_CREATE, &st) == -1, "a file that is not a database is refused");
	sqlite3_open(newer, &db);
	sqlite3_exec(db, "CREATE TABLE t(x); PRAGMA user_version = 99;", NULL, NULL, NULL);
	sqlite3_close(db);
	ok(store_open(newer, STORE_CREATE, &st) == -1, "a newer schema is refused");
	is_int(count_rows(newer, "PRAGMA user_version"), 99, "and left untouched");

	/* Sweeps started together on a new database: the schema is made once. */
	for (int round = 0; round < 5; round++) {
		char *race = xasprintf("%s/race%d.db", dir, round);
		int bad = open_together(race, 8);

		if (bad || round == 4) {
			is_int(bad, 0,
			       "8 processes open a new database at once, %d rounds: none fails",
			       round + 1);
			is_int(count_rows(race, "PRAGMA user_version"), STORE_SCHEMA_VERSION,
			       "its schema version is set");
			is_int(count_rows(race, "SELECT count(*) FROM runs"), 0,
			       "and its tables are there");
			free(race);
			break;
		}
		free(race);
	}

	for (int i = 0; i < 2; i++)
		store_point_release(&pts[i]);
	store_run_release(&run);
	if (test_rm_tree(dir))
		diag("cannot remove %s", dir);
	free(path);
	free(junk);
	free(newer);
	return done_testing();
}
