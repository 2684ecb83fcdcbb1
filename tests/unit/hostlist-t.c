/* tests/unit/hostlist-t.c: Slurm hostlist expansion and compression, and
 * host name checks. */
#include "tap.h"
#include "hostlist.h"

/* Expands s and joins the names with spaces (or "ERR: message"). */
static char *expand(const char *s)
{
	struct strvec v = STRVEC_INIT;
	char err[256], *out;

	if (hostlist_expand(s, &v, err, sizeof(err)))
		out = xasprintf("ERR: %s", err);
	else {
		out = xstrdup("");
		for (size_t i = 0; i < v.nr; i++) {
			char *t = xasprintf("%s%s%s", out, i ? " " : "", v.v[i]);

			free(out);
			out = t;
		}
	}
	strvec_clear(&v);
	return out;
}

static void is_expand(const char *s, const char *want)
{
	char *got = expand(s);

	is_str(got, want, "expand %s", s);
	free(got);
}

static void is_error(const char *s, const char *fragment)
{
	char *got = expand(s);

	ok(!strncmp(got, "ERR: ", 5) && strstr(got, fragment), "'%s' is refused: %s", s, got);
	free(got);
}

/* 1 when the hostlist s expands to exactly want's names, in order. */
static int same_names(const char *s, const struct strvec *want)
{
	struct strvec v = STRVEC_INIT;
	char err[256];
	int same = !hostlist_expand(s, &v, err, sizeof(err)) && v.nr == want->nr;

	for (size_t i = 0; same && i < v.nr; i++)
		same = !strcmp(v.v[i], want->v[i]);
	strvec_clear(&v);
	return same;
}

/* compress(expand(s)) gives back want, and expands to the same names. */
static void is_compress(const char *s, unsigned flags, const char *want)
{
	struct strvec v = STRVEC_INIT;
	char err[256], *c;

	hostlist_expand(s, &v, err, sizeof(err));
	c = hostlist_compress((const char *const *)v.v, v.nr, flags);
	is_str(c, want, "compress %s%s", s, flags & HOSTLIST_SUFFIX ? " (suffixes)" : "");
	ok(same_names(c, &v), "'%s' expands to the same names as '%s'", c, s);
	free(c);
	strvec_clear(&v);
}

/* The limits of hostlist.h, each refused with the limit named, before any
 * name is made (so a billion names cost no more than one). */
static void limits(void)
{
	struct strvec v = STRVEC_INIT;
	char err[512], *s, *long_item, *many, sixty_two[63];
	size_t i;

	memset(sixty_two, 'a', 62);
	sixty_two[62] = '\0';

	is_expand("n[1-999999999]",
		  "ERR: hostlist 'n[1-999999999]' expands to more than 1048576 names, "
		  "the limit per hostlist");
	is_expand("a[1-2000]b[1-1000]",
		  "ERR: hostlist 'a[1-2000]b[1-1000]' expands to more than 1048576 "
		  "names, the limit per hostlist");
	/* A product that would overflow 64 bits if multiplied first. */
	is_expand("a[1-65536]b[1-65536]c[1-65536]d[1-65536]e[1-65536]",
		  "ERR: hostlist 'a[1-65536]b[1-65536]c[1-65536]d[1-65536]e[1-65536]' expands to "
		  "more "
		  "than 1048576 names, the limit per hostlist");
	is_expand("a[1-600000],b[1-600000]",
		  "ERR: hostlist 'a[1-600000],b[1-600000]' expands to more "
		  "than 1048576 names, the limit per hostlist");
	ok(hostlist_expand("n[1-1048576]", &v, err, sizeof(err)) == 0 && v.nr == HOSTLIST_MAX &&
		   !strcmp(v.v[HOSTLIST_MAX - 1], "n1048576"),
	   "exactly %d names are allowed", HOSTLIST_MAX);
	strvec_clear(&v);
	ok(hostlist_expand("n[0-1048576]", &v, err, sizeof(err)) == -1 && v.nr == 0,
	   "one more is refused, and no name was made");
	strvec_clear(&v);

	{
		size_t n = 0;

		ok(hostlist_count("a[1-1024]b[1-1023],c", &n, err, sizeof(err)) == 0 &&
			   n == 1047553,
		   "hostlist_count() counts %zu names without making them", n);
		ok(hostlist_count("n[1-999999999]", &n, err, sizeof(err)) == -1 &&
			   strstr(err, "more than"),
		   "... and refuses what expand refuses: %s", err);
	}

	/* 1048577 one-name items. */
	many = xmalloc(2 * (HOSTLIST_MAX + 1));
	for (i = 0; i <= HOSTLIST_MAX; i++)
		memcpy(many + 2 * i, "a,", 2);
	many[2 * HOSTLIST_MAX + 1] = '\0';
	ok(hostlist_expand(many, &v, err, sizeof(err)) == -1 &&
		   strstr(err, "more than 1048576 names"),
	   "1048577 items are refused");
	strvec_clear(&v);
	free(many);

	long_item = xasprintf("x%0249d[1-1000]", 0);
	s = xasprintf("ERR: hostlist 'x%063d...' makes names longer than 253 characters, the limit",
		      0);
	is_expand(long_item, s);
	free(s);
	free(long_item);
	/* 248 bytes (labels of 62, 62, 62 and 59) and at most 4 digits: 252
	 * at most, under the limit. */
	long_item = xmalloc(260);
	memset(long_item, 'a', 248);
	long_item[62] = long_item[125] = long_item[188] = '.';
	strcpy(long_item + 248, "[1-1000]");
	ok(hostlist_expand(long_item, &v, err, sizeof(err)) == 0 && v.nr == 1000,
	   "the limit applies to the longest name an item makes");
	strvec_clear(&v);
	free(long_item);

	/* A label of 63 bytes for n8 and n9, 64 for n10: checked name by
	 * name once the widest fails, so the message names n10. */
	long_item = xasprintf("%s[8-10]", sixty_two);
	s = xasprintf("host name '%s10' has a label longer than 63 characters", sixty_two);
	is_error(long_item, s);
	free(s);
	free(long_item);

	is_expand("a[1]b[1]c[1]d[1]e[1]f[1]g[1]h[1]", "a1b1c1d1e1f1g1h1");
	is_expand("a[1]b[1]c[1]d[1]e[1]f[1]g[1]h[1]i[1]",
		  "ERR: hostlist 'a[1]b[1]c[1]d[1]e[1]f[1]g[1]h[1]i[1]' has more than 8 brackets "
		  "in one "
		  "name, the limit");
}

int main(void)
{
	struct strvec v = STRVEC_INIT;
	char err[256], *c, *big;

	plan(71);
	is_expand("thor[001-003]", "thor001 thor002 thor003");
	is_expand("n[1-3,7],x", "n1 n2 n3 n7 x");
	is_expand("n[8-11]", "n8 n9 n10 n11");
	is_expand("n[08-11]", "n08 n09 n10 n11");
	is_expand("rack[1-2]n[01-02]", "rack1n01 rack1n02 rack2n01 rack2n02");
	is_expand("node01-bf", "node01-bf");
	is_expand("a,b.example.org,c[5]", "a b.example.org c5");
	is_expand("n[1-2]-bf", "n1-bf n2-bf");
	is_error("", "empty");
	is_error("n[1-3", "without ']'");
	is_error("n1-3]", "without '['");
	is_error("n[3-1]", "backwards");
	is_error("n[1-2,,4]", "empty item");
	is_error("n[a-b]", "not a number");
	is_error("n[[1-2]]", "nested");
	is_error("a,,b", "empty item");
	is_error("a,", "ends with ','");
	is_error("n[1-999999999]", "more than");
	is_error("bad host", "' '");
	is_error("x;rm", "';'");
	is_error("-n1", "starts with '-'");
	is_error("n[1-2]-", "ends with '-'");
	is_error("a..b", "empty label");
	ok(hostname_check("node01.cluster.example", err, sizeof(err)) == 0, "FQDN is a host name");
	ok(hostname_check("a'b", err, sizeof(err)) == -1, "quote is refused: %s", err);
	ok(hostname_check("x\ny", err, sizeof(err)) == -1, "newline is refused: %s", err);
	big = xasprintf("%0*d", 64, 1);
	ok(hostname_check(big, err, sizeof(err)) == -1, "64-character label is refused: %s", err);
	free(big);
	is_compress("thor[001-008]", 0, "thor[001-008]");
	is_compress("n[1-3,7],x", 0, "n[1-3,7],x");
	is_compress("n[9-10]", 0, "n[9-10]");
	is_compress("n[08-10]", 0, "n[08-10]");
	/* Order is rank order: a list that goes back is not sorted. */
	is_compress("n3,n1,n2", 0, "n[3,1-2]");
	/* Suffixes: only when asked for (Slurm 22.05 cannot read them). */
	is_compress("node[00001-00003]-bf", HOSTLIST_SUFFIX, "node[00001-00003]-bf");
	is_compress("node[00001-00003]-bf", 0, "node00001-bf,node00002-bf,node00003-bf");
	is_compress("node[1-3],node[1-3]-bf,node[4-5]-bf", HOSTLIST_SUFFIX,
		    "node[1-3],node[1-5]-bf");
	is_compress("r[1-2]n[08-10]-bf", HOSTLIST_SUFFIX, "r1n[08-10]-bf,r2n[08-10]-bf");
	is_compress("n[1-2]-bf,n[3-4]-ib", HOSTLIST_SUFFIX, "n[1-2]-bf,n[3-4]-ib");
	is_compress("n[1-2]-bf,n[3-4]-ib", 0, "n1-bf,n2-bf,n3-ib,n4-ib");
	c = hostlist_compress(NULL, 0, 0);
	is_str(c, "", "nothing compresses to an empty string");
	free(c);
	strvec_push(&v, "n1");
	strvec_push(&v, "n01");
	c = hostlist_compress((const char *const *)v.v, v.nr, 0);
	is_str(c, "n1,n01", "different paddings stay apart");
	free(c);
	strvec_clear(&v);
	/* Slurm reads no more than 65536 hosts in one range nor 65536 ranges
	 * in one bracket (and writes "n[1-100000]", which it then refuses). */
	is_compress("n[000001-100000]", 0, "n[000001-065536,065537-100000]");
	is_compress("n[1-140000]-bf", HOSTLIST_SUFFIX, "n[1-65536,65537-131072,131073-140000]-bf");
	for (unsigned k = 1; k <= 200000; k += 2)
		strvec_pushf(&v, "n%u", k);
	c = hostlist_compress((const char *const *)v.v, v.nr, 0);
	big = strchr(c, ']');
	ok(!strncmp(c, "n[1,3,5,", 8) && big && !strncmp(big, "],n[131073,", 11) &&
		   !strcmp(c + strlen(c) - 8, ",199999]"),
	   "100,000 single hosts: a new bracket after 65536");
	ok(same_names(c, &v), "... and expands to the same 100,000 names in order");
	free(c);
	strvec_clear(&v);
	limits();
	return done_testing();
}
