/*
 * tuner/hostlist.c: Slurm hostlist expansion and compression. Specs name
 * thousands of nodes in one short string ("thor[0001-9999]"), so expansion
 * counts the names before making them and compression is a single pass that
 * merges neighbours, never a sort: the order of nodes is the order of ranks.
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
	const char *text;	/* literal (points into the item), or NULL */
	size_t len;
	struct range *r;	/* a bracket's ranges, or NULL for literal text */
	size_t nr;
	unsigned long count;	/* names this bracket gives */
};

int hostname_check(const char *name, char *err, size_t errlen)
{
	size_t len = strlen(name), label = 0;
	const char *p;

	if (!len) {
		snprintf(err, errlen, "empty host name");
		return -1;
	}
	if (len > 253) {
		snprintf(err, errlen, "host name '%.40s...' is longer than 253 characters", name);
		return -1;
	}
	for (p = name; ; p++) {
		if (*p == '.' || !*p) {
			if (!label) {
				snprintf(err, errlen, "host name '%s' has an empty label", name);
				return -1;
			}
			if (label > 63) {
				snprintf(err, errlen, "host name '%s' has a label longer than 63 characters", name);
				return -1;
			}
			if (p[-1] == '-') {
				snprintf(err, errlen, "host name '%s': a label ends with '-'", name);
				return -1;
			}
			if (!*p)
				break;
			label = 0;
			continue;
		}
		if (!isalnum((unsigned char)*p) && *p != '-') {
			if (isprint((unsigned char)*p))
				snprintf(err, errlen, "host name '%s' has '%c', which a host name cannot have",
					 name, *p);
			else
				snprintf(err, errlen, "host name has the byte 0x%02x, which a host name cannot have",
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

static int parse_number(const char *s, size_t len, unsigned long *v, const char *item,
			char *err, size_t errlen)
{
	*v = 0;
	if (!len || len > 9) {
		snprintf(err, errlen, "hostlist '%s': %s", item,
			 len ? "a number has more than 9 digits" : "an empty number in brackets");
		return -1;
	}
	for (size_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i])) {
			snprintf(err, errlen, "hostlist '%s': '%.*s' is not a number or a range LO-HI",
				 item, (int)len, s);
			return -1;
		}
		*v = *v * 10 + (unsigned long)(s[i] - '0');
	}
	return 0;
}

/* Parses the inside of one bracket, "1-3,07" (len bytes at s). */
static int parse_bracket(const char *s, size_t len, struct segment *seg,
			 const char *item, char *err, size_t errlen)
{
	const char *p = s, *end = s + len;

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
		if (dash && parse_number(dash + 1, (size_t)(stop - dash - 1), &r.hi, item, err, errlen))
			return -1;
		if (r.hi < r.lo) {
			snprintf(err, errlen, "hostlist '%s': range %lu-%lu runs backwards", item, r.lo, r.hi);
			return -1;
		}
		r.width = *p == '0' && (dash ? dash : stop) - p > 1 ? (int)((dash ? dash : stop) - p) : 0;
		seg->r = xrealloc(seg->r, (seg->nr + 1) * sizeof(*seg->r));
		seg->r[seg->nr++] = r;
		seg->count += r.hi - r.lo + 1;
		if (seg->count > HOSTLIST_MAX) {
			snprintf(err, errlen, "hostlist '%s' names more than %d hosts", item, HOSTLIST_MAX);
			return -1;
		}
		p = stop + 1;
	}
	return 0;
}

/* The idx-th number of a bracket, printed into buf. */
static void bracket_nth(const struct segment *seg, unsigned long idx, char *buf, size_t len)
{
	for (size_t i = 0; i < seg->nr; i++) {
		unsigned long n = seg->r[i].hi - seg->r[i].lo + 1;

		if (idx < n) {
			snprintf(buf, len, "%0*lu", seg->r[i].width, seg->r[i].lo + idx);
			return;
		}
		idx -= n;
	}
}

static void segments_free(struct segment *seg, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(seg[i].r);
	free(seg);
}

/* Expands one item (no top-level comma), "item" being its own copy. */
static int expand_item(const char *item, struct strvec *out, size_t *total,
		       char *err, size_t errlen)
{
	struct segment *seg = NULL;
	size_t nseg = 0, cap = strlen(item) + 16;
	unsigned long names = 1, *idx = NULL;
	const char *p = item;
	char *name = NULL, num[16];
	int ret = -1;

	while (*p) {
		const char *open = strchr(p, '['), *close;
		struct segment s = { 0 };

		if (open != p) {
			s.text = p;
			s.len = open ? (size_t)(open - p) : strlen(p);
			if (memchr(p, ']', s.len)) {
				snprintf(err, errlen, "hostlist '%s' has ']' without '['", item);
				goto out;
			}
			seg = xrealloc(seg, (nseg + 1) * sizeof(*seg));
			seg[nseg++] = s;
			p += s.len;
			continue;
		}
		close = strchr(open, ']');
		if (!close) {
			snprintf(err, errlen, "hostlist '%s' has '[' without ']'", item);
			goto out;
		}
		if (memchr(open + 1, '[', (size_t)(close - open - 1))) {
			snprintf(err, errlen, "hostlist '%s' has nested brackets", item);
			goto out;
		}
		if (parse_bracket(open + 1, (size_t)(close - open - 1), &s, item, err, errlen)) {
			free(s.r);
			goto out;
		}
		seg = xrealloc(seg, (nseg + 1) * sizeof(*seg));
		seg[nseg++] = s;
		names *= s.count;
		if (names + *total > HOSTLIST_MAX) {
			snprintf(err, errlen, "hostlist '%s' names more than %d hosts", item, HOSTLIST_MAX);
			goto out;
		}
		p = close + 1;
	}
	/* An odometer over the brackets, the last one turning fastest. */
	idx = xcalloc(nseg + 1, sizeof(*idx));
	name = xmalloc(cap + 10 * nseg);
	for (unsigned long k = 0; k < names; k++) {
		char *w = name;

		for (size_t i = 0; i < nseg; i++) {
			if (seg[i].r) {
				bracket_nth(&seg[i], idx[i], num, sizeof(num));
				w += sprintf(w, "%s", num);
			} else {
				memcpy(w, seg[i].text, seg[i].len);
				w += seg[i].len;
			}
		}
		*w = '\0';
		if (hostname_check(name, err, errlen))
			goto out;
		strvec_push(out, name);
		for (size_t i = nseg; i-- > 0;) {
			if (!seg[i].r)
				continue;
			if (++idx[i] < seg[i].count)
				break;
			idx[i] = 0;
		}
	}
	*total += names;
	ret = 0;
out:
	free(idx);
	free(name);
	segments_free(seg, nseg);
	return ret;
}

int hostlist_expand(const char *s, struct strvec *out, char *err, size_t errlen)
{
	char *copy = xstrdup(s), *p = copy;
	size_t total = 0;
	int ret = -1;

	if (!*s) {
		snprintf(err, errlen, "empty hostlist");
		goto out;
	}
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
			goto out;
		}
		if (*q) {
			*q = '\0';
			q++;
			if (!*q) {
				snprintf(err, errlen, "hostlist '%s' ends with ','", s);
				goto out;
			}
		} else
			q = NULL;
		if (expand_item(p, out, &total, err, errlen))
			goto out;
		p = q;
	}
	ret = 0;
out:
	free(copy);
	return ret;
}

/* Splits a name into a prefix and a trailing number: "thor007" -> "thor",
 * 7, digits 3. Names without a trailing number (or with too long a one)
 * get digits 0. */
static void split_name(const char *name, size_t *plen, unsigned long *num, int *digits)
{
	size_t len = strlen(name), i = len;

	while (i > 0 && isdigit((unsigned char)name[i - 1]))
		i--;
	*plen = i;
	*digits = (int)(len - i);
	*num = 0;
	if (*digits == 0 || *digits > 9) {
		*plen = len;
		*digits = 0;
		return;
	}
	*num = strtoul(name + i, NULL, 10);
}

/* Width a run must print with: digits when zero-padded, else 0. */
static int pad_width(const char *name, size_t plen, int digits)
{
	return digits > 1 && name[plen] == '0' ? digits : 0;
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

char *hostlist_compress(const char *const *names, size_t n)
{
	size_t len = 0, cap = 64, i = 0;
	char *buf = xmalloc(cap), *num;

	buf[0] = '\0';
	while (i < n) {
		size_t plen, plen2, j, k;
		unsigned long v, v2;
		int d, d2, width;

		if (i)
			append(&buf, &len, &cap, ",", 1);
		split_name(names[i], &plen, &v, &d);
		width = pad_width(names[i], plen, d);
		/* The group: following names with this prefix whose numbers print
		 * the same way (same padded width, or all unpadded). */
		for (j = i + 1; j < n; j++) {
			split_name(names[j], &plen2, &v2, &d2);
			if (!d || !d2 || plen2 != plen || memcmp(names[i], names[j], plen))
				break;
			if (width ? d2 != d : pad_width(names[j], plen2, d2) != 0)
				break;
		}
		if (j == i + 1) {
			append(&buf, &len, &cap, names[i], strlen(names[i]));
			i++;
			continue;
		}
		append(&buf, &len, &cap, names[i], plen);
		append(&buf, &len, &cap, "[", 1);
		for (k = i; k < j;) {
			size_t e = k + 1;
			unsigned long lo, hi, x;

			split_name(names[k], &plen2, &lo, &d2);
			hi = lo;
			while (e < j) {
				split_name(names[e], &plen2, &x, &d2);
				if (x != hi + 1)
					break;
				hi = x;
				e++;
			}
			if (k > i)
				append(&buf, &len, &cap, ",", 1);
			num = hi > lo ? xasprintf("%0*lu-%0*lu", width, lo, width, hi)
				      : xasprintf("%0*lu", width, lo);
			append(&buf, &len, &cap, num, strlen(num));
			free(num);
			k = e;
		}
		append(&buf, &len, &cap, "]", 1);
		i = j;
	}
	return buf;
}
