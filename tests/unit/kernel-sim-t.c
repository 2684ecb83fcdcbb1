/* tests/unit/kernel-sim-t.c: the schedules of all ranks of a point run
 * together in memory, without MPI, for every collective x algorithm x
 * assignment, W = 1..9 with H = W .. W + 3, several sizes, chunks and
 * windows; knomial at every radix 2..8 (3..8 at one size, two chunks). The happens-before order
 * of the run is each rank's dependencies plus signal -> wait edges; it must
 * have no cycle (no deadlock), every wait must have its signal, every read
 * must come after the write of what it reads (or read a source's input),
 * every write must come after the reads and writes before it of the same
 * bytes, and every destination byte must be written exactly once. Then
 * the data is checked as the kernel checks it, and a byte corrupted in
 * the first write to a host (the kernel's flip-byte fault) must be caught,
 * for every reduction op x dtype x algorithm. */
#include "tap.h"
#include "../../kernels/sched/schedule.c"
#include "../../kernels/sched/coll.c"
#include "../../kernels/sched/coll_bcast.c"
#include "../../kernels/sched/coll_gather.c"
#include "../../kernels/sched/coll_allgather.c"
#include "../../kernels/sched/coll_reduce.c"
#include "../../kernels/sched/reduce.c"
#include "../../kernels/sched/assign.c"
#include "../../kernels/sched/validate.c"

#define SEQ 77

struct loc {
	int writer; /* global op id of the last write, -1: none */
	int nwrites;
	int *readers; /* reads since that write */
	int nreaders, areaders;
};

/* Test-only: changes rank r's built schedule, to show the checks fail. */
static void (*mutate)(struct sched *p, int r);

struct sim {
	const struct coll_geom *g;
	int N, nops, ref;
	size_t bytes; /* per rank region */
	struct coll_rank *cr;
	int *base;	    /* global id of rank r's op 0 */
	unsigned char *mem; /* N regions */
	struct loc *locs;   /* N x bytes (flags excluded) */
	uint64_t *anc;	    /* nops x words: ancestors bitsets */
	size_t words;
	char why[256];
};

static const struct sched *sched_of(const struct sim *s, int r)
{
	return s->ref ? &s->cr[r].ref : &s->cr[r].off;
}

static int is_anc(const struct sim *s, int a, int b) /* a happens before b */
{
	return a == b || (s->anc[(size_t)b * s->words + (size_t)a / 64] >> (a % 64) & 1);
}

static int fail(struct sim *s, const char *fmt, int a, int b)
{
	if (!*s->why)
		snprintf(s->why, sizeof(s->why), fmt, a, b);
	return -1;
}

/* Records a read of [off, +len) of rank r by op id. */
static int access_read(struct sim *s, int r, size_t off, size_t len, int id)
{
	for (size_t b = off; b < off + len; b++) {
		struct loc *l = &s->locs[(size_t)r * s->bytes + b];

		if (l->writer < 0 && !(r < s->g->H && b < coll_send_bytes(s->g)))
			return fail(s, "op %d reads byte %d nobody wrote", id, (int)b);
		if (l->writer >= 0 && !is_anc(s, l->writer, id))
			return fail(s, "op %d reads what op %d writes, unordered", id, l->writer);
		if (l->nreaders == l->areaders) {
			l->areaders = l->areaders ? 2 * l->areaders : 4;
			l->readers = realloc(l->readers, (size_t)l->areaders * sizeof(int));
		}
		l->readers[l->nreaders++] = id;
	}
	return 0;
}

static int access_write(struct sim *s, int r, size_t off, size_t len, int id)
{
	for (size_t b = off; b < off + len; b++) {
		struct loc *l = &s->locs[(size_t)r * s->bytes + b];

		if (l->writer >= 0 && !is_anc(s, l->writer, id))
			return fail(s, "op %d and op %d write the same byte, unordered", id,
				    l->writer);
		for (int i = 0; i < l->nreaders; i++)
			if (!is_anc(s, l->readers[i], id))
				return fail(s, "op %d overwrites what op %d reads, unordered", id,
					    l->readers[i]);
		l->writer = id;
		l->nwrites++;
		l->nreaders = 0;
	}
	return 0;
}

/* The signal a wait of rank r waits for: its global id, or -1. */
static int signal_of(const struct sim *s, int r, const struct op *w)
{
	const struct sched *p = sched_of(s, w->peer);

	for (size_t i = 0; i < p->n; i++)
		if (p->ops[i].kind == OP_SIGNAL && p->ops[i].peer == r && p->ops[i].tag == w->tag &&
		    p->ops[i].count == w->count)
			return s->base[w->peer] + (int)i;
	return -1;
}

/* Predecessors of global op id: its deps, and for a wait its signal. */
static int preds(const struct sim *s, int r, size_t i, int *out)
{
	const struct sched *p = sched_of(s, r);
	const struct op *op = &p->ops[i];
	int n = 0;

	for (size_t d = 0; d < op->ndeps; d++)
		out[n++] = s->base[r] + (int)p->deps[op->dep0 + d];
	if (op->kind == OP_WAIT_FLAG)
		out[n++] = signal_of(s, r, op);
	return n;
}

/* Runs op i of rank r on the memories, checking its accesses. */
static int exec_op(struct sim *s, int r, size_t i, int corrupt)
{
	const struct op *op = &sched_of(s, r)->ops[i];
	unsigned char *me = s->mem + (size_t)r * s->bytes,
		      *peer = s->mem + (size_t)op->peer * s->bytes;
	int id = s->base[r] + (int)i;

	switch (op->kind) {
	case OP_READ:
		if (access_read(s, op->peer, op->roff, op->len, id) ||
		    access_write(s, r, op->loff, op->len, id))
			return -1;
		memcpy(me + op->loff, peer + op->roff, op->len);
		return 0;
	case OP_WRITE:
		if (access_read(s, r, op->loff, op->len, id) ||
		    access_write(s, op->peer, op->roff, op->len, id))
			return -1;
		memcpy(peer + op->roff, me + op->loff, op->len);
		if (corrupt)
			peer[op->roff + op->len / 2] ^= 0x5a;
		return 0;
	case OP_COPY:
		if (access_read(s, r, op->loff, op->len, id) ||
		    access_write(s, r, op->roff, op->len, id))
			return -1;
		memcpy(me + op->roff, me + op->loff, op->len);
		return 0;
	case OP_REDUCE:
		if (access_read(s, r, op->loff, op->len, id) ||
		    access_read(s, r, op->roff, op->len, id) ||
		    access_write(s, r, op->roff, op->len, id))
			return -1;
		reduce_apply(s->g->dt, s->g->op, me + op->roff, me + op->loff,
			     op->len / dtype_size(s->g->dt));
		return 0;
	default:
		return 0;
	}
}

/* Kahn's order over all ranks' ops, ancestors along it, and the run. */
static int run_all(struct sim *s, int fault_rank)
{
	int N = s->nops, *left = calloc((size_t)N, sizeof(int)),
	    *order = malloc((size_t)N * sizeof(int));
	int *rank_of = malloc((size_t)N * sizeof(int)), *p0 = calloc((size_t)N + 1, sizeof(int));
	int *s0 = calloc((size_t)N + 1, sizeof(int)), *pv, *sv,
	    *fill = calloc((size_t)N, sizeof(int));
	int head = 0, tail = 0, ret = 0, fault_op = -1, np = 0;

	for (int r = 0; r < s->N; r++)
		np += (int)sched_of(s, r)->ndeps;
	pv = malloc(((size_t)np + (size_t)N + 1) * sizeof(int));
	np = 0;
	for (int r = 0; r < s->N; r++)
		for (size_t i = 0; i < sched_of(s, r)->n; i++) {
			int id = s->base[r] + (int)i;

			rank_of[id] = r;
			p0[id] = np;
			np += preds(s, r, i, pv + np);
		}
	p0[N] = np;
	sv = malloc(((size_t)np + 1) * sizeof(int));
	for (int k = 0; k < np && !ret; k++)
		if (pv[k] < 0)
			ret = fail(s, "a wait (one of %d preds, %d) has no signal", np, k);
		else
			s0[pv[k] + 1]++;
	for (int id = 0; id < N; id++)
		s0[id + 1] += s0[id];
	for (int id = 0; id < N && !ret; id++) {
		left[id] = p0[id + 1] - p0[id];
		for (int k = p0[id]; k < p0[id + 1]; k++)
			sv[s0[pv[k]] + fill[pv[k]]++] = id;
		if (!left[id])
			order[tail++] = id;
	}
	if (fault_rank >= 0)
		fault_op = s->base[fault_rank] + coll_fault_write(s->g, sched_of(s, fault_rank));
	while (!ret && head < tail) {
		int id = order[head++], r = rank_of[id];

		for (int k = p0[id]; k < p0[id + 1]; k++) {
			for (size_t w = 0; w < s->words; w++)
				s->anc[(size_t)id * s->words + w] |=
					s->anc[(size_t)pv[k] * s->words + w];
			s->anc[(size_t)id * s->words + (size_t)pv[k] / 64] |= 1ull << (pv[k] % 64);
		}
		if (exec_op(s, r, (size_t)(id - s->base[r]), id == fault_op))
			ret = -1;
		for (int k = s0[id]; k < s0[id + 1]; k++)
			if (--left[sv[k]] == 0)
				order[tail++] = sv[k];
	}
	if (!ret && tail < N)
		ret = fail(s, "deadlock: %d of %d ops can run", tail, N);
	free(left);
	free(order);
	free(rank_of);
	free(p0);
	free(s0);
	free(pv);
	free(sv);
	free(fill);
	return ret;
}

/* A barrier: a host goes on when all its operations are complete, and an
 * operation of every other host (which it runs only once it has arrived)
 * comes before one of them. 0, or -1 with why. */
static int check_barrier(struct sim *s)
{
	for (int i = 0; i < s->g->H; i++)
		for (int j = 0; j < s->g->H && s->base[i + 1] > s->base[i]; j++) {
			int seen = j == i || s->base[j + 1] == s->base[j];

			for (int a = s->base[j]; a < s->base[j + 1] && !seen; a++)
				for (int b = s->base[i]; b < s->base[i + 1] && !seen; b++)
					seen = is_anc(s, a, b);
			if (!seen)
				return fail(s, "host %d goes on before host %d arrives", i, j);
		}
	return 0;
}

/* Every expectation checked as the kernel does: 0, or -1 with why. */
static int check_data(struct sim *s)
{
	for (int r = 0; r < s->N; r++)
		for (size_t i = 0; i < s->cr[r].exp.n; i++) {
			const struct block *b = &s->cr[r].exp.b[i];
			const unsigned char *p = s->mem + (size_t)r * s->bytes + b->off;
			long long bad = block_check(p, b, s->g, SEQ);

			if (bad >= 0)
				return fail(s, "rank %d: wrong byte at %d", r,
					    (int)(b->off + (size_t)bad));
			for (size_t o = b->off; o < b->off + b->len; o++)
				if (s->locs[(size_t)r * s->bytes + o].nwrites != 1)
					return fail(s, "rank %d: byte %d not written exactly once",
						    r, (int)o);
		}
	return 0;
}

/* One phase (ref or offloaded) of point g: 0 when it is sound and valid
 * (fault_rank < 0), or when the fault is caught (fault_rank >= 0). */
static int simulate(const struct coll_geom *g, int ref, int fault_rank, char *why, size_t len)
{
	struct sim s = { .g = g, .N = g->H + g->W, .ref = ref };
	int ret = -1, built = 0;

	s.bytes = g->F;
	s.cr = calloc((size_t)s.N, sizeof(*s.cr));
	s.base = calloc((size_t)s.N + 1, sizeof(int));
	for (int r = 0; r < s.N; r++, built++) {
		if (coll_build(g, r, &s.cr[r])) {
			snprintf(s.why, sizeof(s.why), "rank %d: cannot build", r);
			goto out;
		}
		if (mutate)
			mutate((struct sched *)sched_of(&s, r), r);
		s.base[r + 1] = s.base[r] + (int)sched_of(&s, r)->n;
	}
	s.nops = s.base[s.N];
	s.words = ((size_t)s.nops + 63) / 64;
	s.anc = calloc((size_t)s.nops * s.words + 1, sizeof(uint64_t));
	s.mem = calloc((size_t)s.N * s.bytes, 1);
	s.locs = calloc((size_t)s.N * s.bytes, sizeof(*s.locs));
	for (size_t l = 0; l < (size_t)s.N * s.bytes; l++)
		s.locs[l].writer = -1;
	for (int h = 0; h < g->H; h++)
		if (coll_is_reduction(g->coll))
			reduce_fill(s.mem + (size_t)h * s.bytes, g->m, g->dt, g->op, g->H, h, SEQ);
		else
			pattern_fill(s.mem + (size_t)h * s.bytes, coll_send_bytes(g), h, SEQ);
	ret = run_all(&s, fault_rank);
	if (!ret)
		ret = check_data(&s);
	if (!ret && g->coll == COLL_BARRIER)
		ret = check_barrier(&s);
	if (fault_rank >= 0)
		ret = ret && strstr(s.why, "wrong byte") ? 0 : -1;
	for (size_t l = 0; s.locs && l < (size_t)s.N * s.bytes; l++)
		free(s.locs[l].readers);
	free(s.locs);
	free(s.mem);
	free(s.anc);
out:
	snprintf(why, len, "%s", s.why);
	for (int r = 0; r < built; r++)
		coll_rank_release(&s.cr[r]);
	free(s.cr);
	free(s.base);
	return ret;
}

/* The geometry of a point with H hosts (3 per node), W workers. */
static int radix = 2; /* knomial's, for geom() */

static void geom(struct coll_geom *g, int *owner, enum coll c, enum alg a, enum asg as, int H,
		 int W, size_t m, size_t chunk, int window, enum dtype dt, enum redop op)
{
	int hn[16], wn[16];
	struct sched_region rg;

	for (int h = 0; h < H; h++)
		hn[h] = h / 3;
	for (int w = 0; w < W; w++)
		wn[w] = w < (H + 2) / 3 ? w : -1;
	assign_hosts(as, H, W, hn, wn, owner);
	sched_region(H, W, m, SCHED_RECV_ALL | coll_region_all(c),
		     sched_scratch_bytes(H, W, m, chunk, window), &rg);
	*g = (struct coll_geom){ .coll = c,
				 .alg = a,
				 .H = H,
				 .W = W,
				 .m = m,
				 .S = rg.send,
				 .owner = owner,
				 .chunk = chunk,
				 .window = window,
				 .dt = dt,
				 .op = op,
				 .radix = radix,
				 .R = rg.scratch,
				 .F = rg.flags };
}

/* Worker 0 writes before it has reduced: its first write loses its deps. */
static void drop_write_deps(struct sched *p, int r)
{
	for (size_t i = 0; r == 5 && i < p->n; i++)
		if (p->ops[i].kind == OP_WRITE) {
			p->ops[i].ndeps = 0;
			return;
		}
}

/* The leader waits, last, for one signal more than its channel carries. */
static void wait_too_long(struct sched *p, int r)
{
	for (size_t i = p->n; r == 5 && i-- > 0;)
		if (p->ops[i].kind == OP_WAIT_FLAG) {
			p->ops[i].count++;
			return;
		}
}

/* Worker 1 writes its second block over its first at the root. */
static void write_twice(struct sched *p, int r)
{
	int seen = 0;

	for (size_t i = 0; r == 6 && i < p->n; i++)
		if (p->ops[i].kind == OP_WRITE && seen++)
			p->ops[i].roff -= p->ops[i].len;
}

/* A worker of the knomial broadcast forwards a chunk before it has it:
 * its first write to another worker loses its wait. */
static void forward_early(struct sched *p, int r)
{
	for (size_t i = 0; r == 6 && i < p->n; i++)
		if (p->ops[i].kind == OP_WRITE) {
			p->ops[i].ndeps = 0;
			return;
		}
}

/* recdbl's fold writes over what the partner reads: the stage buffer of
 * worker 0's first fold moved onto its partial. */
static void fold_in_place(struct sched *p, int r)
{
	for (size_t i = 0; r == 4 && i < p->n; i++)
		if (p->ops[i].kind == OP_READ && p->ops[i].peer == 5) {
			for (size_t j = i + 1; j < p->n; j++)
				if (p->ops[j].kind == OP_REDUCE &&
				    p->ops[j].roff == p->ops[i].loff) {
					p->ops[j].roff = p->ops[j].loff;
					p->ops[j].loff = p->ops[i].loff;
					return;
				}
		}
}

/* A worker (rank 6) refills a buffer its reader may still be reading: the
 * ops that waited for the reader's ack (tag 1) wait for its first op
 * instead. scan recdbl: worker 2 of 4, the buffer worker 3 read in round
 * 1; alltoall pairwise: worker 1 of 2, the send slot of its first step to
 * worker 0. */
static void skip_ack(struct sched *p, int r)
{
	for (size_t i = 0; r == 6 && i < p->n; i++)
		if (p->ops[i].kind == OP_WAIT_FLAG && p->ops[i].tag == 1)
			for (size_t j = i + 1; j < p->n; j++)
				for (size_t k = 0; k < p->ops[j].ndeps; k++)
					if (p->deps[p->ops[j].dep0 + k] == i)
						p->deps[p->ops[j].dep0 + k] = 0;
}

/* A mutated schedule must fail the checks with the reason expected. */
/* Worker 0 (rank 5 of 5 hosts) releases its first host without waiting
 * for the other worker. */
static void release_early(struct sched *p, int r)
{
	for (size_t i = 0; r == 5 && i < p->n; i++)
		if (p->ops[i].kind == OP_SIGNAL && p->ops[i].peer < 5) {
			p->ops[i].ndeps = 0;
			return;
		}
}

static int caught(void (*fn)(struct sched *, int), enum coll c, enum alg a, int ref,
		  const char *want)
{
	struct coll_geom g;
	int owner[16], ret;
	char why[256];

	geom(&g, owner, c, a, ASG_BLOCK, a == ALG_RECDBL ? 4 : 5,
	     c == COLL_BCAST && a == ALG_KNOMIAL ? 3 :
	     c == COLL_SCAN			 ? 4 :
						   2,
	     64, 16, 2, DT_INT32, RO_SUM);
	mutate = fn;
	ret = simulate(&g, ref, -1, why, sizeof(why));
	mutate = NULL;
	if (!ret || !strstr(why, want))
		diag("wanted '%s', got '%s'", want, why);
	return ret && strstr(why, want);
}

int main(void)
{
	static const size_t elems[] = { 1, 7, 23 }; /* per worker: a part, or less */
	static const size_t chunks[] = { 1, 12, 40, 1 << 20 };
	int owner[16];
	char why[256];

	plan(74);
	/* Under the sanitizers (make check runs the unit tests twice) the same
	 * checks on W = 1..5: the memory checks need the shapes, not all sizes. */
#if defined(__SANITIZE_ADDRESS__)
	const int wmax = 5;
#else
	const int wmax = 9;
#endif
	for (int c = 0; c < COLL_N; c++)
		for (int a = 0; a < ALG_N; a++)
			for (radix = 2; radix <= (a == ALG_KNOMIAL ? 8 : 2); radix++) {
				int bad = 0, n = 0;

				if (!alg_applies(c, a))
					continue;
				for (int W = 1; W <= wmax; W++)
					for (int H = W; H <= W + 3; H += H == W ? 1 : 2)
						for (int as = 0; as < ASG_N; as++)
							for (size_t e = 0; e < 3; e++)
								for (size_t k = 0; k < 4; k++)
									for (int win = 1; win <= 3;
									     win += 2) {
										struct coll_geom g;
										size_t es =
											coll_is_reduction(
												c) ?
												4 :
												1;
										size_t m =
											(elems[e] *
												 (size_t)W +
											 3) *
											es;

										if (!alg_is_pipelined(
											    c, a) &&
										    (k || win > 1))
											continue;
										/* Radix 3..8: one size, chunks of 1 and 40. */
										if (radix > 2 &&
										    (e != 1 ||
										     k % 2))
											continue;
										geom(&g, owner, c,
										     a, as, H, W, m,
										     chunks[k], win,
										     DT_INT32,
										     RO_SUM);
										for (int ref = 0;
										     ref < 2 &&
										     !bad;
										     ref++, n++)
											if (simulate(
												    &g,
												    ref,
												    -1,
												    why,
												    sizeof(why))) {
												bad = 1;
												diag("%s %s %s H=%d W=%d m=%zu chunk=%zu window=%d radix=%d %s: %s",
												     coll_names
													     [c],
												     alg_names
													     [a],
												     asg_names
													     [as],
												     H,
												     W,
												     m,
												     chunks[k],
												     win,
												     radix,
												     ref ? "ref" :
													   "off",
												     why);
											}
									}
				ok(!bad,
				   "%s %s%s%.0d: %d runs sound (ordered, once, no deadlock) and "
				   "valid",
				   coll_names[c], alg_names[a], a == ALG_KNOMIAL ? " radix " : "",
				   a == ALG_KNOMIAL ? radix : 0, n);
			}
	radix = 2;
	/* Every op x dtype x reduction's algorithm (scan and exscan: every
	 * prefix, against the sequential fold): valid, and a corrupted byte
	 * in the first write to a host is caught. */
	for (int c = 0; c < COLL_N; c++)
		for (int a = 0; a < ALG_N; a++) {
			int caught = 0, tried = 0;

			if (!coll_is_reduction(c) || !alg_applies(c, a))
				continue;

			for (int dt = 0; dt < DT_N; dt++)
				for (int op = 0; op < RO_N; op++) {
					struct coll_geom g;

					if (!redop_applies(dt, op))
						continue;
					geom(&g, owner, c, a, ASG_CYCLIC, 5, 2, 24 * dtype_size(dt),
					     16, 2, dt, op);
					tried++;
					if (simulate(&g, 0, -1, why, sizeof(why)))
						diag("%s %s %s %s: %s", coll_names[c], alg_names[a],
						     dtype_names[dt], redop_names[op], why);
					else if (!simulate(&g, 0, coll_fault_rank(&g), why,
							   sizeof(why)))
						caught++;
					else
						diag("%s %s %s %s: corruption not caught",
						     coll_names[c], alg_names[a], dtype_names[dt],
						     redop_names[op]);
				}
			ok(caught == tried && tried == 4 * 10 + 2 * 4,
			   "%s %s: valid and corruption caught, %d of %d op x dtype", coll_names[c],
			   alg_names[a], caught, tried);
		}
	ok(caught(drop_write_deps, COLL_ALLREDUCE, ALG_SLICE, 0, "unordered"),
	   "a write that does not wait for its reduce is found");
	ok(caught(wait_too_long, COLL_ALLGATHER, ALG_LEADER, 0, "has no signal"),
	   "a wait for a signal nobody sends is found");
	ok(caught(write_twice, COLL_GATHER, ALG_DIRECT, 0, "unordered"),
	   "two unordered writes of the same bytes are found");
	ok(caught(forward_early, COLL_BCAST, ALG_KNOMIAL, 0, "nobody wrote"),
	   "knomial: a worker forwarding a chunk before its signal is found");
	ok(caught(fold_in_place, COLL_ALLREDUCE, ALG_RECDBL, 0, "unordered"),
	   "recdbl: folding over what the partner reads is found");
	ok(caught(skip_ack, COLL_SCAN, ALG_RECDBL, 0, "unordered"),
	   "scan recdbl: refilling a buffer before its reader's ack is found");
	ok(caught(skip_ack, COLL_ALLTOALL, ALG_PAIRWISE, 0, "unordered"),
	   "alltoall pairwise: refilling a send slot before the receiver's ack is found");
	ok(caught(release_early, COLL_BARRIER, ALG_DISSEM, 0, "goes on before host"),
	   "barrier: a worker releasing its host before the others arrive is found");
	return done_testing();
}
