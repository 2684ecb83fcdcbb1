/*
 * kernels/transport_rma.c: the "rma" backend, MPI-3 one-sided over a window
 * from MPI_Win_allocate, under one MPI_Win_lock_all epoch for the whole run.
 * Reads and writes are request-based (MPI_Rget/MPI_Rput); wait() completes
 * them by testing with short sleeps in between (an idle rank must not take
 * a core from the ranks doing the work), then flushes when anything was
 * written, so written data is in the target's memory when it returns.
 */
#include "transport.h"

#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct rma {
	struct transport t;	/* first: the registry hands out &rma->t */
	MPI_Win win;
	int have_win, locked;
	MPI_Request *reqs;
	size_t nreq, alloc;
	int wrote;		/* a write since the last wait: flush */
};

/* One MPI operation carries at most this many bytes (counts are int). */
#define RMA_CHUNK ((size_t)1 << 30)

static int rma_fail(struct rma *r, const char *what, int peer, int rc)
{
	char msg[MPI_MAX_ERROR_STRING];
	int len = 0;

	MPI_Error_string(rc, msg, &len);
	if (peer >= 0)
		fprintf(stderr, "sweetspot-kernel: rank %d: rma %s with rank %d: %s\n",
			r->t.rank, what, peer, msg);
	else
		fprintf(stderr, "sweetspot-kernel: rank %d: rma %s: %s\n", r->t.rank, what, msg);
	return -1;
}

static int rma_init(struct transport *t, const struct transport_cfg *cfg, MPI_Comm comm)
{
	struct rma *r = (struct rma *)t;
	MPI_Info info;
	int rc;

	t->comm = comm;
	MPI_Comm_rank(comm, &t->rank);
	MPI_Comm_size(comm, &t->size);
	t->bytes = cfg->bytes;
	t->device[0] = '\0';
	MPI_Info_create(&info);
	MPI_Info_set(info, "accumulate_ordering", "none");
	MPI_Info_set(info, "same_disp_unit", "true");
	rc = MPI_Win_allocate((MPI_Aint)cfg->bytes, 1, info, comm, &t->base, &r->win);
	MPI_Info_free(&info);
	if (rc != MPI_SUCCESS)
		return rma_fail(r, "MPI_Win_allocate", -1, rc);
	r->have_win = 1;
	MPI_Win_set_errhandler(r->win, MPI_ERRORS_RETURN);
	rc = MPI_Win_lock_all(MPI_MODE_NOCHECK, r->win);
	if (rc != MPI_SUCCESS)
		return rma_fail(r, "MPI_Win_lock_all", -1, rc);
	r->locked = 1;
	return 0;
}

static MPI_Request *rma_slot(struct rma *r)
{
	if (r->nreq == r->alloc) {
		r->alloc = r->alloc ? 2 * r->alloc : 64;
		r->reqs = realloc(r->reqs, r->alloc * sizeof(*r->reqs));
		if (!r->reqs)
			abort();
	}
	return &r->reqs[r->nreq++];
}

static int rma_read(struct transport *t, int peer, size_t roff, size_t loff, size_t len)
{
	struct rma *r = (struct rma *)t;

	for (size_t done = 0; done < len; done += RMA_CHUNK) {
		int n = (int)(len - done < RMA_CHUNK ? len - done : RMA_CHUNK);
		int rc = MPI_Rget((char *)t->base + loff + done, n, MPI_BYTE, peer,
				  (MPI_Aint)(roff + done), n, MPI_BYTE, r->win, rma_slot(r));

		if (rc != MPI_SUCCESS) {
			r->nreq--;
			return rma_fail(r, "MPI_Rget", peer, rc);
		}
	}
	return 0;
}

static int rma_write(struct transport *t, int peer, size_t loff, size_t roff, size_t len)
{
	struct rma *r = (struct rma *)t;

	for (size_t done = 0; done < len; done += RMA_CHUNK) {
		int n = (int)(len - done < RMA_CHUNK ? len - done : RMA_CHUNK);
		int rc = MPI_Rput((char *)t->base + loff + done, n, MPI_BYTE, peer,
				  (MPI_Aint)(roff + done), n, MPI_BYTE, r->win, rma_slot(r));

		if (rc != MPI_SUCCESS) {
			r->nreq--;
			return rma_fail(r, "MPI_Rput", peer, rc);
		}
	}
	r->wrote = 1;
	return 0;
}

static int rma_wait(struct transport *t)
{
	struct rma *r = (struct rma *)t;
	struct timespec nap = { 0, 2000 };
	int flag = 0, rc;

	for (int round = 0; r->nreq; round++) {
		rc = MPI_Testall((int)r->nreq, r->reqs, &flag, MPI_STATUSES_IGNORE);
		if (rc != MPI_SUCCESS) {
			r->nreq = 0;
			return rma_fail(r, "completing reads/writes", -1, rc);
		}
		if (flag)
			break;
		/* A few yields for short transfers, then real sleeps. */
		if (round < 16)
			sched_yield();
		else
			nanosleep(&nap, NULL);
	}
	r->nreq = 0;
	if (r->wrote) {
		r->wrote = 0;
		rc = MPI_Win_flush_all(r->win);
		if (rc != MPI_SUCCESS)
			return rma_fail(r, "MPI_Win_flush_all", -1, rc);
	}
	return 0;
}

static int rma_sync(struct transport *t)
{
	struct rma *r = (struct rma *)t;
	int rc = MPI_Win_sync(r->win);

	return rc == MPI_SUCCESS ? 0 : rma_fail(r, "MPI_Win_sync", -1, rc);
}

static int rma_fini(struct transport *t)
{
	struct rma *r = (struct rma *)t;
	int ret = 0, rc;

	if (r->locked) {
		rc = MPI_Win_unlock_all(r->win);
		if (rc != MPI_SUCCESS)
			ret = rma_fail(r, "MPI_Win_unlock_all", -1, rc);
		r->locked = 0;
	}
	if (r->have_win) {
		rc = MPI_Win_free(&r->win);
		if (rc != MPI_SUCCESS && !ret)
			ret = rma_fail(r, "MPI_Win_free", -1, rc);
		r->have_win = 0;
	}
	free(r->reqs);
	r->reqs = NULL;
	r->nreq = r->alloc = 0;
	t->base = NULL;
	return ret;
}

static const struct transport_ops rma_ops = {
	.name = "rma",
	.init = rma_init,
	.read = rma_read,
	.write = rma_write,
	.wait = rma_wait,
	.sync = rma_sync,
	.fini = rma_fini,
};

struct transport *transport_rma_new(void)
{
	struct rma *r = calloc(1, sizeof(*r));

	if (!r)
		abort();
	r->t.ops = &rma_ops;
	return &r->t;
}
