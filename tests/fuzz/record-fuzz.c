/*
 * tests/fuzz/record-fuzz.c: libFuzzer target for the parser of the
 * kernel's JSON record (one line per point). The input is the line (cut at
 * its first NUL, as getline() callers pass it); a parsed point is released.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The parser's name and header, in this one place: the record parser is
 * record.h (record_parse), the one parser of kernel records. */
#include "record.h"
#include "store.h"
#define RECORD_PARSE   record_parse
#define RECORD_RELEASE store_point_release

#include "xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct store_point p;
	char err[512];
	char *line = xmalloc(size + 1);

	memcpy(line, data, size);
	line[size] = '\0';
	if (!RECORD_PARSE(line, &p, err, sizeof(err)))
		RECORD_RELEASE(&p);
	free(line);
	return 0;
}
