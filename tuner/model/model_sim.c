/*
 * tuner/model/model_sim.c: the event simulation of one phase (model.h). Every
 * active rank runs the kernel's executor (kernels/harness.c sched_exec) on
 * its own schedule, one action at a time, the rank with the earliest clock
 * first, so that shared resources are reserved in simulated-time order:
 *   1. post the next ready remote operation (read, write, signal);
 *   2. else run the next ready local one (copy, reduce);
 *   3. else take every flag whose signal has landed;
 *   4. else wait for everything posted (the transport's one wait);
 *   5. else sleep until the first awaited signal lands (or block).
 * Signals land at the peer when their write completes; a rank blocked on a
 * flag is woken then. Ranks whose clocks are equal go by their place on
 * their node (host ranks, then workers), then by node: every node in the
 * same order, so that on a machine whose nodes all do the same thing (one
 * node on), every node sees the same history.
 *
 * Classes (model_sim_classes): where the schedules of every node are those
 * of node 0 shifted by whole nodes, the ranks of node 0 stand for their
 * class, one rank per node. Node 0's ranks are simulated alone; what they
 * do to another node's NIC or bus, the same rank of another node does to
 * node 0's at the same moment, so every node's resources fold onto node
 * 0's, and a signal to a rank of node d lands at the same rank of node 0,
 * from the sender's class member d nodes back. Same-class ranks never
 * reserve one resource at one moment (each reserves its own node's and a
 * peer node's, a post moves the clock by o > 0), so the folded history is
 * the full one, operation for operation.
 */
#include "model.h"
#include "error.h"
#include "xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const model_path_names[PATH_N] = { "shm", "net", "pcie" };

int model_rank_node(const struct model_machine *mc, int r, int *on_dpu)
{
	int H = mc->nodes * mc->ppn;

	if (r < H) {
		*on_dpu = 0;
		return r / mc->ppn;
	}
	*on_dpu = mc->dpu;
	return (r - H) / mc->wpn;
}

/* Signals that landed at one rank, per (sender, tag): arrival by count. */
struct chan {
	int sender, tag;
	double *at; /* at[count-1]; NAN: not yet */
	size_t n;
};

struct rank {
	const struct sched *s;
	int id, slot; /* rank, and place on its node (hosts, then workers) */
	double t;
	uint32_t *left;
	size_t *rq, *lq, *fq; /* ready remote, local, flag-wait ops */
	size_t rh, rt, lh, lt, fn;
	double *posted; /* completion times of posted ops */
	size_t *pid, np;
	size_t done;
	int node, dpu, blocked;
	double f;
	double cpu; /* CPU work done, unstretched */
	double ran; /* CPU work done, t0 too: the part of a slice used */
	struct chan *ch;
	size_t nch;
};

struct sim {
	const struct model_params *p;
	const struct model_machine *mc;
	struct rank *rk;
	int N;
	double *bus;	   /* per node x 2 sides: memory bus free at */
	double *tx, *rx;   /* per node: NIC directions free at */
	double *ptx, *prx; /* per node: PCIe host->DPU, DPU->host free at */
	int *heap, nheap;  /* running ranks by clock */
	int fold;	   /* classes: node 0's ranks only (rk by slot) */
	size_t ops;
};

static int heap_less(const struct sim *s, int a, int b)
{
	const struct rank *x = &s->rk[s->heap[a]], *y = &s->rk[s->heap[b]];

	if (x->t != y->t)
		return x->t < y->t;
	if (x->slot != y->slot)
		return x->slot < y->slot;
	return x->node < y->node;
}

static int slot_of(const struct model_machine *mc, int r)
{
	int H = mc->nodes * mc->ppn;

	return r < H ? r % mc->ppn : mc->ppn + (r - H) % mc->wpn;
}

int model_rank_shift(const struct model_machine *mc, int r, int by)
{
	int H = mc->nodes * mc->ppn, n = mc->nodes, dpu, node = model_rank_node(mc, r, &dpu);
	int k = ((node + by) % n + n) % n;

	return r < H ? k * mc->ppn + r % mc->ppn : H + k * mc->wpn + (r - H) % mc->wpn;
}

/* Where rank r's state lives: its own entry, or (classes) its slot's. */
static struct rank *rank_at(struct sim *s, int r)
{
	return &s->rk[s->fold ? slot_of(s->mc, r) : r];
}

static void heap_swap(struct sim *s, int a, int b)
{
	int x = s->heap[a];

	s->heap[a] = s->heap[b];
	s->heap[b] = x;
}

static void heap_push(struct sim *s, int r)
{
	int i = s->nheap++;

	s->heap[i] = r;
	while (i && heap_less(s, i, (i - 1) / 2)) {
		heap_swap(s, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static int heap_pop(struct sim *s)
{
	int top = s->heap[0], i = 0;

	s->heap[0] = s->heap[--s->nheap];
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;

		if (l < s->nheap && heap_less(s, l, m))
			m = l;
		if (r < s->nheap && heap_less(s, r, m))
			m = r;
		if (m == i)
			return top;
		heap_swap(s, i, m);
		i = m;
	}
}

static struct chan *chan_get(struct rank *k, int sender, int tag)
{
	for (size_t i = 0; i < k->nch; i++)
		if (k->ch[i].sender == sender && k->ch[i].tag == tag)
			return &k->ch[i];
	k->ch = xrealloc(k->ch, (k->nch + 1) * sizeof(*k->ch));
	k->ch[k->nch] = (struct chan){ sender, tag, NULL, 0 };
	return &k->ch[k->nch++];
}

static double arrival(struct rank *k, int sender, int tag, uint32_t count)
{
	struct chan *c = chan_get(k, sender, tag);

	return count <= c->n ? c->at[count - 1] : NAN;
}

static void land(struct sim *s, int to, int from, int tag, uint32_t count, double at)
{
	struct rank *k = rank_at(s, to);
	struct chan *c = chan_get(k, from, tag);

	if (count > c->n) {
		c->at = xrealloc(c->at, count * sizeof(*c->at));
		for (size_t i = c->n; i < count; i++)
			c->at[i] = NAN;
		c->n = count;
	}
	c->at[count - 1] = at;
	if (k->blocked) {
		k->blocked = 0;
		if (k->t < at + s->p->poll)
			k->t = at + s->p->poll;
		heap_push(s, (int)(k - s->rk));
	}
}

static void enqueue(struct rank *k, size_t i)
{
	enum op_kind kd = k->s->ops[i].kind;

	if (kd == OP_READ || kd == OP_WRITE || kd == OP_SIGNAL)
		k->rq[k->rt++] = i;
	else if (kd == OP_WAIT_FLAG)
		k->fq[k->fn++] = i;
	else
		k->lq[k->lt++] = i;
}

static void complete(struct rank *k, size_t i)
{
	const struct sched *s = k->s;

	k->done++;
	for (size_t j = s->succ0[i]; j < s->succ0[i + 1]; j++)
		if (--k->left[s->succ[j]] == 0)
			enqueue(k, s->succ[j]);
}

static enum model_path path_of(const struct sim *s, const struct rank *a, int peer)
{
	int dpu, node = model_rank_node(s->mc, peer, &dpu);

	if (node != a->node)
		return PATH_NET;
	return dpu == a->dpu ? PATH_SHM : PATH_PCIE;
}

static double later(double a, double b)
{
	return a > b ? a : b;
}

/* An asynchronous transfer of len bytes from node `from` to node `to`
 * (for pcie: toward the DPU or the host; for shm, with shm_rma: through
 * the memory bus of node src's host (0) or DPU (1) side) posted at t; its
 * completion. dpu_mem: the node whose DPU's memory the transfer passes
 * (a DPU worker's end), or -1. */
static double async_xfer(struct sim *s, enum model_path pk, int src, int dst, int toward_dpu,
			 int dpu_mem, size_t len, double g, double t)
{
	const struct model_link *lk = &s->p->path[pk];
	double *a = pk == PATH_NET ? &s->tx[src] :
		    pk == PATH_SHM ? &s->bus[2 * src + toward_dpu] :
		    toward_dpu	   ? &s->ptx[src] :
				     &s->prx[src];
	double *b = pk == PATH_NET ? &s->rx[dst] : a;
	double start = later(t, later(*a, *b)), busy = (double)len * lk->g_share;
	/* A DPU end's memory controllers (dpu_g_share > 0): shared by its
	 * cores, so by every transfer of its workers. */
	double *mem = dpu_mem >= 0 && s->p->dpu_g_share > 0 ? &s->bus[2 * dpu_mem + 1] : NULL;

	if (mem) {
		start = later(start, *mem);
		*mem = start + (double)len * s->p->dpu_g_share;
	}
	*a = *b = start + busy;
	return start + lk->L + (double)len * g;
}

/* The time CPU work `work` of rank k takes: unshared while the rank's work
 * in the phase is within the scheduler's slice, stretched by f beyond. */
static double cpu_run(const struct sim *s, struct rank *k, double work)
{
	double left = s->p->os_slice > k->ran ? s->p->os_slice - k->ran : 0;
	double whole = work < left ? work : left;

	k->ran += work;
	return whole + (work - whole) * k->f;
}

/* Posts remote op i of rank k: its completion time; moves the clock. */
static double post(struct sim *s, struct rank *k, size_t i)
{
	const struct op *op = &k->s->ops[i];
	size_t len = op->kind == OP_SIGNAL ? 8 : op->len;
	enum model_path pk = path_of(s, k, op->peer);
	const struct model_link *lk = &s->p->path[pk];
	double g = op->kind == OP_READ ? lk->g_read : lk->g_write, done;
	int pdpu, pnode = model_rank_node(s->mc, op->peer, &pdpu);
	/* Classes: the peer's node's resources are node 0's (k is on it). */
	int rnode = s->fold ? k->node : pnode;

	k->t += cpu_run(s, k, s->p->o);
	k->cpu += s->p->o;
	if (pk == PATH_SHM && !s->mc->shm_rma) {
		/* The rma transport copies it at once, with our CPU, through
		 * the node's memory bus. */
		double *bus = &s->bus[2 * k->node + k->dpu];
		double start = later(k->t, *bus);
		double gs = k->dpu && s->p->dpu_g_share > 0 ? s->p->dpu_g_share : lk->g_share;

		*bus = start + (double)len * gs;
		k->t = later(k->t + cpu_run(s, k, (double)len * g), *bus) + lk->L;
		k->cpu += (double)len * g;
		done = k->t;
	} else {
		int rd = op->kind == OP_READ;
		int src = rd ? rnode : k->node, dst = rd ? k->node : rnode;
		int toward_dpu = pk == PATH_SHM ? k->dpu : rd ? k->dpu : pdpu;

		int dpu_mem = k->dpu ? k->node : pdpu ? rnode : -1;

		done = async_xfer(s, pk, src, dst, toward_dpu, dpu_mem, len, g, k->t);
	}
	/* Classes: the peer's node is pnode - k->node on from ours; the same
	 * rank of node 0 hears it from our class member that far back. */
	if (op->kind == OP_SIGNAL)
		land(s, op->peer, s->fold ? model_rank_shift(s->mc, k->id, k->node - pnode) : k->id,
		     op->tag, op->count, done);
	return done;
}

/* One action of rank k (see the top of the file). */
static void step(struct sim *s, struct rank *k)
{
	const struct sched *sc = k->s;
	double next = INFINITY;

	if (k->rh < k->rt) {
		size_t i = k->rq[k->rh++];

		k->posted[k->np] = post(s, k, i);
		k->pid[k->np++] = i;
		return;
	}
	if (k->lh < k->lt) {
		const struct op *op = &sc->ops[k->lq[k->lh]];
		double g = op->kind == OP_REDUCE ? s->p->g_reduce :
			   op->kind == OP_COPY	 ? s->p->g_copy :
						   0;

		k->t += cpu_run(s, k, (double)op->len * g);
		k->cpu += (double)op->len * g;
		complete(k, k->lq[k->lh++]);
		return;
	}
	int took = 0;

	for (size_t q = 0; q < k->fn;) {
		const struct op *op = &sc->ops[k->fq[q]];
		double at = arrival(k, op->peer, op->tag, op->count);

		if (!isnan(at) && at <= k->t) {
			size_t i = k->fq[q];

			k->fq[q] = k->fq[--k->fn];
			complete(k, i);
			took = 1;
			continue;
		}
		if (!isnan(at) && at < next)
			next = at;
		q++;
	}
	if (took)
		return;
	if (k->np) {
		double last = k->t;

		for (size_t j = 0; j < k->np; j++)
			last = later(last, k->posted[j]);
		k->t = last;
		while (k->np)
			complete(k, k->pid[--k->np]);
		return;
	}
	if (k->fn && isfinite(next))
		k->t = later(k->t, next + s->p->poll);
	else if (k->fn)
		k->blocked = 1;
}

static void rank_init(struct sim *s, int i, int r, const struct sched *sc, double f)
{
	struct rank *k = &s->rk[i];
	size_t n = sc->n ? sc->n : 1;

	k->s = sc;
	k->id = r;
	k->slot = slot_of(s->mc, r);
	k->f = f;
	k->t = sc->n ? cpu_run(s, k, s->p->t0) : 0;
	k->node = model_rank_node(s->mc, r, &k->dpu);
	k->left = xmalloc(n * sizeof(*k->left));
	k->rq = xmalloc(3 * n * sizeof(*k->rq));
	k->lq = k->rq + n;
	k->fq = k->lq + n;
	k->posted = xmalloc(n * sizeof(*k->posted));
	k->pid = xmalloc(n * sizeof(*k->pid));
	for (size_t i = 0; i < sc->n; i++)
		if ((k->left[i] = (uint32_t)sc->ops[i].ndeps) == 0)
			enqueue(k, i);
	s->ops += sc->n;
}

static void sim_release(struct sim *s)
{
	for (int r = 0; r < s->N; r++) {
		struct rank *k = &s->rk[r];

		for (size_t c = 0; c < k->nch; c++)
			free(k->ch[c].at);
		free(k->ch);
		free(k->left);
		free(k->rq);
		free(k->posted);
		free(k->pid);
	}
	free(s->rk);
	free(s->bus); /* tx, rx, ptx, prx live in the same block */
	free(s->heap);
}

/* Simulates n ranks: ids[i] (NULL: i) with schedules cr[i], stretch f[i];
 * the resources of `nodes` nodes. */
static double simulate(struct sim *s, int n, const int *ids, const struct coll_rank *cr, int ref,
		       const double *f, int nodes, struct model_cpu *cpu, size_t *ops)
{
	int stuck = 0;
	double end = 0;

	s->N = n;
	s->rk = xcalloc((size_t)n, sizeof(*s->rk));
	s->heap = xmalloc((size_t)n * sizeof(*s->heap));
	s->bus = xcalloc(6 * (size_t)nodes, sizeof(double));
	s->tx = s->bus + 2 * nodes;
	s->rx = s->tx + nodes;
	s->ptx = s->rx + nodes;
	s->prx = s->ptx + nodes;
	for (int i = 0; i < n; i++) {
		rank_init(s, i, ids ? ids[i] : i, ref ? &cr[i].ref : &cr[i].off, f ? f[i] : 1);
		if (s->rk[i].s->n)
			heap_push(s, i);
	}
	while (s->nheap) {
		struct rank *k = &s->rk[heap_pop(s)];

		step(s, k);
		if (!k->blocked && k->done < k->s->n)
			heap_push(s, (int)(k - s->rk));
	}
	if (cpu)
		*cpu = (struct model_cpu){ 0, 0 };
	for (int i = 0; i < n; i++) {
		stuck |= s->rk[i].done < s->rk[i].s->n;
		end = later(end, s->rk[i].t);
		if (cpu) {
			cpu->total += s->rk[i].cpu;
			cpu->busiest = later(cpu->busiest, s->rk[i].cpu);
		}
	}
	if (ops)
		*ops += s->ops;
	sim_release(s);
	return stuck ? -1 : end;
}

double model_sim_phase(const struct model_params *p, const struct model_machine *mc,
		       const struct coll_rank *cr, int ref, const double *f, struct model_cpu *cpu,
		       size_t *ops)
{
	struct sim s = { .p = p, .mc = mc };

	return simulate(&s, mc->nodes * mc->ppn + mc->W, NULL, cr, ref, f, mc->nodes, cpu, ops);
}

int model_node_ranks(const struct model_machine *mc, int *ids)
{
	int H = mc->nodes * mc->ppn;

	for (int j = 0; j < mc->ppn; j++)
		ids[j] = j;
	for (int j = 0; j < mc->wpn && j < mc->W; j++)
		ids[mc->ppn + j] = H + j;
	return mc->ppn + (mc->wpn < mc->W ? mc->wpn : mc->W);
}

double model_sim_classes(const struct model_params *p, const struct model_machine *mc,
			 const struct coll_rank *cr, int ref, const double *f,
			 struct model_cpu *cpu, size_t *ops)
{
	struct sim s = { .p = p, .mc = mc, .fold = 1 };
	int *ids = xmalloc(((size_t)mc->ppn + (size_t)mc->wpn) * sizeof(int));
	int n = model_node_ranks(mc, ids);
	double t = simulate(&s, n, ids, cr, ref, f, 1, cpu, ops);

	free(ids);
	/* Every node's ranks did what node 0's did. */
	if (cpu)
		cpu->total *= mc->nodes;
	return t;
}
