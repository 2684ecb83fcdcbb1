/*
 * common/strvec.c: argv vectors and shell quoting for display.
 */
#include "strvec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void strvec_init(struct strvec *sv)
{
	sv->v = NULL;
	sv->nr = sv->alloc = 0;
}

static void strvec_grow(struct strvec *sv)
{
	if (sv->nr + 2 > sv->alloc) {
		sv->alloc = sv->alloc ? sv->alloc * 2 : 16;
		sv->v = xrealloc(sv->v, sv->alloc * sizeof(*sv->v));
	}
}

const char *strvec_push(struct strvec *sv, const char *s)
{
	strvec_grow(sv);
	sv->v[sv->nr] = xstrdup(s);
	sv->v[++sv->nr] = NULL;
	return sv->v[sv->nr - 1];
}

const char *strvec_pushf(struct strvec *sv, const char *fmt, ...)
{
	va_list ap;
	int n;
	char *s;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	s = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	strvec_grow(sv);
	sv->v[sv->nr] = s;
	sv->v[++sv->nr] = NULL;
	return s;
}

void strvec_pushv(struct strvec *sv, const char *const *v)
{
	for (; *v; v++)
		strvec_push(sv, *v);
}

void strvec_clear(struct strvec *sv)
{
	for (size_t i = 0; i < sv->nr; i++)
		free(sv->v[i]);
	free(sv->v);
	strvec_init(sv);
}

static int needs_quoting(const char *w)
{
	if (!*w)
		return 1;
	for (; *w; w++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789-_./=:,+@%",
			    *w))
			return 1;
	return 0;
}

void shell_quote_append(char **dst, const char *word)
{
	size_t have = *dst ? strlen(*dst) : 0;
	size_t need = have + 4 * strlen(word) + 3;
	char *p;

	*dst = xrealloc(*dst, need);
	p = *dst + have;
	if (!needs_quoting(word)) {
		strcpy(p, word);
		return;
	}
	*p++ = '\'';
	for (; *word; word++) {
		if (*word == '\'') {
			memcpy(p, "'\\''", 4);
			p += 4;
		} else
			*p++ = *word;
	}
	*p++ = '\'';
	*p = '\0';
}

char *strvec_join(const struct strvec *sv, const char *sep)
{
	char *out = xstrdup(""), *next;

	for (size_t i = 0; i < sv->nr; i++) {
		next = xasprintf("%s%s%s", out, i ? sep : "", sv->v[i]);
		free(out);
		out = next;
	}
	return out;
}

char *strvec_join_quoted(const struct strvec *sv)
{
	char *s = xstrdup("");

	for (size_t i = 0; i < sv->nr; i++) {
		if (i) {
			s = xrealloc(s, strlen(s) + 2);
			strcat(s, " ");
		}
		shell_quote_append(&s, sv->v[i]);
	}
	return s;
}
