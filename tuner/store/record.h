/*
 * tuner/store/record.h: the kernel's record, one JSON object per point, read into
 * a struct store_point (store.h). The one parser of that line: sweeps,
 * baseline (through the engine, tuner/engine/runner.h) and recommend's --records
 * all read records through record_parse(), so a field the kernel adds or
 * renames is handled in one place.
 */
#ifndef SWEETSPOT_RECORD_H
#define SWEETSPOT_RECORD_H

#include "store.h"

#include <stddef.h>

/* The fields of a point's record, in one table: the record parser, the
 * store (its columns, what it inserts and reads), `results --json` and
 * `results --csv` all walk it, so a field is added in one row (and, for
 * the store, in its schema: store_db.c, which a unit test holds against
 * this table). The order is results --csv's, then the rest. */
enum rec_type {
	REC_TEXT,  /* const char *: "" when absent */
	REC_INT,   /* int: -1 when absent */
	REC_LL,	   /* long long: -1 when absent */
	REC_U64,   /* uint64_t (bytes, chunk) */
	REC_UINT,  /* unsigned (window, radix) */
	REC_REAL,  /* double: NaN when absent */
	REC_BOOL,  /* int: 0 or 1 (valid) */
	REC_TRI,   /* int: 1 yes, -1 no, 0 not said (calibrated) */
	REC_ARRAY, /* const char *: a JSON array as text (rank_hosts) */
};

#define REC_COLUMN    0x01u /* a column of the store's points table */
#define REC_ROWID     0x02u /* ... that the store numbers itself (not inserted) */
#define REC_NOTNULL   0x04u /* ... NOT NULL: '' or 0 where it does not apply */
#define REC_KERNEL    0x08u /* read from the kernel's record as it is */
#define REC_JSON      0x10u /* in `results --json` */
#define REC_CSV	      0x20u /* in `results --csv` */
#define REC_INVALID   0x40u /* in --json only when the point is invalid */
#define REC_ZERO_NULL 0x80u /* 0 means "does not apply": null in JSON, "" in CSV */

struct rec_field {
	const char *name; /* the record's key, the column, the CSV header */
	enum rec_type type;
	size_t off; /* in struct store_point */
	unsigned flags;
};

extern const struct rec_field rec_fields[];
extern const size_t rec_nfields;

/* The field's value in p, by the table's offset. */
static inline void *rec_at(const struct store_point *p, const struct rec_field *f)
{
	return (char *)p + f->off;
}

/* "a, b, c": the names of the fields with every flag of `all` and none of
 * `none`, into a malloc'd string; *n (when not NULL) gets their count. */
char *rec_names(unsigned all, unsigned none, size_t *n);

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
