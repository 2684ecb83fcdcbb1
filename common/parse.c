/*
 * common/parse.c: strict number parsing for options and spec values. strtoull
 * with an end pointer, ERANGE and a range check: "12abc", "-1" and "" are all
 * errors, never silently 0 as atoi would have it.
 */
#include "parse.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out, char *err, size_t errlen)
{
	char *end;
	unsigned long long v;

	if (!s || !isdigit((unsigned char)*s)) {
		snprintf(err, errlen, "'%s' is not a number", s ? s : "");
		return -1;
	}
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE || *end) {
		snprintf(err, errlen, "'%s' is not a number", s);
		return -1;
	}
	if (v < min || v > max) {
		snprintf(err, errlen, "%s is out of range [%" PRIu64 ", %" PRIu64 "]", s, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

int parse_budget(const char *s, unsigned *n, double *frac, char *err, size_t errlen)
{
	size_t len = s ? strlen(s) : 0;
	uint64_t v;

	if (len && s[len - 1] == '%') {
		char *end;
		double p;

		errno = 0;
		p = strtod(s, &end);
		if (end != s + len - 1 || errno == ERANGE || !isdigit((unsigned char)*s) ||
		    !(p > 0 && p <= 100)) {
			snprintf(err, errlen, "'%s' is not a percentage in (0, 100]", s);
			return -1;
		}
		*n = 0;
		*frac = p / 100;
		return 0;
	}
	if (parse_uint(s, 1, 100000000, &v, err, errlen)) {
		snprintf(err, errlen,
			 "'%s' is neither a number of launches in [1, 100000000] "
			 "nor a percentage of the grid such as 15%%",
			 s ? s : "");
		return -1;
	}
	*n = (unsigned)v;
	*frac = 0;
	return 0;
}

int parse_size(const char *s, uint64_t *out, char *err, size_t errlen)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	if (!s || !isdigit((unsigned char)*s)) {
		snprintf(err, errlen, "'%s' is not a size", s ? s : "");
		return -1;
	}
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE) {
		snprintf(err, errlen, "'%s' is too large", s);
		return -1;
	}
	if (*end) {
		if (!strcasecmp(end, "k") || !strcasecmp(end, "kib") || !strcasecmp(end, "kb"))
			shift = 10;
		else if (!strcasecmp(end, "m") || !strcasecmp(end, "mib") || !strcasecmp(end, "mb"))
			shift = 20;
		else if (!strcasecmp(end, "g") || !strcasecmp(end, "gib") || !strcasecmp(end, "gb"))
			shift = 30;
		else {
			snprintf(err, errlen, "'%s' is not a size (use bytes, or K, M, G)", s);
			return -1;
		}
	}
	if (v == 0) {
		snprintf(err, errlen, "size '%s' must be at least 1 byte", s);
		return -1;
	}
	if (v > (UINT64_MAX >> shift)) {
		snprintf(err, errlen, "'%s' is too large", s);
		return -1;
	}
	*out = (uint64_t)v << shift;
	return 0;
}

static int push_size(uint64_t v, uint64_t *out, size_t max, size_t *n, char *err, size_t errlen)
{
	if (*n >= max) {
		snprintf(err, errlen, "too many sizes (at most %zu)", max);
		return -1;
	}
	out[(*n)++] = v;
	return 0;
}

int parse_sizes(const char *s, int pow2, uint64_t *out, size_t max, size_t *n, char *err,
		size_t errlen)
{
	char buf[256], *colon, *tok, *save;
	uint64_t lo, hi;

	*n = 0;
	if (!s || !*s) {
		snprintf(err, errlen, "empty size list");
		return -1;
	}
	if (strlen(s) >= sizeof(buf)) {
		snprintf(err, errlen, "size list too long");
		return -1;
	}
	strcpy(buf, s);
	colon = strchr(buf, ':');
	if (colon) {
		*colon = '\0';
		if (strchr(colon + 1, ':') || strchr(buf, ',') || strchr(colon + 1, ',')) {
			snprintf(err, errlen, "'%s' is not a range FIRST:LAST", s);
			return -1;
		}
		if (parse_size(buf, &lo, err, errlen) || parse_size(colon + 1, &hi, err, errlen))
			return -1;
		if (!is_pow2(lo) || !is_pow2(hi)) {
			snprintf(err, errlen, "range '%s': both ends must be powers of two", s);
			return -1;
		}
		if (lo > hi) {
			snprintf(err, errlen, "range '%s' runs backwards (first > last)", s);
			return -1;
		}
		for (uint64_t v = lo; v <= hi && v; v <<= 1)
			if (push_size(v, out, max, n, err, errlen))
				return -1;
		return 0;
	}
	for (tok = buf; tok; tok = save) {
		uint64_t v;

		save = strchr(tok, ',');
		if (save)
			*save++ = '\0';
		if (!*tok) {
			snprintf(err, errlen, "'%s' has an empty item", s);
			return -1;
		}
		if (parse_size(tok, &v, err, errlen))
			return -1;
		if (pow2 && !is_pow2(v)) {
			snprintf(err, errlen, "size '%s' is not a power of two", tok);
			return -1;
		}
		if (push_size(v, out, max, n, err, errlen))
			return -1;
	}
	if (!*n) {
		snprintf(err, errlen, "empty size list");
		return -1;
	}
	return 0;
}

const char *format_size(uint64_t bytes, char *buf, size_t len)
{
	if (bytes && !(bytes & ((1u << 30) - 1)))
		snprintf(buf, len, "%" PRIu64 "G", bytes >> 30);
	else if (bytes && !(bytes & ((1u << 20) - 1)))
		snprintf(buf, len, "%" PRIu64 "M", bytes >> 20);
	else if (bytes && !(bytes & ((1u << 10) - 1)))
		snprintf(buf, len, "%" PRIu64 "K", bytes >> 10);
	else
		snprintf(buf, len, "%" PRIu64, bytes);
	return buf;
}

int parse_name(const char *s, const char *const *names, int n)
{
	for (int i = 0; s && i < n; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

int parse_same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}
