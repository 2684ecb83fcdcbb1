/*
 * common/strvec.h: a growable NULL-terminated vector of owned strings, the
 * argv of every child process (no shell ever sees one of these strings).
 */
#ifndef SWEETSPOT_STRVEC_H
#define SWEETSPOT_STRVEC_H

#include <stddef.h>

#include "xalloc.h"

struct strvec {
	char **v; /* v[nr] == NULL; owned, like every v[i] */
	size_t nr;
	size_t alloc;
};

#define STRVEC_INIT        \
	{                  \
		NULL, 0, 0 \
	}

void strvec_init(struct strvec *sv);
/* Copies s. Aborts on out of memory, as every allocation here does. */
const char *strvec_push(struct strvec *sv, const char *s);
const char *strvec_pushf(struct strvec *sv, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void strvec_pushv(struct strvec *sv, const char *const *v);
void strvec_clear(struct strvec *sv);

/* The vector as one line for people, each word shell-quoted where needed.
 * The caller frees the result. */
char *strvec_join_quoted(const struct strvec *sv);
/* The words joined by sep, as they are ("a,b,c" for ","). The caller frees
 * the result. */
char *strvec_join(const struct strvec *sv, const char *sep);
/* One word shell-quoted where needed, appended to a malloc'd string *dst. */
void shell_quote_append(char **dst, const char *word);

#endif
