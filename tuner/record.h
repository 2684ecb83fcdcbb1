/*
 * tuner/record.h: the kernel's record, one JSON object per point, read into
 * a struct store_point (store.h). The one parser of that line: sweeps,
 * baseline (through the engine, tuner/runner.h) and recommend's --records
 * all read records through record_parse(), so a field the kernel adds or
 * renames is handled in one place.
 */
#ifndef SWEETSPOT_RECORD_H
#define SWEETSPOT_RECORD_H

#include "store.h"

#include <stddef.h>

/* Parses one JSON line of the kernel into *p (strings malloc'd; free them
 * with store_point_release()). Returns 0, or -1 with a sentence in err when
 * the line is not a JSON object or lacks a required field (collective,
 * algorithm, assignment, bytes, valid, total_us when valid). Records of
 * mode "mpi" (Open MPI measured alone: no workers, so nothing is assigned)
 * may lack assignment, which then reads "none". Optional "layout" and
 * "placement" (records a person assembled) are kept, else "". Does not
 * print. */
int record_parse(const char *line, struct store_point *p, char *err, size_t errlen);

#endif
