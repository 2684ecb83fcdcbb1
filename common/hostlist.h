/*
 * common/hostlist.h: Slurm hostlist syntax ("thor[001-008]", "n[1-3,7],x",
 * "rack[1-2]n[01-04]", "n[1-4]-bf") expanded into host names and
 * compressed back, and the RFC 1123 check that every host name of a spec
 * passes. The tuner reads specs with it; launch/ writes the node lists it
 * hands Slurm with it. Pure C, no I/O.
 */
#ifndef SWEETSPOT_HOSTLIST_H
#define SWEETSPOT_HOSTLIST_H

#include <stddef.h>

#include "strvec.h"

/* The limits of one hostlist, checked before any name is made, so that a
 * typo like "n[1-999999999]" or "a[1-99999]b[1-99999]" fails at once with
 * an error naming the limit instead of eating time and memory.
 * Names per hostlist: 2^20. The largest machines have 10^5 nodes (Fugaku
 * 158,976) and with a DPU beside each a step names twice that; 2^20 short
 * names take some 40 MB as a strvec. */
#define HOSTLIST_MAX	      1048576
/* Brackets in one name ("rack[1-2]n[01-04]" has 2): Slurm's own hostlists
 * have at most 5 dimensions. Ranges per bracket need no limit of their own:
 * each gives one name at least. */
#define HOSTLIST_MAX_BRACKETS 8
/* Bytes of one host name (RFC 1123), checked on the longest name an item
 * can make before it makes any. */
#define HOSTNAME_MAX	      253

/* Appends the names "s" expands to, in order, to out. Each bracket holds
 * comma-separated numbers or LO-HI ranges; a leading zero in LO pads every
 * number to LO's width, as Slurm does; several brackets multiply out. Every
 * name must be a valid host name. Returns 0, or -1 with a sentence in err
 * (out may then hold part of the names; the caller clears it). */
int hostlist_expand(const char *s, struct strvec *out, char *err, size_t errlen);
/* hostlist_expand() into an empty out whose names all live in one block,
 * *pool: the largest machines name 10^5 hosts, and one allocation each
 * cost more than making them. The caller frees out->v and *pool (also
 * after a failure) and never strvec_clear()s out, whose names are not
 * owned one by one, nor pushes onto it. */
int hostlist_expand_pooled(const char *s, struct strvec *out, char **pool, char *err,
			   size_t errlen);
/* The number of names s expands to, in *n, found without making them
 * (the same checks but the names' own: 0, or -1 with a sentence in err). */
int hostlist_count(const char *s, size_t *n, char *err, size_t errlen);

/* Slurm reads at most this many hosts in one LO-HI range and this many
 * ranges in one bracket (MAX_RANGE and MAX_RANGES, 64K each in Slurm
 * 22.05), and prints "n[1-100000]" that it then refuses to read:
 * hostlist_compress() cuts longer ranges and brackets into several. */
#define HOSTLIST_RANGE_MAX 65536

/* Flags of hostlist_compress(). HOSTLIST_SUFFIX: a bracket may have text
 * after it, "node[001-100]-bf". sweetspot and Slurm from 23.11 read that;
 * Slurm 22.05 refuses it ("Invalid hostlist"), so without the flag a name
 * whose number is not at its end is written out whole. */
#define HOSTLIST_SUFFIX 1u

/* The shortest hostlist in Slurm's syntax that expands to names[0..n-1]
 * in the same order, for Slurm and for hostlist_expand() alike: runs of
 * names that differ only in one number (the last in the name), printed
 * the same way (one zero-padded width, or none), become ranges in one
 * bracket ("n[3,1-2]" keeps the order 3, 1, 2). Never sorts. The caller
 * frees the result. */
char *hostlist_compress(const char *const *names, size_t n, unsigned flags);

/* 0 when name is a valid host name (RFC 1123: dot-separated labels of 1-63
 * letters, digits and '-', no label starting or ending with '-', 253 bytes
 * in all), else -1 with the reason in err. */
int hostname_check(const char *name, char *err, size_t errlen);

#endif
