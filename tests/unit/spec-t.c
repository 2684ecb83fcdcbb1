/* tests/unit/spec-t.c: loading sweep specs, and every kind of mistake in
 * one reported as file:line: message. */
#include "tap.h"
#include "plan.h"
#include "spec.h"

#include <fcntl.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/spec-t.XXXXXX";

/* Writes text to a spec file, loads it and builds its plan; returns what
 * was printed on stderr (empty when all is well) and the status in *rc. */
static char *load(const char *text, int *rc)
{
	char *path = xasprintf("%s/s.cfg", tmpdir), *errp = xasprintf("%s/err", tmpdir);
	struct spec s = SPEC_INIT;
	struct plan p = PLAN_INIT;
	FILE *f = fopen(path, "w");
	int saved, fd;
	char *out;
	long n;

	fputs(text, f);
	fclose(f);
	fflush(stderr);
	saved = dup(2);
	fd = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dup2(fd, 2);
	close(fd);
	*rc = spec_load(path, &s) || plan_build(&s, &p) ? -1 : 0;
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	plan_release(&p);
	spec_release(&s);
	f = fopen(errp, "r");
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	out = xcalloc((size_t)n + 1, 1);
	if (fread(out, 1, (size_t)n, f) != (size_t)n)
		out[0] = '\0';
	fclose(f);
	free(path);
	free(errp);
	return out;
}

#define SYS(extra)                                                                       \
	"system = {\n name = \"t\";\n nodes = \"n[01-04]\";\n ppn = 4;\n"                \
	" dpu = { suffix = \"-bf\"; cores = 4; };\n host_bin = \"/bin/k\";\n dpu_bin = " \
	"\"/arm/k\";\n" extra "};\n"
#define SWEEP(extra)                                                            \
	"sweep = {\n collectives = [\"bcast\"];\n assignments = [\"block\"];\n" \
	" sizes = \"1M\";\n placement = [\"dpu\"];\n" extra "};\n"
#define GOOD SYS("") SWEEP(" wpn = [1, 2];\n")

/* The spec is refused, and the message has each fragment. */
static void refused(const char *text, const char *frag1, const char *frag2, const char *what)
{
	int rc;
	char *err = load(text, &rc);

	ok(rc == -1 && strstr(err, frag1) && (!frag2 || strstr(err, frag2)), "%s", what);
	if (rc != -1 || !strstr(err, frag1) || (frag2 && !strstr(err, frag2)))
		diag("rc %d, stderr: %s", rc, err);
	free(err);
}

static char *data_path(const char *name)
{
	const char *root = getenv("SWEETSPOT_ROOT");

	return xasprintf("%s/%s", root ? root : ".", name);
}

#define RSWEEP(extra)                                                               \
	"sweep = {\n collectives = [\"allreduce\"];\n assignments = [\"block\"];\n" \
	" placement = [\"dpu\"];\n wpn = [1];\n" extra "};\n"

/* The axes of reductions, pipelining and schedules. */
static void reductions(void)
{
	struct spec s = SPEC_INIT;
	char *path = xasprintf("%s/r.cfg", tmpdir);
	FILE *f = fopen(path, "w");

	fputs(SYS("") RSWEEP(" sizes = [\"24K\", \"1M\"];\n dtypes = [\"int32\", \"double\"];\n"
			     " ops = [\"sum\", \"band\"];\n chunks = [\"256K\", \"64K\"];\n "
			     "windows = [4, 2];\n"
			     " algorithms = [\"slice\", \"knomial\"];\n radix = [4, 2];\n"),
	      f);
	fclose(f);
	ok(!spec_load(path, &s), "a reduction sweep with every axis loads");
	ok(s.dtypes.nr == 2 && !strcmp(s.dtypes.v[1], "double") && s.ops.nr == 2,
	   "dtypes and ops read");
	ok(s.nchunks == 2 && s.chunks[0] == 65536 && s.chunks[1] == 262144,
	   "chunks sorted, in bytes");
	ok(s.nwindows == 2 && s.windows[0] == 2 && s.nradix == 2 && s.radix[1] == 4,
	   "windows and radix sorted");
	ok(s.sizes[0] == 24576, "24K is a size");
	spec_release(&s);
	f = fopen(path, "w");
	fputs(SYS("") SWEEP(" wpn = [1];\n"), f);
	fclose(f);
	ok(!spec_load(path, &s) && s.dtypes.nr == 1 && !strcmp(s.dtypes.v[0], "int32") &&
		   !strcmp(s.ops.v[0], "sum") && s.chunks[0] == 65536 && s.windows[0] == 2 &&
		   s.radix[0] == 2,
	   "defaults: int32, sum, 64K, window 2, radix 2");
	spec_release(&s);
	free(path);

	refused(SYS("") RSWEEP(" sizes = \"1M\";\n dtypes = [\"int33\"];\n"),
		":15: 'sweep.dtypes': unknown value 'int33'", "did you mean 'int32'",
		"unknown dtype, with its line");
	refused(SYS("") RSWEEP(" sizes = \"1M\";\n ops = [\"avg\"];\n"), "unknown value 'avg'",
		NULL, "unknown op");
	refused(SYS("") RSWEEP(" sizes = \"1M\";\n dtypes = [\"float\"];\n ops = [\"band\"];\n"),
		":16: 'sweep.ops': 'band' applies to none of the dtypes", NULL,
		"a bitwise op with float alone");
	refused(SYS("") RSWEEP(" sizes = \"1M\";\n dtypes = [\"int32\", \"float\"];\n ops = "
			       "[\"bxor\"];\n"),
		"none of the ops applies to 'float'", NULL, "a float with only bitwise ops");
	refused(SYS("") RSWEEP(
			" sizes = [\"1M\", \"1004\"];\n dtypes = [\"int32\", \"double\"];\n"),
		":14: 'sweep.sizes': 1004 is not a whole number of 'double' elements (8 bytes "
		"each)",
		NULL, "a size a listed dtype does not divide, at the sizes line");
	refused(SYS("") RSWEEP(" sizes = \"1M\";\n dtypes = [\"int64\"];\n chunks = [\"1001\"];\n"),
		"'sweep.chunks': 1001 is not a whole number", NULL,
		"a chunk the dtype does not divide");
	refused(SYS("") SWEEP(" wpn = [1];\n dtypes = [\"int64\"];\n"),
		"'sweep.dtypes' applies only to reductions (reduce, allreduce, scan, exscan)", NULL,
		"dtypes without a reduction");
	refused(SYS("") SWEEP(" wpn = [1];\n chunks = [\"64K\"];\n"),
		"'sweep.chunks' applies only to", NULL,
		"chunks without a reduction or a pipelined schedule");
	refused(SYS("") RSWEEP(" sizes = \"1M\";\n radix = [4];\n"),
		"'sweep.radix' applies only to the knomial", NULL, "radix without knomial");
	refused(SYS("") RSWEEP(" sizes = \"1M\";\n algorithms = [\"knomial\"];\n radix = [9];\n"),
		"'sweep.radix' item 1 is 9; it must be in [2, 8]", NULL, "radix above 8");
	refused(SYS("") "sweep = {\n collectives = [\"allgather\"];\n assignments = [\"block\"];\n "
			"sizes = \"1M\";\n"
			" placement = [\"dpu\"];\n wpn = [1];\n algorithms = [\"knomial\"];\n};\n",
		"'knomial' applies to none of the collectives (only to bcast, gather, reduce, "
		"allreduce, barrier)",
		NULL, "a schedule only where the table has it");
	refused(SYS("") RSWEEP(" sizes = \"2G\";\n"),
		":14: 'sweep.sizes': 2G is more than the kernel's limit of 1G", NULL,
		"a size above the kernel's limit, refused by the planner");
}

int main(void)
{
	struct spec s = SPEC_INIT;
	char *path, *err, hash[17], *long_name, *want, sixty[61];
	int rc;

	plan(75);
	if (!mkdtemp(tmpdir))
		return 1;
	err = load(GOOD, &rc);
	ok(rc == 0 && !*err, "a good spec loads: %s", err);
	free(err);

	path = data_path("profiles/paper.cfg");
	ok(!spec_load(path, &s), "profiles/paper.cfg loads");
	is_int(s.nodes.nr, 8, "8 nodes");
	is_str(s.nodes.v[7], "thor008", "last node");
	is_str(s.dpus.v[0], "thorbf001", "first DPU");
	is_int(s.ppn, 8, "8 PPN");
	is_int(s.dpu_cores, 8, "8 DPU cores");
	is_int(s.nsizes, 5, "256K..4M is 5 sizes");
	is_int(s.sizes[4], 4194304, "largest 4M");
	is_int(s.repetitions, 3, "3 repetitions");
	is_int(s.launcher, LAUNCHER_MPIRUN_RSH, "launcher mpirun_rsh");
	is_int(strlen(s.hash), 16, "hash is 16 hex digits");
	strcpy(hash, s.hash);
	spec_release(&s);
	ok(!spec_load(path, &s) && !strcmp(hash, s.hash), "same file, same hash");
	spec_release(&s);
	free(path);

	path = data_path("profiles/local.cfg");
	ok(!spec_load(path, &s), "profiles/local.cfg loads");
	ok(s.host_bin[0] == '/' && strstr(s.host_bin, "/profiles/../bin/sweetspot-kernel"),
	   "relative binary taken from the spec's folder: %s", s.host_bin);
	is_int(s.onload_cores, 2, "2 onload cores");
	is_int(s.dpus.nr, 0, "no DPUs");
	spec_release(&s);
	free(path);

	/* Syntax, keys, types. */
	refused("system = {\n name = \"t\"\n", ":3: ", "syntax error",
		"syntax error with its line");
	refused(SYS("") SWEEP(" wpn = [1];\n wpm = [2];\n"), ":15: unknown setting 'sweep.wpm'",
		"did you mean 'wpn'?", "misspelt key, closest suggested, with its line");
	refused(SYS(" launchr = \"srun\";\n") SWEEP(" wpn = [1];\n"),
		"unknown setting 'system.launchr'", "did you mean 'launcher'",
		"misspelt system key");
	refused(SYS("") SWEEP(""), "missing setting 'sweep.wpn'", NULL, "missing setting");
	refused("system = {\n name = \"t\";\n nodes = \"n1\";\n ppn = 4;\n host_bin = "
		"\"/k\";\n};\n" SWEEP(" wpn = [1];\n"),
		"missing setting 'system.dpu'", NULL, "dpu placement needs a dpu group");
	refused(SYS("") SWEEP(" wpn = [\"two\"];\n"), "must be an integer, not a string", NULL,
		"wrong type in a list");
	refused(SYS(" launcher = 3;\n") SWEEP(" wpn = [1];\n"),
		"'system.launcher' must be a string", NULL, "wrong type");
	refused(SYS("") SWEEP(" wpn = [1];\n iterations = 0;\n"), "in [1, ", NULL,
		"zero iterations");
	refused(SYS("") SWEEP(" wpn = [1];\n iterations = -5;\n"), "-5", NULL, "negative number");
	refused(SYS(" launcher = \"slurm\";\n") SWEEP(" wpn = [1];\n"), "unknown launcher 'slurm'",
		NULL, "unknown launcher");

	/* Hosts. */
	refused("system = {\n name = \"t\";\n nodes = \"n[1-4\";\n ppn = 4;\n"
		" dpu = { suffix = \"-bf\"; cores = 4; };\n host_bin = \"/k\";\n dpu_bin = "
		"\"/k\";\n};\n" SWEEP(" wpn = [1];\n"),
		":3: 'system.nodes'", "without ']'", "bad hostlist with its line");
	refused("system = {\n name = \"t\";\n nodes = \"n1,bad;host\";\n ppn = 4;\n"
		" dpu = { suffix = \"-bf\"; cores = 4; };\n host_bin = \"/k\";\n dpu_bin = "
		"\"/k\";\n};\n" SWEEP(" wpn = [1];\n"),
		"';'", NULL, "invalid host name");
	refused("system = {\n name = \"t\";\n nodes = \"n[1-4]\";\n ppn = 4;\n"
		" dpu = { hosts = \"bf[1-3]\"; cores = 4; };\n host_bin = \"/k\";\n dpu_bin = "
		"\"/k\";\n};\n" SWEEP(" wpn = [1];\n"),
		"3 DPUs for 4 nodes", NULL, "DPU count differs from node count");
	refused("system = {\n name = \"t\";\n nodes = \"n[1-4]\";\n ppn = 4;\n"
		" dpu = { hosts = \"n[1-4]\"; cores = 4; };\n host_bin = \"/k\";\n dpu_bin = "
		"\"/k\";\n};\n" SWEEP(" wpn = [1];\n"),
		"named twice", NULL, "DPU names that are node names");
	refused("system = {\n name = \"t\";\n nodes = \"n[1-4]\";\n ppn = 4;\n"
		" dpu = { suffix = \"-bf\"; cores = 4; };\n host_bin = \"/my dir/k\";\n dpu_bin = "
		"\"/k\";\n};\n" SWEEP(" wpn = [1];\n"),
		":6: 'system.host_bin'", "a blank", "binary path with a space");
	/* Nodes and DPUs each out of order: the duplicate is found across
	 * and within the lists, and distinct names pass. */
	refused("system = {\n name = \"t\";\n nodes = \"n3,n1,n2\";\n ppn = 4;\n"
		" dpu = { hosts = \"b9,b1,n1\"; cores = 4; };\n host_bin = \"/k\";\n dpu_bin = "
		"\"/k\";\n};\n" SWEEP(" wpn = [1];\n"),
		"host 'n1' is named twice", NULL, "a DPU named as a node, both lists out of order");
	refused("system = {\n name = \"t\";\n nodes = \"n[1-3]\";\n ppn = 4;\n"
		" dpu = { hosts = \"b3,b1,b3\"; cores = 4; };\n host_bin = \"/k\";\n dpu_bin = "
		"\"/k\";\n};\n" SWEEP(" wpn = [1];\n"),
		"host 'b3' is named twice", NULL, "a DPU listed twice, out of order");
	free(load("system = {\n name = \"t\";\n nodes = \"n3,n1,n2\";\n ppn = 4;\n"
		  " dpu = { hosts = \"b2,b3,b1\"; cores = 4; };\n host_bin = \"/k\";\n dpu_bin = "
		  "\"/k\";\n};\n" SWEEP(" wpn = [1];\n"),
		  &rc));
	ok(rc == 0, "distinct nodes and DPUs out of order are accepted");
	/* A suffix that makes a label too long only after the widest node
	 * number (60 + 2 + 2 = 64 bytes): the first such name is named. */
	memset(sixty, 'a', 60);
	sixty[60] = '\0';
	long_name = xasprintf("system = {\n name = \"t\";\n nodes = \"%s[8-10]\";\n ppn = 4;\n"
			      " dpu = { suffix = \"-b\"; cores = 4; };\n host_bin = \"/k\";\n"
			      " dpu_bin = \"/k\";\n};\n" SWEEP(" wpn = [1];\n"),
			      sixty);
	want = xasprintf("host name '%s10-b' has a label longer than 63", sixty);
	refused(long_name, "'system.dpu.suffix'", want, "a suffix too long for the widest node");
	free(long_name);
	free(want);
	refused("system = {\n name = \"t\";\n nodes = \"n[1-4]\";\n ppn = 4;\n"
		" dpu = { suffix = \"_bf\"; cores = 4; };\n host_bin = \"/k\";\n dpu_bin = "
		"\"/k\";\n};\n" SWEEP(" wpn = [1];\n"),
		"host name 'n1_bf' has '_'", NULL, "a suffix no host name can have");
	refused(SYS(" env = [\"1X=2\"];\n") SWEEP(" wpn = [1];\n"), "not NAME=value", NULL,
		"bad env entry");
	refused("ppn = 4;\n" SYS("") SWEEP(" wpn = [1];\n"),
		":1: setting 'ppn' belongs in the system group", NULL,
		"a setting outside its group");
	refused(SYS("") SWEEP(" wpn = [1];\n") "sweeep = {};\n", "did you mean 'sweep'?", NULL,
		"misspelt group");
	refused("system = {\n name = \"t\";\n nodes = \"n[1-2],n1\";\n ppn = 4;\n onload = { cores "
		"= 2; };\n"
		" host_bin = \"/k\";\n};\nsweep = {\n collectives = [\"bcast\"];\n assignments = "
		"[\"block\"];\n"
		" sizes = \"1M\";\n placement = [\"onload\"];\n wpn = [1];\n};\n",
		"host 'n1' is named twice", NULL, "a node listed twice");

	/* Sweep values. */
	refused("system = {\n name = \"t\";\n nodes = \"n[1-4]\";\n ppn = 4;\n"
		" dpu = { suffix = \"-bf\"; cores = 4; };\n host_bin = \"/k\";\n dpu_bin = "
		"\"/k\";\n};\n"
		"sweep = {\n collectives = [\"bcats\"];\n assignments = [\"block\"];\n sizes = "
		"\"1M\";\n"
		" placement = [\"dpu\"];\n wpn = [1];\n};\n",
		"unknown value 'bcats'", "did you mean 'bcast'", "unknown collective");
	refused(SYS("") "sweep = {\n collectives = [\"bcast\"];\n assignments = "
			"[\"round-robin\"];\n sizes = \"1M\";\n"
			" placement = [\"dpu\"];\n wpn = [1];\n};\n",
		"unknown value 'round-robin'", "block", "unknown assignment");
	refused(SYS("") SWEEP(" wpn = [1];\n algorithms = [\"leader\"];\n"),
		"'leader' applies to none", NULL, "algorithm for another collective");
	refused(SYS("") "sweep = {\n collectives = [\"bcast\"];\n assignments = [\"block\"];\n "
			"sizes = \"4M:256K\";\n"
			" placement = [\"dpu\"];\n wpn = [1];\n};\n",
		"backwards", NULL, "backwards size range");
	err = load(
		SYS("") "sweep = {\n collectives = [\"bcast\"];\n assignments = [\"block\"];\n"
			" sizes = [\"1M\", \"3000\"];\n placement = [\"dpu\"];\n wpn = [1];\n};\n",
		&rc);
	ok(rc == 0 && !*err, "a list of sizes takes any byte count: %s", err);
	free(err);
	refused(SYS("") "sweep = {\n collectives = [\"bcast\"];\n assignments = [\"block\"];\n "
			"sizes = \"3000:1M\";\n"
			" placement = [\"dpu\"];\n wpn = [1];\n};\n",
		"must be powers of two", NULL, "a range keeps powers of two");
	refused(SYS("") "sweep = {\n collectives = [\"bcast\"];\n assignments = [\"block\"];\n "
			"sizes = \"lots\";\n"
			" placement = [\"dpu\"];\n wpn = [1];\n};\n",
		"not a size", NULL, "size that is not a size");
	refused(SYS("") SWEEP(" wpn = [1, 1];\n"), "lists 1 twice", NULL, "duplicate wpn");
	refused(SYS("") SWEEP(" wpn = [1];\n transport = \"tcp\";\n"), "unknown transport", NULL,
		"unknown transport");
	refused(SYS("") "sweep = {\n collectives = [\"bcast\"];\n assignments = [\"block\"];\n "
			"sizes = \"1M\";\n"
			" placement = [\"onload\"];\n wpn = [1];\n};\n",
		"needs 'system.onload'", NULL, "onload without cores");
	refused(SYS("") SWEEP(" wpn = [1];\n nodes = [8];\n"),
		"8 nodes asked for, the system has 4", NULL, "more nodes than the system");

	/* The plan rules, each with its own message. */
	err = load(SYS("") SWEEP(" wpn = [4];\n workers = [16];\n"), &rc);
	ok(rc == 0 && !*err, "W = H is planned, as DPU-Bench allows: %s", err);
	free(err);
	refused(SYS("") SWEEP(" wpn = [4];\n workers = [20];\n"), "(W <= (H + W) / 2",
		"'sweep.workers' 20", "rule W <= (H + W) / 2");
	refused(SYS("") SWEEP(" wpn = [8];\n"), "(WPN <= DPU cores)", "'sweep.wpn' 8",
		"rule WPN <= DPU cores");
	refused(SYS(" onload = { cores = 2; };\n") "sweep = {\n collectives = [\"bcast\"];\n "
						   "assignments = [\"block\"];\n"
						   " sizes = \"1M\";\n placement = [\"onload\"];\n "
						   "wpn = [3];\n};\n",
		"(WPN <= onload cores per node)", NULL, "rule WPN <= onload cores");
	refused(SYS("") SWEEP(" wpn = [1];\n workers = [8];\n"), "(W <= WPN x nodes)",
		":15: 'sweep.workers' 8", "rule W <= WPN x nodes, at the workers line");

	reductions();
	rmdir(tmpdir);
	return done_testing();
}
