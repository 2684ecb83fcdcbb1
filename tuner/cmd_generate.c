/*
 * tuner/cmd_generate.c: `sweetspot generate SPEC -o DIR`, the hostfiles and
 * MPMD files of every layout of a spec's plan, for people who launch by
 * hand or from their own scripts (sweetspot run writes its own).
 */
#include "cmds.h"
#include "error.h"
#include "generate.h"
#include "plan.h"
#include "spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void generate_usage(FILE *f)
{
	fputs("usage: sweetspot generate SPEC -o DIR [--launcher srun|mpirun|mpirun_rsh|all]\n"
	      "                          [--layout ID] [--force]\n\n"
	      "Writes, for every layout of the plan of SPEC, a folder DIR/<layout-id>/ with\n"
	      "the files that launch it: hostfile, appfile and rankfile (Open MPI),\n"
	      "hostfile.mvapich and config (mpirun_rsh), slurm.hostfile and\n"
	      "multi-prog.conf (srun), and commands (each launch command, shell-quoted);\n"
	      "plus DIR/layouts.tsv. On any error nothing at all is written.\n\n"
	      "  -o, --output DIR   the folder to create (it must not exist, or be empty)\n"
	      "  --launcher NAME    only the files of this launcher (default: all)\n"
	      "  --layout ID        only this layout (see 'sweetspot plan')\n"
	      "  --force            replace DIR when it is an earlier output of generate\n"
	      "  --help             this text\n\n"
	      "Exit status: 0 success, 1 failure (nothing written), 2 bad usage or a bad\n"
	      "spec (file:line: message).\n", f);
}

int cmd_generate(int argc, char **argv)
{
	struct spec spec = SPEC_INIT;
	struct plan plan = PLAN_INIT;
	const char *path = NULL, *dir = NULL, *only = NULL;
	unsigned launchers = GEN_ALL;
	int force = 0, status = EXIT_USAGE, r;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			generate_usage(stdout);
			return 0;
		} else if (!strcmp(a, "--force")) {
			force = 1;
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--launcher") ||
			   !strcmp(a, "--layout")) {
			if (i + 1 >= argc || !argv[i + 1][0]) {
				error("generate: %s needs a value", a);
				return EXIT_USAGE;
			}
			if (a[1] == 'o' || a[2] == 'o')
				dir = argv[++i];
			else if (!strcmp(a, "--layout"))
				only = argv[++i];
			else if (!strcmp(argv[++i], "all"))
				launchers = GEN_ALL;
			else {
				enum launcher l;

				if (!strcmp(argv[i], "srun"))
					l = LAUNCHER_SRUN;
				else if (!strcmp(argv[i], "mpirun"))
					l = LAUNCHER_MPIRUN;
				else if (!strcmp(argv[i], "mpirun_rsh"))
					l = LAUNCHER_MPIRUN_RSH;
				else {
					error("generate: unknown launcher '%s' (srun, mpirun, mpirun_rsh or all)",
					      argv[i]);
					return EXIT_USAGE;
				}
				launchers = GEN_LAUNCHER(l);
			}
		} else if (a[0] == '-' && a[1]) {
			error("generate: unknown option '%s'", a);
			generate_usage(stderr);
			return EXIT_USAGE;
		} else if (path) {
			error("generate: one spec only ('%s' and '%s')", path, a);
			return EXIT_USAGE;
		} else
			path = a;
	}
	if (!path || !dir) {
		error("generate: %s", !path ? "no spec given" : "no output folder given (-o DIR)");
		generate_usage(stderr);
		return EXIT_USAGE;
	}
	if (spec_load(path, &spec) || plan_build(&spec, &plan))
		goto out;
	if (only) {
		const struct layout *l = plan_find(&plan, only);

		if (!l) {
			error("generate: the plan of %s has no layout '%s' (see 'sweetspot plan')",
			      path, only);
			goto out;
		}
		plan.layouts[0] = *l;
		plan.nlayouts = 1;
	}
	r = generate_plan(&spec, &plan, dir, launchers, force);
	if (r == -2)
		goto out;
	if (r) {
		status = 1;
		goto out;
	}
	printf("%zu layouts written to %s\n", plan.nlayouts, dir);
	status = 0;
out:
	plan_release(&plan);
	spec_release(&spec);
	return status;
}
