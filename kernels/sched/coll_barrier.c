/*
 * kernels/sched/coll_barrier.c: the barrier. No host goes on before every
 * host has arrived. Reference: dissemination among the hosts (round d =
 * 1, 2, 4, ... < H: signal host h + d, wait for host h - d). Offloaded:
 * each host signals its worker on arrival, before its compute, and waits
 * for the worker's release after it (cr->entry splits its schedule); a
 * worker, once all its hosts have arrived,
 * synchronises with the other workers, then releases its hosts:
 *   dissem: dissemination among the workers, as the reference among hosts.
 *   knomial: a k-nomial tree of workers (radix g->radix, rooted at worker
 *     0): arrivals go up, the release comes down.
 * No data moves; the check is the schedules' order (kernel-sim-t: every
 * release follows every host's arrival).
 */
#include "schedule.h"
#include "xalloc.h"

#include <stdlib.h>

enum { TAG_ARRIVE, TAG_RELEASE, TAG_UP, TAG_DOWN };

/* Dissemination among n ranks base + 0 .. n-1 from rank me after op
 * after; returns the op that completes it. Round d's signal and wait both
 * follow round d/2's wait, so that what a rank passes on includes all it
 * has heard. */
static int dissemination(struct sched *s, int base, int n, int me, int after)
{
	for (int d = 1; d < n; d *= 2) {
		int sig = sched_signal(s, base + (me + d) % n, TAG_UP), wt;

		sched_dep(s, sig, after);
		wt = sched_wait_flag(s, base + (me - d + n) % n, TAG_UP);
		sched_dep(s, wt, after);
		after = wt;
	}
	return after;
}

/* The k-nomial tree among the workers from worker w, once its own hosts
 * have arrived (op after, or -1); returns the op after which w may
 * release its hosts. */
static int knomial(const struct coll_geom *g, struct sched *s, int w, int after)
{
	int H = g->H, *ch = xmalloc((size_t)(g->radix * 32 + g->W) * sizeof(int));
	int nch = sched_knomial_children(w, g->W, g->radix, ch), up = after;

	if (nch) {
		int first = (int)s->n;

		for (int i = 0; i < nch; i++)
			sched_wait_flag(s, H + ch[i], TAG_UP);
		up = sched_join(s, H + w, first);
		sched_dep(s, up, after);
	}
	if (w > 0) {
		int parent = H + sched_knomial_parent(w, g->radix);

		sched_dep(s, sched_signal(s, parent, TAG_UP), up);
		up = sched_wait_flag(s, parent, TAG_DOWN);
	}
	for (int i = 0; i < nch; i++)
		sched_dep(s, sched_signal(s, H + ch[i], TAG_DOWN), up);
	free(ch);
	return up;
}

static int build_barrier_worker(const struct coll_geom *g, int w, struct sched *s)
{
	int H = g->H, first = (int)s->n, arrived = -1, done;

	for (int pos = 0, h; (h = sched_next_host(g, w, &pos)) >= 0;)
		sched_wait_flag(s, h, TAG_ARRIVE);
	if ((int)s->n > first)
		arrived = sched_join(s, H + w, first);
	done = g->alg == ALG_KNOMIAL ? knomial(g, s, w, arrived) :
				       dissemination(s, H, g->W, w, arrived);
	for (int pos = 0, h; (h = sched_next_host(g, w, &pos)) >= 0;)
		sched_dep(s, sched_signal(s, h, TAG_RELEASE), done);
	return 0;
}

int coll_build_barrier(const struct coll_geom *g, int rank, struct coll_rank *cr)
{
	int H = g->H;

	if (rank < H) {
		dissemination(&cr->ref, 0, H, rank, -1);
		sched_signal(&cr->off, H + g->owner[rank], TAG_ARRIVE);
		cr->entry = 1; /* the arrival before the compute, the wait after */
		sched_wait_flag(&cr->off, H + g->owner[rank], TAG_RELEASE);
		return 0;
	}
	return build_barrier_worker(g, rank - H, &cr->off);
}
