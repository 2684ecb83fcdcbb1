/* tests/unit/store-t.c: the results database: schema and version checks,
 * kernel record parsing, all-or-nothing launches, no point stored twice,
 * retries replacing earlier attempts, and the read API. */
#include "tap.h"
#include "testfs.h"
#include "store.h"
#include "strvec.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
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

struct counter {
	int n, valid;
	double oe;
};

static int count_point(const struct store_point *p, void *data)
{
	struct counter *c = data;

	c->n++;
	c->valid += p->valid;
	if (p->bytes == 1024)
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

	plan(45);
	if (!mkdtemp(dir))
		return 1;
	path = xasprintf("%s/sub/dir/s.db", dir);
	junk = xasprintf("%s/junk.db", dir);
	newer = xasprintf("%s/newer.db", dir);

	ok(store_open(path, STORE_RDONLY, &st) == -1 && !st, "read-only open of a missing db fails");
	ok(access(path, F_OK) != 0, "and creates nothing");
	ok(store_open(path, STORE_CREATE, &st) == 0 && st, "create (with its folders)");
	is_int(count_rows(path, "PRAGMA user_version"), STORE_SCHEMA_VERSION, "schema version set");

	/* records */
	ok(store_parse_record(rec1, &pts[0], err, sizeof(err)) == 0, "parse a full record");
	is_str(pts[0].collective, "bcast", "collective");
	is_int(pts[0].bytes, 1024, "bytes");
	ok(fabs(pts[0].oe_measured - 87.5) < 1e-9, "oe_measured");
	is_int(pts[0].nodes, 2, "nodes");
	is_str(pts[0].rank_hosts, "[\"a\",\"a\",\"b\",\"b\",\"a\",\"b\"]", "rank_hosts kept as JSON");
	ok(store_parse_record(rec2, &pts[1], err, sizeof(err)) == 0 && !pts[1].valid,
	   "an invalid record parses, flagged");
	ok(isnan(pts[1].oe_paper) && pts[1].hosts == -1, "absent fields are NaN / -1");
	is_int(pts[1].bad_offset, 77, "where validation failed is kept");
	ok(store_parse_record("{\"collective\":\"bcast\"", &pts[2], err, sizeof(err)) == -1,
	   "truncated JSON refused");
	diag("%s", err);
	ok(store_parse_record("{\"collective\":\"bcast\",\"algorithm\":\"direct\",\"assignment\":"
			      "\"block\",\"bytes\":1,\"total_us\":1}", &pts[2], err, sizeof(err)) == -1,
	   "record without valid refused");
	ok(store_parse_record("[1,2]", &pts[2], err, sizeof(err)) == -1, "array refused");

	/* runs */
	run.spec_path = xstrdup("profiles/x.cfg");
	run.spec_hash = xstrdup("abc");
	run.host = xstrdup("here");
	run.planned_launches = 2;
	run.planned_points = 4;
	ok(store_run_begin(st, &run) == 0 && run.id == 1, "run recorded");
	ok(store_latest_run(st, "profiles/x.cfg", &got) == 1 && got.id == run.id &&
	   !strcmp(got.status, "running") && got.planned_points == 4, "latest run of the spec");
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
	is_int(store_launch_done(st, run.id, l.layout.id, 1, 1), 0, "but not ok: retried with --retry-failed");
	store_foreach_point(st, run.id, STORE_VALID_ONLY, count_point, &c);
	is_int(c.n, 1, "valid only: the invalid point is not a result");
	store_foreach_point(st, run.id, STORE_ALL_POINTS, count_point, &(struct counter){ 0, 0, 0 });
	ok(store_load_points(st, run.id, STORE_ALL_POINTS, &loaded, &n) == 0 && n == 2,
	   "all points: 2");
	ok(n == 2 && !strcmp(loaded[0].placement, "onload") && loaded[0].wpn == 1 &&
	   !strcmp(loaded[0].layout, "n2-ppn2-w2-wpn1-onload"), "points carry the layout");
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
	   launches == 1 && failed == 0 && points == 1 && invalid == 0, "counts follow the latest attempt");
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

	/* a schema 1 database: refused read-only, upgraded when written */
	sqlite3_open(path, &db);
	sqlite3_exec(db, "ALTER TABLE points DROP COLUMN ranks; ALTER TABLE points DROP COLUMN bad_rank;"
		     "ALTER TABLE points DROP COLUMN bad_source; ALTER TABLE points DROP COLUMN bad_offset;"
		     "PRAGMA user_version = 1;", NULL, NULL, NULL);
	sqlite3_close(db);
	is_int(count_rows(path, "PRAGMA user_version"), 1, "made a schema 1 database");
	ok(store_open(path, STORE_RDONLY, &st) == -1, "read-only open of an older schema refused");
	ok(store_open(path, STORE_CREATE, &st) == 0, "opened for writing: upgraded");
	store_close(st);
	st = NULL;
	is_int(count_rows(path, "PRAGMA user_version"), STORE_SCHEMA_VERSION, "now the current schema");
	is_int(count_rows(path, "SELECT count(bad_offset IS NULL) FROM points"), 1,
	       "with the new columns, and the points kept");

	/* not a database; a newer schema */
	f = fopen(junk, "w");
	fputs("hello, not sqlite at all, but long enough to be looked at by sqlite ......"
	      "..............................................................", f);
	fclose(f);
	ok(store_open(junk, STORE_CREATE, &st) == -1, "a file that is not a database is refused");
	sqlite3_open(newer, &db);
	sqlite3_exec(db, "CREATE TABLE t(x); PRAGMA user_version = 99;", NULL, NULL, NULL);
	sqlite3_close(db);
	ok(store_open(newer, STORE_CREATE, &st) == -1, "a newer schema is refused");
	is_int(count_rows(newer, "PRAGMA user_version"), 99, "and left untouched");

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
