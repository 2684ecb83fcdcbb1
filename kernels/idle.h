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
 * variable. Needs nothing of MPI.
 */
#ifndef SWEETSPOT_IDLE_H
#define SWEETSPOT_IDLE_H

struct idle_info {
	int node_ranks; /* ranks on this node, from the environment; 0: not known */
	int cpus;	/* CPUs the node's ranks share */
	int yield;	/* 1: Open MPI yields when idle (ours or the user's) */
};

/* The ranks of this rank's node, as the launcher tells them (Open MPI's
 * OMPI_COMM_WORLD_LOCAL_SIZE, MPICH hydra's MPI_LOCALNRANKS, Slurm's
 * SLURM_STEP_TASKS_PER_NODE at SLURM_NODEID); 0 when none says. */
int idle_node_ranks(void);

/* Slurm's compressed task counts, "2(x3),1": the count of node index
 * node; 0 when the text does not say. */
int idle_slurm_tasks(const char *spec, int node);

/* Before MPI_Init: fills *info and sets OMPI_MCA_mpi_yield_when_idle=1
 * where the node's ranks outnumber this rank's CPUs. */
void idle_setup(struct idle_info *info);

#endif
