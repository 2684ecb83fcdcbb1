/*
 * tests/data/verify-prog.c: an MPI program whose speed a test controls, for
 * `sweetspot verify`: run as `verify-prog VAR A_MS B_MS [fail-b|count FILE]`
 * it counts as B when the environment sets VAR (as the exported settings
 * do) and then sleeps B_MS, else A_MS, before one barrier; rank 0 prints
 * "size 1024: X us" and "size 4096: 4X us" with X the sleep. fail-b: under
 * B it aborts (exit 3). count FILE: the sizes' figures are instead the
 * number of launches so far (FILE counts them), so that A and B never
 * differ by more than one launch's worth: a verify that cannot decide.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
	const char *v = argc > 1 ? getenv(argv[1]) : NULL;
	int b = v && *v, rank;
	long ms = argc > 3 ? atol(argv[b ? 3 : 2]) : 0, x = ms;
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (b && argc > 4 && !strcmp(argv[4], "fail-b"))
		MPI_Abort(MPI_COMM_WORLD, 3);
	if (!rank && argc > 5 && !strcmp(argv[4], "count")) {
		FILE *f = fopen(argv[5], "a+");

		x = 1;
		if (f) {
			rewind(f);
			for (int c; (c = fgetc(f)) != EOF;)
				x += c == '\n';
			fputs("launch\n", f);
			fclose(f);
		}
	}
	nanosleep(&ts, NULL);
	MPI_Barrier(MPI_COMM_WORLD);
	if (!rank)
		for (int s = 1024; s <= 4096; s *= 4)
			printf("size %d: %ld.0 us\n", s, x * s / 1024);
	MPI_Finalize();
	return 0;
}
