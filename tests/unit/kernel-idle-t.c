/* tests/unit/kernel-idle-t.c: how a kernel rank waits and where it runs
 * (kernels/idle.c): Slurm's compressed task counts, the node's ranks and
 * this rank's index from each launcher's variables, Open MPI told to yield
 * only where the node's ranks outnumber its CPUs (and never against the
 * user's own setting), and an unbound rank bound to one CPU of its mask by
 * its local rank, unless SWEETSPOT_BIND=0. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "tap.h"
#include "../../kernels/idle.c"

static void clear_env(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_LOCAL_SIZE",
					    "MPI_LOCALNRANKS",
					    "SLURM_STEP_TASKS_PER_NODE",
					    "SLURM_NODEID",
					    "OMPI_COMM_WORLD_LOCAL_RANK",
					    "MPI_LOCALRANKID",
					    "SLURM_LOCALID",
					    "OMPI_MCA_mpi_yield_when_idle",
					    "SWEETSPOT_BIND" };

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
}

int main(void)
{
	struct idle_info in;
	cpu_set_t all, now;
	int ncpu;

	plan(20);
	is_int(idle_slurm_tasks("4", 0), 4, "one count");
	is_int(idle_slurm_tasks("2(x3),1", 2), 2, "2(x3),1: the third node has 2");
	is_int(idle_slurm_tasks("2(x3),1", 3), 1, "2(x3),1: the fourth node has 1");
	is_int(idle_slurm_tasks("2(x3),1", 4), 0, "past the last node: not known");
	is_int(idle_slurm_tasks("2(x,1", 0), 0, "a broken count: not known");
	is_int(idle_slurm_tasks(NULL, 0), 0, "no variable: not known");

	clear_env();
	is_int(idle_node_ranks(), 0, "no launcher: the node's ranks not known");
	is_int(idle_local_rank(), -1, "no launcher: the local rank not known");
	setenv("SLURM_STEP_TASKS_PER_NODE", "3(x2)", 1);
	setenv("SLURM_NODEID", "1", 1);
	setenv("SLURM_LOCALID", "2", 1);
	is_int(idle_node_ranks(), 3, "srun: 3 ranks on node 1");
	is_int(idle_local_rank(), 2, "srun: local rank 2");
	setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "6", 1);
	is_int(idle_node_ranks(), 6, "mpirun's local size first");

	/* The whole machine as the mask, as an unbound rank has it. */
	CPU_ZERO(&all);
	ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	for (int c = 0; c < ncpu && c < CPU_SETSIZE; c++)
		CPU_SET(c, &all);
	sched_setaffinity(0, sizeof(all), &all);

	clear_env();
	setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "100000", 1);
	setenv("SWEETSPOT_BIND", "0", 1);
	idle_setup(&in);
	ok(in.yield && getenv("OMPI_MCA_mpi_yield_when_idle") &&
		   !strcmp(getenv("OMPI_MCA_mpi_yield_when_idle"), "1"),
	   "100000 ranks on %d CPUs: Open MPI yields when idle", in.cpus);
	is_int(in.cpu, -1, "SWEETSPOT_BIND=0: not bound");

	clear_env();
	setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "1", 1);
	setenv("SWEETSPOT_BIND", "0", 1);
	idle_setup(&in);
	ok(!in.yield && !getenv("OMPI_MCA_mpi_yield_when_idle"), "1 rank: Open MPI polls");

	clear_env();
	setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "100000", 1);
	setenv("OMPI_MCA_mpi_yield_when_idle", "0", 1);
	setenv("SWEETSPOT_BIND", "0", 1);
	idle_setup(&in);
	ok(!in.yield && !strcmp(getenv("OMPI_MCA_mpi_yield_when_idle"), "0"),
	   "the user's own setting is kept");

	clear_env();
	setenv("OMPI_COMM_WORLD_LOCAL_RANK", "3", 1);
	idle_setup(&in);
	CPU_ZERO(&now);
	sched_getaffinity(0, sizeof(now), &now);
	if (ncpu >= 2) {
		int want = -1;

		for (int c = 0, seen = 0; c < CPU_SETSIZE && want < 0; c++)
			if (CPU_ISSET(c, &all) && seen++ == 3 % CPU_COUNT(&all))
				want = c;
		is_int(in.cpu, want, "local rank 3 on %d CPUs: bound to CPU %d", ncpu, want);
		is_int(CPU_COUNT(&now), 1, "the mask now holds one CPU");
		ok(CPU_ISSET(want, &now), "and it is that CPU");
	} else {
		for (int i = 0; i < 3; i++)
			skip("one CPU: nothing to bind");
	}
	/* Bound already (by the launcher, or above): left as it is. */
	clear_env();
	setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1", 1);
	idle_setup(&in);
	is_int(in.cpu, -1, "a rank bound to one CPU is left alone");
	sched_setaffinity(0, sizeof(all), &all);
	clear_env();
	setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1", 1);
	setenv("SWEETSPOT_BIND", "0", 1);
	idle_setup(&in);
	is_int(in.cpu, -1, "SWEETSPOT_BIND=0: an unbound rank stays unbound");
	return done_testing();
}
