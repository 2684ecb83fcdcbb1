/*
 * kernels/idle.h: how a rank waits when its node holds more ranks than it
 * has CPUs. A waiting MPI rank polls; with a core of its own that is the
 * fastest wait, but on a shared core it burns the time slice of the rank
 * it waits for. Open MPI polls unless told the node is oversubscribed, and
 * a hostfile's slots (or --host h:N) tell it the opposite. So, before
 * MPI_Init, a rank counts the ranks of its node from the launcher's
 * environment and the CPUs it may run on (its affinity mask), and where the
 * ranks are more it asks Open MPI to yield when idle
 * (OMPI_MCA_mpi_yield_when_idle=1), unless the user already set that
 * variable.
 *
 * And where the launcher left a rank free to run on several CPUs, the rank
 * binds itself to one: the node's local rank i to the i-th CPU of its mask,
 * round robin. Unbound, the OS moves ranks between cores as it likes, and
 * which of them share a core changes from launch to launch: the launches of
 * one configuration then differ by the placement they drew, not by what
 * was measured. Bound, hosts take the first CPUs and the workers (the
 * highest ranks) the next, their own cores where the node has enough.
 * SWEETSPOT_BIND=0 leaves placement to the launcher and the OS. Needs
 * nothing of MPI.
 */
#ifndef SWEETSPOT_IDLE_H
#define SWEETSPOT_IDLE_H

struct idle_info {
	int node_ranks; /* ranks on this node, from the environment; 0: not known */
	int cpus;	/* CPUs the node's ranks share */
	int yield;	/* 1: Open MPI yields when idle (ours or the user's) */
	int cpu;	/* the CPU this rank bound itself to; -1: not bound by us */
};

/* The ranks of this rank's node, as the launcher tells them (Open MPI's
 * OMPI_COMM_WORLD_LOCAL_SIZE, MPICH hydra's MPI_LOCALNRANKS, Slurm's
 * SLURM_STEP_TASKS_PER_NODE at SLURM_NODEID); 0 when none says. */
int idle_node_ranks(void);

/* This rank's index among its node's ranks, as the launcher tells it
 * (OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, SLURM_LOCALID); -1 when
 * none says. */
int idle_local_rank(void);

/* Slurm's compressed task counts, "2(x3),1": the count of node index
 * node; 0 when the text does not say. */
int idle_slurm_tasks(const char *spec, int node);

/* Before MPI_Init: fills *info, sets OMPI_MCA_mpi_yield_when_idle=1
 * where the node's ranks outnumber its CPUs, and binds an unbound rank. */
void idle_setup(struct idle_info *info);

#endif
