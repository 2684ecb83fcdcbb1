/*
 * tests/bench/memcpy-bw.c: the yardstick for kernel-rma.sh: memcpy of SIZE
 * bytes from one buffer to another in one process, the same working set
 * (source + destination) as the kernel's write between two ranks. Prints
 * bytes per second, one number. Built by the benchmark script.
 * usage: memcpy-bw SIZE ITERATIONS WARMUP
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	size_t size;
	int iters, warm;
	char *src, *dst;
	double t0 = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: memcpy-bw SIZE ITERATIONS WARMUP\n");
		return 2;
	}
	size = strtoull(argv[1], NULL, 10);
	iters = atoi(argv[2]);
	warm = atoi(argv[3]);
	if (!size || iters < 1 || warm < 0 || posix_memalign((void **)&src, 4096, size) ||
	    posix_memalign((void **)&dst, 4096, size)) {
		fprintf(stderr, "memcpy-bw: bad arguments\n");
		return 2;
	}
	memset(src, 1, size);
	memset(dst, 2, size);
	for (int i = 0; i < warm + iters; i++) {
		if (i == warm)
			t0 = now();
		memcpy(dst, src, size);
		/* Keep the copy from being optimised away or hoisted. */
		__asm__ __volatile__("" : : "r"(dst) : "memory");
	}
	printf("%.0f\n", (double)size * iters / (now() - t0));
	free(src);
	free(dst);
	return 0;
}
