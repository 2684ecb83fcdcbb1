/*
 * tuner/cmd/cmd_generate.c: `sweetspot generate SPEC -o DIR`, the hostfiles and
 * MPMD files of every layout of a spec's plan, for people who launch by
 * hand or from their own scripts (sweetspot run writes its own).
 */
#include "cli.h"
#include "cmds.h"
#include "error.h"
#include "generate.h"
#include "plan.h"
#include "spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_OUTPUT, OPT_LAUNCHER, OPT_LAYOUT, OPT_FORCE, NOPTS };

static const struct cli_option generate_options[NOPTS + 1] = {
	[OPT_OUTPUT] = { "output", 'o', "DIR",
			 "the folder to create (it must not exist, or be empty)" },
	[OPT_LAUNCHER] = { "launcher", 0, "NAME",
			   "the files of this launcher: srun, mpirun,\n"
			   "mpirun_rsh, hydra or all (default: the spec's launcher)" },
	[OPT_LAYOUT] = { "layout", 0, "ID", "only this layout (see 'sweetspot plan')" },
	[OPT_FORCE] = { "force", 0, NULL, "replace DIR when it is an earlier output of generate" },
	[NOPTS] = { NULL, 0, NULL, NULL },
};

static const struct cli_command generate_cli = {
	"generate",
	"SPEC -o DIR [--launcher srun|mpirun|mpirun_rsh|hydra|all]\n[--layout ID] [--force]",
	"Writes, for every layout of the plan of SPEC, a folder DIR/<layout-id>/ with\n"
	"the files that launch it with the spec's launcher (--launcher: another, or\n"
	"all): hostfile, appfile and rankfile (Open MPI), hostfile.mvapich and\n"
	"config (mpirun_rsh), hostfile.hydra and configfile.hydra (MPICH's\n"
	"mpiexec.hydra), slurm.hostfile and multi-prog.conf (srun), and commands\n"
	"(each launch command, shell-quoted); plus DIR/layouts.tsv. On any error\n"
	"nothing at all is written.",
	generate_options,
	"Exit status: 0 success, 1 failure (nothing written), 2 bad usage or a bad\n"
	"spec (file:line: message).",
};

/* --launcher's value as generate_plan()'s set of launchers. */
static int parse_launchers(const char *name, unsigned *launchers)
{
	enum launcher l;

	if (!strcmp(name, "all")) {
		*launchers = GEN_ALL;
		return 0;
	}
	if (strcmp(name, "srun") && strcmp(name, "mpirun") && strcmp(name, "mpirun_rsh") &&
	    strcmp(name, "hydra"))
		return cli_usage_error(&generate_cli,
				       "unknown launcher '%s' (srun, mpirun, "
				       "mpirun_rsh, hydra or all)",
				       name);
	launcher_parse(name, &l);
	*launchers = GEN_LAUNCHER(l);
	return 0;
}

struct generate_args {
	const char *path, *dir, *only;
	unsigned launchers;
	int force;
};

/* CLI_END when the command goes on, else CLI_HELP or CLI_BAD. */
static int generate_args(int argc, char **argv, struct generate_args *a)
{
	struct cli c;
	int o;

	cli_begin(&c, &generate_cli, argc, argv);
	while ((o = cli_next(&c)) >= 0) {
		switch (o) {
		case OPT_OUTPUT:
			a->dir = c.arg;
			break;
		case OPT_LAUNCHER:
			if (parse_launchers(c.arg, &a->launchers))
				return CLI_BAD;
			break;
		case OPT_LAYOUT:
			a->only = c.arg;
			break;
		case OPT_FORCE:
			a->force = 1;
			break;
		}
	}
	if (o != CLI_END)
		return o;
	if (cli_operands(&c, 1, 1, "SPEC"))
		return CLI_BAD;
	a->path = c.operands[0];
	if (!a->dir) {
		cli_usage_error(&generate_cli, "no output folder given (-o DIR)");
		return CLI_BAD;
	}
	return CLI_END;
}

int cmd_generate(int argc, char **argv)
{
	struct spec spec = SPEC_INIT;
	struct plan plan = PLAN_INIT;
	struct generate_args a = { NULL, NULL, NULL, 0, 0 };
	int status = EXIT_USAGE, r;

	r = generate_args(argc, argv, &a);
	if (r != CLI_END)
		return cli_status(r);
	if (spec_load(a.path, &spec) || plan_build(&spec, &plan))
		goto out;
	/* What a launch needs by default: the per-rank files of the other
	 * launchers are hundreds of MB on the largest machines. */
	if (!a.launchers)
		a.launchers = GEN_LAUNCHER(spec.launcher);
	if (a.only) {
		const struct layout *l = plan_find(&plan, a.only);

		if (!l) {
			error("generate: the plan of %s has no layout '%s' (see 'sweetspot plan')",
			      a.path, a.only);
			goto out;
		}
		plan.layouts[0] = *l;
		plan.nlayouts = 1;
	}
	r = generate_plan(&spec, &plan, a.dir, a.launchers, a.force);
	if (r == -2)
		goto out;
	if (r) {
		status = 1;
		goto out;
	}
	printf("%zu layouts written to %s\n", plan.nlayouts, a.dir);
	status = 0;
out:
	plan_release(&plan);
	spec_release(&spec);
	return status;
}
