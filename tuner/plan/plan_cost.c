/*
 * tuner/plan/plan_cost.c: what a point's schedule costs, counted rather than
 * modelled. The kernel's own builders (kernels/sched/) make every rank's
 * operations for the layout, exactly as a launch would run them, and this
 * file counts them: remote operations, bytes in and out of every rank and
 * every node's NIC, and the longest chain of transfers (a rank waiting on
 * another's signal continues that rank's chain). So the Thakur-Rabenseifner-
 * Gropp terms come out of what runs: direct bcast is 2 steps with W x m out
 * of the root, a k-nomial tree ceil(log_k W) rounds, and so on.
 */
#include "plan.h"

#include "assign.h"
#include "coll.h"
#include "parse.h"
#include "reduce.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

/* A signal on its channel, for matching waits to the signals they wait for. */
struct sig {
	int peer, tag;
	uint32_t count;
	size_t op;
};

static int cmp_sig(const void *a, const void *b)
{
	const struct sig *x = a, *y = b;

	if (x->peer != y->peer)
		return x->peer < y->peer ? -1 : 1;
	if (x->tag != y->tag)
		return x->tag < y->tag ? -1 : 1;
	return x->count < y->count ? -1 : x->count > y->count;
}

/* Every rank's signals, sorted by channel and count. */
struct sigs {
	struct sig *v;
	size_t n;
};

static void index_signals(const struct sched *s, struct sigs *out)
{
	out->v = xcalloc(s->n ? s->n : 1, sizeof(*out->v));
	out->n = 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->ops[i].kind == OP_SIGNAL)
			out->v[out->n++] = (struct sig){ s->ops[i].peer, s->ops[i].tag,
							 s->ops[i].count, i };
	qsort(out->v, out->n, sizeof(*out->v), cmp_sig);
}

/* The depth of the signal that a wait of rank r on (peer, tag, count)
 * completes on, 0 when there is none. */
static uint64_t signal_depth(const struct sigs *sg, uint64_t *const *depth, int r,
			     const struct op *w)
{
	struct sig key = { r, w->tag, w->count, 0 };
	const struct sig *hit = bsearch(&key, sg[w->peer].v, sg[w->peer].n, sizeof(key), cmp_sig);

	return hit ? depth[w->peer][hit->op] : 0;
}

/* The longest chain of transfers over all ranks: a transfer is one step
 * after everything it depends on; a signal adds none (it only announces
 * data), and a wait inherits its signal's depth. Dependencies across ranks
 * go either way, so passes repeat until nothing deepens. */
static uint64_t steps_of(const struct coll_rank *cr, int n)
{
	uint64_t **depth = xcalloc((size_t)n, sizeof(*depth)), steps = 0;
	struct sigs *sg = xcalloc((size_t)n, sizeof(*sg));
	int changed = 1;

	for (int r = 0; r < n; r++) {
		depth[r] = xcalloc(cr[r].off.n ? cr[r].off.n : 1, sizeof(**depth));
		index_signals(&cr[r].off, &sg[r]);
	}
	for (int pass = 0; changed && pass <= n + 1; pass++) {
		changed = 0;
		for (int r = 0; r < n; r++)
			for (size_t i = 0; i < cr[r].off.n; i++) {
				const struct sched *s = &cr[r].off;
				const struct op *o = &s->ops[i];
				uint64_t d = 0;

				for (size_t k = 0; k < o->ndeps; k++)
					if (depth[r][s->deps[o->dep0 + k]] > d)
						d = depth[r][s->deps[o->dep0 + k]];
				if (o->kind == OP_WAIT_FLAG && signal_depth(sg, depth, r, o) > d)
					d = signal_depth(sg, depth, r, o);
				d += o->kind == OP_READ || o->kind == OP_WRITE;
				if (d > depth[r][i]) {
					depth[r][i] = d;
					changed = 1;
				}
				if (d > steps)
					steps = d;
			}
	}
	for (int r = 0; r < n; r++) {
		free(depth[r]);
		free(sg[r].v);
	}
	free(depth);
	free(sg);
	return steps;
}

/* Adds len bytes from rank a to rank b to the ranks' and NICs' counts. */
static void count_transfer(const struct layout *l, int a, int b, uint64_t len, uint64_t *rank_tx,
			   uint64_t *rank_rx, uint64_t *nic_tx, uint64_t *nic_rx)
{
	unsigned na = layout_rank_node(l, (unsigned)a), nb = layout_rank_node(l, (unsigned)b);
	int dpu = l->placement == PLACEMENT_DPU &&
		  ((unsigned)a >= l->hosts || (unsigned)b >= l->hosts);

	rank_tx[a] += len;
	rank_rx[b] += len;
	/* Within a node, only a host-DPU transfer goes through the NIC. */
	if (na != nb || dpu) {
		nic_tx[na] += len;
		nic_rx[nb] += len;
	}
}

static void count_bytes(const struct layout *l, const struct coll_rank *cr, int n,
			struct plan_cost *out)
{
	uint64_t *rank_tx = xcalloc((size_t)n, sizeof(uint64_t));
	uint64_t *rank_rx = xcalloc((size_t)n, sizeof(uint64_t));
	uint64_t *nic_tx = xcalloc(l->nodes, sizeof(uint64_t));
	uint64_t *nic_rx = xcalloc(l->nodes, sizeof(uint64_t));

	for (int r = 0; r < n; r++)
		for (size_t i = 0; i < cr[r].off.n; i++) {
			const struct op *o = &cr[r].off.ops[i];

			if (o->kind == OP_READ)
				count_transfer(l, o->peer, r, o->len, rank_tx, rank_rx, nic_tx,
					       nic_rx);
			else if (o->kind == OP_WRITE)
				count_transfer(l, r, o->peer, o->len, rank_tx, rank_rx, nic_tx,
					       nic_rx);
			out->ops += o->kind == OP_READ || o->kind == OP_WRITE;
		}
	for (int r = 0; r < n; r++) {
		uint64_t b = rank_tx[r] > rank_rx[r] ? rank_tx[r] : rank_rx[r];

		if (b > out->rank_bytes)
			out->rank_bytes = b;
	}
	for (unsigned k = 0; k < l->nodes; k++) {
		uint64_t b = nic_tx[k] > nic_rx[k] ? nic_tx[k] : nic_rx[k];

		if (b > out->nic_bytes)
			out->nic_bytes = b;
	}
	free(rank_tx);
	free(rank_rx);
	free(nic_tx);
	free(nic_rx);
}

/* The geometry a launch of the layout gives pt: the kernel's enums by
 * name, the assignment worked out over the layout's nodes, the region's
 * offsets as the kernel lays them out (only their order matters here). */
static int geometry(const struct layout *l, const struct point *pt, int *owner, struct coll_geom *g)
{
	int c = parse_name(pt->collective, coll_names, COLL_N),
	    a = parse_name(pt->algorithm, alg_names, ALG_N);
	int asg = parse_name(pt->assignment, asg_names, ASG_N);
	int dt = pt->dtype ? parse_name(pt->dtype, dtype_names, DT_N) : DT_INT32;
	int op = pt->op ? parse_name(pt->op, redop_names, RO_N) : RO_SUM;
	int H = (int)l->hosts, W = (int)l->workers, ret;
	struct sched_region rg;
	int *hn = xcalloc((size_t)H, sizeof(int)), *wn = xcalloc((size_t)W, sizeof(int));

	if (c < 0 || a < 0 || asg < 0 || dt < 0 || op < 0 || !alg_applies(c, a)) {
		free(hn);
		free(wn);
		return -1;
	}
	for (int h = 0; h < H; h++)
		hn[h] = (int)layout_rank_node(l, (unsigned)h);
	for (int w = 0; w < W; w++)
		wn[w] = (int)layout_rank_node(l, (unsigned)(H + w));
	ret = assign_hosts((enum asg)asg, H, W, hn, wn, owner);
	free(hn);
	free(wn);
	*g = (struct coll_geom){ .coll = (enum coll)c,
				 .alg = (enum alg)a,
				 .H = H,
				 .W = W,
				 .m = pt->bytes,
				 .owner = owner,
				 .chunk = pt->chunk ? pt->chunk : COLL_DEFAULT_CHUNK,
				 .window = pt->window ? (int)pt->window : COLL_DEFAULT_WINDOW,
				 .dt = (enum dtype)dt,
				 .op = (enum redop)op,
				 .radix = pt->radix ? (int)pt->radix : COLL_DEFAULT_RADIX };
	sched_region(H, W, pt->bytes, SCHED_RECV_ALL | coll_region_all(g->coll),
		     sched_scratch_bytes(H, W, pt->bytes, g->chunk, g->window), &rg);
	g->S = rg.send;
	g->R = rg.scratch;
	g->F = rg.flags;
	return ret ? -1 : 0;
}

int plan_point_cost(const struct layout *l, const struct point *pt, struct plan_cost *out)
{
	int n = (int)layout_ranks(l), built = 0, ret = -1;
	int *owner = xcalloc(l->hosts, sizeof(int));
	struct coll_rank *cr = xcalloc((size_t)n, sizeof(*cr));
	struct coll_geom g;

	memset(out, 0, sizeof(*out));
	if (geometry(l, pt, owner, &g))
		goto out;
	for (built = 0; built < n; built++)
		if (coll_build(&g, built, &cr[built]))
			goto out;
	count_bytes(l, cr, n, out);
	out->steps = steps_of(cr, n);
	ret = 0;
out:
	for (int r = 0; r < built; r++)
		coll_rank_release(&cr[r]);
	free(cr);
	free(owner);
	return ret;
}
