/*
 * kernels/hosts.h: where every rank runs. A rank's host name is
 * SLURMD_NODENAME when set (the emulated node under Slurm), else
 * SWEETSPOT_HOSTNAME (set by tests/testbed/fake-ssh), else gethostname().
 */
#ifndef SWEETSPOT_HOSTS_H
#define SWEETSPOT_HOSTS_H

#include <mpi.h>

#define HOST_NAME_LEN 256

struct hostinfo {
	char **names; /* names[r] for every rank; owned */
	int size;
	const char *source; /* rank 0's source: "SLURMD_NODENAME" | ... */
};

/* Collective over comm: every rank's name to every rank. 0 or -1. */
int hosts_gather(MPI_Comm comm, struct hostinfo *hi);
void hosts_release(struct hostinfo *hi);

/* Distinct names among ranks 0..n-1, and the most ranks on one name. */
int hosts_distinct(const struct hostinfo *hi, int n, int *most);

#endif
