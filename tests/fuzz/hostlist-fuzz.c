/*
 * tests/fuzz/hostlist-fuzz.c: libFuzzer target for the Slurm hostlist
 * expander, hostlist_expand(). The input is the hostlist text (cut at its
 * first NUL, as a C string from a spec would be). What expands is also
 * compressed (in both forms: with ranges followed by a suffix, and Slurm
 * 22.05's without) and expanded again, which must give the same names: the
 * two functions are each other's inverse on every valid hostlist.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void round_trip(const struct strvec *names, unsigned flags)
{
	struct strvec again = STRVEC_INIT;
	char err[512], *c = hostlist_compress((const char *const *)names->v, names->nr, flags);

	if (hostlist_expand(c, &again, err, sizeof(err)) || again.nr != names->nr)
		abort();
	for (size_t i = 0; i < names->nr; i++)
		if (strcmp(again.v[i], names->v[i]))
			abort();
	strvec_clear(&again);
	free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strvec names = STRVEC_INIT;
	char err[512];
	char *s = xmalloc(size + 1);
	size_t n;

	memcpy(s, data, size);
	s[size] = '\0';
	/* Names made and compressed up to 65,536 of them, else only counted:
	 * the round trip does not depend on the size, and a million names
	 * (HOSTLIST_MAX) under ASan take seconds of the fuzzer's 10. */
	if (!hostlist_count(s, &n, err, sizeof(err)) && n <= 65536 &&
	    !hostlist_expand(s, &names, err, sizeof(err))) {
		round_trip(&names, 0);
		round_trip(&names, HOSTLIST_SUFFIX);
	}
	strvec_clear(&names);
	free(s);
	return 0;
}
