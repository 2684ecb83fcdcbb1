/*
 * common/timestamp.c: ISO 8601 time stamps in UTC, one format everywhere.
 */
#include "timestamp.h"
#include "xalloc.h"

#include <time.h>

char *timestamp_now_iso(void)
{
	char buf[32];
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return xstrdup(buf);
}
