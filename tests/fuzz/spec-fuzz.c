/*
 * tests/fuzz/spec-fuzz.c: libFuzzer target for the sweep spec loader,
 * spec_load() (libconfig text, then every check of tuner/plan/spec.c). The input
 * is the spec file's bytes; the spec is released whatever the outcome.
 */
#include <stddef.h>
#include <stdint.h>

#include "fuzzfile.h"
#include "spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct spec s = SPEC_INIT;

	spec_load(fuzzfile_write(data, size, ".cfg"), &s);
	spec_release(&s);
	return 0;
}
