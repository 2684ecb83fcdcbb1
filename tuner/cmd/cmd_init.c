/*
 * tuner/cmd/cmd_init.c: `sweetspot init [-o FILE] [--force]`, a commented
 * starting spec written from what this process can see. Inside a Slurm
 * allocation (SLURM_JOB_ID set) that is the allocation's nodes and CPUs
 * per node, and the DPUs among the allocation's or the cluster's nodes
 * (a node named like another plus a suffix, such as "n01-bf"; all read by
 * launch/slurm.c); elsewhere it is this machine (or with --local), with
 * workers on reserved (onload) cores, made to measure what it can:
 * collectives long enough to time, ranks bound to its CPUs and, where even
 * the smallest sweep of workers needs more ranks than it has CPUs, that
 * said. What it writes passes `sweetspot plan` as it is, so the first run
 * can follow.
 */
#include "cli.h"
#include "cmds.h"
#include "error.h"
#include "files.h"
#include "hostlist.h"
#include "slurm.h"
#include "strvec.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/auxv.h>
#include <unistd.h>

#define INIT_DEFAULT_PATH "sweetspot.cfg"

enum { OPT_OUTPUT, OPT_FORCE, OPT_LOCAL, NOPTS };

static const struct cli_option init_options[NOPTS + 1] = {
	[OPT_OUTPUT] = { "output", 'o', "FILE",
			 "where the spec goes (default " INIT_DEFAULT_PATH ")" },
	[OPT_FORCE] = { "force", 0, NULL, "replace FILE when it exists" },
	[OPT_LOCAL] = { "local", 0, NULL, "this machine, even inside a Slurm allocation" },
	[NOPTS] = { NULL, 0, NULL, NULL },
};

static const struct cli_command init_cli = {
	"init",
	"[-o FILE] [--force] [--local]",
	"Writes a commented starting sweep spec from what it sees. Inside a Slurm\n"
	"allocation (SLURM_JOB_ID set): its nodes (SLURM_JOB_NODELIST), CPUs per node\n"
	"(SLURM_CPUS_ON_NODE or SLURM_JOB_CPUS_PER_NODE), and DPUs: nodes of the\n"
	"allocation, or of 'sinfo', named like one of its nodes plus a suffix such\n"
	"as '-bf'; launched with srun. Elsewhere, or with --local: this machine (its\n"
	"host name and CPUs), workers on reserved cores (onload), launched with\n"
	"mpirun: 2 worker cores or more (a sweep of worker counts) and the rest for\n"
	"host ranks, at least 2; sizes whose collective lasts long enough to time;\n"
	"20 iterations a phase, 3 launches a layout racing to 10 where undecided.\n"
	"It says what it chose and why. The\n"
	"spec passes 'sweetspot plan' as written; edit it, then 'sweetspot run' it.",
	init_options,
	"Exit status: 0 written, 1 it could not be written, 2 bad usage, FILE exists\n"
	"(without --force) or the allocation cannot be read.",
};

/* What the spec will say. */
struct machine {
	int slurm;
	char *job_id;
	struct strvec nodes; /* host nodes, in rank order */
	unsigned cpus;	     /* per host node */
	/* The layout per node that fits cpus (fit_layout()): host ranks, cores
	 * kept for onload workers (0: none, workers on DPUs only), and whether
	 * even the smallest layout needs more ranks than CPUs (overcommit). */
	unsigned ppn, keep;
	int short_of, overcommit; /* short_of: fewer CPUs than a sweep wants */
	char *dpu_suffix;	  /* NULL: no DPU found */
	unsigned dpu_cores;
	char *kernel; /* the host binary's path */
};

static unsigned online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 && n < 65536 ? (unsigned)n : 1;
}

/* The allocation and its DPUs (launch/slurm.h). 0, or -1 after error()
 * when it cannot be read. */
static int see_slurm(struct machine *m)
{
	struct slurm_alloc a = { 0 };
	int ret = slurm_alloc_read(&a, online_cpus());

	m->slurm = 1;
	m->job_id = a.job_id;
	m->nodes = a.nodes;
	m->cpus = a.cpus;
	m->dpu_suffix = a.dpu_suffix;
	m->dpu_cores = a.dpu_cores;
	return ret;
}

/* This machine: its host name when it is a valid one, else localhost. */
static void see_local(struct machine *m)
{
	char name[HOST_NAME_MAX + 1], err[256];

	if (gethostname(name, sizeof(name)) ||
	    (name[sizeof(name) - 1] = '\0', hostname_check(name, err, sizeof(err))))
		strcpy(name, "localhost");
	strvec_push(&m->nodes, name);
	m->cpus = online_cpus();
}

/* The kernel installed beside this sweetspot, else the name (from PATH).
 * Where this program is comes from the path the kernel exec'd it by
 * (AT_EXECFN), made absolute: init only reads it, nothing execs it. */
static char *kernel_path(void)
{
	const char *execfn = (const char *)getauxval(AT_EXECFN);
	char *self = execfn ? realpath(execfn, NULL) : NULL, *slash, *path;

	if (self && (slash = strrchr(self, '/'))) {
		path = xasprintf("%.*s/sweetspot-kernel", (int)(slash - self), self);
		free(self);
		if (!access(path, X_OK) && !strpbrk(path, " \t'\"\\%"))
			return path;
		free(path);
	} else {
		free(self);
	}
	return xstrdup("sweetspot-kernel");
}

/* Powers of two up to max, as a libconfig list. */
static void put_pow2(FILE *f, unsigned max)
{
	fputs("[ ", f);
	for (unsigned w = 1; w <= max; w *= 2)
		fprintf(f, "%s%u", w > 1 ? ", " : "", w);
	fputs(" ]", f);
}

/* Cores kept for onload workers: a few, leaving most to host ranks. */
static unsigned onload_cores(unsigned cpus)
{
	return cpus >= 32 ? 4 : cpus >= 8 ? 2 : 1;
}

/* A sweep wants per node at least 2 host ranks and 1 core for workers. */
#define INIT_MIN_CPUS 3

/* Host ranks and onload cores per node. On this machine: the CPUs not
 * kept, at least 2 host ranks (more ranks than cores is allowed there,
 * and said). In an allocation, what fits its CPUs: with fewer than a
 * sweep wants, 1 host rank and the rest for workers, or every CPU to host
 * ranks when DPUs take the workers; with 1 CPU and no DPU nothing fits,
 * and the smallest layout (a host rank and a worker) overcommits it. */
static void fit_layout(struct machine *m)
{
	if (!m->slurm) {
		/* Here a sweep of worker counts, 1 and 2 at least: 2 cores
		 * kept or more, and at least 2 host ranks (a collective of
		 * one host moves nothing). Fewer than 4 CPUs hold no such
		 * sweep; the ranks then share them (overcommit). */
		m->keep = onload_cores(m->cpus) > 2 ? onload_cores(m->cpus) : 2;
		m->ppn = m->cpus >= m->keep + 2 ? m->cpus - m->keep : 2;
		m->overcommit = m->ppn + m->keep > m->cpus;
		return;
	}
	m->keep = onload_cores(m->cpus);
	m->ppn = m->cpus > m->keep + 1 ? m->cpus - m->keep : 2;
	if (!m->slurm || m->cpus >= INIT_MIN_CPUS)
		return;
	m->short_of = 1;
	if (m->dpu_suffix) {
		m->ppn = m->cpus;
		m->keep = 0;
	} else {
		m->ppn = 1;
		m->keep = 1;
		m->overcommit = m->cpus < 2;
	}
}

/* Says that the allocation holds fewer CPUs than a sweep wants, how to
 * ask Slurm for them, and what the spec does with what there is. */
static void advise(const struct machine *m, const char *out)
{
	const char *on = getenv("SLURM_CPUS_ON_NODE"), *per = getenv("SLURM_JOB_CPUS_PER_NODE");
	size_t n = m->nodes.nr;

	fprintf(stderr,
		"sweetspot: init: job %s has %u CPU%s per node (%s=%s), fewer than a sweep "
		"wants:\n%d per node, 2 host ranks and 1 core for onload workers, and more to vary "
		"the layout.\nAsk Slurm for them, then run 'sweetspot init' again in the new "
		"allocation:\n"
		"  salloc -N %zu --exclusive            every CPU of each node\n"
		"  salloc -N %zu --ntasks-per-node=N    N CPUs per node, one per rank\n"
		"  salloc -N %zu -c N                   N CPUs for the one task per node\n",
		m->job_id, m->cpus, m->cpus == 1 ? "" : "s",
		on && *on ? "SLURM_CPUS_ON_NODE" : "SLURM_JOB_CPUS_PER_NODE",
		on && *on ? on :
		per	  ? per :
			    "?",
		INIT_MIN_CPUS, n, n, n);
	if (m->overcommit)
		fprintf(stderr,
			"%s: no layout fits %u CPU; it holds the smallest, a host rank and a "
			"worker per node,\n2 ranks per CPU (srun --overcommit): it runs, but "
			"slowly.\n",
			out, m->cpus);
	else if (m->keep)
		fprintf(stderr,
			"%s fits the %u CPUs seen: 1 host rank and 1 worker core per node.\n", out,
			m->cpus);
	else
		fprintf(stderr,
			"%s fits the %u CPU%s seen: %u host rank%s per node, workers on the "
			"DPUs only.\n",
			out, m->cpus, m->cpus == 1 ? "" : "s", m->ppn, m->ppn == 1 ? "" : "s");
}

static void write_system(const struct machine *m, FILE *f)
{
	char *list = hostlist_compress((const char *const *)m->nodes.v, m->nodes.nr,
				       HOSTLIST_SUFFIX);

	fprintf(f, "system = {\n\tname = \"%s\";\n", m->slurm ? "cluster" : "local");
	fprintf(f, "\t# %s\n\tnodes = \"%s\";\n",
		m->slurm ? "the allocation's nodes (SLURM_JOB_NODELIST), in rank order" :
			   "this machine",
		list);
	if (m->overcommit && !m->slurm)
		fprintf(f, "\t# %u CPU%s: %u host ranks, and %u cores kept for onload workers\n",
			m->cpus, m->cpus == 1 ? "" : "s", m->ppn, m->keep);
	else if (m->overcommit)
		fprintf(f,
			"\t# %u CPU per node: too few for a host rank and a worker; 1 of each,\n"
			"\t# 2 ranks per CPU (--overcommit below). Ask Slurm for more CPUs\n"
			"\t# (salloc --exclusive, -c N or --ntasks-per-node=N) and init again.\n",
			m->cpus);
	else if (m->keep)
		fprintf(f,
			"\t# %u CPU%s per node: %u host rank%s, and %u core%s kept for onload "
			"workers\n",
			m->cpus, m->cpus == 1 ? "" : "s", m->ppn, m->ppn == 1 ? "" : "s", m->keep,
			m->keep == 1 ? "" : "s");
	else
		fprintf(f,
			"\t# %u CPU%s per node: %u host rank%s; none left for onload workers,\n"
			"\t# the workers go on the DPUs only\n",
			m->cpus, m->cpus == 1 ? "" : "s", m->ppn, m->ppn == 1 ? "" : "s");
	fprintf(f, "\tppn = %u;\n", m->ppn);
	if (m->dpu_suffix)
		fprintf(f,
			"\t# each node's DPU is its name plus \"%s\"; cores: %s\n"
			"\tdpu = { suffix = \"%s\"; cores = %u; };\n",
			m->dpu_suffix,
			m->dpu_cores == SLURM_DPU_CORES ? "check (8 assumed)" : "as sinfo reports",
			m->dpu_suffix, m->dpu_cores);
	if (m->keep)
		fprintf(f, "\tonload = { cores = %u; };\n", m->keep);
	fprintf(f,
		"\t# the kernel built for the hosts (a relative path is taken from\n"
		"\t# this file's folder)\n\thost_bin = \"%s\";\n",
		m->kernel);
	if (m->dpu_suffix)
		fprintf(f,
			"\t# the kernel built for the DPUs' Arm cores: put its path here\n"
			"\tdpu_bin = \"%s\";\n",
			m->kernel);
	if (m->slurm)
		fprintf(f, "\tlauncher = \"srun\";\t\t# srun | mpirun | mpirun_rsh\n%s",
			m->overcommit ? "\tlauncher_args = [ \"--overcommit\" ];\n" : "");
	else if (m->overcommit)
		fprintf(f,
			"\tlauncher = \"mpirun\";\t\t# srun | mpirun | mpirun_rsh\n"
			"\t# %u CPU%s hold no sweep of worker counts without sharing: %u host\n"
			"\t# ranks and up to %u workers share them, each rank bound to one CPU\n"
			"\t# in turn (the same sharing in every launch) and Open MPI told to\n"
			"\t# yield while it waits (sweetspot-kernel(1)); what is measured is\n"
			"\t# then the cost of that sharing, not of a node with a core per rank\n"
			"\tlauncher_args = [ \"--oversubscribe\" ];\n",
			m->cpus, m->cpus == 1 ? "" : "s", m->ppn, m->keep);
	else
		fputs("\tlauncher = \"mpirun\";\t\t# srun | mpirun | mpirun_rsh\n"
		      "\t# a rank per CPU; more ranks than CPUs would be allowed\n"
		      "\tlauncher_args = [ \"--oversubscribe\" ];\n",
		      f);
	fputs("};\n\n", f);
	free(list);
}

/* This machine's sweep: every choice made for what one machine can time.
 * Sizes from 64K: below, a collective in shared memory lasts a microsecond
 * or less, of the order of the barrier around it. 20 iterations a phase:
 * sizing them by time instead (min_time 20 ms) lowered no launch's noise
 * here. Racing to 10 launches where a question is undecided. */
static void write_local_sweep(const struct machine *m, FILE *f)
{
	unsigned most = m->keep < m->ppn ? m->keep : m->ppn;

	fputs("sweep = {\n\tcollectives = [ \"bcast\", \"gather\", \"allgather\" ];\n"
	      "\t# bcast and gather: direct; allgather: its single leader and all-in\n"
	      "\talgorithms = [ \"direct\", \"leader\", \"allin\" ];\n"
	      "\tassignments = [ \"block\", \"cyclic\" ];\t# and \"locality\"\n"
	      "\t# from 64K: a shorter collective in shared memory lasts about as long\n"
	      "\t# as the barrier around it\n"
	      "\tsizes = [ \"64K\", \"256K\", \"1M\" ];\n"
	      "\t# workers per node, on the reserved cores\n\twpn = ",
	      f);
	put_pow2(f, most);
	fputs(";\n\tplacement = [ \"onload\" ];\n"
	      "\titerations = 20;\n\twarmup = 2;\n"
	      "\trepetitions = 3;\t# launches per layout, for the spread\n"
	      "\tmax_repetitions = 10;\t# where a question is undecided, up to 10\n"
	      "\ttime_limit = 120;\t# seconds per launch\n"
	      "\ttransport = \"auto\";\t# verbs where there is an RDMA device, else rma\n};\n",
	      f);
}

static void write_sweep(const struct machine *m, FILE *f)
{
	unsigned most = m->keep;

	if (!m->slurm) {
		write_local_sweep(m, f);
		return;
	}
	/* WPN up to the DPU's cores, but never more workers than host ranks. */
	if (m->dpu_suffix && m->dpu_cores > most)
		most = m->dpu_cores < m->ppn ? m->dpu_cores : m->ppn;
	fputs("sweep = {\n\tcollectives = [ \"bcast\", \"gather\", \"allgather\" ];\n"
	      "\t# algorithms = [ \"direct\", \"leader\", \"allin\" ];\t# default: all that apply\n"
	      "\tassignments = [ \"block\", \"cyclic\" ];\t# and \"locality\"\n",
	      f);
	fprintf(f, "\tsizes = \"%s\";\t\t# a power-of-two range, or [ \"256K\", \"1M\" ]\n",
		m->slurm ? "64K:4M" : "4K:64K");
	fputs("\t# workers per node (per DPU, or per node's reserved cores); without\n"
	      "\t# 'workers', each WPN is tried on 1, 2, 4 ... nodes\n\twpn = ",
	      f);
	put_pow2(f, most);
	fprintf(f, ";\n\tplacement = [ %s%s%s ];\n", m->dpu_suffix ? "\"dpu\"" : "",
		m->dpu_suffix && m->keep ? ", " : "", m->keep ? "\"onload\"" : "");
	fprintf(f,
		"\titerations = %u;\n\twarmup = %u;\n\trepetitions = 3;\t# launches per layout, "
		"for the spread\n"
		"\ttime_limit = %u;\t# seconds per launch\n\ttransport = \"auto\";\t"
		"# verbs where there is an RDMA device, else rma\n};\n",
		m->slurm ? 100 : 20, m->slurm ? 10 : 2, m->slurm ? 600 : 120);
}

static int write_spec(void *ctx, FILE *f)
{
	const struct machine *m = ctx;

	fprintf(f,
		"# A sweep spec written by 'sweetspot init' from %s.\n"
		"# Check it with 'sweetspot plan FILE'; measure with 'sweetspot %s FILE'.\n"
		"# Every setting: man 5 sweetspot.cfg.\n\n",
		m->slurm ? "a Slurm allocation" : "this machine", m->slurm ? "submit" : "run");
	if (m->slurm)
		fprintf(f, "# Seen in job %s: %zu node%s of %u CPU%s%s.\n\n", m->job_id,
			m->nodes.nr, m->nodes.nr == 1 ? "" : "s", m->cpus, m->cpus == 1 ? "" : "s",
			m->dpu_suffix ? ", each with a DPU" : "");
	write_system(m, f);
	write_sweep(m, f);
	return ferror(f) ? -1 : 0;
}

int cmd_init(int argc, char **argv)
{
	struct machine m = { .nodes = STRVEC_INIT };
	const char *out = INIT_DEFAULT_PATH;
	struct stat st;
	struct cli c;
	int o, force = 0, local = 0, status = EXIT_USAGE;

	cli_begin(&c, &init_cli, argc, argv);
	while ((o = cli_next(&c)) >= 0)
		switch (o) {
		case OPT_OUTPUT:
			out = c.arg;
			break;
		case OPT_FORCE:
			force = 1;
			break;
		case OPT_LOCAL:
			local = 1;
			break;
		}
	if (o != CLI_END)
		return cli_status(o);
	if (cli_operands(&c, 0, 0, "no operand"))
		return EXIT_USAGE;
	if (!force && !lstat(out, &st)) {
		error("%s exists; give --force to replace it", out);
		return EXIT_USAGE;
	}
	if (!local && getenv("SLURM_JOB_ID") && *getenv("SLURM_JOB_ID")) {
		if (see_slurm(&m))
			goto out;
	} else {
		see_local(&m);
	}
	m.kernel = kernel_path();
	fit_layout(&m);
	if (m.short_of)
		advise(&m, out);
	status = 1;
	if (files_write_atomic(out, write_spec, &m))
		goto out;
	printf("wrote %s (%s: %zu node%s, %u CPU%s each%s)\n", out,
	       m.slurm ? "Slurm allocation" : "this machine", m.nodes.nr,
	       m.nodes.nr == 1 ? "" : "s", m.cpus, m.cpus == 1 ? "" : "s",
	       m.dpu_suffix ? ", DPUs" : "");
	if (!m.slurm)
		printf("chose: %u host ranks and 1..%u onload workers (%u cores kept for them)%s; "
		       "bcast, gather, allgather at 64K, 256K, 1M\n",
		       m.ppn, m.keep < m.ppn ? m.keep : m.ppn, m.keep,
		       m.overcommit ? ": more ranks than CPUs, the smallest sweep of worker "
				      "counts there is; ranks bound to CPUs in turn and Open MPI "
				      "yielding, the sharing the same in every launch" :
				      "");
	printf("next: sweetspot plan %s\n", out);
	status = 0;
out:
	strvec_clear(&m.nodes);
	free(m.job_id);
	free(m.dpu_suffix);
	free(m.kernel);
	return status;
}
