/*
 * common/timestamp.h: time stamps as the store and the logs write them.
 */
#ifndef SWEETSPOT_TIMESTAMP_H
#define SWEETSPOT_TIMESTAMP_H

/* Now, in UTC, as ISO 8601 ("2026-11-23T14:36:00Z"); the caller frees it. */
char *timestamp_now_iso(void);

#endif
