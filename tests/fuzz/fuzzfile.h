/*
 * tests/fuzz/fuzzfile.h: for the fuzz targets whose parser reads a path
 * (spec_load, replay_load): one scratch file per process, rewritten with
 * each input, so that a run of millions of inputs creates one file.
 */
#ifndef SWEETSPOT_FUZZFILE_H
#define SWEETSPOT_FUZZFILE_H

#include <stddef.h>
#include <stdint.h>

/* Writes data[0..size-1] to the process's scratch file (made on the first
 * call in $TMPDIR or /tmp with the given suffix, such as ".cfg", removed at
 * exit) and returns its path, which stays the same for the whole run. Aborts
 * when the file cannot be written: a harness that cannot feed its parser
 * must not report inputs as passing. */
const char *fuzzfile_write(const uint8_t *data, size_t size, const char *suffix);

#endif
