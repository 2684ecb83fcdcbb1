/*
 * tests/fuzz/replay-fuzz.c: libFuzzer target for the replay table reader,
 * replay_load() (CSV with a header). The input is the file's bytes; the
 * replay is released whatever the outcome.
 */
#include <stddef.h>
#include <stdint.h>

#include "fuzzfile.h"
#include "replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct replay rp = REPLAY_INIT;

	replay_load(fuzzfile_write(data, size, ".csv"), &rp);
	replay_release(&rp);
	return 0;
}
