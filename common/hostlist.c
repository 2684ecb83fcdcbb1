/*
 * common/hostlist.c: Slurm hostlist expansion and compression. Specs name
 * thousands of nodes in one short string ("thor[0001-9999]"), so expansion
 * counts the names before making them and compression is a single pass that
 * merges neighbours, never a sort: the order of nodes is the order of ranks
 * (and, in a step's node list for Slurm, the order its plugins number
 * nodes in).
 */
#include "hostlist.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One bracket's numbers: ranges lo..hi printed with width digits (0: as is). */
struct range {
	unsigned long lo, hi;
	int width;
};

/* An item "a[1-2]b[3,5]c" as literal text and bracket sets, alternating. */
struct segment {
	const char *text; /* literal (points into the item), or NULL */
	size_t len;
	struct range *r; /* a bracket's ranges, or NULL for literal text */
	size_t nr;
	unsigned long count; /* names this bracket gives */
	size_t maxlen;	     /* bytes of its longest output */
};

/* One item of a hostlist, parsed: its segments and the names it gives. */
struct item {
	struct segment *seg;
	size_t nseg;
	unsigned long names;
	size_t maxlen; /* bytes of its longest name */
};

/* A letter, digit or '-' in ASCII, whatever the locale (isalnum() is also
 * a call per byte: 320,000 names are checked on Fugaku). */
static int is_host_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-';
}

int hostname_check(const char *name, char *err, size_t errlen)
{
	size_t len = strlen(name), label = 0;
	const char *p;

	if (!len) {
		snprintf(err, errlen, "empty host name");
		return -1;
	}
	if (len > HOSTNAME_MAX) {
		snprintf(err, errlen, "host name '%.40s...' is longer than %d characters", name,
			 HOSTNAME_MAX);
		return -1;
	}
	for (p = name;; p++) {
		if (*p == '.' || !*p) {
			if (!label) {
				snprintf(err, errlen, "host name '%s' has an empty label", name);
				return -1;
			}
			if (label > 63) {
				snprintf(err, errlen,
					 "host name '%s' has a label longer than 63 characters",
					 name);
				return -1;
			}
			if (p[-1] == '-') {
				snprintf(err, errlen, "host name '%s': a label ends with '-'",
					 name);
				return -1;
			}
			if (!*p)
				break;
			label = 0;
			continue;
		}
		if (!is_host_char(*p)) {
			if (isprint((unsigned char)*p))
				snprintf(err, errlen,
					 "host name '%s' has '%c', which a host name cannot have",
					 name, *p);
			else
				snprintf(err, errlen,
					 "host name has the byte 0x%02x, which a host name cannot "
					 "have",
					 (unsigned char)*p);
			return -1;
		}
		if (!label && *p == '-') {
			snprintf(err, errlen, "host name '%s': a label starts with '-'", name);
			return -1;
		}
		label++;
	}
	return 0;
}

static int parse_number(const char *s, size_t len, unsigned long *v, const char *item, char *err,
			size_t errlen)
{
	*v = 0;
	if (!len || len > 9) {
		snprintf(err, errlen, "hostlist '%s': %s", item,
			 len ? "a number has more than 9 digits" : "an empty number in brackets");
		return -1;
	}
	for (size_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i])) {
			snprintf(err, errlen,
				 "hostlist '%s': '%.*s' is not a number or a range LO-HI", item,
				 (int)len, s);
			return -1;
		}
		*v = *v * 10 + (unsigned long)(s[i] - '0');
	}
	return 0;
}

/* A hostlist over a limit may be huge: messages show its first bytes. */
#define SHOWN	      64
#define SHOWN_ARGS(s) SHOWN, (s), strlen(s) > SHOWN ? "..." : ""

static int too_many(const char *item, char *err, size_t errlen)
{
	snprintf(err, errlen,
		 "hostlist '%.*s%s' expands to more than %d names, the limit per hostlist",
		 SHOWN_ARGS(item), HOSTLIST_MAX);
	return -1;
}

/* Digits the numbers of r print with: the padded width, else hi's digits. */
static size_t range_digits(const struct range *r)
{
	size_t d = 1;

	for (unsigned long v = r->hi; v >= 10; v /= 10)
		d++;
	return (size_t)r->width > d ? (size_t)r->width : d;
}

/* Parses the inside of one bracket, "1-3,07" (len bytes at s). Each range
 * gives one name at least, so the names' limit bounds the ranges too. */
static int parse_bracket(const char *s, size_t len, struct segment *seg, const char *item,
			 char *err, size_t errlen)
{
	const char *p = s, *end = s + len;
	size_t cap = 0;

	seg->count = 0;
	while (p <= end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *stop = comma ? comma : end;
		const char *dash = memchr(p, '-', (size_t)(stop - p));
		struct range r;

		if (stop == p) {
			snprintf(err, errlen, "hostlist '%s': an empty item in brackets", item);
			return -1;
		}
		if (parse_number(p, (size_t)((dash ? dash : stop) - p), &r.lo, item, err, errlen))
			return -1;
		r.hi = r.lo;
		if (dash &&
		    parse_number(dash + 1, (size_t)(stop - dash - 1), &r.hi, item, err, errlen))
			return -1;
		if (r.hi < r.lo) {
			snprintf(err, errlen, "hostlist '%s': range %lu-%lu runs backwards", item,
				 r.lo, r.hi);
			return -1;
		}
		r.width = *p == '0' && (dash ? dash : stop) - p > 1 ?
				  (int)((dash ? dash : stop) - p) :
				  0;
		/* Counted before it is kept: a huge range costs nothing. */
		seg->count += r.hi - r.lo + 1;
		if (seg->count > HOSTLIST_MAX)
			return too_many(item, err, errlen);
		if (seg->nr == cap) {
			cap = cap ? 2 * cap : 4;
			seg->r = xrealloc(seg->r, cap * sizeof(*seg->r));
		}
		seg->r[seg->nr++] = r;
		seg->maxlen = seg->maxlen > range_digits(&r) ? seg->maxlen : range_digits(&r);
		p = stop + 1;
	}
	return 0;
}

static void item_release(struct item *it)
{
	for (size_t i = 0; i < it->nseg; i++)
		free(it->seg[i].r);
	free(it->seg);
}

static void item_push(struct item *it, const struct segment *s)
{
	it->seg = xrealloc(it->seg, (it->nseg + 1) * sizeof(*it->seg));
	it->seg[it->nseg++] = *s;
	it->maxlen += s->maxlen;
}

/* Parses one item (no top-level comma) into it, counting its names and the
 * length of its longest name without making any. it->seg may be set on
 * failure too: item_release() frees it. */
static int parse_item(const char *item, struct item *it, char *err, size_t errlen)
{
	const char *p = item;
	size_t brackets = 0;

	it->names = 1;
	while (*p) {
		const char *open = strchr(p, '['), *close;
		struct segment s = { 0 };

		if (open != p) {
			s.text = p;
			s.len = s.maxlen = open ? (size_t)(open - p) : strlen(p);
			if (memchr(p, ']', s.len)) {
				snprintf(err, errlen, "hostlist '%s' has ']' without '['", item);
				return -1;
			}
			item_push(it, &s);
			p += s.len;
			continue;
		}
		close = strchr(open, ']');
		if (!close) {
			snprintf(err, errlen, "hostlist '%s' has '[' without ']'", item);
			return -1;
		}
		if (memchr(open + 1, '[', (size_t)(close - open - 1))) {
			snprintf(err, errlen, "hostlist '%s' has nested brackets", item);
			return -1;
		}
		if (++brackets > HOSTLIST_MAX_BRACKETS) {
			snprintf(err, errlen,
				 "hostlist '%.*s%s' has more than %d brackets in one name, the "
				 "limit",
				 SHOWN_ARGS(item), HOSTLIST_MAX_BRACKETS);
			return -1;
		}
		if (parse_bracket(open + 1, (size_t)(close - open - 1), &s, item, err, errlen)) {
			free(s.r);
			return -1;
		}
		item_push(it, &s);
		/* Divided, not multiplied: the product cannot overflow. */
		if (s.count > HOSTLIST_MAX / it->names)
			return too_many(item, err, errlen);
		it->names *= s.count;
		p = close + 1;
	}
	if (it->maxlen > HOSTNAME_MAX) {
		snprintf(err, errlen,
			 "hostlist '%.*s%s' makes names longer than %d characters, the limit",
			 SHOWN_ARGS(item), HOSTNAME_MAX);
		return -1;
	}
	return 0;
}

/* v printed at w with at least width digits (zeros in front); returns
 * the bytes written. */
static size_t put_number(char *w, unsigned long v, int width)
{
	char t[24];
	size_t k = sizeof(t);

	do
		t[--k] = (char)('0' + v % 10);
	while (v /= 10);
	while (sizeof(t) - k < (size_t)width)
		t[--k] = '0';
	memcpy(w, t + k, sizeof(t) - k);
	return sizeof(t) - k;
}

/* Whether every name of a parsed item is a valid host name, found from
 * one: its widest, each bracket's number at its most digits. Digits are
 * valid anywhere and never empty, so a number narrower than that only
 * shortens a label or the name. 0 says each name must be checked. */
static int item_names_valid(const struct item *it)
{
	char name[HOSTNAME_MAX + 1], err[1];
	char *w = name;

	for (size_t i = 0; i < it->nseg; i++) {
		const struct segment *s = &it->seg[i];

		if (s->r)
			memset(w, '0', s->maxlen);
		else
			memcpy(w, s->text, s->len);
		w += s->r ? s->maxlen : s->len;
	}
	*w = '\0';
	return !hostname_check(name, err, sizeof(err));
}

/* Appends the names of a parsed item: an odometer over its brackets, the
 * last one turning fastest, each wheel a range and an offset in it (so
 * that a bracket of 100,000 ranges costs no more per name than one). */
static int expand_item(const struct item *it, struct strvec *out, char **pool, char *err,
		       size_t errlen)
{
	size_t *ri = xcalloc(it->nseg + 1, sizeof(*ri));
	unsigned long *off = xcalloc(it->nseg + 1, sizeof(*off));
	char name[HOSTNAME_MAX + 1];
	int check_each = !item_names_valid(it), ret = -1;

	for (unsigned long k = 0; k < it->names; k++) {
		char *w = name;

		for (size_t i = 0; i < it->nseg; i++) {
			const struct segment *s = &it->seg[i];

			if (s->r) {
				w += put_number(w, s->r[ri[i]].lo + off[i], s->r[ri[i]].width);
			} else {
				memcpy(w, s->text, s->len);
				w += s->len;
			}
		}
		*w = '\0';
		if (check_each && hostname_check(name, err, errlen))
			goto out;
		if (pool) {
			/* room for every name was made by expand() */
			memcpy(*pool, name, (size_t)(w - name) + 1);
			out->v[out->nr++] = *pool;
			out->v[out->nr] = NULL;
			*pool += w - name + 1;
		} else {
			strvec_push(out, name);
		}
		for (size_t i = it->nseg; i-- > 0;) {
			const struct segment *s = &it->seg[i];

			if (!s->r)
				continue;
			if (s->r[ri[i]].lo + ++off[i] <= s->r[ri[i]].hi)
				break;
			off[i] = 0;
			if (++ri[i] < s->nr)
				break;
			ri[i] = 0;
		}
	}
	ret = 0;
out:
	free(ri);
	free(off);
	return ret;
}

/* Cuts copy (modified in place) into items at top-level commas, into
 * *items (their starts). Returns the number of items, or -1. */
static long split_items(char *copy, const char *s, char ***items, char *err, size_t errlen)
{
	char *p = copy;
	long n = 0, cap = 0;

	while (p) {
		char *q = p;
		int depth = 0;

		/* The item ends at the first comma outside brackets. */
		for (; *q; q++) {
			if (*q == '[')
				depth++;
			else if (*q == ']')
				depth--;
			else if (*q == ',' && !depth)
				break;
		}
		if (q == p) {
			snprintf(err, errlen, "hostlist '%s' has an empty item", s);
			return -1;
		}
		/* Each item names one host at least. */
		if (n >= HOSTLIST_MAX)
			return too_many(s, err, errlen);
		if (*q) {
			*q++ = '\0';
			if (!*q) {
				snprintf(err, errlen, "hostlist '%s' ends with ','", s);
				return -1;
			}
		} else
			q = NULL;
		if (n == cap) {
			cap = cap ? 2 * cap : 8;
			*items = xrealloc(*items, (size_t)cap * sizeof(**items));
		}
		(*items)[n++] = p;
		p = q;
	}
	return n;
}

/* hostlist_expand() into out, or (out NULL) only the count of names. */
static int expand(const char *s, struct strvec *out, char **pool, size_t *count, char *err,
		  size_t errlen)
{
	char *copy = xstrdup(s), **items = NULL, *next = NULL;
	struct item *it = NULL;
	unsigned long total = 0;
	size_t bytes = 0;
	long n = 0, i;
	int ret = -1;

	if (!*s) {
		snprintf(err, errlen, "empty hostlist");
		goto out;
	}
	n = split_items(copy, s, &items, err, errlen);
	if (n < 0)
		goto out;
	/* Every item is parsed and counted before the first name is made, so
	 * a hostlist over the limit allocates nothing for its names. */
	it = xcalloc((size_t)n, sizeof(*it));
	for (i = 0; i < n; i++) {
		if (parse_item(items[i], &it[i], err, errlen))
			goto out;
		total += it[i].names;
		if (total > HOSTLIST_MAX) {
			too_many(s, err, errlen);
			goto out;
		}
		bytes += it[i].names * (it[i].maxlen + 1);
	}
	if (pool) {
		*pool = next = xmalloc(bytes ? bytes : 1);
		out->alloc = total + 1;
		out->v = xcalloc(out->alloc, sizeof(*out->v));
	}
	for (i = 0; out && i < n; i++)
		if (expand_item(&it[i], out, pool ? &next : NULL, err, errlen))
			goto out;
	*count = total;
	ret = 0;
out:
	for (i = 0; it && i < n; i++)
		item_release(&it[i]);
	free(it);
	free(items);
	free(copy);
	return ret;
}

int hostlist_expand(const char *s, struct strvec *out, char *err, size_t errlen)
{
	size_t n;

	return expand(s, out, NULL, &n, err, errlen);
}

int hostlist_expand_pooled(const char *s, struct strvec *out, char **pool, char *err, size_t errlen)
{
	size_t n;

	*pool = NULL;
	return expand(s, out, pool, &n, err, errlen);
}

int hostlist_count(const char *s, size_t *n, char *err, size_t errlen)
{
	return expand(s, NULL, NULL, n, err, errlen);
}

/* A name as hostlist_compress() sees it: prefix, number, suffix
 * ("node007-bf": "node", 7 in 3 digits, "-bf"). The number is the last run
 * of digits; a name with none, with more than 9 digits there, or (without
 * HOSTLIST_SUFFIX) with text after them has digits 0 and stands alone. */
struct name_parts {
	const char *name;
	size_t plen;	    /* prefix: name[0..plen) */
	const char *suffix; /* after the number: holds no digit */
	unsigned long num;
	int digits;
	int width; /* zero-padded width, or 0 when not padded */
};

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static void split_name(const char *name, unsigned flags, struct name_parts *p)
{
	size_t len = strlen(name), end = len, i;

	while (end > 0 && !is_digit(name[end - 1]))
		end--;
	i = end;
	while (i > 0 && is_digit(name[i - 1]))
		i--;
	p->name = name;
	p->plen = i;
	p->suffix = name + end;
	p->digits = (int)(end - i);
	p->num = 0;
	if (!p->digits || p->digits > 9 || (end < len && !(flags & HOSTLIST_SUFFIX))) {
		p->plen = len;
		p->suffix = name + len;
		p->digits = p->width = 0;
		return;
	}
	for (size_t k = i; k < end; k++)
		p->num = p->num * 10 + (unsigned long)(name[k] - '0');
	/* "007" prints padded to 3; "100" prints as itself at any width. */
	p->width = p->digits > 1 && name[i] == '0' ? p->digits : 0;
}

/* Whether b can share a's bracket: same prefix and suffix, and its number
 * printed the way a's bracket prints (a's padded width, or no padding). */
static int same_bracket(const struct name_parts *a, const struct name_parts *b)
{
	if (!a->digits || !b->digits || a->plen != b->plen || strcmp(a->suffix, b->suffix) ||
	    memcmp(a->name, b->name, a->plen))
		return 0;
	return a->width ? b->digits == a->width : !b->width;
}

static void append(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n + 1 > *cap) {
		*cap = (*len + n + 1) * 2;
		*buf = xrealloc(*buf, *cap);
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
}

char *hostlist_compress(const char *const *names, size_t n, unsigned flags)
{
	size_t len = 0, cap = 64, i = 0;
	char *buf = xmalloc(cap), num[48];

	buf[0] = '\0';
	while (i < n) {
		struct name_parts first, p;
		size_t ranges = 0;

		if (i)
			append(&buf, &len, &cap, ",", 1);
		split_name(names[i], flags, &first);
		if (i + 1 < n)
			split_name(names[i + 1], flags, &p);
		if (i + 1 == n || !same_bracket(&first, &p)) {
			append(&buf, &len, &cap, names[i], strlen(names[i]));
			i++;
			continue;
		}
		/* One bracket: ranges of consecutive numbers, each at most
		 * HOSTLIST_RANGE_MAX hosts, at most HOSTLIST_RANGE_MAX of them. */
		append(&buf, &len, &cap, first.name, first.plen);
		append(&buf, &len, &cap, "[", 1);
		p = first;
		while (ranges < HOSTLIST_RANGE_MAX) {
			unsigned long lo = p.num, hi = p.num;
			struct name_parts q;

			for (i++; i < n && hi - lo + 1 < HOSTLIST_RANGE_MAX; i++) {
				split_name(names[i], flags, &q);
				if (!same_bracket(&first, &q) || q.num != hi + 1)
					break;
				hi = q.num;
			}
			if (hi > lo)
				snprintf(num, sizeof(num), "%s%0*lu-%0*lu", ranges ? "," : "",
					 first.width, lo, first.width, hi);
			else
				snprintf(num, sizeof(num), "%s%0*lu", ranges ? "," : "",
					 first.width, lo);
			append(&buf, &len, &cap, num, strlen(num));
			ranges++;
			if (i == n)
				break;
			split_name(names[i], flags, &p);
			if (!same_bracket(&first, &p))
				break;
		}
		append(&buf, &len, &cap, "]", 1);
		append(&buf, &len, &cap, first.suffix, strlen(first.suffix));
	}
	return buf;
}
