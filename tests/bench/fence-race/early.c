/*
 * tests/bench/fence-race/early.c: every rank notes when its MPI_Init
 * returned (CLOCK_REALTIME: the testbed's ranks share one clock), then
 * sends one int to every other rank at once, as an application's first
 * collective would; rank 0 prints each rank's return time after the
 * earliest. A rank released from MPI_Init before a peer has registered its
 * PML callbacks makes that peer crash (docs/upstream/).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	int rank, size, *in;
	double t, *all;
	struct timespec ts;
	MPI_Request *rq;

	MPI_Init(&argc, &argv);
	clock_gettime(CLOCK_REALTIME, &ts);
	t = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	in = calloc((size_t)size, sizeof(*in));
	all = calloc((size_t)size, sizeof(*all));
	rq = calloc(2 * (size_t)size, sizeof(*rq));
	if (!in || !all || !rq)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (int p = 0; p < size; p++) {
		MPI_Irecv(&in[p], 1, MPI_INT, p, 7, MPI_COMM_WORLD, &rq[p]);
		MPI_Isend(&rank, 1, MPI_INT, p, 7, MPI_COMM_WORLD, &rq[size + p]);
	}
	MPI_Waitall(2 * size, rq, MPI_STATUSES_IGNORE);
	MPI_Gather(&t, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		double lo = all[0];

		for (int p = 1; p < size; p++)
			lo = all[p] < lo ? all[p] : lo;
		printf("returned:");
		for (int p = 0; p < size; p++)
			printf(" %.2f", all[p] - lo);
		printf("\n");
	}
	free(in);
	free(all);
	free(rq);
	MPI_Finalize();
	return 0;
}
