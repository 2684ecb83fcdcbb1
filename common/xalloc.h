/*
 * common/xalloc.h: the x-alloc family. Each returns memory the caller owns
 * and frees; none returns NULL: out of memory aborts with a message.
 */
#ifndef SWEETSPOT_XALLOC_H
#define SWEETSPOT_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
