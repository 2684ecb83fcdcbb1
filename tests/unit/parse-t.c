/* tests/unit/parse-t.c: strict number and size parsing. */
#include "tap.h"
#include "parse.h"
#include "strvec.h"

int main(void)
{
	char err[256], buf[32];
	uint64_t v, sz[64];
	size_t n;
	struct strvec sv = STRVEC_INIT;
	char *line;

	plan(26);
	ok(!parse_uint("42", 1, 100, &v, err, sizeof(err)) && v == 42, "plain number");
	ok(parse_uint("0", 1, 100, &v, err, sizeof(err)), "below range");
	ok(parse_uint("101", 1, 100, &v, err, sizeof(err)), "above range");
	ok(parse_uint("12abc", 0, 100, &v, err, sizeof(err)), "trailing junk");
	ok(parse_uint("-1", 0, 100, &v, err, sizeof(err)), "negative");
	ok(parse_uint("", 0, 100, &v, err, sizeof(err)), "empty");
	ok(parse_uint("99999999999999999999999", 0, UINT64_MAX, &v, err, sizeof(err)), "overflow");
	ok(!parse_size("256K", &v, err, sizeof(err)) && v == 262144, "256K");
	ok(!parse_size("1m", &v, err, sizeof(err)) && v == 1048576, "1m");
	ok(!parse_size("2GiB", &v, err, sizeof(err)) && v == 2147483648ull, "2GiB");
	ok(!parse_size("3000", &v, err, sizeof(err)) && v == 3000, "bytes");
	ok(parse_size("0", &v, err, sizeof(err)), "zero size");
	ok(parse_size("1X", &v, err, sizeof(err)), "bad suffix");
	ok(parse_size("abc", &v, err, sizeof(err)), "not a number");
	ok(!parse_sizes("256K:4M", 1, sz, 64, &n, err, sizeof(err)) && n == 5 && sz[0] == 262144 &&
		   sz[4] == 4194304,
	   "range 256K:4M is 5 sizes");
	ok(parse_sizes("4M:256K", 1, sz, 64, &n, err, sizeof(err)), "backwards range");
	ok(strstr(err, "backwards") != NULL, "backwards range says so: %s", err);
	ok(parse_sizes("3000:4M", 1, sz, 64, &n, err, sizeof(err)), "range end not pow2");
	ok(!parse_sizes("1K,4K,1M", 1, sz, 64, &n, err, sizeof(err)) && n == 3 && sz[2] == 1048576,
	   "list");
	ok(parse_sizes("1K,3000", 1, sz, 64, &n, err, sizeof(err)), "list member not pow2");
	ok(!parse_sizes("1K,3000", 0, sz, 64, &n, err, sizeof(err)) && n == 2,
	   "list without pow2 rule");
	ok(parse_sizes("1K,,", 1, sz, 64, &n, err, sizeof(err)), "empty list");
	is_str(format_size(1048576, buf, sizeof(buf)), "1M", "format 1M");
	is_str(format_size(3000, buf, sizeof(buf)), "3000", "format 3000");
	strvec_push(&sv, "mpirun");
	strvec_push(&sv, "a b");
	strvec_push(&sv, "it's;");
	line = strvec_join_quoted(&sv);
	is_str(line, "mpirun 'a b' 'it'\\''s;'", "shell quoting for display");
	free(line);
	ok(sv.nr == 3 && sv.v[3] == NULL, "argv is NULL-terminated");
	strvec_clear(&sv);
	return done_testing();
}
