/*
 * tuner/hostlist.h: Slurm hostlist syntax ("thor[001-008]", "n[1-3,7],x",
 * "rack[1-2]n[01-04]") expanded into host names and compressed back, and
 * the RFC 1123 check that every host name of a spec passes. Owned by the
 * plan module (issue 4); pure C, no I/O.
 */
#ifndef SWEETSPOT_HOSTLIST_H
#define SWEETSPOT_HOSTLIST_H

#include <stddef.h>

#include "strvec.h"

/* The limits of one hostlist, checked before any name is made, so that a
 * typo like "n[1-999999999]" or "a[1-9999]b[1-9999]" fails at once with an
 * error naming the limit instead of eating time and memory.
 * Names per hostlist: the largest machines have 10^4-10^5 nodes, and a
 * sweep of this tool is launched on a part of one; 65536 names of at most
 * 253 bytes stay under 20 MB. */
#define HOSTLIST_MAX 65536
/* Brackets in one name ("rack[1-2]n[01-04]" has 2): Slurm's own hostlists
 * have at most 5 dimensions. Ranges per bracket need no limit of their own:
 * each gives one name at least. */
#define HOSTLIST_MAX_BRACKETS 8
/* Bytes of one host name (RFC 1123), checked on the longest name an item
 * can make before it makes any. */
#define HOSTNAME_MAX 253

/* Appends the names "s" expands to, in order, to out. Each bracket holds
 * comma-separated numbers or LO-HI ranges; a leading zero in LO pads every
 * number to LO's width, as Slurm does; several brackets multiply out. Every
 * name must be a valid host name. Returns 0, or -1 with a sentence in err
 * (out may then hold part of the names; the caller clears it). */
int hostlist_expand(const char *s, struct strvec *out, char *err, size_t errlen);

/* The shortest hostlist (in Slurm's syntax) that expands to names[0..n-1]
 * in the same order: runs of one prefix with consecutive numbers become
 * ranges. The caller frees the result. */
char *hostlist_compress(const char *const *names, size_t n);

/* 0 when name is a valid host name (RFC 1123: dot-separated labels of 1-63
 * letters, digits and '-', no label starting or ending with '-', 253 bytes
 * in all), else -1 with the reason in err. */
int hostname_check(const char *name, char *err, size_t errlen);

#endif
