/*
 * tests/fuzz/fuzzfile.c: the scratch file of the path-reading fuzz targets.
 * libFuzzer calls the target with no context argument, so the path lives in
 * a file-scope buffer: the one place a harness keeps state between inputs.
 */
#include "fuzzfile.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char scratch[4096];

static void scratch_remove(void)
{
	if (scratch[0])
		unlink(scratch);
}

static void scratch_make(const char *suffix)
{
	const char *dir = getenv("TMPDIR");
	int fd, n;

	n = snprintf(scratch, sizeof(scratch), "%s/sweetspot-fuzz-XXXXXX%s",
		     dir && *dir ? dir : "/tmp", suffix);
	if (n < 0 || (size_t)n >= sizeof(scratch)) {
		fprintf(stderr, "fuzzfile: TMPDIR is too long\n");
		abort();
	}
	fd = mkstemps(scratch, (int)strlen(suffix));
	if (fd < 0) {
		perror("fuzzfile: mkstemps");
		abort();
	}
	close(fd);
	atexit(scratch_remove);
}

const char *fuzzfile_write(const uint8_t *data, size_t size, const char *suffix)
{
	FILE *f;

	if (!scratch[0])
		scratch_make(suffix);
	f = fopen(scratch, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f)) {
		perror(scratch);
		abort();
	}
	return scratch;
}
