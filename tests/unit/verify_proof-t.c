/*
 * tests/unit/verify_proof-t.c: the traffic parser of verify's proof
 * (verify_traffic(), tuner/verify/verify_proof.c): what the ranks of one
 * launch sent one another inside collectives, read from Open MPI's pml
 * monitoring files (DIR/mon.N.prof, one per rank). Two launches moved the
 * same bytes in the same messages when the parser's answers are equal, so
 * it must keep only the "I" lines, their four fields, in one order
 * whatever order the ranks' files and lines come in.
 */
#include "tap.h"
#include "testfs.h"
#include "verify_proof.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char root[] = "/tmp/verify_proof-t.XXXXXX";

/* root/sub made, its path static until the next call. */
static const char *folder(const char *sub)
{
	static char path[256];

	snprintf(path, sizeof(path), "%s/%s", root, sub);
	mkdir(path, 0777);
	return path;
}

/* dir/name with text in it. */
static void file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

/* A monitoring line as pml monitoring writes it (enable_output 3). */
#define MON(kind, from, to, bytes, msgs)                                                      \
	kind "\t" #from "\t" #to "\t" #bytes " bytes\t" #msgs " msgs sent\t0,0,0,0,0,0,0,"    \
	     "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0," \
	     "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n"

static void test_none(void)
{
	const char *d = folder("empty");
	char *t = verify_traffic(d);

	ok(t == NULL, "no monitoring file: no traffic");
	free(t);
	d = folder("external");
	file(d, "mon.0.prof", MON("E", 0, 1, 8, 1) MON("E", 0, 2, 8, 1));
	file(d, "mon.1.prof", "# a comment\n" MON("E", 1, 0, 8, 1));
	t = verify_traffic(d);
	ok(t == NULL, "only E lines (point-to-point, not a collective's): no traffic");
	free(t);
	t = verify_traffic("/nonexistent/verify_proof-t");
	ok(t == NULL, "a folder that is not there: no traffic");
	free(t);
}

static void test_lines(void)
{
	const char *d = folder("two");
	char *t;

	file(d, "mon.1.prof", MON("I", 1, 0, 65536, 2) MON("E", 1, 0, 8, 1));
	file(d, "mon.0.prof",
	     MON("I", 0, 2, 4096, 1) "I\t0\t1\n" MON("I", 0, 1, 65536, 2) "Ix\t0\t3\t1 bytes\t1 "
									  "msgs sent\n");
	file(d, "mon.prof", MON("I", 9, 9, 1, 1));
	file(d, "other.txt", MON("I", 8, 8, 1, 1));
	t = verify_traffic(d);
	is_str(t ? t : "(null)",
	       "0 1 65536 bytes 2 msgs sent\n"
	       "0 2 4096 bytes 1 msgs sent\n"
	       "1 0 65536 bytes 2 msgs sent\n",
	       "the I lines of every rank's file, four fields each, sorted, one per line");
	ok(t && !strstr(t, "9 9") && !strstr(t, "8 8"), "files not named mon.N.prof are not read");
	free(t);
}

static void test_compare(void)
{
	const char *a = folder("a"), *b, *c;
	char *ta, *tb, *tc;

	file(a, "mon.0.prof", MON("I", 0, 1, 1024, 1) MON("I", 0, 2, 1024, 1));
	file(a, "mon.1.prof", MON("I", 1, 2, 512, 3));
	ta = verify_traffic(a);
	b = folder("b");
	file(b, "mon.0.prof", MON("I", 1, 2, 512, 3) MON("I", 0, 2, 1024, 1));
	file(b, "mon.1.prof", MON("E", 1, 0, 4, 1) MON("I", 0, 1, 1024, 1));
	tb = verify_traffic(b);
	c = folder("c");
	file(c, "mon.0.prof", MON("I", 0, 1, 1024, 1) MON("I", 0, 2, 1024, 1));
	file(c, "mon.1.prof", MON("I", 1, 2, 512, 4));
	tc = verify_traffic(c);
	ok(ta && tb && !strcmp(ta, tb),
	   "the same messages in another order of files and lines: the same traffic");
	ok(ta && tc && strcmp(ta, tc), "one message more between two ranks: other traffic");
	free(ta);
	free(tb);
	free(tc);
}

int main(void)
{
	plan(7);
	if (!mkdtemp(root))
		return 1;
	test_none();
	test_lines();
	test_compare();
	test_rm_tree(root);
	return done_testing();
}
