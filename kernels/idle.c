/*
 * kernels/idle.c: yield when the node is oversubscribed (idle.h).
 */
#define _GNU_SOURCE
#include "idle.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int idle_slurm_tasks(const char *spec, int node)
{
	const char *p = spec;
	int at = 0;

	if (!spec || node < 0)
		return 0;
	while (*p) {
		char *end;
		long count = strtol(p, &end, 10), times = 1;

		if (end == p || count < 0)
			return 0;
		p = end;
		if (!strncmp(p, "(x", 2)) {
			times = strtol(p + 2, &end, 10);
			if (end == p + 2 || *end != ')' || times < 1)
				return 0;
			p = end + 1;
		}
		if (node < at + times)
			return (int)count;
		at += (int)times;
		if (*p == ',')
			p++;
		else if (*p)
			return 0;
	}
	return 0;
}

static int env_int(const char *name)
{
	const char *v = getenv(name);
	char *end;
	long n;

	if (!v || !*v)
		return 0;
	n = strtol(v, &end, 10);
	return *end || n < 1 || n > 1 << 20 ? 0 : (int)n;
}

int idle_local_rank(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
					    "SLURM_LOCALID" };

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);
		char *end;
		long n;

		if (!v || !*v)
			continue;
		n = strtol(v, &end, 10);
		if (!*end && n >= 0 && n < 1 << 20)
			return (int)n;
	}
	return -1;
}

/* Binds this rank to the (local % count)-th CPU of set, which holds
 * count CPUs; the CPU, or -1. */
static int bind_local(const cpu_set_t *set, int count, int local)
{
	int want = local % count;

	for (int c = 0, seen = 0; c < CPU_SETSIZE; c++) {
		cpu_set_t one;

		if (!CPU_ISSET(c, set) || seen++ != want)
			continue;
		CPU_ZERO(&one);
		CPU_SET(c, &one);
		return sched_setaffinity(0, sizeof(one), &one) ? -1 : c;
	}
	return -1;
}

int idle_node_ranks(void)
{
	const char *node = getenv("SLURM_NODEID");
	int n;

	if ((n = env_int("OMPI_COMM_WORLD_LOCAL_SIZE")) || (n = env_int("MPI_LOCALNRANKS")))
		return n;
	if (node && *node)
		return idle_slurm_tasks(getenv("SLURM_STEP_TASKS_PER_NODE"), atoi(node));
	return 0;
}

void idle_setup(struct idle_info *info)
{
	cpu_set_t set;
	const char *user = getenv("OMPI_MCA_mpi_yield_when_idle"), *bind = getenv("SWEETSPOT_BIND");
	int local = idle_local_rank(), mask;

	memset(info, 0, sizeof(*info));
	info->cpu = -1;
	info->node_ranks = idle_node_ranks();
	/* The CPUs the node's ranks share: an unbound rank's mask is the set
	 * its job may use (a cgroup, a taskset); a rank bound to one CPU says
	 * nothing of the others', so the node's online CPUs count then. */
	CPU_ZERO(&set);
	mask = info->cpus = sched_getaffinity(0, sizeof(set), &set) ? 0 : CPU_COUNT(&set);
	if (info->cpus < 2)
		info->cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (mask >= 2 && local >= 0 && !(bind && !strcmp(bind, "0")))
		info->cpu = bind_local(&set, mask, local);
	if (user && *user) {
		info->yield = strcmp(user, "0") != 0;
		return;
	}
	if (info->node_ranks && info->cpus && info->node_ranks > info->cpus) {
		setenv("OMPI_MCA_mpi_yield_when_idle", "1", 1);
		info->yield = 1;
	}
}
