/*
 * tests/bench/fence-race/delay.c, LD_PRELOADed: the rank named by
 * DELAY_RANK (its OMPI_COMM_WORLD_RANK or SLURM_PROCID) sleeps DELAY_MS
 * inside MPI_Init, after the modex fence and before the PML registers its
 * callbacks: Open MPI 4.1's ompi_mpi_init() calls
 * mca_pml_base_bsend_init() through the PLT between the two, so this
 * wrapper is there. It stands for a rank that is slow to start (a loaded
 * core, a DPU's slower cores).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int mca_pml_base_bsend_init(int thread_safe);

int mca_pml_base_bsend_init(int thread_safe)
{
	int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "mca_pml_base_bsend_init");
	const char *r = getenv("OMPI_COMM_WORLD_RANK"), *want = getenv("DELAY_RANK");
	const char *ms = getenv("DELAY_MS");

	if (!r)
		r = getenv("SLURM_PROCID");
	if (r && want && !strcmp(r, want)) {
		fprintf(stderr, "delay: rank %s sleeps %s ms before add_procs\n", r,
			ms ? ms : "2000");
		usleep(1000 * (useconds_t)(ms ? atoi(ms) : 2000));
	}
	return real ? real(thread_safe) : 1;
}
