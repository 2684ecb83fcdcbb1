/*
 * kernels/sched/schedule.c: the containers of schedules and expectations, shared by
 * every builder, and the successor lists the executor walks.
 */
#include "schedule.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

static void *grow(void *p, size_t *alloc, size_t n, size_t size)
{
	if (n < *alloc)
		return p;
	*alloc = *alloc ? 2 * *alloc : 8;
	p = xrealloc(p, *alloc * size);
	return p;
}

size_t dtype_size(enum dtype dt)
{
	return dt == DT_INT64 || dt == DT_UINT64 || dt == DT_DOUBLE ? 8 : 4;
}

int sched_levels(int W)
{
	int n = 1;

	for (int p = 1; 2 * p <= W; p *= 2)
		n++;
	return n;
}

int sched_knomial_parent(int v, int K)
{
	int s = 1;

	while ((v / s) % K == 0)
		s *= K;
	return v - (v / s) % K * s;
}

int sched_knomial_children(int v, int n, int K, int *out)
{
	int lim = n, top = 1, cnt = 0;

	/* v's children hang at the strides below its lowest nonzero digit. */
	if (v) {
		lim = 1;
		while ((v / lim) % K == 0)
			lim *= K;
	}
	while (top * K < lim)
		top *= K;
	for (int s = top; s >= 1 && s < lim; s /= K)
		for (int j = 1; j < K; j++)
			if (v + j * s < n)
				out[cnt++] = v + j * s;
	return cnt;
}

size_t sched_scratch_bytes(int H, int W, size_t m, size_t chunk, int window)
{
	size_t cs = chunk < m ? chunk : m, am = (m + 63) & ~(size_t)63;

	if (cs < 8)
		cs = 8;
	/* coll_reduce.c: the result (m, 64-aligned), recdbl's stage buffers,
	 * then window slots of one buffer per host and one per worker, each
	 * at most cs. */
	return am * (1 + (size_t)sched_levels(W)) + (size_t)window * ((size_t)H + (size_t)W) * cs +
	       64;
}

void sched_index_hosts(struct coll_geom *g, int *served0, int *served)
{
	for (int w = 0; w <= g->W; w++)
		served0[w] = 0;
	for (int h = 0; h < g->H; h++)
		if (g->owner[h] >= 0 && g->owner[h] < g->W)
			served0[g->owner[h] + 1]++;
	for (int w = 0; w < g->W; w++)
		served0[w + 1] += served0[w];
	/* Hosts in ascending order within each worker: fill front to back,
	 * counting with served0[w] itself, then shift it back. */
	for (int h = 0; h < g->H; h++)
		if (g->owner[h] >= 0 && g->owner[h] < g->W)
			served[served0[g->owner[h]]++] = h;
	for (int w = g->W; w > 0; w--)
		served0[w] = served0[w - 1];
	served0[0] = 0;
	g->served0 = served0;
	g->served = served;
}

int sched_next_host(const struct coll_geom *g, int w, int *pos)
{
	if (g->served) {
		int i = g->served0[w] + *pos;

		if (i >= g->served0[w + 1])
			return -1;
		(*pos)++;
		return g->served[i];
	}
	while (*pos < g->H) {
		int h = (*pos)++;

		if (g->owner[h] == w)
			return h;
	}
	return -1;
}

void sched_region(int H, int W, uint64_t m, unsigned all, uint64_t scratch_bytes,
		  struct sched_region *r)
{
	uint64_t recv = all & SCHED_RECV_ALL ? (uint64_t)H * m : m;

	r->send = all & SCHED_SEND_ALL ? (uint64_t)H * m : m;
	r->scratch = (r->send + recv + 63) & ~(uint64_t)63;
	r->flags = (r->scratch + scratch_bytes + 63) & ~(uint64_t)63;
	r->bytes = r->flags + SCHED_FLAG_BYTES(H + W);
}

int sched_add(struct sched *s, enum op_kind kind, int peer, size_t loff, size_t roff, size_t len)
{
	s->ops = grow(s->ops, &s->alloc, s->n, sizeof(*s->ops));
	s->ops[s->n] = (struct op){
		.kind = kind, .peer = peer, .loff = loff, .roff = roff, .len = len, .dep0 = s->ndeps
	};
	return (int)s->n++;
}

void sched_dep(struct sched *s, int op, int on)
{
	/* Dependencies are stored contiguously per op: only the last op may
	 * gain one, and only on an earlier op (so a schedule has no cycle). */
	if (on < 0)
		return;
	if (op < 0 || (size_t)op + 1 != s->n || on >= op)
		abort();
	s->deps = grow(s->deps, &s->dalloc, s->ndeps, sizeof(*s->deps));
	s->deps[s->ndeps++] = (size_t)on;
	s->ops[op].ndeps++;
}

static struct sched_chan *chan_of(struct sched *s, int peer, int tag)
{
	for (size_t i = 0; i < s->nchan; i++)
		if (s->chan[i].peer == peer && s->chan[i].tag == tag)
			return &s->chan[i];
	s->chan = grow(s->chan, &s->calloc_, s->nchan, sizeof(*s->chan));
	s->chan[s->nchan] = (struct sched_chan){ peer, tag, 0, -1 };
	return &s->chan[s->nchan++];
}

int sched_signal(struct sched *s, int peer, int tag)
{
	struct sched_chan *c = chan_of(s, peer, tag);
	int i = sched_add(s, OP_SIGNAL, peer, 0, 0, 0);

	s->ops[i].tag = tag;
	s->ops[i].count = ++c->count;
	sched_dep(s, i, c->last);
	c->last = i;
	return i;
}

int sched_wait_flag(struct sched *s, int peer, int tag)
{
	/* Waits use the channel table with a tag of their own (the signals'
	 * tags are non-negative): a rank may both send and receive on a tag. */
	struct sched_chan *c = chan_of(s, peer, -1 - tag);
	int i = sched_add(s, OP_WAIT_FLAG, peer, 0, 0, 0);

	s->ops[i].tag = tag;
	s->ops[i].count = ++c->count;
	return i;
}

int sched_join(struct sched *s, int self, int first)
{
	int jn = sched_add(s, OP_JOIN, self, 0, 0, 0);

	for (int i = first; i < jn; i++)
		sched_dep(s, jn, i);
	return jn;
}

void sched_finalize(struct sched *s)
{
	size_t *fill;

	free(s->succ0);
	free(s->succ);
	s->succ0 = xcalloc(s->n + 1, sizeof(*s->succ0));
	s->succ = xmalloc((s->ndeps ? s->ndeps : 1) * sizeof(*s->succ));
	fill = xcalloc(s->n + 1, sizeof(*fill));
	for (size_t d = 0; d < s->ndeps; d++)
		s->succ0[s->deps[d] + 1]++;
	for (size_t i = 0; i < s->n; i++)
		s->succ0[i + 1] += s->succ0[i];
	for (size_t i = 0; i < s->n; i++)
		for (size_t d = 0; d < s->ops[i].ndeps; d++) {
			size_t on = s->deps[s->ops[i].dep0 + d];

			s->succ[s->succ0[on] + fill[on]++] = i;
		}
	free(fill);
}

void sched_release(struct sched *s)
{
	free(s->ops);
	free(s->deps);
	free(s->succ0);
	free(s->succ);
	free(s->chan);
	memset(s, 0, sizeof(*s));
}

void expect_add(struct expect *e, size_t off, size_t len, int src)
{
	e->b = grow(e->b, &e->alloc, e->n, sizeof(*e->b));
	e->b[e->n++] = (struct block){ off, len, src, 0 };
}

void expect_add_from(struct expect *e, size_t off, size_t len, int src, size_t from)
{
	e->b = grow(e->b, &e->alloc, e->n, sizeof(*e->b));
	e->b[e->n++] = (struct block){ off, len, src, from };
}

void expect_add_prefix(struct expect *e, size_t off, size_t len, size_t base, int n)
{
	e->b = grow(e->b, &e->alloc, e->n, sizeof(*e->b));
	e->b[e->n++] = (struct block){ off, len, BLOCK_PREFIX(n), base };
}

void expect_add_reduced(struct expect *e, size_t off, size_t len, size_t base)
{
	e->b = grow(e->b, &e->alloc, e->n, sizeof(*e->b));
	e->b[e->n++] = (struct block){ off, len, BLOCK_REDUCED, base };
}

void coll_rank_release(struct coll_rank *cr)
{
	sched_release(&cr->ref);
	sched_release(&cr->off);
	free(cr->exp.b);
	memset(cr, 0, sizeof(*cr));
}

void sched_part(size_t count, int n, int p, size_t *lo, size_t *hi)
{
	size_t q = count / (size_t)n, r = count % (size_t)n, up = (size_t)p;

	*lo = up * q + (up < r ? up : r);
	*hi = *lo + q + (up < r);
}
