/*
 * tests/unit/replay-t.c: reading replay tables (columns in any order,
 * quotes, extra columns, invalid rows) and laying them out for a search:
 * the k-th distinct repetition of a layout is its k-th launch, a launch the
 * table lacks is a failed one; and every bad input names its line.
 */
#include "tap.h"
#include "testfs.h"
#include "replay.h"
#include "strvec.h"

#include <math.h>
#include <unistd.h>

static char dir[] = "/tmp/replay-t.XXXXXX";

static char *write_file(const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");

	fputs(text, f);
	fclose(f);
	return p;
}

int main(void)
{
	struct replay rp = REPLAY_INIT;
	static const struct search_layout lay[] = {
		{ "a", 2, 4, 1, 1, "dpu" },
		{ "b", 2, 4, 2, 1, "dpu" },
	};
	static const struct point grp[] = {
		{ .collective = "bcast",
		  .algorithm = "direct",
		  .assignment = "block",
		  .bytes = 1024 },
		{ .collective = "bcast",
		  .algorithm = "direct",
		  .assignment = "cyclic",
		  .bytes = 1024 },
	};
	struct search_problem p = { lay, 2, grp, 2, 2, replay_measure, &rp };
	double oe[2];
	char *f;

	plan(22);
	mkdtemp(dir);
	f = write_file("ok.csv", "# a comment line\n"
				 "layout,oe_measured,repetition,placement,wpn,workers,bytes,"
				 "assignment,algorithm,collective,total_us,valid\n"
				 "\"x,1\",50.5,7,dpu,1,1,1K,block,direct,bcast,10,1\n"
				 "x,60,9,dpu,1,1,1024,block,direct,bcast,10,true\n"
				 "x,,9,dpu,1,1,1024,cyclic,direct,bcast,,0\n"
				 "x,70,1,dpu,1,2,1024,block,direct,bcast,10,1\n"
				 "x,80,1,dpu,1,3,1024,block,direct,bcast,10,1\n");
	ok(!replay_load(f, &rp), "a table with columns in any order, quotes and a comment");
	is_int(rp.nrows, 5, "five rows");
	is_int(replay_bind(&rp, &p), 4, "four rows match a layout of the problem");
	replay_measure(&rp, 0, 0, oe);
	ok(oe[0] == 50.5 && isnan(oe[1]), "layout a, first launch: repetition 7");
	replay_measure(&rp, 0, 1, oe);
	ok(oe[0] == 60 && isnan(oe[1]),
	   "second launch: repetition 9; the invalid row has no value");
	replay_measure(&rp, 1, 0, oe);
	is_int(oe[0], 70, "layout b");
	replay_measure(&rp, 1, 1, oe);
	ok(isnan(oe[0]) && rp.missing_launches == 1,
	   "a launch the table lacks fails, and is counted");
	replay_release(&rp);
	free(f);

	f = write_file("nocol.csv", "collective,algorithm,assignment,bytes,workers,wpn,placement,"
				    "repetition,total_us\n");
	ok(replay_load(f, &rp) == -1, "missing oe_measured column");
	free(f);
	f = write_file("badnum.csv", "collective,algorithm,assignment,bytes,workers,wpn,placement,"
				     "repetition,oe_measured,total_us\n"
				     "bcast,direct,block,1024,1,1,dpu,1,50,10\n"
				     "bcast,direct,block,1024,1,1,dpu,2,abc,10\n");
	ok(replay_load(f, &rp) == -1, "a bad oe_measured on line 3");
	free(f);
	f = write_file("range.csv", "collective,algorithm,assignment,bytes,workers,wpn,placement,"
				    "repetition,oe_measured,total_us\n"
				    "bcast,direct,block,1024,1,1,dpu,1,101,10\n");
	ok(replay_load(f, &rp) == -1, "oe_measured above 100");
	free(f);
	f = write_file("workers.csv", "collective,algorithm,assignment,bytes,workers,wpn,placement,"
				      "repetition,oe_measured,total_us\n"
				      "bcast,direct,block,1024,0,1,dpu,1,50,10\n");
	ok(replay_load(f, &rp) == -1, "zero workers");
	free(f);
	f = write_file("size.csv", "collective,algorithm,assignment,bytes,workers,wpn,placement,"
				   "repetition,oe_measured,total_us\n"
				   "bcast,direct,block,1Q,1,1,dpu,1,50,10\n");
	ok(replay_load(f, &rp) == -1, "a size that is not one");
	free(f);
	f = write_file("fields.csv", "collective,algorithm,assignment,bytes,workers,wpn,placement,"
				     "repetition,oe_measured,total_us\n"
				     "bcast,direct,block,1024,1,1,dpu,1,50\n");
	ok(replay_load(f, &rp) == -1, "a short row");
	free(f);
	f = write_file("quote.csv", "collective,algorithm,assignment,bytes,workers,wpn,placement,"
				    "repetition,oe_measured,total_us\n"
				    "\"bcast,direct,block,1024,1,1,dpu,1,50,10\n");
	ok(replay_load(f, &rp) == -1, "an unterminated quote");
	free(f);
	f = write_file("empty.csv", "");
	ok(replay_load(f, &rp) == -1, "an empty file");
	free(f);
	f = write_file("nan.csv", "collective,algorithm,assignment,bytes,workers,wpn,placement,"
				  "repetition,oe_measured,total_us\n"
				  "bcast,direct,block,1024,1,1,dpu,1,nan,10\n");
	ok(replay_load(f, &rp) == -1, "nan is not a measurement");
	free(f);
	ok(replay_load("/nonexistent/x.csv", &rp) == -1, "a missing file");

	/* One layout, group and repetition twice: which one counts would be a
	 * guess. Both lines are named; the same repetition of another group,
	 * or of another layout, is no duplicate. */
	f = write_file("dup.csv", "collective,algorithm,assignment,bytes,workers,wpn,placement,"
				  "repetition,oe_measured,total_us\n"
				  "bcast,direct,block,1024,1,1,dpu,1,50,10\n"
				  "bcast,direct,cyclic,1024,1,1,dpu,1,51,10\n"
				  "bcast,direct,block,1024,2,1,dpu,1,52,10\n"
				  "bcast,direct,block,1024,1,1,dpu,2,53,10\n"
				  "bcast,direct,block,1K,1,1,dpu,1,54,10\n");
	{
		char *errf = xasprintf("%s/stderr", dir), msg[512] = "";
		int saved = dup(2);
		FILE *e;

		fflush(stderr);
		ok(freopen(errf, "w", stderr) != NULL, "stderr captured");
		ok(replay_load(f, &rp) == -1, "a duplicate row is refused");
		fflush(stderr);
		dup2(saved, 2);
		close(saved);
		e = fopen(errf, "r");
		if (e && !fgets(msg, sizeof(msg), e))
			msg[0] = '\0';
		if (e)
			fclose(e);
		msg[strcspn(msg, "\n")] = '\0';
		ok(strstr(msg, "dup.csv:6: duplicate row") && strstr(msg, "dup.csv:2"),
		   "with both lines, file:line (%s)", msg);
		free(errf);
	}
	free(f);
	f = write_file("nodup.csv", "collective,algorithm,assignment,bytes,workers,wpn,placement,"
				    "repetition,oe_measured,total_us,nodes\n"
				    "bcast,direct,block,1024,1,1,dpu,1,50,10,1\n"
				    "bcast,direct,block,1024,1,1,dpu,1,51,10,2\n"
				    "bcast,direct,block,1024,1,1,onload,1,51,10,2\n");
	ok(!replay_load(f, &rp) && rp.nrows == 3, "other nodes or placement: no duplicate");
	replay_release(&rp);
	free(f);
	ok(test_rm_tree(dir) == 0, "cleaned up");
	return done_testing();
}
