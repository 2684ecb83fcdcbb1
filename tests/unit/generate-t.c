/* tests/unit/generate-t.c: generated layout folders, replacing earlier
 * output, and nothing at all left behind when writing fails. */
#include "tap.h"
#include "testfs.h"
#include "generate.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp[] = "/tmp/generate-t.XXXXXX";

static char *data_path(const char *name)
{
	const char *root = getenv("SWEETSPOT_ROOT");

	return xasprintf("%s/%s", root ? root : ".", name);
}

/* Entries of a folder (without . and ..), or -1. */
static int exists(const char *fmt, const char *a, const char *b)
{
	char *p = xasprintf(fmt, a, b);
	int r = !access(p, F_OK);

	free(p);
	return r;
}

static void touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT, 0644);

	if (fd >= 0)
		close(fd);
}

/* Silences error() while a failure is provoked on purpose. */
static int quiet(int on, int saved)
{
	fflush(stderr);
	if (on) {
		int fd = open("/dev/null", O_WRONLY);

		saved = dup(2);
		dup2(fd, 2);
		close(fd);
		return saved;
	}
	dup2(saved, 2);
	close(saved);
	return -1;
}

int main(void)
{
	struct spec s = SPEC_INIT, paper = SPEC_INIT;
	struct plan p = PLAN_INIT, pp = PLAN_INIT;
	char *path, *out, *lay, *big, *foreign;
	struct rlimit old, small;
	int r, q;

	plan(22);
	if (!mkdtemp(tmp))
		return 1;
	path = data_path("tests/data/specs/figure2.cfg");
	ok(!spec_load(path, &s) && !plan_build(&s, &p), "figure 2 plan");
	free(path);
	out = xasprintf("%s/out", tmp);
	is_int(generate_plan(&s, &p, out, GEN_ALL, 0), 0, "generate into a new folder");
	ok(exists("%s/%s", out, "layouts.tsv"), "layouts.tsv written");
	path = xasprintf("%s/n2-ppn12-w8-wpn4-dpu", out);
	is_int(test_dir_entries(path, NULL), 10, "10 files in the layout folder");
	free(path);
	q = quiet(1, -1);
	r = generate_plan(&s, &p, out, GEN_ALL, 0);
	quiet(0, q);
	is_int(r, -2, "an existing output is not replaced without force");
	is_int(generate_plan(&s, &p, out, GEN_ALL, 1), 0, "with force it is");
	is_int(test_dir_entries(tmp, NULL), 1, "and nothing else is left next to it");
	foreign = xasprintf("%s/mine", tmp);
	mkdir(foreign, 0755);
	path = xasprintf("%s/notes.txt", foreign);
	touch(path);
	q = quiet(1, -1);
	r = generate_plan(&s, &p, foreign, GEN_ALL, 1);
	quiet(0, q);
	is_int(r, -2, "a folder that is not generate's output is never replaced, even with force");
	ok(!access(path, F_OK), "and what it holds is untouched");
	free(path);

	/* One layout's folder, as sweetspot run makes them. */
	lay = xasprintf("%s/lay", tmp);
	is_int(generate_layout(&s, &p.layouts[0], lay), 0, "generate_layout into a new folder");
	is_int(test_dir_entries(lay, NULL), 10, "10 files");
	is_int(generate_layout(&s, &p.layouts[0], lay), 0, "again: the earlier files are replaced");
	is_int(generate_layout_for(&s, &p.layouts[0], lay, GEN_LAUNCHER(LAUNCHER_SRUN)), 0,
	       "srun files only");
	is_int(test_dir_entries(lay, NULL), 3, "slurm.hostfile, multi-prog.conf and commands");
	q = quiet(1, -1);
	r = generate_layout(&s, &p.layouts[0], foreign);
	quiet(0, q);
	is_int(r, -1, "generate_layout refuses a folder with other files");
	is_int(test_dir_entries(foreign, NULL), 1, "and leaves them alone");

	/* A write that fails half-way (file size limit, as on a full disk). */
	path = data_path("profiles/paper.cfg");
	ok(!spec_load(path, &paper) && !plan_build(&paper, &pp), "paper plan");
	free(path);
	big = xasprintf("%s/big", tmp);
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	small = old;
	small.rlim_cur = 2048;
	setrlimit(RLIMIT_FSIZE, &small);
	q = quiet(1, -1);
	r = generate_plan(&paper, &pp, big, GEN_ALL, 0);
	quiet(0, q);
	setrlimit(RLIMIT_FSIZE, &old);
	is_int(r, -1, "a write that fails makes generate fail");
	ok(access(big, F_OK), "and the output folder does not exist");
	is_int(test_dir_entries(tmp, NULL), 3, "no temporary folder is left (out, mine, lay only)");
	is_int(generate_plan(&paper, &pp, big, GEN_ALL, 0), 0, "without the limit it works");
	is_int(test_dir_entries(big, NULL), 38,
	       "37 layout folders (workers up to the 64 hosts) and layouts.tsv");

	plan_release(&pp);
	spec_release(&paper);
	plan_release(&p);
	spec_release(&s);
	if (test_rm_tree(tmp))
		diag("could not remove %s", tmp);
	free(out);
	free(lay);
	free(big);
	free(foreign);
	return done_testing();
}
