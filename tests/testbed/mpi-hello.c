/*
 * tests/testbed/mpi-hello.c: the smallest MPI program that proves a launch
 * placed every rank where it should and that ranks on different emulated
 * nodes can talk the way the kernels do. Each rank prints one line,
 *   rank R size N node NODE app A rma ok|bad
 * where NODE is SLURMD_NODENAME (Slurm), SWEETSPOT_HOSTNAME (the stand-in
 * ssh) or gethostname(), A is MPI_APPNUM (which program of an MPMD launch),
 * and "rma ok" means a one-sided MPI_Rput to the next rank and MPI_Rget from
 * the previous one, on an MPI_Win_allocate window, delivered the right bytes.
 * An optional argument is printed after the line (for --multi-prog labels).
 * Built by the testbed tests with mpicc; not part of sweetspot.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WORDS 4096

int main(int argc, char **argv)
{
	int rank, size, *appnum, flag, ok = 1;
	int *base, *got;
	const char *node = getenv("SLURMD_NODENAME");
	char host[256];
	MPI_Win win;
	MPI_Request req[2];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
	if (!node)
		node = getenv("SWEETSPOT_HOSTNAME");
	if (!node) {
		gethostname(host, sizeof(host));
		host[sizeof(host) - 1] = '\0';
		node = host;
	}

	got = malloc(WORDS * sizeof(int));
	MPI_Win_allocate(2 * WORDS * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
			 &win);
	for (int i = 0; i < WORDS; i++) {
		base[i] = -1;			     /* filled by the previous rank's put */
		base[WORDS + i] = rank * 100000 + i; /* read by the next rank */
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_lock_all(0, win);
	{
		int *mine = malloc(WORDS * sizeof(int));

		for (int i = 0; i < WORDS; i++)
			mine[i] = rank * 100000 + i;
		MPI_Rput(mine, WORDS, MPI_INT, (rank + 1) % size, 0, WORDS, MPI_INT, win, &req[0]);
		MPI_Rget(got, WORDS, MPI_INT, (rank + size - 1) % size, WORDS, WORDS, MPI_INT, win,
			 &req[1]);
		MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
		MPI_Win_unlock_all(win);
		free(mine);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	for (int i = 0; i < WORDS; i++) {
		int prev = (rank + size - 1) % size;

		if (got[i] != prev * 100000 + i || base[i] != prev * 100000 + i)
			ok = 0;
	}
	printf("rank %d size %d node %s app %d rma %s%s%s\n", rank, size, node, flag ? *appnum : -1,
	       ok ? "ok" : "bad", argc > 1 ? " " : "", argc > 1 ? argv[1] : "");
	fflush(stdout);
	MPI_Win_free(&win);
	free(got);
	MPI_Finalize();
	return ok ? 0 : 3;
}
